//! `mcpdesc validate` on traffic captures: input kinds, every output format, selection,
//! the default protocol version, and baselines.

mod support;

use serde_json::Value;
use support::{mcpdesc, mcpdesc_in, mcpdesc_stdin, rule_ids as rules_of, workspace};

const URL_2025_06_18: &str =
    "spec-fixtures/traffic/expected-invalid/elicitation-url-2025-06-18.ndjson";

fn json(args: &[&str]) -> Value {
    let run = mcpdesc(args);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.output()))
}

#[test]
fn captures_are_recognised_by_extension_and_reported_with_lines() {
    let run = mcpdesc(["validate", URL_2025_06_18]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(
        run.stdout.contains("elicitation-url-2025-06-18.ndjson:4:"),
        "{}",
        run.output()
    );
    assert!(run
        .stdout
        .contains("error[mcp.elicitation.protocol-version]"));
    let clean = mcpdesc([
        "validate",
        "spec-fixtures/traffic/real/python-sdk-2025-11-25.ndjson",
    ]);
    assert_eq!(clean.code, Some(0), "{}", clean.output());
}

#[test]
fn every_output_format_carries_traffic_findings() {
    for format in ["json", "sarif", "github", "junit", "text"] {
        let run = mcpdesc(["validate", "--format", format, URL_2025_06_18]);
        assert_eq!(run.code, Some(1), "{format}: {}", run.output());
        assert!(
            run.stdout.contains("mcp.elicitation.protocol-version"),
            "{format}: {}",
            run.output()
        );
    }
    let sarif: Value =
        serde_json::from_str(&mcpdesc(["validate", "--format", "sarif", URL_2025_06_18]).stdout)
            .unwrap();
    let result = &sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "mcp.elicitation.protocol-version")
        .cloned()
        .unwrap();
    assert_eq!(
        result["locations"][0]["physicalLocation"]["region"]["startLine"],
        4
    );
}

#[test]
fn select_and_ignore_apply_to_traffic_rules() {
    let only = json(&[
        "validate",
        "--format",
        "json",
        "--select",
        "mcp.elicitation.*",
        URL_2025_06_18,
    ]);
    assert_eq!(rules_of(&only), vec!["mcp.elicitation.protocol-version"]);
    let none = json(&[
        "validate",
        "--format",
        "json",
        "--ignore",
        "mcp.elicitation,mcp.capabilities",
        URL_2025_06_18,
    ]);
    assert!(rules_of(&none).is_empty(), "{none}");
}

/// A JSON array of messages from standard input is a capture with `--kind traffic`; without a
/// handshake its messages are dated by `--protocol-version`.
#[test]
fn stdin_arrays_need_the_kind_and_take_the_version_from_the_flag() {
    let text = r#"[{"jsonrpc": "2.0", "id": 1, "method": "elicitation/create",
  "params": {"mode": "url", "message": "Sign in", "url": "https://example.com/login"}},
 {"jsonrpc": "2.0", "id": 1, "result": {"action": "accept"}}]"#;
    let run = |extra: &[&str]| {
        let mut args = vec!["validate", "--format", "json", "-"];
        args.extend_from_slice(extra);
        let out = mcpdesc_stdin(args, text);
        serde_json::from_str::<Value>(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", out.output()))
    };
    let undated = run(&["--kind", "traffic"]);
    assert!(rules_of(&undated).contains(&"mcp.wire.undated-message".to_owned()));
    let dated = run(&["--kind", "traffic", "--protocol-version", "2025-06-18"]);
    let rules = rules_of(&dated);
    assert!(
        rules.contains(&"mcp.elicitation.protocol-version".to_owned()),
        "{dated}"
    );
    assert_eq!(
        dated["files"][0]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["rule"] == "mcp.elicitation.protocol-version")
            .unwrap()["line"],
        2
    );
    // Read as a description, the same bytes are judged by the description rules instead.
    let described = run(&["--kind", "description"]);
    assert!(!rules_of(&described)
        .iter()
        .any(|r| r.starts_with("mcp.wire.")));
}

#[test]
fn baselines_record_and_hide_traffic_findings() {
    let tmp = tempfile::tempdir().unwrap();
    let capture = tmp.path().join("session.ndjson");
    std::fs::copy(workspace().join(URL_2025_06_18), &capture).unwrap();
    let write = mcpdesc_in(
        tmp.path(),
        [
            "validate",
            "--baseline",
            "base.json",
            "--write-baseline",
            "session.ndjson",
        ],
    );
    assert_eq!(write.code, Some(0), "{}", write.output());
    let again = mcpdesc_in(
        tmp.path(),
        ["validate", "--baseline", "base.json", "session.ndjson"],
    );
    assert_eq!(again.code, Some(0), "{}", again.output());
}

#[test]
fn directories_are_walked_for_captures() {
    let run = mcpdesc([
        "validate",
        "--format",
        "json",
        "spec-fixtures/traffic/expected-valid",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let files = v["files"].as_array().unwrap();
    assert!(files
        .iter()
        .any(|f| f["path"].as_str().unwrap().ends_with(".ndjson")));
}
