//! The published rule-file JSON Schema is current and every rule file satisfies it.

use std::path::PathBuf;

use mcpdesc_core::{Document, Format, Limits};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn committed_schema_is_current() {
    let generated =
        serde_json::to_string_pretty(&mcpdesc_core::internal::rules::schema::rule_file_schema())
            .unwrap()
            + "\n";
    let committed =
        std::fs::read_to_string(workspace().join("docs/rule-file.schema.json")).unwrap_or_default();
    assert!(
        generated == committed,
        "docs/rule-file.schema.json is stale; run `cargo xtask generate`"
    );
    let doc = std::fs::read_to_string(workspace().join("docs/rule-format.md")).unwrap();
    let regenerated = mcpdesc_core::internal::rules::schema::with_checks_reference(&doc)
        .expect("markers present");
    assert!(
        regenerated == doc,
        "docs/rule-format.md check reference is stale; run `cargo xtask generate`"
    );
}

#[test]
fn every_rule_file_satisfies_the_schema() {
    let schema = mcpdesc_core::internal::rules::schema::rule_file_schema();
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&schema)
        .expect("the rule-file schema compiles");
    let mut checked = 0;
    let mut failures = Vec::new();
    // The shipped release, the fictional release that extends it, and the release laid out
    // as the specification site publishes it (its `pages` block).
    let mut stack = vec![
        workspace().join("rules"),
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/releases/fictional"),
        workspace().join("crates/mcpdesc-cli/tests/data/releases/0.9.0-rc.3"),
    ];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if !matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml")
            ) {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let doc = Document::parse_str(&text, Format::Yaml, &Limits::default()).unwrap();
            let value = doc.to_value();
            for e in validator.iter_errors(&value) {
                let ptr = e.instance_path().to_string();
                let pos = doc.position(&ptr);
                failures.push(format!(
                    "{}:{}:{}: {e}",
                    path.display(),
                    pos.line,
                    pos.column
                ));
            }
            checked += 1;
        }
    }
    assert!(checked > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_schema_rejects_an_unknown_check() {
    let schema = mcpdesc_core::internal::rules::schema::rule_file_schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let text = std::fs::read_to_string(workspace().join("rules/info.yaml")).unwrap();
    let mut doc = Document::parse_str(&text, Format::Yaml, &Limits::default())
        .unwrap()
        .to_value();
    doc["rules"][0]["then"][0]["check"] = serde_json::json!("no-such-check");
    assert!(!validator.is_valid(&doc));
}
