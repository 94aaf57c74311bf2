//! Which files `mcpdesc validate` checks: a directory walk takes descriptions and captures
//! only (not every JSON or YAML file of a repository), `include`/`exclude`/`extend-exclude`
//! from `mcpdesc.toml` or the flags, the default excludes, `--force-exclude` for named files,
//! `--show-files`, and standard input read as what it holds.

mod support;

use std::path::Path;

use support::{mcpdesc_in, mcpdesc_stdin, Run};

const VALID: &str =
    "mcpdesc: 0.8.0\ninfo:\n  name: a\n  version: 1.0.0\nprotocolVersions: [\"2025-11-25\"]\n";
const INVALID: &str = "mcpdesc: 0.8.0\ninfo:\n  version: 1.0.0\nprotocolVersions: []\n";

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A web project's repository with one MCP Description among other people's JSON and YAML.
fn repository() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(
        d,
        "package.json",
        r#"{"name": "web", "version": "1.0.0", "scripts": {}}"#,
    );
    write(
        d,
        "tsconfig.json",
        r#"{"compilerOptions": {"strict": true}}"#,
    );
    write(
        d,
        "openapi.yaml",
        "openapi: 3.1.0\ninfo:\n  title: API\n  version: 1.0.0\npaths: {}\n",
    );
    write(d, "mcp/server.yaml", VALID);
    tmp
}

fn validate(dir: &Path, args: &[&str]) -> Run {
    let mut all = vec!["validate", "--no-progress", "--color", "never"];
    all.extend_from_slice(args);
    mcpdesc_in(dir, all)
}

fn summary(run: &Run) -> &str {
    run.stdout.lines().last().unwrap_or_default()
}

#[test]
fn a_repository_walk_checks_its_one_description() {
    let repo = repository();
    let run = validate(repo.path(), &["."]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert_eq!(
        summary(&run),
        "Checked 1 file: 0 invalid, 0 errors, 0 warnings."
    );
}

#[test]
fn show_files_lists_what_is_checked_and_counts_what_is_skipped() {
    let repo = repository();
    let run = validate(repo.path(), &["--show-files", "."]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert_eq!(run.stdout, "mcp/server.yaml\n");
    for skipped in ["package.json", "tsconfig.json", "openapi.yaml"] {
        assert!(
            run.stderr.contains(&format!(
                "skipped {skipped}: not an MCP Description document or capture"
            )),
            "{}",
            run.stderr
        );
    }
    assert!(
        run.stderr.contains("mcpdesc: 1 file to check, 3 skipped"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_named_file_is_checked_whatever_it_holds() {
    let repo = repository();
    let run = validate(repo.path(), &["package.json"]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(
        summary(&run).starts_with("Checked 1 file: 1 invalid"),
        "{}",
        run.output()
    );
}

#[test]
fn force_exclude_applies_recognition_and_excludes_to_named_files() {
    let repo = repository();
    write(repo.path(), "node_modules/dep/server.mcpdesc.json", "{}");
    write(repo.path(), "mcp/broken.yaml", INVALID);
    let run = validate(
        repo.path(),
        &[
            "--force-exclude",
            "package.json",
            "openapi.yaml",
            "node_modules/dep/server.mcpdesc.json",
            "mcp/server.yaml",
            "mcp/broken.yaml",
        ],
    );
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(run.stdout.contains("mcp/broken.yaml"), "{}", run.output());
    assert!(!run.stdout.contains("package.json"), "{}", run.output());
    assert!(!run.stdout.contains("node_modules"), "{}", run.output());
    assert_eq!(
        summary(&run),
        "Checked 2 files: 1 invalid, 2 errors, 0 warnings."
    );
}

#[test]
fn a_walk_only_of_other_peoples_files_fails_as_an_empty_one() {
    let repo = repository();
    std::fs::remove_dir_all(repo.path().join("mcp")).unwrap();
    let run = validate(repo.path(), &["."]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert!(
        run.stderr.contains(
            "error: `.` holds no MCP Description documents or captures (*.json, *.yaml, *.yml, \
             *.ndjson, *.jsonl): the 3 files it yields are other JSON or YAML"
        ),
        "{}",
        run.stderr
    );
    let allowed = validate(repo.path(), &["--allow-empty-input", "."]);
    assert_eq!(allowed.code, Some(0), "{}", allowed.output());
}

#[test]
fn default_excludes_skip_dependency_and_build_trees() {
    let repo = repository();
    for dir in [
        "node_modules/x",
        "target/debug",
        ".venv/lib",
        "dist",
        "build",
    ] {
        write(repo.path(), &format!("{dir}/server.yaml"), INVALID);
    }
    let run = validate(repo.path(), &["."]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert_eq!(
        summary(&run),
        "Checked 1 file: 0 invalid, 0 errors, 0 warnings."
    );
    // Naming an excluded directory walks it all the same.
    let named = validate(repo.path(), &["build"]);
    assert_eq!(named.code, Some(1), "{}", named.output());
}

#[test]
fn exclude_flags_replace_or_extend_the_list() {
    let repo = repository();
    write(repo.path(), "mcp/drafts/next.yaml", INVALID);
    write(repo.path(), "build/server.yaml", INVALID);
    let extended = validate(repo.path(), &["--extend-exclude", "drafts", "."]);
    assert_eq!(extended.code, Some(0), "{}", extended.output());
    assert!(summary(&extended).starts_with("Checked 1 file"));
    // `--exclude` replaces the default list, so `build/` is walked again.
    let replaced = validate(repo.path(), &["--exclude", "drafts", "."]);
    assert_eq!(replaced.code, Some(1), "{}", replaced.output());
    assert!(
        replaced.stdout.contains("build/server.yaml"),
        "{}",
        replaced.output()
    );
    assert!(!replaced.stdout.contains("drafts"), "{}", replaced.output());
}

#[test]
fn the_configuration_file_sets_include_and_excludes_relative_to_itself() {
    let repo = repository();
    write(repo.path(), "mcp/legacy/old.yaml", INVALID);
    write(repo.path(), "mcp/server.mcp", INVALID);
    write(
        repo.path(),
        "mcpdesc.toml",
        "[validate]\ninclude = [\"*.yaml\", \"*.mcp\"]\nextend-exclude = [\"/mcp/legacy\"]\n",
    );
    let run = validate(repo.path(), &["--show-files", "."]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert_eq!(run.stdout, "mcp/server.mcp\nmcp/server.yaml\n");
    // From a subdirectory the patterns still mean the same files.
    let sub = validate(&repo.path().join("mcp"), &["--show-files", "."]);
    assert_eq!(sub.stdout, "server.mcp\nserver.yaml\n", "{}", sub.output());
}

#[test]
fn force_exclude_in_the_configuration_file_and_its_negation() {
    let repo = repository();
    write(
        repo.path(),
        "mcpdesc.toml",
        "[validate]\nforce-exclude = true\n",
    );
    let run = validate(repo.path(), &["package.json", "mcp/server.yaml"]);
    assert_eq!(
        summary(&run),
        "Checked 1 file: 0 invalid, 0 errors, 0 warnings."
    );
    let run = validate(
        repo.path(),
        &["--no-force-exclude", "package.json", "mcp/server.yaml"],
    );
    assert!(
        summary(&run).starts_with("Checked 2 files"),
        "{}",
        run.output()
    );
}

#[test]
fn a_bad_pattern_is_a_usage_error_naming_it() {
    let repo = repository();
    let run = validate(repo.path(), &["--exclude", "{a", "."]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert!(run.stderr.contains("`{a` in --exclude"), "{}", run.stderr);
}

#[test]
fn standard_input_yaml_is_read_as_yaml() {
    let run = mcpdesc_stdin(["validate", "-"], VALID);
    assert_eq!(run.code, Some(0), "{}", run.output());
    let run = mcpdesc_stdin(["validate", "-"], INVALID);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(run.stdout.contains("<stdin>:"), "{}", run.output());
    assert!(!run.stdout.contains("JSON syntax"), "{}", run.output());
}

#[test]
fn standard_input_ndjson_is_read_as_a_capture() {
    let capture = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#,
        "\n"
    );
    let run = mcpdesc_stdin(["validate", "--format", "json", "-"], capture);
    let report: serde_json::Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|_| panic!("{}", run.output()));
    let file = &report["files"][0];
    assert!(file["load_error"].is_null(), "{}", run.output());
    assert_ne!(run.code, Some(2), "{}", run.output());
}

#[test]
fn a_broken_standard_input_names_stdin_filename() {
    let run = mcpdesc_stdin(["validate", "-"], "mcpdesc: [\n");
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(
        run.stderr.contains("standard input was read as YAML")
            && run.stderr.contains("--stdin-filename"),
        "{}",
        run.stderr
    );
    // With a name that says the format, no guess is made and none is explained.
    let named = mcpdesc_stdin(
        ["validate", "--stdin-filename", "a.json", "-"],
        "mcpdesc: [\n",
    );
    assert_eq!(named.code, Some(1), "{}", named.output());
    assert!(named.stdout.contains("a.json:"), "{}", named.output());
    assert!(!named.stderr.contains("hint:"), "{}", named.stderr);
}

#[test]
fn stdin_filename_takes_the_excludes_under_force_exclude() {
    let run = mcpdesc_stdin(
        [
            "validate",
            "--force-exclude",
            "--stdin-filename",
            "node_modules/x/server.yaml",
            "-",
        ],
        INVALID,
    );
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert_eq!(
        summary(&run),
        "Checked 0 files: 0 invalid, 0 errors, 0 warnings."
    );
}
