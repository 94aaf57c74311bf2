//! Every rule's declared examples behave as declared.

use std::path::PathBuf;

use mcpdesc_core::internal::examples::run_examples;
use mcpdesc_core::Engine;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn engine() -> Engine {
    Engine::from_dir(workspace().join("rules")).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_example_behaves_as_declared() {
    let engine = engine();
    let outcomes = run_examples(&engine, &workspace().join("spec-fixtures"));
    let failures: Vec<String> = outcomes
        .iter()
        .filter_map(|o| {
            o.failure.as_ref().map(|f| {
                format!(
                    "{} {:?} example {}#{}: {f}",
                    o.rule, o.expectation, o.fixture, o.pointer
                )
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} failing example(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(!outcomes.is_empty());
}

#[test]
fn every_rule_has_a_valid_and_an_invalid_example() {
    let engine = engine();
    let mut missing = Vec::new();
    for rule in &engine.catalogue().rules {
        if rule.def.examples.valid.is_empty() {
            missing.push(format!("{}: no valid example", rule.id()));
        }
        if rule.def.examples.invalid.is_empty() {
            missing.push(format!("{}: no invalid example", rule.id()));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// A check of traffic as it passes leaves a rule out when the messages it compares with went
/// unchecked, so a rule that looks back at an earlier message must say so.
#[test]
fn every_rule_that_reads_an_earlier_message_declares_it() {
    use mcpdesc_core::internal::MessageContext;
    let engine = engine();
    let mut undeclared = Vec::new();
    for rule in &engine.catalogue().rules {
        let reads_earlier = rule
            .def
            .then
            .iter()
            .any(|c| c.get("check").and_then(|v| v.as_str()) == Some("earlier-message"));
        if reads_earlier && rule.def.depends_on != Some(MessageContext::EarlierMessages) {
            undeclared.push(rule.id().to_owned());
        }
    }
    assert!(
        undeclared.is_empty(),
        "rules with an `earlier-message` check but no `depends-on: earlier-messages`: {}",
        undeclared.join(", ")
    );
}

#[test]
fn expected_folders_match_verdicts() {
    let engine = engine();
    let root = workspace().join("spec-fixtures");
    for folder in ["expected-valid", "expected-warning", "expected-invalid"] {
        let Ok(entries) = std::fs::read_dir(root.join(folder)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if !matches!(ext, "json" | "yaml" | "yml")
                || path.to_string_lossy().contains(".expected.")
            {
                continue;
            }
            let report = engine.validate_file(&path).expect("readable");
            let errors = report.has(mcpdesc_core::Severity::Error) || report.load_error.is_some();
            let warnings = report
                .diagnostics
                .iter()
                .any(|d| d.severity == mcpdesc_core::Severity::Warning);
            let ok = match folder {
                "expected-valid" => report.diagnostics.is_empty() && report.load_error.is_none(),
                "expected-warning" => warnings && !errors,
                _ => errors,
            };
            assert!(
                ok,
                "{} does not match its folder: {:#?}",
                path.display(),
                report.diagnostics
            );
        }
    }
}
