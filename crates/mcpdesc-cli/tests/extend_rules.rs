//! `--extend-rules DIR` and `extend-rules` in `mcpdesc.toml`: house rules on top of the
//! embedded catalogue, their load errors at file:line:column.

use std::path::Path;
use std::process::Command;

const HOUSE: &str = "house-rules:
  name: Acme house rules
  owners: [acme]
rules:
  - id: acme.tool.name-prefix
    given: [\"$.tools[*].name\"]
    then: [{check: pattern, regex: \"^acme_\"}]
    message: tool names start with `acme_`
disable: [mcpdesc.tool.closed]
";

const DOC: &str = r#"{
  "mcpdesc": "0.8.0",
  "info": {"name": "demo", "version": "1.0.0"},
  "protocolVersions": ["2025-11-25"],
  "tools": [{"name": "get_weather", "description": "d", "inputSchema": {"type": "object"}}]
}
"#;

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The rule ids of `validate --format json`, and the exit status.
fn validate(dir: &Path, args: &[&str]) -> (Vec<String>, Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mcpdesc"))
        .arg("validate")
        .args(args)
        .arg("doc.json")
        .current_dir(dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let ids = serde_json::from_slice::<serde_json::Value>(&out.stdout)
        .ok()
        .and_then(|v| {
            let files = v["files"].as_array()?.clone();
            Some(
                files
                    .iter()
                    .flat_map(|f| f["diagnostics"].as_array().cloned().unwrap_or_default())
                    .map(|d| d["rule"].as_str().unwrap_or_default().to_owned())
                    .collect(),
            )
        })
        .unwrap_or_default();
    (ids, out.status.code(), stderr)
}

#[test]
fn the_flag_adds_house_rules_to_the_embedded_catalogue() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "house/acme.yaml", HOUSE);
    write(tmp.path(), "doc.json", DOC);
    let (plain, code, stderr) = validate(tmp.path(), &["--no-config", "--format", "json"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!plain.iter().any(|r| r.starts_with("acme.")), "{plain:?}");
    let (ids, code, stderr) = validate(
        tmp.path(),
        &["--no-config", "--format", "json", "--extend-rules", "house"],
    );
    assert_eq!(ids, ["acme.tool.name-prefix"], "{stderr}");
    // A house rule is a warning unless it says otherwise.
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn the_configuration_file_names_house_rules_directories() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "house/acme.yaml", HOUSE);
    write(tmp.path(), "doc.json", DOC);
    write(
        tmp.path(),
        "mcpdesc.toml",
        "[validate]\nextend-rules = [\"house\"]\nformat = \"json\"\n",
    );
    let (ids, code, stderr) = validate(tmp.path(), &[]);
    assert_eq!(ids, ["acme.tool.name-prefix"], "{stderr}");
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn a_problem_of_a_house_rule_file_stops_before_any_document() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        "house/acme.yaml",
        &HOUSE.replace("check: pattern", "check: patern"),
    );
    write(tmp.path(), "doc.json", DOC);
    let (ids, code, stderr) = validate(
        tmp.path(),
        &["--no-config", "--format", "json", "--extend-rules", "house"],
    );
    assert!(ids.is_empty());
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("acme.yaml:7:20: unknown check function `patern`; did you mean `pattern`?"),
        "{stderr}"
    );
}
