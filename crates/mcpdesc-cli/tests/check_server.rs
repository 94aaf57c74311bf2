//! `mcpdesc check-server`: a description against the live server it describes. Hand-written
//! descriptions against the well-behaved modes of `tests/data/fake-mcp-server.py`, and a
//! description made from a probe against the real `server-everything` (installed by
//! `xtask/live-servers/install.sh`; skipped only when a package registry cannot be reached).

mod support;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use support::live_servers::{real_servers_installed, servers_dir};
use support::{mcpdesc, Run};

/// What the fake server offers in its "tidy" modes, for 2025-06-18.
fn tidy_description() -> Value {
    json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "fake", "version": "0.0.1"},
        "protocolVersions": ["2025-06-18"],
        "capabilities": [{"tools": {}, "resources": {}, "prompts": {}}],
        "tools": (0..5)
            .map(|i| json!({"name": format!("tool-{i}"), "inputSchema": {"type": "object"}}))
            .collect::<Vec<_>>(),
        "resources": (0..3)
            .map(|i| json!({"uri": format!("file:///r{i}.txt"), "name": format!("r{i}")}))
            .collect::<Vec<_>>(),
        "prompts": [{"name": "p"}],
    })
}

struct Checked {
    run: Run,
    report: Value,
    _dir: tempfile::TempDir,
}

impl Checked {
    /// (rule, pointer) of every live finding of the description.
    fn live(&self) -> Vec<(String, String)> {
        self.report["files"][0]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["rule"].as_str().unwrap().starts_with("mcpdesc-live."))
            .map(|d| {
                (
                    d["rule"].as_str().unwrap().to_owned(),
                    d["pointer"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    }

    fn finding(&self, rule: &str) -> &Value {
        self.report["files"][0]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["rule"] == rule)
            .unwrap_or_else(|| panic!("no {rule}: {}", self.run.output()))
    }
}

/// `check-server --format json FLAGS DESCRIPTION -- COMMAND`, the description written as
/// `text` to a fresh directory.
fn check(text: &str, name: &str, flags: &[&str], command: &[&Path]) -> Checked {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let mut args: Vec<&std::ffi::OsStr> = vec!["check-server".as_ref()];
    args.extend(["--format", "json"].map(std::ffi::OsStr::new));
    args.extend(flags.iter().map(std::ffi::OsStr::new));
    args.push(path.as_os_str());
    args.push("--".as_ref());
    args.extend(command.iter().map(|c| c.as_os_str()));
    let run = mcpdesc(args);
    let report =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.output()));
    Checked {
        run,
        report,
        _dir: dir,
    }
}

fn fake_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fake-mcp-server.py")
}

fn check_fake(description: &Value, mode: &str) -> Checked {
    let text = serde_json::to_string_pretty(description).unwrap();
    check_fake_text(&text, "fake.json", mode)
}

fn check_fake_text(text: &str, name: &str, mode: &str) -> Checked {
    let python = PathBuf::from("python3");
    let script = fake_script();
    let mode = PathBuf::from(mode);
    check(
        text,
        name,
        &["--timeout-ms", "5000"],
        &[&python, &script, &mode],
    )
}

#[test]
fn a_faithful_description_is_clean() {
    let c = check_fake(&tidy_description(), "tidy");
    assert_eq!(c.run.code, Some(0), "{}", c.run.output());
    assert_eq!(c.live(), Vec::<(String, String)>::new());
    // The traffic is reported as a second file, and is clean too.
    let files = c.report["files"].as_array().unwrap();
    assert_eq!(files.len(), 2, "{}", c.run.output());
    assert!(files[1]["path"]
        .as_str()
        .unwrap()
        .ends_with("fake.json#traffic"));
    assert_eq!(files[1]["diagnostics"], json!([]), "{}", c.run.output());
}

#[test]
fn a_renamed_tool_is_one_finding() {
    let mut d = tidy_description();
    d["tools"][3]["name"] = json!("tool-renamed");
    let c = check_fake(&d, "tidy");
    assert_eq!(c.run.code, Some(1), "{}", c.run.output());
    assert_eq!(
        c.live(),
        [("mcpdesc-live.entry-renamed".into(), "/tools/3/name".into())]
    );
    let renamed = c.finding("mcpdesc-live.entry-renamed");
    let message = renamed["message"].as_str().unwrap();
    assert!(
        message.contains("`tool-renamed`") && message.contains("`tool-3`"),
        "{renamed}"
    );
    assert_eq!(renamed["versions"], json!(["2025-06-18"]));
}

#[test]
fn a_tool_renamed_and_changed_is_missing_and_undescribed() {
    let mut d = tidy_description();
    d["tools"][3]["name"] = json!("tool-renamed");
    d["tools"][3]["description"] = json!("something else");
    let c = check_fake(&d, "tidy");
    assert_eq!(c.run.code, Some(1), "{}", c.run.output());
    assert_eq!(
        c.live(),
        [
            ("mcpdesc-live.entry-undescribed".into(), "/tools".into()),
            ("mcpdesc-live.entry-missing".into(), "/tools/3".into()),
        ]
    );
    let undescribed = c.finding("mcpdesc-live.entry-undescribed");
    assert!(
        undescribed["message"]
            .as_str()
            .unwrap()
            .contains("`tool-3`"),
        "{undescribed}"
    );
    assert_eq!(undescribed["versions"], json!(["2025-06-18"]));
}

#[test]
fn a_changed_input_schema_differs_where_it_is_written() {
    // YAML, so that the position is a line and column of this text.
    let text = "\
mcpdesc: 0.8.0
info: {name: fake, version: 0.0.1}
protocolVersions: [2025-06-18]
capabilities:
  - {tools: {}, resources: {}, prompts: {}}
tools:
  - {name: tool-0, inputSchema: {type: object}}
  - name: tool-1
    inputSchema:
      type: object
      required: [x]
  - {name: tool-2, inputSchema: {type: object}}
  - {name: tool-3, inputSchema: {type: object}}
  - {name: tool-4, inputSchema: {type: object}}
resources:
  - {uri: 'file:///r0.txt', name: r0}
  - {uri: 'file:///r1.txt', name: r1}
  - {uri: 'file:///r2.txt', name: r2}
prompts:
  - {name: p}
";
    let c = check_fake_text(text, "fake.yaml", "tidy");
    assert_eq!(
        c.live(),
        [(
            "mcpdesc-live.member-differs".into(),
            "/tools/1/inputSchema".into()
        )],
        "{}",
        c.run.output()
    );
    let d = c.finding("mcpdesc-live.member-differs");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(10), Some(7))
    );
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains(r#"{"type":"object"}"#),
        "{d}"
    );
}

#[test]
fn a_dropped_capability_is_missing_and_an_extra_one_undescribed() {
    // Without the capability the server lists no prompts either.
    let c = check_fake(&tidy_description(), "tidy+no-prompts");
    assert_eq!(
        c.live(),
        [
            (
                "mcpdesc-live.capability-missing".into(),
                "/capabilities/0/prompts".into()
            ),
            ("mcpdesc-live.entry-missing".into(), "/prompts/0".into()),
        ],
        "{}",
        c.run.output()
    );
    let mut d = tidy_description();
    d["capabilities"][0]
        .as_object_mut()
        .unwrap()
        .remove("prompts");
    d.as_object_mut().unwrap().remove("prompts");
    let c = check_fake(&d, "tidy");
    let live = c.live();
    assert!(
        live.contains(&(
            "mcpdesc-live.capability-undescribed".into(),
            "/capabilities".into()
        )),
        "{}",
        c.run.output()
    );
    // The server's prompt is undescribed too; with no collection, at the root.
    assert!(live.contains(&("mcpdesc-live.entry-undescribed".into(), String::new())));
}

#[test]
fn a_refused_version_is_reported_at_its_declaration() {
    let mut d = tidy_description();
    d["protocolVersions"] = json!(["2025-03-26", "2025-06-18"]);
    let c = check_fake(&d, "tidy+old-only");
    assert_eq!(c.run.code, Some(1), "{}", c.run.output());
    assert_eq!(
        c.live(),
        [(
            "mcpdesc-live.version-refused".into(),
            "/protocolVersions/1".into()
        )]
    );
    let f = c.finding("mcpdesc-live.version-refused");
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("offered 2025-03-26"),
        "{f}"
    );
}

#[test]
fn schemas_are_compared_after_component_references() {
    let mut d = tidy_description();
    d["components"] = json!({"schemas": {"Obj": {"type": "object"}}});
    d["tools"][2]["inputSchema"] = json!({"$componentRef": "#/components/schemas/Obj"});
    let c = check_fake(&d, "tidy");
    assert_eq!(
        c.live(),
        Vec::<(String, String)>::new(),
        "{}",
        c.run.output()
    );
    assert_eq!(c.run.code, Some(0), "{}", c.run.output());
}

#[test]
fn list_errors_are_server_errors_and_the_capture_is_saved() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("c.ndjson");
    let text = serde_json::to_string(&tidy_description()).unwrap();
    let python = PathBuf::from("python3");
    let script = fake_script();
    let mode = PathBuf::from("default");
    let record_arg = record.display().to_string();
    let c = check(
        &text,
        "fake.json",
        &["--record", &record_arg],
        &[&python, &script, &mode],
    );
    assert_eq!(
        c.live(),
        [("mcpdesc-live.server-error".into(), String::new())]
    );
    assert!(std::fs::metadata(&record).unwrap().len() > 0);
    assert_eq!(c.report["files"][1]["path"], json!(record_arg));
}

#[test]
fn a_server_that_cannot_start_is_a_usage_error() {
    let c = mcpdesc([
        "check-server",
        "spec-fixtures/expected-valid/minimal.json",
        "--",
        "/nonexistent/mcp-server",
    ]);
    assert_eq!(c.code, Some(2), "{}", c.output());
    assert!(c.stderr.contains("cannot start"), "{}", c.output());
}

/// `check-server FLAGS fake.json -- python3 fake-mcp-server.py tidy` of `description`,
/// without `--format json`: for the output flags it shares with `validate`.
fn check_fake_with(description: &Value, flags: &[&str]) -> (Run, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fake.json");
    std::fs::write(&path, serde_json::to_string_pretty(description).unwrap()).unwrap();
    let script = fake_script();
    let mut args: Vec<&std::ffi::OsStr> = vec!["check-server".as_ref()];
    args.extend(["--color", "never", "--timeout-ms", "5000"].map(std::ffi::OsStr::new));
    args.extend(flags.iter().map(std::ffi::OsStr::new));
    args.push(path.as_os_str());
    args.extend(["--", "python3"].map(std::ffi::OsStr::new));
    args.push(script.as_os_str());
    args.push("tidy".as_ref());
    (mcpdesc(args), dir)
}

#[test]
fn the_output_flags_of_validate_apply() {
    let mut d = tidy_description();
    d["tools"][3]["name"] = json!("tool-renamed");

    let (concise, dir) = check_fake_with(&d, &["-f", "concise", "-q"]);
    assert_eq!(concise.code, Some(1), "{}", concise.output());
    let path = dir.path().join("fake.json").display().to_string();
    let lines: Vec<&str> = concise.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}", concise.stdout);
    assert!(
        lines[0].starts_with(&format!("{path}:")),
        "{}",
        concise.stdout
    );
    assert!(
        lines[0].contains(": error mcpdesc-live.entry-renamed the server lists no tool"),
        "{}",
        lines[0]
    );

    let (stats, _dir) = check_fake_with(&d, &["--statistics"]);
    assert_eq!(stats.code, Some(1), "{}", stats.output());
    let first: Vec<&str> = stats
        .stdout
        .lines()
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(first[..3], ["1", "error", "mcpdesc-live.entry-renamed"]);

    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("report.xml");
    let (written, _dir) = check_fake_with(&d, &["-f", "junit", "-o", file.to_str().unwrap()]);
    assert_eq!(written.code, Some(1), "{}", written.output());
    assert_eq!(written.stdout, "");
    let xml = std::fs::read_to_string(&file).unwrap();
    assert!(xml.contains("<failure "), "{xml}");

    let (silent, _dir) = check_fake_with(&d, &["--silent"]);
    assert_eq!(silent.code, Some(1));
    assert_eq!(silent.stdout, "");

    // Ignoring the finding leaves a clean run.
    let (ignored, _dir) = check_fake_with(&d, &["--ignore", "mcpdesc-live.entry-renamed", "-q"]);
    assert_eq!(ignored.code, Some(0), "{}", ignored.output());
    assert_eq!(ignored.stdout, "");
}

/// The flags shared with `validate` are described for `check-server`, which reads no
/// configuration file.
#[test]
fn the_shared_flags_are_described_for_check_server() {
    let help = mcpdesc(["check-server", "--help"]);
    assert_eq!(help.code, Some(0));
    for flag in [
        "--output-file",
        "--quiet",
        "--statistics",
        "--max-warnings",
        "-f, --format",
    ] {
        assert!(help.stdout.contains(flag), "{flag}: {}", help.stdout);
    }
    assert!(
        !help.stdout.contains("configuration file"),
        "{}",
        help.stdout
    );
    assert!(
        help.stdout.contains("`mcpdesc-live.*` alike"),
        "{}",
        help.stdout
    );
}

#[test]
fn a_mistyped_pattern_stops_before_the_server_starts() {
    let c = mcpdesc([
        "check-server",
        "--select",
        "mcpdesc-live.entry-renaimed",
        "spec-fixtures/expected-valid/minimal.json",
        "--",
        "/nonexistent/mcp-server",
    ]);
    assert_eq!(c.code, Some(2), "{}", c.output());
    assert_eq!(
        c.stderr,
        "error: `--select mcpdesc-live.entry-renaimed` matches no rule; did you mean `mcpdesc-live.entry-renamed`?\n"
    );
}

#[test]
fn the_live_rules_are_shown_like_other_command_line_rules() {
    let show = mcpdesc(["rules", "show", "mcpdesc-live.entry-missing"]);
    assert_eq!(show.code, Some(0), "{}", show.output());
    assert!(
        show.stdout.contains("mcpdesc check-server"),
        "{}",
        show.stdout
    );
}

// ---------------------------------------------------------------- the real server

#[test]
fn server_everything_matches_a_description_of_its_own_lists() {
    if !real_servers_installed() {
        return;
    }
    let node = PathBuf::from("node");
    let js =
        servers_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let stdio = PathBuf::from("stdio");
    let version = "2025-11-25";
    let probe = mcpdesc([
        "probe-server".as_ref(),
        "--protocol-version".as_ref(),
        version.as_ref(),
        "--".as_ref(),
        node.as_os_str(),
        js.as_os_str(),
        stdio.as_os_str(),
    ]);
    assert_eq!(probe.code, Some(0), "{}", probe.output());
    let reports: Vec<Value> = serde_json::from_str(&probe.stdout).unwrap();
    let r = &reports[0];
    // The probe's lists are keyed by the description collections they line up with.
    let mut d = json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "everything", "version": "1.0.0"},
        "protocolVersions": [version],
        "capabilities": [r["capabilities"]],
    });
    for (collection, items) in r["lists"].as_object().unwrap() {
        d[collection] = items.clone();
    }
    let c = check(
        &serde_json::to_string_pretty(&d).unwrap(),
        "everything.json",
        &[],
        &[&node, &js, &stdio],
    );
    assert!(matches!(c.run.code, Some(0 | 1)), "{}", c.run.output());
    let live = c.live();
    assert!(
        !live
            .iter()
            .any(|(rule, _)| rule == "mcpdesc-live.entry-missing"),
        "{live:?}"
    );
    assert_eq!(live, Vec::<(String, String)>::new(), "{}", c.run.output());
}
