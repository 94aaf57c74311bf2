//! `mcpdesc validate`: expand the inputs, validate them in parallel with one shared engine,
//! apply configuration ignores, in-document suppressions, the strict profile and the
//! baseline, render, and choose the exit code.

use crate::exit::ExitCode;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcpdesc_core::{Engine, LoadFailure, Severity};
use rayon::prelude::*;

use crate::baseline::{self, Baseline};
use crate::cli::ValidateArgs;
use crate::inputs::{self, Input, Source};
use crate::render::{self, DocUrls, FileResult, OutputFormat, RenderContext};
use crate::report::Delivery;
use crate::rule_patterns::{self, Origin};
use mcpdesc_project::config::{self, ColorWhen, Config, Discovery, FailOn};
use mcpdesc_project::findings::Policy;
use mcpdesc_project::suppress;

/// Input, progress and baseline flags of `validate` (its output, profile and selection flags
/// are the [`ReportArgs`](crate::report_args::ReportArgs) it shares with `check-server`). Each
/// can also be set under `[validate]` in `mcpdesc.toml`; the command line wins.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ValidateOptions {
    /// Never show a progress bar.
    #[arg(long, help_heading = "Output")]
    pub no_progress: bool,

    /// What the inputs are: MCP Description documents, traffic captures (NDJSON, a JSON
    /// array of messages or one message), or, with `auto`, by extension (`.ndjson`, `.jsonl`
    /// and `.traffic.json` are captures) [default: auto].
    #[arg(long, value_enum, value_name = "KIND", help_heading = "Inputs")]
    pub kind: Option<InputKind>,
    /// Name used for the document read from standard input (`-`); its extension picks JSON
    /// or YAML.
    #[arg(long, value_name = "PATH", help_heading = "Inputs")]
    pub stdin_filename: Option<String>,
    /// Let a directory or glob pattern that yields no document pass instead of failing the run
    /// (exit 2).
    #[arg(long, help_heading = "Inputs")]
    pub allow_empty_input: bool,
    /// Use this configuration file for every input instead of discovering `mcpdesc.toml`.
    #[arg(long, value_name = "FILE", help_heading = "Inputs")]
    pub config: Option<PathBuf>,
    /// Ignore every `mcpdesc.toml`.
    #[arg(long, conflicts_with = "config", help_heading = "Inputs")]
    pub no_config: bool,

    /// Report only findings not recorded in this baseline file.
    #[arg(long, value_name = "FILE", help_heading = "Baseline")]
    pub baseline: Option<PathBuf>,
    /// Record today's findings in the `--baseline` file (replacing it) and exit 0.
    #[arg(long, help_heading = "Baseline")]
    pub write_baseline: bool,
}

pub(crate) use mcpdesc_project::config::InputKind;

/// The flags after merging the configuration file's defaults.
struct Settings {
    delivery: Delivery,
    strict: bool,
    fail_on: Severity,
    select: Vec<String>,
    ignore: Vec<String>,
    /// Where each `select` and `ignore` pattern came from.
    patterns: Vec<Origin>,
    versions: Vec<String>,
    docs_base_url: Option<String>,
    rules: Vec<PathBuf>,
    extend_rules: Vec<PathBuf>,
    spec_version: Option<String>,
    baseline: Option<PathBuf>,
    kind: InputKind,
    allow_empty_input: bool,
}

/// `config_file` names the configuration file in messages about its patterns.
fn settings(args: &ValidateArgs, config: Option<&Config>, config_file: &str) -> Settings {
    let o = &args.report;
    let d = config.map(|c| c.defaults.clone()).unwrap_or_default();
    let (select, mut patterns) = if o.select.is_empty() {
        let select = d.select.unwrap_or_default();
        let origins = Origin::config("select", &select, config_file);
        (select, origins)
    } else {
        (o.select.clone(), Origin::flag("select", &o.select))
    };
    let mut ignore = d.ignore.unwrap_or_default();
    patterns.extend(Origin::config("ignore", &ignore, config_file));
    patterns.extend(Origin::flag("ignore", &o.ignore));
    ignore.extend(o.ignore.iter().cloned());
    Settings {
        delivery: Delivery {
            format: o.format.or(d.format).unwrap_or(OutputFormat::Text),
            color: o.color.or(d.color).unwrap_or(ColorWhen::Auto),
            output_file: o.output_file.clone(),
            verbosity: o.verbosity(),
            statistics: o.statistics,
            max_warnings: o.max_warnings,
        },
        strict: o.strict || d.strict.unwrap_or(false),
        fail_on: o.fail_on.or(d.fail_on).unwrap_or(FailOn::Error).severity(),
        select,
        ignore,
        patterns,
        versions: if o.protocol_versions.is_empty() {
            d.protocol_versions.unwrap_or_default()
        } else {
            o.protocol_versions.clone()
        },
        docs_base_url: o.docs_base_url.clone().or(d.docs_base_url),
        rules: if args.rules.rules.is_empty() {
            d.rules.into_iter().collect()
        } else {
            args.rules.rules.clone()
        },
        extend_rules: if args.rules.extend_rules.is_empty() {
            d.extend_rules.unwrap_or_default()
        } else {
            args.rules.extend_rules.clone()
        },
        spec_version: args.rules.spec_version.clone().or(d.spec_version),
        baseline: args.options.baseline.clone().or(d.baseline),
        kind: args.options.kind.or(d.kind).unwrap_or(InputKind::Auto),
        allow_empty_input: args.options.allow_empty_input || d.allow_empty_input.unwrap_or(false),
    }
}

/// Runs `validate`; usage and rule errors come back as `Err` (exit 2).
pub(crate) fn run(args: ValidateArgs) -> Result<ExitCode> {
    let o = &args.options;
    let explicit = match &o.config {
        Some(path) => Some(Arc::new(Config::load(path)?)),
        None => None,
    };
    let mut discovery = Discovery::default();
    let cwd_config = match (&explicit, o.no_config) {
        (Some(c), _) => Some(c.clone()),
        (None, true) => None,
        (None, false) => discovery.for_dir(&config::absolute(Path::new(".")))?,
    };
    let config_file = match &o.config {
        Some(path) => path.display().to_string(),
        None => cwd_config
            .as_ref()
            .map(|c| c.dir.join(config::FILE_NAME).display().to_string())
            .unwrap_or_default(),
    };
    let s = settings(&args, cwd_config.as_deref(), &config_file);
    s.delivery.check()?;

    let engine = crate::cli::engine_extended(&s.rules, &s.extend_rules, s.spec_version.as_deref())?
        .with_limits(args.limits.limits())
        // A capture that never says its version is judged in the one asked for.
        .with_traffic_version(s.versions.first().cloned());
    let selection =
        mcpdesc_project::findings::selection(engine.catalogue(), &s.select, &s.ignore, &s.versions)
            .map_err(anyhow::Error::msg)?;
    let engine = engine.with_selection(selection.clone());
    let cat = engine.catalogue();
    let unmatched = rule_patterns::unmatched(&engine, &selection, &s.patterns);
    if !unmatched.is_empty() {
        for line in unmatched {
            eprintln!("error: {line}");
        }
        return Ok(ExitCode::from(2));
    }

    if o.write_baseline && s.baseline.is_none() {
        bail!("--write-baseline needs --baseline FILE (or `baseline` in mcpdesc.toml)");
    }
    let baseline = match (&s.baseline, o.write_baseline) {
        (Some(path), false) => Some(Baseline::load(path)?),
        (Some(path), true) => Some(Baseline::empty(path)),
        (None, _) => None,
    };

    let exclude: Vec<PathBuf> = s.baseline.iter().map(|b| config::absolute(b)).collect();
    let inputs::Expansion { inputs, empty } =
        inputs::expand(&args.files, o.stdin_filename.as_deref(), &exclude)?;
    // A mistyped path or pattern would otherwise pass a CI job having checked nothing. Nothing
    // is validated: a report of the other inputs (or a baseline of them, replacing the
    // recorded findings of the missing ones) would read as a pass.
    if !empty.is_empty() && !s.allow_empty_input {
        let message = inputs::empty_input_error(&empty);
        eprint!("{}", render::safe::escape_multiline(&message));
        return Ok(ExitCode::from(2));
    }
    let mut stdin_text = None;
    if inputs.iter().any(|i| i.source == Source::Stdin) {
        let buf = inputs::read_stdin(engine.limits().max_input_bytes)
            .context("cannot read standard input")?;
        stdin_text = Some(buf);
    }

    // The configuration and the absolute path of every input, resolved before the parallel
    // part so that discovery reads each directory once.
    let mut jobs = Vec::with_capacity(inputs.len());
    for input in inputs {
        let abs = match &input.source {
            Source::File(p) => config::absolute(p),
            Source::Stdin | Source::Missing(_) => config::absolute(Path::new(&input.display)),
        };
        let config = match (&explicit, o.no_config) {
            (Some(c), _) => Some(c.clone()),
            (None, true) => None,
            (None, false) => match abs.parent() {
                Some(dir) => discovery.for_dir(&config::absolute(dir))?,
                None => None,
            },
        };
        jobs.push((input, abs, config));
    }

    let progress = Progress::new(jobs.len(), o.no_progress || !s.delivery.notes());
    let mut outcomes: Vec<(FileResult, String, Vec<mcpdesc_core::Diagnostic>)> = jobs
        .par_iter()
        .map(|(input, abs, config)| {
            let mut r = check(&engine, input, stdin_text.as_deref(), s.kind);
            let policy = Policy {
                catalogue: cat,
                selection: &selection,
                config: config.as_deref(),
                strict: s.strict,
            };
            let format = s.kind.format(&input.display);
            r.suppressed += policy.apply(
                &mut r.diagnostics,
                abs,
                r.source.as_deref(),
                format,
                engine.limits(),
            );
            if r.diagnostics.is_empty() && r.load_error.is_none() {
                r.source = None;
            }
            let key = baseline.as_ref().map(|b| b.key(abs)).unwrap_or_default();
            let recorded = r.diagnostics.clone();
            if let (Some(b), false) = (&baseline, o.write_baseline) {
                r.baselined = b.filter(&key, &mut r.diagnostics);
            }
            progress.tick();
            (r, key, recorded)
        })
        .collect();
    progress.finish();

    let io_errors = outcomes.iter().any(|(r, _, _)| r.io_error);
    if o.write_baseline {
        let path = s.baseline.as_ref().expect("checked above");
        let findings: Vec<(String, Vec<mcpdesc_core::Diagnostic>)> = outcomes
            .iter_mut()
            .filter(|(r, _, _)| !r.io_error)
            .map(|(_, key, recorded)| (std::mem::take(key), std::mem::take(recorded)))
            .collect();
        let n = baseline::write(path, &findings)?;
        if s.delivery.notes() {
            eprintln!(
                "mcpdesc: recorded {} in {} ({} checked)",
                render::plural(n, "finding", "findings"),
                render::safe::escape(&path.display().to_string()),
                render::plural(outcomes.len(), "file", "files")
            );
        }
        for (r, _, _) in outcomes.iter().filter(|(r, _, _)| r.io_error) {
            if let Some(e) = &r.load_error {
                eprintln!(
                    "{}: error: {}",
                    render::safe::escape(&r.path),
                    render::safe::escape(&e.message)
                );
            }
        }
        return Ok(ExitCode::from(if io_errors { 2 } else { 0 }));
    }

    let results: Vec<FileResult> = outcomes.into_iter().map(|(r, _, _)| r).collect();
    let ctx = RenderContext {
        catalogue: cat,
        releases: engine.releases(),
        docs: DocUrls::new(s.docs_base_url.as_deref()),
        strict: s.strict,
        fail_on: s.fail_on,
        color: false,
        summary: true,
    };
    let code = crate::report::deliver(&results, ctx, &s.delivery)?;
    // The process ends here: freeing the compiled catalogue (and any protocol schemas a
    // capture compiled) one allocation at a time is work nothing waits for.
    std::mem::forget(engine);
    Ok(code)
}

/// Reads and validates one input.
fn check(engine: &Engine, input: &Input, stdin: Option<&[u8]>, kind: InputKind) -> FileResult {
    let mut result = FileResult {
        path: input.display.clone(),
        source: None,
        diagnostics: Vec::new(),
        load_error: None,
        io_error: false,
        suppressed: 0,
        baselined: 0,
        release: None,
    };
    let bytes = match &input.source {
        Source::Missing(why) => Err(why.clone()),
        Source::Stdin => Ok(stdin.unwrap_or_default().to_vec()),
        Source::File(path) => inputs::read_document(path, engine.limits().max_input_bytes)
            .map_err(|e| format!("cannot read {}: {e}", path.display())),
    };
    let bytes = match bytes {
        Ok(b) => b,
        Err(message) => {
            result.io_error = true;
            result.load_error = Some(LoadFailure::new("io-error", message, 0, 0));
            return result;
        }
    };
    let report = engine.validate_bytes(&bytes, kind.format(&input.display));
    // The text is kept for excerpts and suppressions only; a clean document's is dropped
    // here rather than copied, which matters for large documents in large batches.
    let text = mcpdesc_project::findings::source_text(bytes);
    let needed = !report.diagnostics.is_empty()
        || report.load_error.is_some()
        || text.contains(suppress::SUPPRESS_KEY);
    result.source = needed.then_some(text);
    result.diagnostics = report.diagnostics;
    result.load_error = report.load_error;
    result.release = Some(report.release);
    result
}

/// A progress bar on standard error, shown only on a terminal and only once the batch has
/// taken more than a moment.
struct Progress {
    bar: Option<ProgressBar>,
    start: Instant,
    shown: AtomicBool,
}

const PROGRESS_DELAY: Duration = Duration::from_millis(400);

impl Progress {
    fn new(len: usize, disabled: bool) -> Progress {
        let enabled = !disabled && len > 1 && std::io::stderr().is_terminal();
        let bar = enabled.then(|| {
            let bar = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::hidden());
            if let Ok(style) =
                ProgressStyle::with_template("{spinner} validating {pos}/{len} {wide_bar} {eta}")
            {
                bar.set_style(style);
            }
            bar
        });
        Progress {
            bar,
            start: Instant::now(),
            shown: AtomicBool::new(false),
        }
    }

    fn tick(&self) {
        let Some(bar) = &self.bar else { return };
        bar.inc(1);
        if self.start.elapsed() > PROGRESS_DELAY && !self.shown.swap(true, Ordering::Relaxed) {
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
