//! Cross-checks the catalogue's structural rules against the published MCP Description 0.8.0
//! JSON Schema of the conformance corpus.
//!
//! Every fixture and example of the corpus is decoded with the crate's own loader, validated
//! against `schema/mcp-description-0.8.0.json` (draft 2020-12, no remote fetching) and by the
//! workspace catalogue (`rules/`). The two verdicts compared are "schema-valid" and "no error
//! from a rule of kind `structural`". Each disagreement is a deviation
//! `structural:<folder>/<file>:schema=<valid|invalid>:ours=<valid|invalid>`; known ones are
//! listed in `tests/structural-expectations.yaml`, held as strictly as the conformance harness
//! (unlisted deviations and stale entries both fail). Regenerate with
//! `MCPDESC_BLESS=1 cargo test -p mcpdesc-core --test structural_cross_check`.
//!
//! Corpus location and the missing-corpus behaviour are those of `tests/conformance.rs`.

mod common;

use std::collections::BTreeSet;

use mcpdesc_core::internal::rules::file::RuleKind;
use mcpdesc_core::Severity;

const EXPECTATIONS_HEADER: &str = "\
Known disagreements between the published 0.8.0 JSON Schema and the catalogue's structural
rules (tests/structural_cross_check.rs). The test fails on a disagreement missing here and on
an entry that no longer disagrees. Regenerate with MCPDESC_BLESS=1 (reasons are kept).";

fn verdict(valid: bool) -> &'static str {
    if valid {
        "valid"
    } else {
        "invalid"
    }
}

#[test]
fn structural_rules_agree_with_published_schema() {
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    let (_, validator) = common::published_schema(&corpus);

    let engine = common::engine();
    let catalogue = engine.catalogue();
    let structural_rules = catalogue
        .rules
        .iter()
        .filter(|r| r.def.kind == RuleKind::Structural)
        .count();

    let mut files = common::fixtures(&corpus);
    files.extend(common::examples(&corpus));

    let mut deviations = BTreeSet::new();
    let (mut schema_valid, mut ours_valid, mut agreeing) = (0, 0, 0);
    let (mut only_schema_rejects, mut only_ours_rejects) = (0, 0);
    for file in &files {
        let doc = file.load();
        let value = doc.to_value();
        let schema_ok = validator.is_valid(&value);
        let report = engine.validate_document(&doc);
        let ours_errors: Vec<_> = report
            .diagnostics
            .iter()
            .filter(|d| {
                d.severity == Severity::Error
                    && catalogue
                        .rule(&d.rule)
                        .is_some_and(|r| r.def.kind == RuleKind::Structural)
            })
            .collect();
        let ours_ok = ours_errors.is_empty();
        schema_valid += usize::from(schema_ok);
        ours_valid += usize::from(ours_ok);
        if schema_ok == ours_ok {
            agreeing += 1;
            continue;
        }
        if schema_ok {
            only_ours_rejects += 1;
        } else {
            only_schema_rejects += 1;
        }
        let id = format!(
            "structural:{}:schema={}:ours={}",
            file.key(),
            verdict(schema_ok),
            verdict(ours_ok)
        );
        println!("{id}");
        for e in validator.iter_errors(&value).take(3) {
            println!("    schema {:?}: {e}", e.instance_path().as_str());
        }
        for d in ours_errors.iter().take(3) {
            println!("    ours   {:?}: {} ({})", d.pointer, d.message, d.rule);
        }
        deviations.insert(id);
    }

    let n = files.len();
    println!();
    println!(
        "structural rules: {structural_rules} of {}",
        catalogue.rules.len()
    );
    println!("documents: {n} (fixtures and examples)");
    println!("schema valid: {schema_valid}/{n}");
    println!("structurally valid (ours): {ours_valid}/{n}");
    println!("agreeing: {agreeing}/{n}");
    println!("rejected by the schema only: {only_schema_rejects}");
    println!("rejected by our structural rules only: {only_ours_rejects}");

    let path = common::manifest_dir().join("tests/structural-expectations.yaml");
    common::check_expectations(&path, EXPECTATIONS_HEADER, &deviations);
}
