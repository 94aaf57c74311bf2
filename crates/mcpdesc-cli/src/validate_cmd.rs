//! `mcpdesc validate`: expand the inputs, validate them in parallel with one shared engine,
//! apply configuration ignores, in-document suppressions, the strict profile and the
//! baseline, render, and choose the exit code.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use crate::exit::ExitCode;
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
use mcpdesc_project::config::{self, ColorWhen, Config, Discovery, FailOn};
use mcpdesc_project::findings::Policy;
use mcpdesc_project::suppress;

/// Output, profile, selection, suppression and baseline flags of `validate`. Each can also
/// be set under `[validate]` in `mcpdesc.toml`; the command line wins.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ValidateOptions {
    /// Output format [default: text].
    #[arg(long, value_enum, help_heading = "Output")]
    pub format: Option<OutputFormat>,
    /// Colour the text output: on a terminal unless NO_COLOR is set (auto), always, never
    /// [default: auto].
    #[arg(long, value_enum, value_name = "WHEN", help_heading = "Output")]
    pub color: Option<ColorWhen>,
    /// Where the rule pages linked from each finding live: a template with `{id}` (and
    /// optionally `{release}`, `{owner}`), or a base URL under which `{release}/{owner}/{id}.md`
    /// is appended [default: the catalogue's `docs-url`, the pages in this repository].
    #[arg(long, value_name = "URL", help_heading = "Output")]
    pub docs_base_url: Option<String>,
    /// Never show a progress bar.
    #[arg(long, help_heading = "Output")]
    pub no_progress: bool,

    /// Use the strict profile: warnings are reported as errors (and the report says so).
    #[arg(long, help_heading = "Profile and selection")]
    pub strict: bool,
    /// Lowest severity that makes the run fail (exit 1) [default: error].
    #[arg(
        long,
        value_enum,
        value_name = "LEVEL",
        help_heading = "Profile and selection"
    )]
    pub fail_on: Option<FailOn>,
    /// Run only these rules: ids or prefixes (`mcp.elicitation.*`); repeatable or
    /// comma-separated. Replaces `select` of the configuration file.
    #[arg(
        long,
        value_name = "RULE",
        value_delimiter = ',',
        help_heading = "Profile and selection"
    )]
    pub select: Vec<String>,
    /// Skip these rules: ids or prefixes; repeatable or comma-separated. Adds to `ignore` of
    /// the configuration file.
    #[arg(
        long,
        value_name = "RULE",
        value_delimiter = ',',
        help_heading = "Profile and selection"
    )]
    pub ignore: Vec<String>,
    /// Check only for this MCP protocol version (repeatable).
    #[arg(
        long = "protocol-version",
        value_name = "VERSION",
        help_heading = "Profile and selection"
    )]
    pub protocol_versions: Vec<String>,

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
    format: OutputFormat,
    color: ColorWhen,
    strict: bool,
    fail_on: Severity,
    select: Vec<String>,
    ignore: Vec<String>,
    versions: Vec<String>,
    docs_base_url: Option<String>,
    rules: Vec<PathBuf>,
    extend_rules: Vec<PathBuf>,
    spec_version: Option<String>,
    baseline: Option<PathBuf>,
    kind: InputKind,
    allow_empty_input: bool,
}

fn settings(args: &ValidateArgs, config: Option<&Config>) -> Settings {
    let o = &args.options;
    let d = config.map(|c| c.defaults.clone()).unwrap_or_default();
    let mut ignore = d.ignore.unwrap_or_default();
    ignore.extend(o.ignore.iter().cloned());
    Settings {
        format: o.format.or(d.format).unwrap_or(OutputFormat::Text),
        color: o.color.or(d.color).unwrap_or(ColorWhen::Auto),
        strict: o.strict || d.strict.unwrap_or(false),
        fail_on: o.fail_on.or(d.fail_on).unwrap_or(FailOn::Error).severity(),
        select: if o.select.is_empty() {
            d.select.unwrap_or_default()
        } else {
            o.select.clone()
        },
        ignore,
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
        baseline: o.baseline.clone().or(d.baseline),
        kind: o.kind.or(d.kind).unwrap_or(InputKind::Auto),
        allow_empty_input: o.allow_empty_input || d.allow_empty_input.unwrap_or(false),
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
    let s = settings(&args, cwd_config.as_deref());

    let engine = crate::cli::engine_extended(&s.rules, &s.extend_rules, s.spec_version.as_deref())?
        .with_limits(args.limits.limits())
        // A capture that never says its version is judged in the one asked for.
        .with_traffic_version(s.versions.first().cloned());
    let selection =
        mcpdesc_project::findings::selection(engine.catalogue(), &s.select, &s.ignore, &s.versions)
            .map_err(anyhow::Error::msg)?;
    let engine = engine.with_selection(selection.clone());
    let cat = engine.catalogue();
    // Rules the command line reports itself are selected by the same patterns.
    let cli_ids: Vec<&str> = mcpdesc_project::suppress::cli_rules()
        .map(|r| r.id)
        .collect();
    for pattern in selection.unmatched(cat, &cli_ids) {
        eprintln!(
            "warning: `{}` (select or ignore) matches no rule of the catalogue",
            render::safe::escape(pattern)
        );
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

    let progress = Progress::new(jobs.len(), o.no_progress);
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
        eprintln!(
            "mcpdesc: recorded {} in {} ({} checked)",
            render::plural(n, "finding", "findings"),
            render::safe::escape(&path.display().to_string()),
            render::plural(outcomes.len(), "file", "files")
        );
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
    let color = s.format == OutputFormat::Text
        && match s.color {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => {
                anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never
            }
        };
    let ctx = RenderContext {
        catalogue: cat,
        releases: engine.releases(),
        docs: DocUrls::new(s.docs_base_url.as_deref()),
        strict: s.strict,
        fail_on: s.fail_on,
        color,
    };
    let out = match s.format {
        OutputFormat::Text => render::text(&results, &ctx),
        OutputFormat::Json => render::json(&results, &ctx)?,
        OutputFormat::Sarif => render::sarif(&results, &ctx)?,
        OutputFormat::Github => render::github(&results, &ctx),
        OutputFormat::Junit => render::junit(&results, &ctx),
    };
    crate::output::emit(&out)?;

    let failed = results
        .iter()
        .any(|r| r.load_error.is_some() || r.diagnostics.iter().any(|d| d.severity >= s.fail_on));
    // The process ends here: freeing the compiled catalogue (and any protocol schemas a
    // capture compiled) one allocation at a time is work nothing waits for.
    std::mem::forget(engine);
    Ok(ExitCode::from(if io_errors {
        2
    } else if failed {
        1
    } else {
        0
    }))
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
