//! Rules are data: the already-built binary picks up added and removed rule files.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::rule_ids;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn validate_json(rules: &Path, doc: &Path) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_mcpdesc"))
        .args(["validate", "--format", "json", "--rules"])
        .arg(rules)
        .arg(doc)
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c < 2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

const NEW_RULE: &str = r#"rules:
  - id: mcpdesc.info.description-present
    title: Describe the server
    description: Teams that publish descriptions ask that every server says what it does.
    requirement: "`info` has a `description`."
    owner: mcpdesc
    surface: {text: Info Object}
    path: info.description
    kind: structural
    level: should
    status: internal
    enforcement: internal
    applicability:
      2024-11-05: applies
      2025-03-26: applies
      2025-06-18: applies
      2025-11-25: applies
      2026-07-28: applies
    required-by:
      spec: MCP Description 0.8.0
      sections: ["5.1"]
    based-on:
      tier: 2
      label: Local policy
      detail: Organisation policy.
    examples:
      valid: []
      invalid: []
    given: ["$.info"]
    then:
      - check: required
        fields: [description]
    message: "`info` has no `{field}`; say what the server does"
"#;

#[test]
fn an_added_rule_file_takes_effect_and_a_removed_one_stops() {
    let tmp = tempfile::tempdir().unwrap();
    let rules = tmp.path().join("rules");
    copy_dir(&workspace().join("rules"), &rules);
    let doc = workspace().join("spec-fixtures/expected-valid/minimal.json");

    let before = rule_ids(&validate_json(&rules, &doc));
    assert!(!before.contains(&"mcpdesc.info.description-present".to_owned()));

    std::fs::write(rules.join("local-policy.yaml"), NEW_RULE).unwrap();
    let added = validate_json(&rules, &doc);
    assert!(
        rule_ids(&added).contains(&"mcpdesc.info.description-present".to_owned()),
        "{added}"
    );
    assert_eq!(
        added["files"][0]["valid"], true,
        "a `should` rule only warns"
    );

    let bad = workspace().join("spec-fixtures/expected-invalid/info-missing-name.json");
    assert!(
        rule_ids(&validate_json(&rules, &bad)).contains(&"mcpdesc.info.required-fields".to_owned())
    );
    std::fs::remove_file(rules.join("info.yaml")).unwrap();
    assert!(!rule_ids(&validate_json(&rules, &bad))
        .contains(&"mcpdesc.info.required-fields".to_owned()));
}
