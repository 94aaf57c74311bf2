//! `mcpdesc test`: the fixture regression runner (sidecars, folder conventions, declared
//! examples, registry checks) and its text, JUnit and JSON renderings.

use std::fmt::Write as _;
use std::path::PathBuf;
use crate::exit::ExitCode;

use anyhow::Result;
use mcpdesc_authoring::corpus::runner::{self, FixtureOutcome, SidecarState, TestOptions, TestRun};
use mcpdesc_authoring::corpus::sidecar;
use mcpdesc_core::internal::examples::{ExampleOutcome, Expectation};
use mcpdesc_core::Engine;
use serde_json::{json, Value};

use crate::render::safe::{escape, escape_multiline, to_json_pretty};

#[derive(Debug, clap::Args)]
pub(crate) struct TestArgs {
    /// Fixture files or directories (walked for `*.json`, `*.yaml`, `*.yml`, `*.ndjson`,
    /// `*.jsonl`) [default: the
    /// fixture directory of every loaded release, or of the `--spec-version` one]. Each
    /// document is judged by the release it declares.
    #[arg(value_name = "CORPUS")]
    pub corpus: Vec<PathBuf>,
    #[command(flatten)]
    pub rules: crate::cli::RulesArgs,
    /// Rewrite each fixture's `<name>.expected.yaml` from its actual diagnostics (creating
    /// missing ones).
    #[arg(long)]
    pub bless: bool,
    #[arg(long, value_enum, default_value_t = TestFormat::Text)]
    pub format: TestFormat,
    /// Only fixtures whose expected or actual diagnostics involve this rule, plus the rule's
    /// examples.
    #[arg(long, value_name = "ID")]
    pub rule: Option<String>,
    /// Run every rule's examples and the registry checks even when CORPUS is not the
    /// catalogue's fixture directory.
    #[arg(long)]
    pub examples: bool,
    /// Let a CORPUS directory that holds no document pass instead of failing the run (exit 2).
    #[arg(long)]
    pub allow_empty_input: bool,
    #[command(flatten)]
    pub limits: crate::limit_args::LimitArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum TestFormat {
    Text,
    Junit,
    Json,
}

pub(crate) fn run(args: TestArgs) -> Result<ExitCode> {
    let engine = args.rules.engine()?.with_limits(args.limits.limits());
    if args.examples && engine.catalogue().fixtures_dir().is_none() {
        anyhow::bail!("--examples: the catalogue names no fixture directory (`fixtures`)");
    }
    let corpus = if args.corpus.is_empty() {
        // The releases' own fixture directories are not checked for documents: nobody typed
        // them, and their examples and registry checks run, which fail when an example's
        // fixture is missing. A directory that does not exist still fails the walk (exit 2).
        let dirs = corpus_of(&engine);
        if dirs.is_empty() {
            anyhow::bail!("no CORPUS given and no loaded release names a fixture directory");
        }
        dirs
    } else {
        // A mistyped corpus directory would otherwise pass with `0 passed, 0 failed`. Nothing
        // runs (and `--bless` writes nothing), as with `validate`.
        let empty = crate::inputs::empty_corpus(&args.corpus)?;
        if !empty.is_empty() && !args.allow_empty_input {
            let message = crate::inputs::empty_corpus_error(&empty);
            eprint!("{}", escape_multiline(&message));
            return Ok(ExitCode::from(2));
        }
        args.corpus.clone()
    };
    if let Some(id) = &args.rule {
        if engine.catalogue().rule(id).is_none() {
            eprintln!(
                "warning: the catalogue has no rule `{}`; selecting by sidecars only",
                escape(id)
            );
        }
    }
    let opts = TestOptions {
        bless: args.bless,
        rule: args.rule.clone(),
        examples: args.examples,
    };
    let result = runner::run(&engine, &corpus, &opts)?;
    match args.format {
        TestFormat::Text => crate::output::emit(&text(&result))?,
        TestFormat::Junit => {
            crate::output::emit(&junit(&result))?;
            eprintln!("{}", result.summary());
        }
        TestFormat::Json => {
            crate::output::emit(&(to_json_pretty(&to_json(&result))? + "\n"))?;
            eprintln!("{}", result.summary());
        }
    }
    Ok(if result.failed() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The fixture directories of the engine's releases (only the fixed one's when a release is
/// fixed), each once.
fn corpus_of(engine: &Engine) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for dir in engine
        .judging_releases()
        .iter()
        .filter_map(|c| c.fixtures_dir())
    {
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    dirs
}

/// Failures in detail, notes, then the `N passed, N failed` line. Paths, rule text and
/// diagnostics are shown through [`escape`].
pub(crate) fn text(run: &TestRun) -> String {
    let mut out = String::new();
    for f in &run.fixtures {
        if f.blessed {
            let what = match f.state {
                SidecarState::Missing => "created",
                _ => "updated",
            };
            let _ = writeln!(out, "blessed {} ({what})", shown_path(&f.sidecar));
        }
        if !f.passed() {
            let _ = writeln!(out, "FAIL {}", escape(&f.doc.display));
            out.push_str(&fixture_details(f));
            let _ = writeln!(out);
        }
    }
    for e in run.examples.iter().filter(|e| e.failure.is_some()) {
        let _ = writeln!(out, "FAIL example {}", escape(&example_label(run, e)));
        let _ = writeln!(
            out,
            "  {}\n",
            escape(e.failure.as_deref().unwrap_or_default())
        );
    }
    for r in run.registry.iter().filter(|r| !r.passed()) {
        let _ = writeln!(
            out,
            "FAIL registry {}{}: {}",
            r.name,
            escape(&release_suffix(run, &r.release)),
            r.description
        );
        for f in &r.failures {
            let _ = writeln!(
                out,
                "  {} ({}): {}",
                escape(&f.rule),
                escape(&f.source),
                escape(&f.message)
            );
        }
        let _ = writeln!(out);
    }
    let unguarded = run
        .fixtures
        .iter()
        .filter(|f| f.state == SidecarState::Missing && !f.blessed)
        .count();
    if unguarded > 0 {
        let _ = writeln!(
            out,
            "note: {unguarded} fixture(s) have no sidecar and are checked against their folder only; `--bless` creates sidecars"
        );
    }
    if !run.examples_ran {
        let _ = writeln!(
            out,
            "note: rule examples and registry checks not run (CORPUS is not the catalogue's fixture directory; use --examples)"
        );
    }
    if run.blessed() > 0 {
        let _ = writeln!(out, "blessed {} sidecar(s)", run.blessed());
    }
    let _ = writeln!(out, "{}", run.summary());
    out
}

/// A path on one line of output.
fn shown_path(path: &std::path::Path) -> String {
    escape(&path.display().to_string()).into_owned()
}

/// ` (release)` when the run covered several releases.
fn release_suffix(run: &TestRun, release: &str) -> String {
    if run.releases.len() > 1 {
        format!(" ({release})")
    } else {
        String::new()
    }
}

fn example_label(run: &TestRun, e: &ExampleOutcome) -> String {
    format!("{}{}", example_name(e), release_suffix(run, &e.release))
}

fn example_name(e: &ExampleOutcome) -> String {
    let kind = match e.expectation {
        Expectation::Valid => "valid",
        Expectation::Invalid => "invalid",
    };
    format!("{} ({kind}) {}#{}", e.rule, e.fixture, e.pointer)
}

/// Why a fixture failed: its problems, the sidecar diff, and the actual diagnostics when
/// its folder verdict failed. Text from the document, its path and the rules is escaped
/// (see [`escape`]).
fn fixture_details(f: &FixtureOutcome) -> String {
    let mut out = String::new();
    for p in f.problems.iter().chain(&f.verdict_failure) {
        let _ = writeln!(out, "  {}", escape(p));
    }
    match &f.state {
        SidecarState::Malformed { error } => {
            let _ = writeln!(out, "  malformed sidecar: {}", escape(error));
        }
        SidecarState::Differs { expected } if !f.blessed => {
            let old = sidecar::render(expected);
            let new = sidecar::render(&f.actual);
            let diff = similar::TextDiff::from_lines(&old, &new);
            let header_old = format!("{} (expected)", shown_path(&f.sidecar));
            // Sidecar lines spell line breaks and tabs as JSON escapes; the ones left are
            // the diff's own.
            let diff = diff
                .unified_diff()
                .context_radius(3)
                .header(&header_old, "actual")
                .to_string();
            out.push_str(&escape_multiline(&diff));
            let _ = writeln!(
                out,
                "hint: if the change is intended, accept it with `mcpdesc test --bless`"
            );
        }
        _ => {}
    }
    if f.verdict_failure.is_some() {
        if let Some(report) = &f.report {
            if let Some(e) = &report.load_error {
                let _ = writeln!(
                    out,
                    "  load failure {} at {}:{}: {}",
                    e.code,
                    e.line,
                    e.column,
                    escape(&e.message)
                );
            }
            for d in &report.diagnostics {
                let _ = writeln!(
                    out,
                    "  {}:{}: {}[{}] {} {}",
                    d.line,
                    d.column,
                    d.severity.as_str(),
                    escape(&d.rule),
                    escape(&d.pointer),
                    escape(&d.message)
                );
            }
        }
    }
    out
}

/// JUnit XML: one test suite each for fixtures, examples and registry checks.
pub(crate) fn junit(run: &TestRun) -> String {
    struct Case {
        name: String,
        failure: Option<(String, String)>,
    }
    let fixtures: Vec<Case> = run
        .fixtures
        .iter()
        .map(|f| Case {
            name: f.doc.display.clone(),
            failure: (!f.passed()).then(|| {
                let first = f
                    .problems
                    .iter()
                    .chain(&f.verdict_failure)
                    .next()
                    .cloned()
                    .unwrap_or_else(|| "diagnostics differ from the sidecar".into());
                (first, fixture_details(f))
            }),
        })
        .collect();
    let examples: Vec<Case> = run
        .examples
        .iter()
        .map(|e| Case {
            name: example_label(run, e),
            failure: e.failure.clone().map(|f| (f.clone(), f)),
        })
        .collect();
    let registry: Vec<Case> = run
        .registry
        .iter()
        .map(|r| Case {
            name: format!(
                "{}{}: {}",
                r.name,
                release_suffix(run, &r.release),
                r.description
            ),
            failure: (!r.passed()).then(|| {
                let body = r
                    .failures
                    .iter()
                    .map(|f| format!("{} ({}): {}", f.rule, f.source, f.message))
                    .collect::<Vec<_>>()
                    .join("\n");
                (format!("{} rule(s) fail", r.failures.len()), body)
            }),
        })
        .collect();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"mcpdesc test\" tests=\"{}\" failures=\"{}\">",
        run.passed() + run.failed(),
        run.failed()
    );
    for (suite, cases) in [
        ("fixtures", fixtures),
        ("examples", examples),
        ("registry", registry),
    ] {
        let failures = cases.iter().filter(|c| c.failure.is_some()).count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{suite}\" tests=\"{}\" failures=\"{failures}\">",
            cases.len()
        );
        for c in cases {
            let name = crate::render::junit::esc(&c.name);
            match c.failure {
                None => {
                    let _ = writeln!(out, "    <testcase classname=\"{suite}\" name=\"{name}\"/>");
                }
                Some((message, body)) => {
                    let _ = writeln!(
                        out,
                        "    <testcase classname=\"{suite}\" name=\"{name}\">\n      <failure message=\"{}\">{}</failure>\n    </testcase>",
                        crate::render::junit::esc(&message),
                        crate::render::junit::esc(&body)
                    );
                }
            }
        }
        let _ = writeln!(out, "  </testsuite>");
    }
    let _ = writeln!(out, "</testsuites>");
    out
}

/// The JSON report: counts, then every fixture, example and registry check.
pub(crate) fn to_json(run: &TestRun) -> Value {
    let fixtures: Vec<Value> = run
        .fixtures
        .iter()
        .map(|f| {
            let state = match &f.state {
                SidecarState::Missing => "missing",
                SidecarState::Matches => "matches",
                SidecarState::Differs { .. } => "differs",
                SidecarState::Malformed { .. } => "malformed",
            };
            json!({
                "path": f.doc.display,
                "passed": f.passed(),
                "sidecar": f.sidecar.display().to_string(),
                "sidecarState": state,
                "blessed": f.blessed,
                "folder": f.folder.map(|x| x.as_str()),
                "verdictFailure": f.verdict_failure,
                "problems": f.problems,
                "expected": f.expected(),
                "actual": f.actual,
                "malformed": match &f.state {
                    SidecarState::Malformed { error } => Some(error.as_str()),
                    _ => None,
                },
            })
        })
        .collect();
    let examples: Vec<Value> = run
        .examples
        .iter()
        .map(|e| {
            json!({
                "rule": e.rule,
                "release": e.release,
                "expectation": match e.expectation {
                    Expectation::Valid => "valid",
                    Expectation::Invalid => "invalid",
                },
                "fixture": e.fixture,
                "pointer": e.pointer,
                "passed": e.failure.is_none(),
                "failure": e.failure,
            })
        })
        .collect();
    let registry: Vec<Value> = run
        .registry
        .iter()
        .map(|r| {
            json!({
                "name": r.name,
                "release": r.release,
                "description": r.description,
                "passed": r.passed(),
                "failures": r.failures,
            })
        })
        .collect();
    json!({
        "passed": run.passed(),
        "failed": run.failed(),
        "examplesRan": run.examples_ran,
        "fixtures": fixtures,
        "examples": examples,
        "registry": registry,
    })
}
