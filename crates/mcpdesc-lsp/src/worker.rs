//! The validation thread. The message loop hands it the newest text of each document and
//! never waits for it; older texts of a document still queued are skipped, so a burst of
//! edits costs one validation of the last one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crossbeam_channel::{Receiver, Sender};
use lsp_types::Uri;
use mcpdesc_core::{Diagnostic, Document, Engine, Limits, Selection, Severity};

use super::links::RuleLinks;
use super::settings::{Settings, StartupOptions};
use super::text::Text;
use mcpdesc_project::config::{self, Config, Discovery};
use mcpdesc_project::engine::EngineError;
use mcpdesc_project::error_text::with_causes;
use mcpdesc_project::findings::Policy;
use mcpdesc_project::recognize;

/// What the loop asks of the worker.
pub(crate) enum Job {
    Check(CheckJob),
    /// Rule files or configuration changed: forget every engine and configuration.
    Reload,
}

pub(crate) struct CheckJob {
    pub uri: Uri,
    pub version: i32,
    pub text: Arc<Text>,
    /// The document's file, when it has one.
    pub path: Option<PathBuf>,
    /// The name whose extension picks the format (the file name, or one derived from the
    /// editor's language id).
    pub name: String,
}

/// The outcome of checking one version of one document.
pub(crate) struct Checked {
    pub uri: Uri,
    pub version: i32,
    pub text: Arc<Text>,
    pub findings: Vec<Diagnostic>,
    /// The parsed document, for hovers, actions and references; it owns a copy of the text,
    /// as it outlives the job that parsed it.
    pub doc: Option<Arc<Document<'static>>>,
    /// The engine that judged it and the release it chose.
    pub engine: Option<Arc<Engine>>,
    pub release: String,
    pub links: Arc<RuleLinks>,
    /// Why the rules could not be loaded, with the rule-file positions.
    pub rule_error: Option<RuleError>,
    /// What the editor is to be told once about the settings the document was checked with.
    pub warnings: Arc<[String]>,
    /// Directories whose changes call for a reload: rule directories and configuration.
    pub watch: Vec<PathBuf>,
    /// How long the check took.
    pub cost: std::time::Duration,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RuleError {
    pub message: String,
    /// `(file, line, column, message)` for each problem, the file resolved to a path.
    pub problems: Vec<(PathBuf, u32, u32, String)>,
}

/// Everything built from one combination of settings.
struct Built {
    engine: Arc<Engine>,
    selection: Selection,
    links: Arc<RuleLinks>,
    /// What the editor is told once about these settings: select and ignore patterns that
    /// match no rule.
    warnings: Arc<[String]>,
}

pub(crate) struct Worker {
    startup: Arc<StartupOptions>,
    discovery: Discovery,
    built: HashMap<Settings, Result<Built, RuleError>>,
}

/// Starts the worker; it ends when `jobs` is closed.
pub(crate) fn spawn(
    startup: Arc<StartupOptions>,
    jobs: Receiver<Job>,
    results: Sender<Checked>,
) -> std::thread::JoinHandle<()> {
    std::thread::Builder::new()
        .name("mcpdesc-validate".into())
        .spawn(move || {
            let mut worker = Worker {
                startup,
                discovery: Discovery::default(),
                built: HashMap::new(),
            };
            while let Ok(first) = jobs.recv() {
                // Take what else is queued; only the newest text of each document counts.
                let mut queue = vec![first];
                queue.extend(jobs.try_iter());
                let mut latest: Vec<CheckJob> = Vec::new();
                for job in queue {
                    match job {
                        Job::Reload => {
                            worker.discovery = Discovery::default();
                            worker.built.clear();
                        }
                        Job::Check(job) => {
                            latest.retain(|j| j.uri != job.uri);
                            latest.push(job);
                        }
                    }
                }
                for job in latest {
                    let started = std::time::Instant::now();
                    let (uri, version, text) = (job.uri.clone(), job.version, job.text.clone());
                    // A bug in one check must not end the session: the document says so and
                    // the next edit is checked afresh.
                    let outcome =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| worker.check(job)));
                    let mut checked = outcome.unwrap_or_else(|_| {
                        worker.built.clear();
                        Checked::failed(uri, version, text, "an internal error stopped the check of this document; please report it".into())
                    });
                    checked.cost = started.elapsed();
                    if results.send(checked).is_err() {
                        return;
                    }
                }
            }
        })
        .expect("spawn the validation thread")
}

impl Checked {
    /// A check that produced no findings because of `message`.
    fn failed(uri: Uri, version: i32, text: Arc<Text>, message: String) -> Checked {
        Checked {
            rule_error: Some(RuleError {
                message,
                problems: Vec::new(),
            }),
            ..Checked::empty(uri, version, text)
        }
    }

    fn empty(uri: Uri, version: i32, text: Arc<Text>) -> Checked {
        Checked {
            uri,
            version,
            text,
            findings: Vec::new(),
            doc: None,
            engine: None,
            release: String::new(),
            links: Arc::new(RuleLinks::default()),
            rule_error: None,
            warnings: Arc::from([]),
            watch: Vec::new(),
            cost: std::time::Duration::ZERO,
        }
    }
}

impl Worker {
    fn config_for(&mut self, path: Option<&Path>) -> Result<Option<Arc<Config>>, String> {
        if let Some(c) = &self.startup.config {
            return Ok(Some(c.clone()));
        }
        if self.startup.no_config {
            return Ok(None);
        }
        let dir = match path.and_then(Path::parent) {
            Some(d) => config::absolute(d),
            None => match &self.startup.root {
                Some(root) => root.clone(),
                None => return Ok(None),
            },
        };
        self.discovery.for_dir(&dir).map_err(|e| with_causes(&e))
    }

    fn check(&mut self, job: CheckJob) -> Checked {
        let mut checked = Checked::empty(job.uri.clone(), job.version, job.text.clone());
        let config = match self.config_for(job.path.as_deref()) {
            Ok(c) => c,
            Err(message) => {
                checked.rule_error = Some(RuleError {
                    message,
                    problems: Vec::new(),
                });
                return checked;
            }
        };
        let settings = Settings::merge(&self.startup, config.as_deref());
        checked.watch = settings.rules.clone();
        if let Some(c) = &config {
            checked.watch.push(c.dir.clone());
        }
        let built = self
            .built
            .entry(settings.clone())
            .or_insert_with(|| build(&settings, &self.startup.limits));
        let built = match built {
            Ok(b) => b,
            Err(e) => {
                checked.rule_error = Some(e.clone());
                return checked;
            }
        };
        let engine = built.engine.clone();
        checked.warnings = built.warnings.clone();
        let format = settings.kind.format(&job.name);
        job.text.read_as(format);
        let text = job.text.as_str();
        let parsed = Document::parse_str(text, format, engine.limits());
        let (mut findings, doc, release) = match parsed {
            Ok(doc) if !recognize::is_ours(&engine, &doc, &job.name) => {
                // Editors attach the server to every JSON or YAML file; only descriptions
                // and captures are judged.
                checked.engine = Some(engine);
                return checked;
            }
            Ok(doc) => {
                let report = engine.validate_document(&doc);
                (
                    report.diagnostics,
                    Some(Arc::new(doc.into_owned())),
                    report.release,
                )
            }
            Err(_) if !recognize::may_be_ours(&engine, text, &job.name) => {
                checked.engine = Some(engine);
                return checked;
            }
            Err(_) => {
                let report = engine.validate_str(text, format);
                let mut findings = report.diagnostics;
                if let Some(e) = report.load_error {
                    if !findings.iter().any(|d| d.line == e.line) {
                        findings.push(
                            Diagnostic::new(format!("load.{}", e.code), Severity::Error, e.message)
                                .at(String::new(), e.line, e.column),
                        );
                    }
                }
                (findings, None, report.release)
            }
        };
        let abs = job.path.clone().unwrap_or_else(|| PathBuf::from(&job.name));
        let policy = Policy {
            catalogue: engine.catalogue(),
            selection: &built.selection,
            config: config.as_deref(),
            strict: settings.strict,
        };
        policy.apply(&mut findings, &abs, Some(text), format, engine.limits());
        checked.findings = findings;
        checked.doc = doc;
        checked.release = release;
        checked.links = built.links.clone();
        checked.engine = Some(engine);
        checked
    }
}

/// The engine, selection and rule-page links of one combination of settings.
fn build(settings: &Settings, limits: &Limits) -> Result<Built, RuleError> {
    let engine = match mcpdesc_project::engine::load_extended(
        &settings.rules,
        &settings.extend_rules,
        settings.spec_version.as_deref(),
    ) {
        Ok(e) => e,
        Err(e) => return Err(rule_error(&e, &settings.rules)),
    };
    let engine = engine
        .with_limits(limits.clone())
        .with_traffic_version(settings.versions.first().cloned());
    let selection = mcpdesc_project::findings::selection(
        engine.catalogue(),
        &settings.select,
        &settings.ignore,
        &settings.versions,
    )
    .map_err(|message| RuleError {
        message,
        problems: Vec::new(),
    })?;
    let cli_ids: Vec<&str> = mcpdesc_project::suppress::cli_rules()
        .map(|r| r.id)
        .collect();
    let warnings: Arc<[String]> = selection
        .unmatched(engine.catalogue(), &cli_ids)
        .into_iter()
        .map(|p| format!("`{p}` (select or ignore) matches no rule of the catalogue"))
        .collect();
    let engine = engine.with_selection(selection.clone());
    let links = Arc::new(RuleLinks::for_engine(
        &engine,
        &settings.rules,
        settings.docs_base_url.as_deref(),
    ));
    Ok(Built {
        engine: Arc::new(engine),
        selection,
        links,
        warnings,
    })
}

/// A rule-loading failure with each problem's file resolved against the rules directories.
fn rule_error(e: &EngineError, dirs: &[PathBuf]) -> RuleError {
    let load = match e {
        EngineError::Load(load) => Some(load),
        EngineError::Version(_) => None,
    };
    let problems = load
        .map(|load| {
            load.problems
                .iter()
                .map(|p| {
                    let file = dirs
                        .iter()
                        .map(|d| d.join(&p.file))
                        .find(|f| f.is_file())
                        .unwrap_or_else(|| PathBuf::from(&p.file));
                    (file, p.line, p.column, p.message.clone())
                })
                .collect()
        })
        .unwrap_or_default();
    RuleError {
        message: format!(
            "the rules could not be loaded, so no document is checked: {}",
            with_causes(e)
        ),
        problems,
    }
}
