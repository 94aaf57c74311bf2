//! The command line's documented contract: exit codes and the JSON report shape.

use std::path::PathBuf;
use std::process::{Command, Output};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpdesc"))
        .current_dir(workspace())
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn exit_codes() {
    assert_eq!(
        run(&["validate", "spec-fixtures/expected-valid/minimal.json"])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        run(&[
            "validate",
            "spec-fixtures/expected-invalid/info-missing-name.json"
        ])
        .status
        .code(),
        Some(1)
    );
    assert_eq!(
        run(&["validate", "no/such/file.json"]).status.code(),
        Some(2)
    );
    assert_eq!(
        run(&[
            "validate",
            "--rules",
            "no/such/dir",
            "spec-fixtures/expected-valid/minimal.json"
        ])
        .status
        .code(),
        Some(2)
    );
    assert_eq!(
        run(&["validate", "--format", "nope", "x.json"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn json_report_shape() {
    let out = run(&[
        "validate",
        "--format",
        "json",
        "spec-fixtures/expected-valid/minimal.json",
        "spec-fixtures/expected-invalid/elicitation-url-before-2025-11-25.json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    assert_eq!(files[0]["valid"], true);
    assert_eq!(files[0]["diagnostics"].as_array().unwrap().len(), 0);
    assert_eq!(files[1]["valid"], false);
    let d = &files[1]["diagnostics"][0];
    assert_eq!(d["rule"], "mcp.elicitation.protocol-version");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["pointer"], "/tools/0/elicitations/0/mode");
    assert_eq!(d["line"], 15);
    assert_eq!(d["column"], 11);
    assert_eq!(d["versions"], serde_json::json!(["2025-06-18"]));
    assert!(d["message"]
        .as_str()
        .unwrap()
        .contains("URL-mode elicitation"));
    // The documented fields, in order, then only documented optional ones.
    let keys: Vec<_> = d.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys[..7],
        ["rule", "severity", "message", "pointer", "line", "column", "versions"]
    );
    assert!(keys[7..].iter().all(|k| k == "docUrl"), "{keys:?}");
}

#[test]
fn text_report_names_file_position_severity_and_rule() {
    let out = run(&[
        "validate",
        "spec-fixtures/expected-invalid/elicitation-url-before-2025-11-25.json",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "elicitation-url-before-2025-11-25.json:15:11: error[mcp.elicitation.protocol-version]"
        ),
        "{text}"
    );
}

#[test]
fn rules_list_json_carries_rule_file_fields() {
    let out = run(&["rules", "list", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rule = v["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "mcp.elicitation.protocol-version")
        .unwrap();
    assert_eq!(rule["kind"], "structural");
    assert_eq!(rule["applicability"]["2025-06-18"], "applies");
    assert_eq!(rule["applicability"].as_object().unwrap().len(), 5);
    assert!(rule["reference-codes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c == "elicitation-mode-not-supported-by-version"));
    assert!(rule["required-by"]["sections"].is_array());
}
