//! The fixture regression runner: validates every document of a corpus and compares the
//! result with its sidecar ([`super::sidecar`]) and its folder convention ([`Folder`]);
//! runs the catalogue's declared examples and registry checks when asked to.

use std::collections::HashMap;
use std::path::PathBuf;

use serde::Serialize;

use super::registry::{self, RegistryCheck};
use super::sidecar::{self, Entry};
use super::{collect, paths, CorpusDoc, CorpusError, Folder};
use mcpdesc_core::internal::{run_examples, ExampleOutcome};
use mcpdesc_core::{Engine, Report};

/// How to run.
#[derive(Debug, Clone, Default)]
pub struct TestOptions {
    /// Rewrite every selected fixture's sidecar from its actual diagnostics.
    pub bless: bool,
    /// Only fixtures whose expected or actual diagnostics involve this rule, and its examples.
    pub rule: Option<String>,
    /// Run the declared examples and registry checks even when the corpus is not the
    /// catalogue's fixture directory.
    pub examples: bool,
}

/// The state of a fixture's sidecar before the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum SidecarState {
    /// There is none: only the folder convention applies.
    Missing,
    /// The sidecar expects exactly what the fixture produced.
    Matches,
    /// The sidecar expects other diagnostics.
    Differs {
        /// The entries the sidecar lists, sorted.
        expected: Vec<Entry>,
    },
    /// The sidecar cannot be read or parsed.
    Malformed {
        /// What is wrong with it.
        error: String,
    },
}

/// The outcome of one fixture.
#[derive(Debug, Clone)]
pub struct FixtureOutcome {
    /// The fixture document.
    pub doc: CorpusDoc,
    /// Where its sidecar is (or would be).
    pub sidecar: PathBuf,
    /// How the sidecar compared with what the fixture produced.
    pub state: SidecarState,
    /// What the fixture produced, in sidecar order.
    pub actual: Vec<Entry>,
    /// The full report (messages and positions), when the fixture could be read.
    pub report: Option<Report>,
    /// The expected-verdict folder the fixture is in, if any.
    pub folder: Option<Folder>,
    /// Why the result breaks the folder convention, if it does.
    pub verdict_failure: Option<String>,
    /// Other failures: an unreadable file, a sidecar shared by two fixtures.
    pub problems: Vec<String>,
    /// Whether `--bless` (re)wrote the sidecar.
    pub blessed: bool,
}

impl FixtureOutcome {
    /// Whether the fixture passed: no problem, no broken folder convention, and a sidecar that
    /// matches, is missing, or was blessed.
    pub fn passed(&self) -> bool {
        self.problems.is_empty()
            && self.verdict_failure.is_none()
            && (self.blessed || matches!(self.state, SidecarState::Missing | SidecarState::Matches))
    }

    /// The expected entries, when a readable sidecar exists.
    pub fn expected(&self) -> Option<&[Entry]> {
        match &self.state {
            SidecarState::Matches => Some(&self.actual),
            SidecarState::Differs { expected } => Some(expected),
            SidecarState::Missing | SidecarState::Malformed { .. } => None,
        }
    }
}

/// Everything one run found.
#[derive(Debug, Clone, Default)]
pub struct TestRun {
    /// The outcome of every fixture run, in corpus order.
    pub fixtures: Vec<FixtureOutcome>,
    /// Declared examples (empty unless they ran).
    pub examples: Vec<ExampleOutcome>,
    /// Registry checks (empty unless the examples ran).
    pub registry: Vec<RegistryCheck>,
    /// Whether examples and registry checks ran.
    pub examples_ran: bool,
    /// The fixture directory of the (first) release whose examples ran, else of the
    /// engine's release.
    pub fixtures_dir: Option<PathBuf>,
    /// The releases whose examples and registry checks ran.
    pub releases: Vec<String>,
}

impl TestRun {
    /// Number of fixtures, examples and registry checks that passed.
    pub fn passed(&self) -> usize {
        self.fixtures.iter().filter(|f| f.passed()).count()
            + self.examples.iter().filter(|e| e.failure.is_none()).count()
            + self.registry.iter().filter(|r| r.passed()).count()
    }

    /// Number of fixtures, examples and registry checks that failed.
    pub fn failed(&self) -> usize {
        self.fixtures.iter().filter(|f| !f.passed()).count()
            + self.examples.iter().filter(|e| e.failure.is_some()).count()
            + self.registry.iter().filter(|r| !r.passed()).count()
    }

    /// `N passed, N failed`.
    pub fn summary(&self) -> String {
        format!("{} passed, {} failed", self.passed(), self.failed())
    }

    /// Number of fixtures whose sidecar `--bless` (re)wrote.
    pub fn blessed(&self) -> usize {
        self.fixtures.iter().filter(|f| f.blessed).count()
    }
}

/// Runs the fixtures under `roots` (files or directories) with `engine`.
pub fn run(engine: &Engine, roots: &[PathBuf], opts: &TestOptions) -> Result<TestRun, CorpusError> {
    let docs = collect(roots)?;
    let mut sharers: HashMap<PathBuf, Vec<String>> = HashMap::new();
    for d in &docs {
        sharers
            .entry(paths::absolute(&sidecar::path_for(&d.path)))
            .or_default()
            .push(d.display.clone());
    }
    let mut fixtures = Vec::with_capacity(docs.len());
    for doc in docs {
        let shared = &sharers[&paths::absolute(&sidecar::path_for(&doc.path))];
        if let Some(outcome) = run_fixture(engine, doc, shared, opts)? {
            fixtures.push(outcome);
        }
    }

    // Each release's examples and registry checks run against that release, when the
    // corpus holds its fixture directory (or when asked for).
    let releases = engine.judging_releases();
    let mut ran = Vec::new();
    let (mut examples, mut registry) = (Vec::new(), Vec::new());
    for cat in releases {
        let fixtures_dir = cat.fixtures_dir();
        let wanted = opts.examples
            || fixtures_dir
                .as_ref()
                .is_some_and(|dir| roots.iter().any(|r| paths::contains(r, dir)));
        if !wanted {
            continue;
        }
        let version = cat.release.version.to_string();
        let judge = engine
            .clone()
            .with_spec_version(Some(&version))
            .expect("a loaded release serves itself");
        let dir = fixtures_dir.clone().unwrap_or_default();
        examples.extend(run_examples(&judge, &dir));
        registry.extend(registry::check(cat, fixtures_dir.as_deref()));
        ran.push((version, fixtures_dir));
    }
    if let Some(rule) = &opts.rule {
        examples.retain(|e| &e.rule == rule);
        for check in &mut registry {
            check.failures.retain(|f| &f.rule == rule);
        }
    }
    let fixtures_dir = match ran.first() {
        Some((_, dir)) => dir.clone(),
        None => engine.catalogue().fixtures_dir(),
    };
    Ok(TestRun {
        fixtures,
        examples,
        registry,
        examples_ran: !ran.is_empty(),
        fixtures_dir,
        releases: ran.into_iter().map(|(v, _)| v).collect(),
    })
}

fn run_fixture(
    engine: &Engine,
    doc: CorpusDoc,
    shared: &[String],
    opts: &TestOptions,
) -> Result<Option<FixtureOutcome>, CorpusError> {
    let sidecar_path = sidecar::path_for(&doc.path);
    let folder = Folder::of(&doc.path);
    let mut problems = Vec::new();
    if shared.len() > 1 {
        problems.push(format!(
            "fixtures {} share the sidecar {}; rename one of them",
            shared.join(" and "),
            sidecar_path.display()
        ));
    }
    let report = match engine.validate_file(&doc.path) {
        Ok(r) => Some(r),
        Err(e) => {
            problems.push(e.to_string());
            None
        }
    };
    let actual = report
        .as_ref()
        .map(sidecar::from_report)
        .unwrap_or_default();
    let state = match std::fs::read_to_string(&sidecar_path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => SidecarState::Missing,
        Err(e) => SidecarState::Malformed {
            error: e.to_string(),
        },
        Ok(text) => match sidecar::parse(&text) {
            Err(e) => SidecarState::Malformed {
                error: format!("{}:{e}", sidecar_path.display()),
            },
            Ok(expected) if expected == actual => SidecarState::Matches,
            Ok(expected) => SidecarState::Differs { expected },
        },
    };

    if let Some(rule) = &opts.rule {
        let mentions = |entries: &[Entry]| entries.iter().any(|e| e.rule() == Some(rule));
        let expected_mentions = match &state {
            SidecarState::Differs { expected } => mentions(expected),
            _ => false,
        };
        if !mentions(&actual) && !expected_mentions {
            return Ok(None);
        }
    }

    let verdict_failure = match (folder, &report) {
        (Some(folder), Some(report)) => folder
            .judge(report)
            .map(|why| format!("{}: {why}", folder.as_str())),
        _ => None,
    };

    let mut blessed = false;
    if opts.bless && report.is_some() && shared.len() <= 1 && state != SidecarState::Matches {
        let text = sidecar::render(&actual);
        std::fs::write(&sidecar_path, text).map_err(|e| CorpusError::write(&sidecar_path, e))?;
        blessed = true;
    }
    Ok(Some(FixtureOutcome {
        doc,
        sidecar: sidecar_path,
        state,
        actual,
        report,
        folder,
        verdict_failure,
        problems,
        blessed,
    }))
}
