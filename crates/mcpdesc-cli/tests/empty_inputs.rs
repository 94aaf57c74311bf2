//! A directory or glob argument of `mcpdesc validate` that yields no document fails the run
//! (exit 2) before anything is validated, naming every such argument, unless
//! `--allow-empty-input` (or `allow-empty-input` in `mcpdesc.toml`) lets it pass. A CORPUS
//! directory of `mcpdesc test` or `mcpdesc diff` that holds no document does the same, unless
//! their `--allow-empty-input` lets it pass.

mod support;

use std::path::Path;

use support::{mcpdesc_in, Run};

const VALID: &str = r#"{"mcpdesc": "0.8.0", "info": {"name": "a", "version": "1.0.0"},
  "protocolVersions": ["2025-11-25"]}"#;

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A project with an empty `specs/`, a `fixtures/` of sidecars only and a valid `good/a.json`.
fn project() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::create_dir_all(d.join("specs")).unwrap();
    write(d, "specs/README.md", "not a document");
    write(d, "fixtures/a.expected.yaml", "valid: true\n");
    write(d, "good/a.json", VALID);
    tmp
}

fn validate(dir: &Path, args: &[&str]) -> Run {
    let mut all = vec!["validate", "--no-progress"];
    all.extend_from_slice(args);
    mcpdesc_in(dir, all)
}

fn error_lines(run: &Run) -> Vec<&str> {
    run.stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .collect()
}

#[test]
fn an_empty_directory_fails_naming_it() {
    let tmp = project();
    let run = validate(tmp.path(), &["specs/"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert_eq!(
        error_lines(&run),
        [
            "error: `specs/` holds no MCP Description documents or captures \
          (*.json, *.yaml, *.yml, *.ndjson, *.jsonl)"
        ]
    );
    assert!(
        run.stderr.contains("--allow-empty-input"),
        "{}",
        run.output()
    );
    // Nothing is reported that could read as a pass.
    assert_eq!(run.stdout, "", "{}", run.output());
}

#[test]
fn a_glob_matching_only_sidecars_fails_naming_the_pattern() {
    let tmp = project();
    let run = validate(tmp.path(), &["fixtures/*.yaml"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert_eq!(
        error_lines(&run),
        [
            "error: `fixtures/*.yaml` matches no MCP Description documents or captures \
          (*.json, *.yaml, *.yml, *.ndjson, *.jsonl)"
        ]
    );
    assert_eq!(run.stdout, "");
}

#[test]
fn a_glob_below_a_missing_directory_says_so() {
    let tmp = project();
    let run = validate(tmp.path(), &["nothing/**/*.json"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    let errors = error_lines(&run);
    assert_eq!(errors.len(), 1, "{}", run.output());
    assert!(
        errors[0].starts_with("error: `nothing/**/*.json` matches no MCP Description documents")
            && errors[0].ends_with("; `nothing` does not exist"),
        "{}",
        run.output()
    );
}

#[test]
fn every_empty_input_is_named_once_in_order() {
    let tmp = project();
    let run = validate(
        tmp.path(),
        &["specs", "fixtures/*.yaml", "good", "specs", "-"],
    );
    assert_eq!(run.code, Some(2), "{}", run.output());
    let errors = error_lines(&run);
    assert_eq!(errors.len(), 2, "{}", run.output());
    assert!(
        errors[0].starts_with("error: `specs` holds no "),
        "{errors:?}"
    );
    assert!(
        errors[1].starts_with("error: `fixtures/*.yaml` matches no "),
        "{errors:?}"
    );
    // The hint comes once, after the errors.
    assert_eq!(run.stderr.matches("--allow-empty-input").count(), 1);
    assert!(run.stderr.trim_end().ends_with("to let such inputs pass"));
}

#[test]
fn an_empty_input_fails_the_run_before_the_good_ones_are_validated() {
    let tmp = project();
    let run = validate(tmp.path(), &["good/a.json", "specs", "good"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert_eq!(error_lines(&run).len(), 1, "{}", run.output());
    assert!(!run.stderr.contains("`good"), "{}", run.output());
    assert_eq!(run.stdout, "", "{}", run.output());
    // Also in the machine formats: no report rather than one that omits an input.
    let run = validate(tmp.path(), &["--format", "json", "good", "specs"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert_eq!(run.stdout, "", "{}", run.output());
}

#[test]
fn the_flag_lets_empty_inputs_pass() {
    let tmp = project();
    let run = validate(
        tmp.path(),
        &["--allow-empty-input", "specs", "fixtures/*.yaml"],
    );
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert!(run.stdout.contains("Checked 0 files"), "{}", run.output());
    assert_eq!(run.stderr, "", "{}", run.output());
    // The other inputs are validated as usual.
    let run = validate(tmp.path(), &["--allow-empty-input", "specs", "good"]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert!(run.stdout.contains("Checked 1 file"), "{}", run.output());
}

#[test]
fn the_configuration_key_lets_empty_inputs_pass() {
    let tmp = project();
    let d = tmp.path();
    write(d, "mcpdesc.toml", "[validate]\nallow-empty-input = true\n");
    let run = validate(d, &["specs"]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert!(run.stdout.contains("Checked 0 files"), "{}", run.output());
    // It is the key that allowed it.
    let run = validate(d, &["--no-config", "specs"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    write(d, "other.toml", "[validate]\nallow-empty-input = false\n");
    let run = validate(d, &["--config", "other.toml", "specs"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    let run = validate(
        d,
        &["--config", "other.toml", "--allow-empty-input", "specs"],
    );
    assert_eq!(run.code, Some(0), "{}", run.output());
}

#[test]
fn a_directory_of_ignored_documents_is_empty_and_the_message_says_why() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(d, "specs/.gitignore", "generated/\n");
    write(d, "specs/generated/a.json", VALID);
    write(d, "specs/.hidden/b.yaml", "x: 1\n");
    let run = validate(d, &["specs"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    let errors = error_lines(&run);
    assert_eq!(errors.len(), 1, "{}", run.output());
    assert!(
        errors[0].starts_with("error: `specs` holds no MCP Description documents")
            && errors[0].contains("hidden or excluded by .gitignore or .ignore files"),
        "{}",
        run.output()
    );
    let run = validate(d, &["specs/**/*.json"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert!(
        run.stderr.contains("excluded by .gitignore"),
        "{}",
        run.output()
    );
    // Naming an ignored file still validates it.
    let run = validate(d, &["specs/generated/a.json"]);
    assert_eq!(run.code, Some(0), "{}", run.output());
}

#[test]
fn a_directory_holding_only_the_baseline_is_empty() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(
        d,
        "specs/baseline.json",
        r#"{"version": 1, "findings": []}"#,
    );
    let run = validate(d, &["--baseline", "specs/baseline.json", "specs"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert!(
        run.stderr.contains("other than the baseline"),
        "{}",
        run.output()
    );
}

#[test]
fn writing_a_baseline_from_an_empty_input_fails_and_writes_nothing() {
    let tmp = project();
    let d = tmp.path();
    let args = [
        "--baseline",
        "baseline.json",
        "--write-baseline",
        "good",
        "specs",
    ];
    let run = validate(d, &args);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert!(run.stderr.contains("`specs` holds no"), "{}", run.output());
    assert!(!d.join("baseline.json").exists());
    let mut allowed = vec!["--allow-empty-input"];
    allowed.extend(args);
    let run = validate(d, &allowed);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert!(d.join("baseline.json").exists());
}

#[test]
fn standard_input_is_never_empty() {
    let run = support::mcpdesc_stdin(["validate", "--no-progress", "-"], VALID);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert!(run.stdout.contains("Checked 1 file"), "{}", run.output());
}

#[test]
fn a_missing_path_is_still_an_unreadable_input() {
    // Whether a mistyped file or a mistyped directory: reported for that input (the others
    // still validated), not as an empty input.
    let tmp = project();
    let run = validate(tmp.path(), &["good", "no/such/dir", "no/such.json"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert!(error_lines(&run).is_empty(), "{}", run.output());
    assert!(
        run.stdout
            .contains("no/such/dir: error[io-error] cannot read no/such/dir")
            && run.stdout.contains("Checked 3 files"),
        "{}",
        run.output()
    );
}

fn test_cmd(dir: &Path, args: &[&str]) -> Run {
    let mut all = vec!["test"];
    all.extend_from_slice(args);
    mcpdesc_in(dir, all)
}

fn diff(dir: &Path, args: &[&str]) -> Run {
    let mut all = vec!["diff", "--base-spec-version", "0.8.0"];
    all.extend_from_slice(args);
    mcpdesc_in(dir, all)
}

/// The hint of `test` and `diff`, which read no `mcpdesc.toml`.
const CORPUS_HINT: &str = "hint: pass --allow-empty-input to let such inputs pass";

#[test]
fn test_on_an_empty_corpus_directory_fails_naming_it() {
    let tmp = project();
    let run = test_cmd(tmp.path(), &["specs/"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert_eq!(
        error_lines(&run),
        [
            "error: `specs/` holds no MCP Description documents or captures \
          (*.json, *.yaml, *.yml, *.ndjson, *.jsonl)"
        ]
    );
    assert_eq!(
        run.stderr.lines().last(),
        Some(CORPUS_HINT),
        "{}",
        run.output()
    );
    // No `0 passed, 0 failed` that could read as a pass, in any format.
    assert_eq!(run.stdout, "", "{}", run.output());
    for format in ["json", "junit"] {
        let run = test_cmd(tmp.path(), &["--format", format, "specs"]);
        assert_eq!(run.code, Some(2), "{format}: {}", run.output());
        assert_eq!(run.stdout, "", "{format}: {}", run.output());
        assert!(!run.stderr.contains("passed"), "{format}: {}", run.output());
    }
}

#[test]
fn test_names_every_empty_corpus_directory_once_and_runs_nothing() {
    let tmp = project();
    let d = tmp.path();
    // `fixtures/` holds sidecars only; `good/` is a corpus of one fixture.
    let run = test_cmd(d, &["--bless", "good", "specs", "fixtures", "specs"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    let errors = error_lines(&run);
    assert_eq!(errors.len(), 2, "{}", run.output());
    assert!(
        errors[0].starts_with("error: `specs` holds no "),
        "{errors:?}"
    );
    assert!(
        errors[1].starts_with("error: `fixtures` holds no "),
        "{errors:?}"
    );
    assert_eq!(run.stderr.matches("--allow-empty-input").count(), 1);
    assert_eq!(run.stdout, "", "{}", run.output());
    // `--bless` wrote nothing.
    assert!(!d.join("good/a.expected.yaml").exists());
    // A file argument is never empty.
    let run = test_cmd(d, &["good/a.json"]);
    assert_eq!(run.code, Some(0), "{}", run.output());
}

#[test]
fn test_says_when_a_corpus_directory_holds_only_hidden_documents() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(d, "corpus/.drafts/a.json", VALID);
    let run = test_cmd(d, &["corpus"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    let errors = error_lines(&run);
    assert_eq!(errors.len(), 1, "{}", run.output());
    assert!(
        errors[0].starts_with("error: `corpus` holds no MCP Description documents")
            && errors[0].contains(": the ones below it are hidden"),
        "{}",
        run.output()
    );
    // Naming the hidden directory takes what it holds.
    let run = test_cmd(d, &["corpus/.drafts"]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert!(
        run.stdout.ends_with("1 passed, 0 failed\n"),
        "{}",
        run.output()
    );
}

#[test]
fn the_flag_lets_an_empty_corpus_directory_pass_test() {
    let tmp = project();
    let run = test_cmd(tmp.path(), &["--allow-empty-input", "specs", "fixtures"]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert!(
        run.stdout.ends_with("0 passed, 0 failed\n"),
        "{}",
        run.output()
    );
    assert!(error_lines(&run).is_empty(), "{}", run.output());
    // The other corpus arguments are run as usual.
    let run = test_cmd(tmp.path(), &["--allow-empty-input", "specs", "good"]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert!(
        run.stdout.ends_with("1 passed, 0 failed\n"),
        "{}",
        run.output()
    );
}

#[test]
fn a_missing_corpus_path_is_still_an_error_of_its_own() {
    let tmp = project();
    let run = test_cmd(tmp.path(), &["--allow-empty-input", "no/such/dir"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert!(
        run.stderr
            .contains("no/such/dir: no such file or directory"),
        "{}",
        run.output()
    );
}

#[test]
fn test_without_corpus_keeps_running_a_release_whose_fixture_directory_is_empty() {
    // The fixture directory a release names is not an argument: its examples and registry
    // checks run and fail for the fixtures they miss, rather than the run being refused.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let release = support::workspace().join("crates/mcpdesc-core/tests/releases/fictional");
    std::fs::create_dir_all(d.join("rules")).unwrap();
    for entry in std::fs::read_dir(&release).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") {
            std::fs::copy(&path, d.join("rules").join(path.file_name().unwrap())).unwrap();
        }
    }
    // The fictional release's `fixtures: ../fictional-fixtures`.
    std::fs::create_dir_all(d.join("fictional-fixtures")).unwrap();
    let run = test_cmd(
        d,
        &["--rules", "rules", "--spec-version", "0.9.0-fictional.1"],
    );
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(
        run.stdout.contains("FAIL registry example-targets-exist"),
        "{}",
        run.output()
    );
    assert!(!run.stderr.contains("holds no"), "{}", run.output());
}

#[test]
fn diff_on_an_empty_corpus_directory_fails_naming_it() {
    let tmp = project();
    let d = tmp.path();
    let run = diff(d, &["good", "specs"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert_eq!(
        error_lines(&run),
        [
            "error: `specs` holds no MCP Description documents or captures \
          (*.json, *.yaml, *.yml, *.ndjson, *.jsonl)"
        ]
    );
    assert_eq!(
        run.stderr.lines().last(),
        Some(CORPUS_HINT),
        "{}",
        run.output()
    );
    // No report of no change that could read as "the rule change affects nothing".
    assert_eq!(run.stdout, "", "{}", run.output());
    let run = diff(d, &["--format", "json", "fixtures"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert_eq!(run.stdout, "", "{}", run.output());
}

#[test]
fn the_flag_lets_an_empty_corpus_directory_pass_diff() {
    let tmp = project();
    let d = tmp.path();
    let run = diff(d, &["--allow-empty-input", "--format", "json", "specs"]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["documents"], 0, "{}", run.output());
    let run = diff(
        d,
        &["--allow-empty-input", "--format", "json", "specs", "good"],
    );
    assert_eq!(run.code, Some(0), "{}", run.output());
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["documents"], 1, "{}", run.output());
    let run = diff(d, &["--allow-empty-input", "specs"]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert!(
        run.stdout.starts_with("## Rule change impact"),
        "{}",
        run.output()
    );
}
