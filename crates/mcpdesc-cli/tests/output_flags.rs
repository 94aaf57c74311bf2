//! The output conventions people bring from ruff and eslint: `-f concise`, `-o FILE`,
//! `-q`/`-qq`/`--silent`, `--statistics`, `--max-warnings`, `--select`/`--ignore` patterns
//! that match no rule, close ids for `explain`, and a `rules list` that fits the terminal.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::{mcpdesc, mcpdesc_in, Run};

fn project() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/project")
}

const SET: [&str; 2] = ["servers", "legacy/archive.yaml"];

/// `mcpdesc validate --color never ARGS` in the fixed project.
fn validate(args: &[&str]) -> Run {
    let mut all = vec!["validate", "--color", "never"];
    all.extend_from_slice(args);
    mcpdesc_in(&project(), all)
}

/// `mcpdesc ARGS` with `COLUMNS` set to `columns`, or unset when `None`.
fn with_columns(columns: Option<&str>, args: &[&str]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpdesc"));
    cmd.args(args);
    match columns {
        Some(c) => cmd.env("COLUMNS", c),
        None => cmd.env_remove("COLUMNS"),
    };
    let out = cmd.output().unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn concise_is_one_line_per_finding() {
    let run = validate(&["-f", "concise", SET[0], SET[1]]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    let expected = "\
servers/calendar.yaml:5:3: warning mcpdesc.info.version-semver `info.version` \"2026.03\" is not a Semantic Version such as 1.4.0; consider using one (MCP 2025-11-25)
servers/registry.json:3:3: error mcpdesc.info.required-fields `info` is missing required member `name` (MCP 2025-06-18, 2025-11-25)
servers/registry.json:14:11: error mcp.elicitation.protocol-version URL-mode elicitation does not exist in MCP 2025-06-18; use form mode there, or URL mode only in 2025-11-25 or later (MCP 2025-06-18)
legacy/archive.yaml:5:1: error mcpdesc.protocol-versions.root-shape `protocolVersions` is empty; list at least one MCP protocol version
legacy/archive.yaml:10:5: warning mcpdesc-cli.unused-suppression the suppression of `mcp.elicitation.*` at `/tools/0` matches no finding; remove it
Checked 4 files: 2 invalid, 3 errors, 2 warnings; 1 suppressed.
";
    assert_eq!(run.stdout, expected);
    // The same findings as the text format, in the same order.
    let text = validate(&[SET[0], SET[1]]);
    let heads: Vec<&str> = text
        .stdout
        .lines()
        .filter(|l| l.contains(": error[") || l.contains(": warning["))
        .collect();
    assert_eq!(heads.len(), run.stdout.lines().count() - 1);
}

#[test]
fn concise_can_be_the_format_of_the_configuration_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        project().join("servers/registry.json"),
        dir.path().join("registry.json"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("mcpdesc.toml"),
        "[validate]\nformat = \"concise\"\n",
    )
    .unwrap();
    let run = mcpdesc_in(
        dir.path(),
        ["validate", "--color", "never", "registry.json"],
    );
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(
        run.stdout
            .starts_with("registry.json:3:3: error mcpdesc.info.required-fields "),
        "{}",
        run.stdout
    );
    // The command line wins.
    let run = mcpdesc_in(dir.path(), ["validate", "-f", "json", "registry.json"]);
    assert!(run.stdout.starts_with('{'), "{}", run.stdout);
}

#[test]
fn a_document_that_cannot_be_read_is_one_concise_line() {
    let run = validate(&["-f", "concise", "missing.json"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    let first = run.stdout.lines().next().unwrap();
    assert!(
        first.starts_with("missing.json: error io-error "),
        "{first}"
    );
}

#[test]
fn the_report_goes_to_the_output_file_with_the_same_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    for format in ["text", "json", "junit", "concise"] {
        let file = dir.path().join(format!("report.{format}"));
        let file_arg = file.to_str().unwrap();
        let run = validate(&["-f", format, "-o", file_arg, SET[0], SET[1]]);
        assert_eq!(run.code, Some(1), "{format}: {}", run.output());
        assert_eq!(run.stdout, "", "{format}");
        let plain = validate(&["-f", format, SET[0], SET[1]]);
        let written = std::fs::read_to_string(&file).unwrap();
        assert_eq!(written, plain.stdout, "{format}");
    }
    // The long form, on a clean document: exit 0 and the summary in the file.
    let file = dir.path().join("clean.txt");
    let run = validate(&[
        "--output-file",
        file.to_str().unwrap(),
        "servers/weather.json",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .starts_with("Checked 1 file: 0 invalid"));
}

#[test]
fn an_output_file_that_cannot_be_written_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("no/such/dir/report.txt");
    let run = validate(&["-o", file.to_str().unwrap(), "servers/weather.json"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert!(
        run.stderr.contains("cannot write the report to"),
        "{}",
        run.stderr
    );
}

#[test]
fn quiet_prints_only_the_findings_and_silent_nothing() {
    let run = validate(&["-q", SET[0], SET[1]]);
    assert_eq!(run.code, Some(1));
    assert!(run.stdout.contains("error[mcpdesc.info.required-fields]"));
    assert!(!run.stdout.contains("Checked "), "{}", run.stdout);
    let clean = validate(&["--quiet", "servers/weather.json"]);
    assert_eq!(clean.code, Some(0));
    assert_eq!(clean.stdout, "");
    let concise = validate(&["-q", "-f", "concise", SET[0], SET[1]]);
    assert_eq!(concise.stdout.lines().count(), 5, "{}", concise.stdout);

    for flags in [&["-qq"][..], &["--silent"], &["-q", "-q"]] {
        let mut args = flags.to_vec();
        args.extend(SET);
        let run = validate(&args);
        assert_eq!(run.code, Some(1), "{flags:?}");
        assert_eq!(run.stdout, "", "{flags:?}");
        assert_eq!(run.stderr, "", "{flags:?}");
        let mut args = flags.to_vec();
        args.push("servers/weather.json");
        assert_eq!(validate(&args).code, Some(0), "{flags:?}");
    }
    // An input that cannot be read ends the run with exit 2, and is said even then.
    let run = validate(&["--silent", "servers/weather.json", "missing.json"]);
    assert_eq!(run.code, Some(2));
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .starts_with("missing.json: error: cannot read missing.json"),
        "{}",
        run.stderr
    );
}

/// Two copies of the invalid registry document and the calendar: each registry rule found
/// twice, the calendar's once.
fn statistics_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let servers = project().join("servers");
    for (from, to) in [
        ("registry.json", "a.json"),
        ("registry.json", "b.json"),
        ("calendar.yaml", "c.yaml"),
    ] {
        std::fs::copy(servers.join(from), dir.path().join(to)).unwrap();
    }
    dir
}

#[test]
fn statistics_count_the_findings_of_each_rule_most_first() {
    let dir = statistics_project();
    let run = mcpdesc_in(dir.path(), ["validate", "--no-config", "--statistics", "."]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", run.stdout);
    let fields = |l: &str| -> Vec<String> {
        l.split_whitespace()
            .take(3)
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        fields(lines[0]),
        ["2", "error", "mcp.elicitation.protocol-version"]
    );
    assert_eq!(
        fields(lines[1]),
        ["2", "error", "mcpdesc.info.required-fields"]
    );
    assert_eq!(
        fields(lines[2]),
        ["1", "warning", "mcpdesc.info.version-semver"]
    );
    assert!(lines[0].ends_with("Use elicitation only in protocol versions that define it"));
    assert!(lines[3].starts_with("Checked 3 files"), "{}", lines[3]);
    // No finding is printed one by one.
    assert!(!run.stdout.contains("info.version` \"2026.03\""));

    let json = mcpdesc_in(
        dir.path(),
        ["validate", "--no-config", "--statistics", "-f", "json", "."],
    );
    assert_eq!(json.code, Some(1));
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let counts: Vec<(&str, u64)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["rule"].as_str().unwrap(), c["count"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        counts,
        [
            ("mcp.elicitation.protocol-version", 2),
            ("mcpdesc.info.required-fields", 2),
            ("mcpdesc.info.version-semver", 1)
        ]
    );
    assert_eq!(v[2]["severity"], "warning");

    let quiet = mcpdesc_in(
        dir.path(),
        ["validate", "--no-config", "--statistics", "-q", "."],
    );
    assert_eq!(quiet.stdout.lines().count(), 3, "{}", quiet.stdout);
}

#[test]
fn statistics_of_a_format_without_them_is_a_usage_error() {
    for format in ["sarif", "github", "junit"] {
        let run = validate(&["--statistics", "-f", format, "servers"]);
        assert_eq!(run.code, Some(2), "{format}");
        assert_eq!(run.stdout, "", "{format}");
        assert!(
            run.stderr.contains("--statistics works with"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn more_warnings_than_max_warnings_fail_the_run() {
    // calendar.yaml has one warning and no error.
    let at_limit = validate(&["--max-warnings", "1", "servers/calendar.yaml"]);
    assert_eq!(at_limit.code, Some(0), "{}", at_limit.output());
    let over = validate(&["--max-warnings", "0", "servers/calendar.yaml"]);
    assert_eq!(over.code, Some(1), "{}", over.output());
    assert!(
        over.stderr
            .contains("1 warning found, more than --max-warnings 0 allows"),
        "{}",
        over.stderr
    );
    // Errors fail the run whatever the limit.
    let errors = validate(&["--max-warnings", "10", "servers/registry.json"]);
    assert_eq!(errors.code, Some(1));
    let silent = validate(&["--silent", "--max-warnings", "0", "servers/calendar.yaml"]);
    assert_eq!(silent.code, Some(1));
    assert_eq!(silent.stderr, "");
}

#[test]
fn a_mistyped_rule_pattern_is_a_usage_error_with_a_suggestion() {
    // registry.json is invalid: with the typo a CI job used to pass having checked nothing.
    let run = validate(&["--select", "mcpdesc.tol.required", "servers/registry.json"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "error: `--select mcpdesc.tol.required` matches no rule; did you mean `mcpdesc.tool.required`?\n"
    );

    let run = validate(&[
        "--select",
        "mcp.elicitaton.*,mcpdesc.info",
        "--ignore",
        "nosuch.rule",
        "servers",
    ]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert_eq!(
        run.stderr,
        "error: `--select mcp.elicitaton.*` matches no rule; did you mean `mcp.elicitation.*`?\n\
         error: `--ignore nosuch.rule` matches no rule; `mcpdesc rules list` shows every rule\n"
    );

    // Patterns that match, the command line's own rules included, are fine.
    let run = validate(&[
        "--select",
        "mcpdesc.info.,mcp.elicitation.*,mcpdesc-cli",
        "--ignore",
        "mcpdesc.info.version-semver",
        "servers",
    ]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert_eq!(run.stderr, "");
}

#[test]
fn a_mistyped_pattern_of_the_configuration_file_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        project().join("servers/registry.json"),
        dir.path().join("registry.json"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("mcpdesc.toml"),
        "[validate]\nignore = [\"mcpdesc.info.requied-fields\"]\n",
    )
    .unwrap();
    let run = mcpdesc_in(dir.path(), ["validate", "registry.json"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .starts_with("error: `ignore` of `mcpdesc.info.requied-fields` in "),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("mcpdesc.toml matches no rule; did you mean `mcpdesc.info.required-fields`?"),
        "{}",
        run.stderr
    );
    // `--config FILE` is named as given.
    let config = dir.path().join("mcpdesc.toml");
    let run = mcpdesc_in(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        [
            "validate",
            "--config",
            config.to_str().unwrap(),
            dir.path().join("registry.json").to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert!(
        run.stderr
            .contains(&format!("in {} matches no rule", config.display())),
        "{}",
        run.stderr
    );
}

#[test]
fn explain_of_an_unknown_id_suggests_the_closest() {
    let run = mcpdesc(["explain", "mcpdesc.tool.requird"]);
    assert_eq!(run.code, Some(2));
    assert_eq!(
        run.stderr,
        "error: no rule `mcpdesc.tool.requird`; did you mean `mcpdesc.tool.required`?\n"
    );
    let run = mcpdesc(["rules", "show", "mcpdesc-cli.unused-supression"]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr
            .contains("did you mean one of: `mcpdesc-cli.unused-suppression`, "),
        "{}",
        run.stderr
    );
    let run = mcpdesc(["explain", "zzz.nothing.like.it"]);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("`mcpdesc rules list` shows every rule"));
}

/// Every id of the embedded default release.
fn rule_ids() -> Vec<String> {
    let run = mcpdesc(["rules", "list", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    v["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn rules_list_fits_the_terminal_width() {
    let ids = rule_ids();
    for columns in ["80", "100", "120"] {
        let width: usize = columns.parse().unwrap();
        let run = with_columns(Some(columns), &["rules", "list"]);
        assert_eq!(run.code, Some(0));
        for line in run.stdout.lines() {
            assert!(
                line.chars().count() <= width,
                "{columns}: {} > {width}: {line}",
                line.chars().count()
            );
        }
        // Ids are never cut: each one starts a line whole.
        for id in &ids {
            assert!(
                run.stdout
                    .lines()
                    .any(|l| l.split_whitespace().next() == Some(id.as_str())),
                "{columns}: {id} is cut"
            );
        }
        assert!(run.stdout.starts_with("ID "));
        assert!(run.stdout.contains('…'), "{columns}: nothing was cut");
    }
    // Wide enough: the whole table, as a pipe gets it.
    let wide = with_columns(Some("400"), &["rules", "list"]);
    let piped = with_columns(None, &["rules", "list"]);
    assert_eq!(wide.stdout, piped.stdout);
    assert!(!piped.stdout.contains('…'));
    assert!(piped.stdout.lines().any(|l| l.chars().count() > 120));
    assert!(piped.stdout.lines().next().unwrap().contains("SURFACE"));
    // The JSON is never fitted.
    let json = with_columns(Some("40"), &["rules", "list", "--format", "json"]);
    let all = with_columns(None, &["rules", "list", "-f", "json"]);
    assert_eq!(json.stdout, all.stdout);
}

#[test]
fn rules_list_help_speaks_of_listing() {
    let run = mcpdesc(["rules", "list", "--help"]);
    assert_eq!(run.code, Some(0));
    assert!(
        !run.stdout.contains("Judge every document"),
        "{}",
        run.stdout
    );
    assert!(run
        .stdout
        .contains("List the rules of the release that serves this specification version"));
    let run = mcpdesc(["explain", "--help"]);
    assert!(
        !run.stdout.contains("Judge every document"),
        "{}",
        run.stdout
    );
}

#[test]
fn test_takes_the_output_flags_too() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = project().join("servers");
    let corpus = corpus.to_str().unwrap();
    let plain = mcpdesc(["test", corpus]);
    let file = dir.path().join("report.xml");
    let run = mcpdesc(["test", "-f", "junit", "-o", file.to_str().unwrap(), corpus]);
    assert_eq!(run.code, plain.code, "{}", run.output());
    assert_eq!(run.stdout, "");
    let xml = std::fs::read_to_string(&file).unwrap();
    assert!(xml.starts_with("<?xml"), "{xml}");
    // The summary still reaches standard error.
    assert!(run.stderr.contains(" passed, "), "{}", run.stderr);

    let quiet = mcpdesc(["test", "-q", corpus]);
    assert_eq!(quiet.code, plain.code);
    assert!(!quiet.stdout.contains(" passed, "), "{}", quiet.stdout);
    assert!(!quiet.stdout.contains("note:"), "{}", quiet.stdout);
    let silent = mcpdesc(["test", "--silent", corpus]);
    assert_eq!(silent.code, plain.code);
    assert_eq!(silent.stdout, "");
}
