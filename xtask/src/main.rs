//! Project automation: `cargo xtask <command>`. Generators take `--check`, which fails with a
//! diff instead of writing when the committed output is stale.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

mod bench_bindings;
#[allow(dead_code)]
mod bench_corpus;
mod bench_editor;
mod bench_report;
mod bench_tap;
mod bench_traffic;
mod public_api;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

// The command-line tool's allocator and its policy, so `bench-measure` reports the tool's
// memory and time.
#[path = "../../crates/mcpdesc-cli/src/allocator.rs"]
mod allocator;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("generate") => generate(args.iter().any(|a| a == "--check")),
        Some("bench-corpus") => bench_report::bench_corpus_cmd(&args[1..]),
        Some("bench-report") => bench_report::bench_report_cmd(&args[1..]),
        Some("bench-measure") => bench_report::bench_measure_cmd(&args[1..]),
        Some("bench-traffic") => bench_traffic_cmd(&args[1..]),
        Some("bench-editor") => bench_editor::bench_editor_cmd(&args[1..]),
        Some("bench-bindings") => bench_bindings::bench_bindings_cmd(&args[1..]),
        Some("bench-tap") => bench_tap::bench_tap_cmd(&args[1..]),
        // The server's side of the tap benchmark's replay, started by `bench-tap`.
        Some("bench-tap-server") => bench_tap::server_cmd(&args[1..]),
        Some("public-api") => public_api::public_api_cmd(&args[1..]),
        _ => {
            eprintln!("usage: cargo xtask generate [--check]");
            eprintln!("       cargo xtask bench-corpus [--out DIR] [--seed N]");
            eprintln!("       cargo xtask bench-report [--skip-criterion]");
            eprintln!("       cargo xtask bench-traffic [--out FILE]");
            eprintln!("       cargo xtask bench-editor [FILE...]");
            eprintln!("       cargo xtask bench-bindings");
            eprintln!("       cargo xtask bench-tap [--write]");
            eprintln!("       cargo xtask public-api [--check]");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// `cargo xtask bench-traffic [--out FILE]`: writes the traffic benchmark capture.
fn bench_traffic_cmd(args: &[String]) -> Result<()> {
    let out = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|i| args.get(i + 1))
        .map_or_else(
            || workspace().join("target/bench-corpus/traffic.ndjson"),
            PathBuf::from,
        );
    let text = bench_traffic::capture(&workspace()).context("reading the real captures")?;
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&out, &text).with_context(|| format!("writing {}", out.display()))?;
    println!(
        "{} messages, {} bytes  {}",
        text.lines().count(),
        text.len(),
        out.display()
    );
    Ok(())
}

/// Writes (or checks) `docs/rule-file.schema.json` and the check reference of
/// `docs/rule-format.md`.
/// Also `docs/coverage.md`, from the rules' `covers` and `docs/coverage-notes.yaml`.
fn generate(check: bool) -> Result<()> {
    use mcpdesc_core::internal::rules::schema;
    let path = workspace().join("docs/rule-file.schema.json");
    let text = serde_json::to_string_pretty(&schema::rule_file_schema())? + "\n";
    write_or_check(&path, &text, check)?;
    let path = workspace().join("docs/coverage.md");
    write_or_check(&path, &coverage_markdown()?, check)?;
    let path = workspace().join("docs/rule-format.md");
    let current =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let text = schema::with_checks_reference(&current)
        .context("docs/rule-format.md lacks the checks markers")?;
    write_or_check(&path, &text, check)
}

fn write_or_check(path: &Path, text: &str, check: bool) -> Result<()> {
    if check {
        let current = std::fs::read_to_string(path).unwrap_or_default();
        if current != text {
            bail!(
                "{} is stale; run `cargo xtask generate` to regenerate it",
                path.display()
            );
        }
        return Ok(());
    }
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// The requirement coverage page, from the workspace rules and `docs/coverage-notes.yaml`.
fn coverage_markdown() -> Result<String> {
    use mcpdesc_authoring::coverage;
    use mcpdesc_core::RuleSet;
    let catalogue = RuleSet::from_dir(&workspace().join("rules"))
        .and_then(|set| set.compile())
        .map_err(|e| anyhow::anyhow!("loading rules/: {e}"))?;
    // The requirement inventory is that of the default release.
    let catalogue = catalogue.default_release();
    let rules: Vec<_> = catalogue.rules.iter().map(|r| &*r.def).collect();
    let path = workspace().join("docs/coverage-notes.yaml");
    let notes =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    coverage::markdown(&rules, &notes)
        .map_err(|problems| anyhow::anyhow!("docs/coverage.md:\n  {}", problems.join("\n  ")))
}
