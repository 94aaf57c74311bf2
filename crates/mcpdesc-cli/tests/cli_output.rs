//! `mcpdesc validate` as people and CI pipelines use it: every output format (snapshots of a
//! fixed project under `tests/data/project`), exit codes, inputs, configuration,
//! suppressions and baselines; and the `rules`, `explain` and `completions` subcommands.
//!
//! Snapshots live in `tests/snapshots/`. After an intended change of output, review and
//! accept them with `cargo insta review` (or `cargo insta accept`), or rerun the tests with
//! `INSTA_UPDATE=always` and review the diff.

mod support;

use std::path::{Path, PathBuf};

use support::{mcpdesc, mcpdesc_in, Run};

fn project() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/project")
}

/// `mcpdesc validate ARGS` in the fixed project, without colour or configuration discovery
/// beyond it.
fn validate(args: &[&str]) -> Run {
    let mut all = vec!["validate", "--color", "never"];
    all.extend_from_slice(args);
    mcpdesc_in(&project(), all)
}

fn snapshot_run(run: &Run) -> String {
    format!("exit: {:?}\n{}", run.code, run.stdout)
}

fn redact_version(s: &str) -> String {
    s.replace(
        &format!("\"{}\"", env!("CARGO_PKG_VERSION")),
        "\"[version]\"",
    )
}

const SET: [&str; 2] = ["servers", "legacy/archive.yaml"];

#[test]
fn text_snapshot() {
    let run = validate(&SET);
    insta::assert_snapshot!("text", snapshot_run(&run));
}

#[test]
fn text_strict_snapshot() {
    let run = validate(&["--strict", "servers/calendar.yaml", "servers/weather.json"]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    insta::assert_snapshot!("text_strict", snapshot_run(&run));
}

#[test]
fn json_snapshot() {
    let run = validate(&["--format", "json", SET[0], SET[1]]);
    insta::assert_snapshot!("json", snapshot_run(&run));
}

#[test]
fn sarif_snapshot() {
    let run = validate(&["--format", "sarif", SET[0], SET[1]]);
    // The rule descriptors are the whole catalogue, which grows: snapshot the results only.
    let mut log: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let driver = &mut log["runs"][0]["tool"]["driver"];
    let rules = driver["rules"].as_array().unwrap().len();
    assert!(rules > 10);
    driver["rules"] = serde_json::json!(format!("[{} descriptors]", "n"));
    for r in log["runs"][0]["results"].as_array_mut().unwrap() {
        r.as_object_mut().unwrap().remove("ruleIndex");
    }
    let text = redact_version(&serde_json::to_string_pretty(&log).unwrap());
    insta::assert_snapshot!("sarif", format!("exit: {:?}\n{text}", run.code));
}

#[test]
fn github_snapshot() {
    // Annotation paths are relative to the checkout, here the project itself.
    let mut args = vec!["validate", "--color", "never", "--format", "github"];
    args.extend_from_slice(&SET);
    let run = support::mcpdesc_in_workspace(&project(), Some(&project()), args);
    insta::assert_snapshot!("github", snapshot_run(&run));
}

#[test]
fn github_paths_are_relative_to_the_checkout_wherever_the_run_starts() {
    let servers = project().join("servers");
    let parent = project().join("..");
    let run = support::mcpdesc_in_workspace(
        &servers,
        Some(&parent),
        [
            "validate",
            "--format",
            "github",
            ".",
            "../legacy/archive.yaml",
        ],
    );
    let files: Vec<&str> = run
        .stdout
        .lines()
        .filter_map(|l| l.split("file=").nth(1)?.split(',').next())
        .collect();
    assert!(!files.is_empty(), "{}", run.output());
    for file in files {
        assert!(
            file == "project/servers/calendar.yaml"
                || file == "project/servers/registry.json"
                || file == "project/legacy/archive.yaml",
            "{file}: {}",
            run.output()
        );
    }
}

#[test]
fn junit_snapshot() {
    let run = validate(&["--format", "junit", SET[0], SET[1]]);
    insta::assert_snapshot!("junit", snapshot_run(&run));
}

#[test]
fn sarif_output_is_valid_sarif_2_1_0() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/sarif-schema-2.1.0.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for args in [
        vec!["--format", "sarif", "servers", "legacy/archive.yaml"],
        vec!["--format", "sarif", "--strict", "servers", "missing.json"],
        vec![
            "--format",
            "sarif",
            "--docs-base-url",
            "https://docs.example.com/rules/",
            "servers",
        ],
    ] {
        let absolute = args.contains(&"--docs-base-url");
        let run = validate(&args);
        let log: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&log)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{errors:#?}");
        let run0 = &log["runs"][0];
        let rules = run0["tool"]["driver"]["rules"].as_array().unwrap();
        let page = "0.8.0/mcp/mcp.elicitation.protocol-version.md";
        let elicitation = rules
            .iter()
            .find(|r| r["id"] == "mcp.elicitation.protocol-version")
            .unwrap();
        if absolute {
            // An absolute link is the descriptor's `helpUri`.
            let url = format!("https://docs.example.com/rules/{page}");
            assert_eq!(elicitation["helpUri"], url.as_str());
            assert_eq!(elicitation["properties"]["docUrl"], url.as_str());
        } else {
            // A `docs-url` that is a repository path is no link: no `helpUri`, no `docUrl`.
            assert!(elicitation.get("helpUri").is_none(), "{elicitation:#}");
            assert!(!elicitation["help"]["text"]
                .as_str()
                .unwrap()
                .contains("docs/rules/"));
            assert!(elicitation["properties"].get("docUrl").is_none());
        }
        assert!(rules
            .iter()
            .any(|r| r["id"] == "mcpdesc-cli.unused-suppression"));
        for result in run0["results"].as_array().unwrap() {
            let i = result["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(rules[i]["id"], result["ruleId"]);
        }
    }
}

#[test]
fn exit_codes_follow_fail_on_and_strict() {
    // Warnings only.
    assert_eq!(validate(&["servers/calendar.yaml"]).code, Some(0));
    assert_eq!(
        validate(&["--fail-on", "warning", "servers/calendar.yaml"]).code,
        Some(1)
    );
    assert_eq!(
        validate(&["--strict", "servers/calendar.yaml"]).code,
        Some(1)
    );
    // Errors.
    assert_eq!(validate(&["servers/registry.json"]).code, Some(1));
    // Usage.
    assert_eq!(
        validate(&["--fail-on", "sometimes", "x.json"]).code,
        Some(2)
    );
    assert_eq!(validate(&[]).code, Some(2));
}

#[test]
fn strict_profile_is_named_in_json() {
    let run = validate(&["--strict", "--format", "json", "servers/calendar.yaml"]);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["profile"], "strict");
    assert_eq!(v["files"][0]["diagnostics"][0]["severity"], "error");
    let run = validate(&["--format", "json", "servers/calendar.yaml"]);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["profile"], "conformance");
    assert_eq!(v["files"][0]["diagnostics"][0]["severity"], "warning");
    assert_eq!(v["files"][0]["valid"], true);
}

#[test]
fn a_missing_file_does_not_stop_the_others() {
    let run = validate(&["--format", "json", "servers/registry.json", "nope.json"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    assert_eq!(files[0]["path"], "servers/registry.json");
    assert!(!files[0]["diagnostics"].as_array().unwrap().is_empty());
    assert_eq!(files[1]["path"], "nope.json");
    assert_eq!(files[1]["loadError"]["code"], "io-error");
}

#[test]
fn an_unreadable_file_has_no_position_in_any_format() {
    // Nothing was read, so there is no line to point at: every format names the file alone,
    // never `0:0`.
    let json = validate(&["--format", "json", "nope.json"]);
    assert_eq!(json.code, Some(2), "{}", json.output());
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let load_error = &v["files"][0]["loadError"];
    assert_eq!(load_error["code"], "io-error");
    assert!(
        load_error["line"].is_null() && load_error["column"].is_null(),
        "{load_error}"
    );

    let text = validate(&["nope.json"]);
    assert!(
        text.stdout
            .starts_with("nope.json: error[io-error] cannot read nope.json"),
        "{}",
        text.output()
    );
    let github = validate(&["--format", "github", "nope.json"]);
    // GitHub names the file from the repository root.
    assert!(
        github.stdout.starts_with("::error file=")
            && github
                .stdout
                .lines()
                .next()
                .is_some_and(|l| l.contains("/nope.json,title=io-error::") && !l.contains("line=")),
        "{}",
        github.output()
    );
    let junit = validate(&["--format", "junit", "nope.json"]);
    assert!(
        junit.stdout.contains(">nope.json: cannot read nope.json"),
        "{}",
        junit.output()
    );
    let sarif = validate(&["--format", "sarif", "nope.json"]);
    let v: serde_json::Value = serde_json::from_str(&sarif.stdout).unwrap();
    let notification = &v["runs"][0]["invocations"][0]["toolExecutionNotifications"][0];
    assert_eq!(
        notification["descriptor"]["id"], "io-error",
        "{notification}"
    );
    let location = &notification["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "nope.json");
    assert!(location.get("region").is_none(), "{location}");
    for run in [&json, &text, &github, &junit, &sarif] {
        assert!(
            !run.stdout.contains(":0:0") && !run.stdout.contains("\"line\": 0"),
            "{}",
            run.output()
        );
    }
}

#[test]
fn unknown_protocol_version_is_a_usage_error_listing_the_known_ones() {
    let run = validate(&["--protocol-version", "2030-01-01", "servers"]);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("2025-11-25"), "{}", run.output());
}

#[test]
fn protocol_version_and_select_narrow_the_findings() {
    let ids = |run: &Run| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        v["files"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|f| f["diagnostics"].as_array().unwrap().clone())
            .map(|d| d["rule"].as_str().unwrap().to_owned())
            .collect()
    };
    let all = ids(&validate(&["--format", "json", "servers"]));
    assert!(all.contains(&"mcp.elicitation.protocol-version".to_owned()));
    let only = ids(&validate(&[
        "--format",
        "json",
        "--select",
        "mcp.elicitation.*",
        "servers",
    ]));
    assert_eq!(only, ["mcp.elicitation.protocol-version"]);
    let ignored = ids(&validate(&[
        "--format",
        "json",
        "--ignore",
        "mcp.elicitation",
        "servers",
    ]));
    assert!(!ignored.iter().any(|i| i.starts_with("mcp.elicitation")));
    // URL mode is fine in 2025-11-25.
    let newest = ids(&validate(&[
        "--format",
        "json",
        "--protocol-version",
        "2025-11-25",
        "servers/registry.json",
    ]));
    assert!(!newest.contains(&"mcp.elicitation.protocol-version".to_owned()));
}

#[test]
fn docs_urls_follow_the_catalogue_or_the_override() {
    let run = validate(&["--format", "json", "servers/calendar.yaml"]);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    // The catalogue's `docs-url` is a path inside this repository, which is no link.
    assert_eq!(
        v["files"][0]["diagnostics"][0]["docUrl"],
        serde_json::Value::Null
    );
    let run = validate(&[
        "--format",
        "json",
        "--docs-base-url",
        "https://docs.example.com/r/",
        "servers/calendar.yaml",
    ]);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        v["files"][0]["diagnostics"][0]["docUrl"],
        "https://docs.example.com/r/0.8.0/mcpdesc/mcpdesc.info.version-semver.md"
    );
    let run = validate(&[
        "--format",
        "json",
        "--docs-base-url",
        "https://docs.example.com/{release}/{owner}/{id}",
        "servers/calendar.yaml",
    ]);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        v["files"][0]["diagnostics"][0]["docUrl"],
        "https://docs.example.com/0.8.0/mcpdesc/mcpdesc.info.version-semver"
    );
    let run = validate(&[
        "--docs-base-url",
        "https://docs.example.com/{id}.html",
        "servers/calendar.yaml",
    ]);
    assert!(run
        .stdout
        .contains("https://docs.example.com/mcpdesc.info.version-semver.html"));
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let plain = validate(&["servers/registry.json"]);
    assert!(!plain.stdout.contains('\x1b'));
    let auto = mcpdesc_in(&project(), ["validate", "servers/registry.json"]);
    assert!(!auto.stdout.contains('\x1b'), "not a terminal");
    let always = mcpdesc_in(
        &project(),
        ["validate", "--color", "always", "servers/registry.json"],
    );
    assert!(always.stdout.contains("\x1b["));
}

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn paths(run: &Run) -> Vec<String> {
    let v: serde_json::Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.output()));
    v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect()
}

const VALID: &str = r#"{"mcpdesc": "0.8.0", "info": {"name": "a", "version": "1.0.0"},
  "protocolVersions": ["2025-11-25"]}"#;
const CALENDAR: &str =
    "mcpdesc: 0.8.0\ninfo:\n  name: c\n  version: \"2026.03\"\nprotocolVersions: [2025-11-25]\n";

#[test]
fn directories_honour_gitignore_skip_sidecars_and_sort() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(d, "b/one.json", VALID);
    write(d, "a/two.yml", CALENDAR);
    write(d, "a/two.expected.yaml", "valid: true\n");
    write(d, "a/notes.txt", "not a document");
    write(d, "build/out.json", "{");
    write(d, ".gitignore", "build/\n");
    let run = mcpdesc_in(d, ["validate", "--format", "json", "."]);
    assert_eq!(paths(&run), ["a/two.yml", "b/one.json"]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    // An explicit file is validated even when ignored.
    let run = mcpdesc_in(d, ["validate", "--format", "json", "build/out.json"]);
    assert_eq!(run.code, Some(1));
    // Globs.
    let run = mcpdesc_in(d, ["validate", "--format", "json", "*/*.json"]);
    assert_eq!(paths(&run), ["b/one.json"]);
    let run = mcpdesc_in(d, ["validate", "--format", "json", "**/*.yml"]);
    assert_eq!(paths(&run), ["a/two.yml"]);
    let run = mcpdesc_in(d, ["validate", "--format", "json", "nothing/*.json"]);
    assert_eq!(run.code, Some(2));
}

#[test]
fn standard_input_takes_its_name_and_format_from_stdin_filename() {
    let out = support::mcpdesc_stdin(
        [
            "validate",
            "--format",
            "json",
            "--stdin-filename",
            "servers/piped.yaml",
            "-",
        ],
        CALENDAR,
    );
    assert_eq!(out.code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["files"][0]["path"], "servers/piped.yaml");
    assert_eq!(
        v["files"][0]["diagnostics"][0]["rule"],
        "mcpdesc.info.version-semver"
    );
}

#[test]
fn configuration_ignores_per_path_and_sets_defaults() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(d, "servers/legacy/old.yaml", CALENDAR);
    write(d, "servers/new.yaml", CALENDAR);
    write(
        d,
        "mcpdesc.toml",
        "[validate]\nfail-on = \"warning\"\nformat = \"json\"\n\n[[ignore]]\npaths = [\"servers/legacy/**\"]\nrules = [\"mcpdesc.info.*\"]\nreason = \"frozen\"\n",
    );
    // Discovered upward from the inputs, even when run from elsewhere.
    let run = mcpdesc_in(d.join("servers").as_path(), ["validate", "."]);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(run.code, Some(1), "fail-on = warning: {}", run.output());
    assert_eq!(v["files"][0]["path"], "legacy/old.yaml");
    assert_eq!(v["files"][0]["diagnostics"].as_array().unwrap().len(), 0);
    assert_eq!(v["files"][0]["suppressed"], 1);
    assert_eq!(v["files"][1]["diagnostics"].as_array().unwrap().len(), 1);
    // The command line wins; --no-config ignores the file.
    let run = mcpdesc_in(d, ["validate", "--fail-on", "error", "servers"]);
    assert_eq!(run.code, Some(0));
    let run = mcpdesc_in(d, ["validate", "--no-config", "servers"]);
    assert!(run.stdout.contains("Checked 2 files"), "{}", run.output());
    // A bad configuration is a usage error.
    write(d, "mcpdesc.toml", "[validate]\nstrictness = true\n");
    let run = mcpdesc_in(d, ["validate", "servers"]);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("mcpdesc.toml"), "{}", run.output());
}

#[test]
fn in_document_suppressions_and_unused_ones() {
    let run = validate(&["--format", "json", "legacy/archive.yaml"]);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let f = &v["files"][0];
    assert_eq!(f["suppressed"], 1);
    let rules: Vec<&str> = f["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"mcpdesc-cli.unused-suppression"));
    assert!(!rules.contains(&"mcpdesc.info.version-semver"));
    // The synthetic rule is selected like any other.
    let run = validate(&[
        "--format",
        "json",
        "--ignore",
        "mcpdesc-cli.unused-suppression",
        "legacy/archive.yaml",
    ]);
    assert!(!run.stdout.contains("mcpdesc-cli.unused-suppression"));
    // A suppression of a rule that did not run is not unused.
    let run = validate(&[
        "--format",
        "json",
        "--ignore",
        "mcp.elicitation",
        "legacy/archive.yaml",
    ]);
    assert!(!run.stdout.contains("mcpdesc-cli.unused-suppression"));
}

#[test]
fn the_suppression_extension_passes_the_catalogue() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        "doc.json",
        r#"{"mcpdesc": "0.8.0", "info": {"name": "a", "version": "2026.03"},
  "protocolVersions": ["2025-11-25"],
  "x-mcpdesc-suppress": [{"rule": "mcpdesc.info.version-semver", "pointer": "/info/version",
                          "reason": "calendar versions"}]}"#,
    );
    let run = mcpdesc_in(
        tmp.path(),
        [
            "validate",
            "--format",
            "json",
            "--fail-on",
            "info",
            "doc.json",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.output());
    // Without the command line's suppression handling, the catalogue accepts the member.
    let run = mcpdesc_in(
        tmp.path(),
        [
            "validate",
            "--format",
            "json",
            "--ignore",
            "mcpdesc.info.version-semver",
            "--fail-on",
            "info",
            "doc.json",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let others: Vec<_> = v["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| !d["rule"].as_str().unwrap().starts_with("mcpdesc-cli."))
        .collect();
    assert!(others.is_empty(), "{others:#?}");
}

#[test]
fn baselines_hide_known_findings_and_survive_unrelated_edits() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(d, "docs/cal.yaml", CALENDAR);
    write(d, "docs/ok.json", VALID);
    let run = mcpdesc_in(
        d,
        [
            "validate",
            "--baseline",
            "baseline.json",
            "--write-baseline",
            "docs",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.output());
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("baseline.json")).unwrap()).unwrap();
    assert_eq!(written["findings"][0]["path"], "docs/cal.yaml");
    assert_eq!(written["findings"][0]["pointer"], "/info/version");

    let strict = [
        "validate",
        "--fail-on",
        "warning",
        "--baseline",
        "baseline.json",
        "docs",
    ];
    let run = mcpdesc_in(d, strict);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert!(run.stdout.contains("1 in the baseline"), "{}", run.output());

    // Lines added above move the finding; it stays known. A new finding is reported.
    write(
        d,
        "docs/cal.yaml",
        &format!("# moved\n# down\n{CALENDAR}x-acme-note: [1]\n"),
    );
    write(
        d,
        "docs/ok.json",
        r#"{"mcpdesc": "0.8.0", "info": {"name": "a", "version": "v2"},
  "protocolVersions": ["2025-11-25"]}"#,
    );
    let run = mcpdesc_in(d, strict);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(run.stdout.contains("docs/ok.json:1:"), "{}", run.output());
    assert!(!run.stdout.contains("docs/cal.yaml:"), "{}", run.output());

    // The baseline is found relative to its own directory, from anywhere.
    let run = mcpdesc_in(
        &d.join("docs"),
        ["validate", "--baseline", "../baseline.json", "cal.yaml"],
    );
    assert!(run.stdout.contains("1 in the baseline"), "{}", run.output());

    let run = mcpdesc_in(d, ["validate", "--write-baseline", "docs"]);
    assert_eq!(run.code, Some(2));
    let run = mcpdesc_in(d, ["validate", "--baseline", "missing.json", "docs"]);
    assert_eq!(run.code, Some(2));
}

#[test]
fn rules_list_filters_and_keeps_its_json() {
    let run = mcpdesc(["rules", "list"]);
    assert_eq!(run.code, Some(0));
    assert!(run.stdout.starts_with("ID "));
    assert!(run.stdout.contains("mcp.elicitation.protocol-version"));
    let run = mcpdesc([
        "rules", "list", "--owner", "mcp", "--level", "must", "--format", "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let rules = v["rules"].as_array().unwrap();
    assert!(!rules.is_empty());
    assert!(rules
        .iter()
        .all(|r| r["owner"] == "mcp" && r["level"] == "must"));
    let run = mcpdesc([
        "rules",
        "list",
        "--protocol-version",
        "2024-11-05",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(v["rules"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["applicability"]["2024-11-05"] != "not-applicable"));
    let all = mcpdesc(["rules", "list", "--format", "json"]);
    let all: serde_json::Value = serde_json::from_str(&all.stdout).unwrap();
    assert!(v["rules"].as_array().unwrap().len() < all["rules"].as_array().unwrap().len());
    let run = mcpdesc(["rules", "list", "--surface", "INFO"]);
    assert!(run.stdout.contains("mcpdesc.info."));
    assert!(!run.stdout.contains("mcp.elicitation."));
    assert_eq!(mcpdesc(["rules", "list", "--level", "often"]).code, Some(2));
}

#[test]
fn rules_show_and_explain() {
    let show = mcpdesc(["rules", "show", "mcp.elicitation.protocol-version"]);
    assert_eq!(show.code, Some(0), "{}", show.output());
    for needle in [
        "Requirement:",
        "owner",
        "Applicability:",
        "2024-11-05  applies",
        "Examples:",
        "expected-invalid/elicitation-url-before-2025-11-25.json",
    ] {
        assert!(show.stdout.contains(needle), "{needle}: {}", show.stdout);
    }
    // The catalogue's `docs-url` is a path inside this repository, which is no link.
    assert!(!show.stdout.contains("docs/rules/"), "{}", show.stdout);
    let explain = mcpdesc(["explain", "mcp.elicitation.protocol-version"]);
    assert_eq!(explain.stdout, show.stdout);
    let cli_rule = mcpdesc(["explain", "mcpdesc-cli.unused-suppression"]);
    assert_eq!(cli_rule.code, Some(0));
    let unknown = mcpdesc(["explain", "mcp.elicitation.protocol"]);
    assert_eq!(unknown.code, Some(2));
    assert!(
        unknown.stderr.contains("did you mean"),
        "{}",
        unknown.output()
    );
}

#[test]
fn completions_for_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let run = mcpdesc(["completions", shell]);
        assert_eq!(run.code, Some(0));
        assert!(run.stdout.contains("validate"), "{shell}");
        assert!(run.stdout.contains("write-baseline"), "{shell}");
    }
}

/// A `--select` or `--ignore` pattern that names no rule is a usage error: a typo would
/// otherwise run no rule at all, or silence nothing, and the run would pass.
#[test]
fn a_pattern_naming_no_rule_is_a_usage_error() {
    let run = validate(&[
        "--select",
        "nosuch.rule",
        "--ignore",
        "mcpdesc.info",
        SET[1],
    ]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert!(
        run.stderr
            .contains("error: `--select nosuch.rule` matches no rule"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("mcpdesc.info`"), "{}", run.stderr);
}
