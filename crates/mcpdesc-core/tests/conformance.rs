//! Conformance of the workspace catalogue (`rules/`) against the upstream MCP Description
//! 0.8.0 conformance corpus, measured strictly.
//!
//! The corpus is read from `$MCPDESC_CONFORMANCE_DIR` if set, else from
//! `<CARGO_MANIFEST_DIR>/../../../shared/conformance/mcpdesc-0.8.0`; it is never copied into
//! the repository. When it is absent the test prints that it was skipped and passes, unless
//! `CI` is set, in which case it fails.
//!
//! Deviations, each with a stable id:
//! - `verdict:<folder>/<file>`: a fixture's verdict differs from its folder (expected-valid: no
//!   diagnostics at all and no load error; expected-warning: at least one warning and no error;
//!   expected-invalid: at least one error or a load error);
//! - `example:<file>`: a specification example is not free of diagnostics;
//! - `reference:<folder>/<file>:<code>:<pointer>`: a diagnostic of the reference validator
//!   that none of ours matches (a rule listing the code in `reference-codes`, at the same
//!   pointer; for `schema-validation`, a structural rule at the same pointer or at its parent,
//!   since our required-member checks report at the object where the reference validator
//!   names the missing member);
//! - `code-unmapped:<code>`: a code of `reference-codes.tsv` that no rule lists.
//!
//! Known deviations are listed in `tests/conformance-expectations.yaml`; the test fails on any
//! deviation not listed there and on any listed one that no longer deviates. Regenerate with
//! `MCPDESC_BLESS=1 cargo test -p mcpdesc-core --test conformance`.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use mcpdesc_core::document::pointer;
use mcpdesc_core::internal::rules::file::RuleKind;
use mcpdesc_core::{Document, Engine, Format, Limits, Report, Severity};
use serde::Deserialize;
use serde_json::Value;

use common::CorpusFile;

const SCHEMA_CODE: &str = "schema-validation";

const EXPECTATIONS_HEADER: &str = "\
Known deviations of the conformance harness (tests/conformance.rs) from the MCP Description
0.8.0 conformance corpus. The test fails on a deviation missing here and on an entry that no
longer deviates. Regenerate with MCPDESC_BLESS=1 (reasons of remaining entries are kept).";

/// One entry of `reference-diagnostics/<folder>/<fixture>`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReferenceEntry {
    code: String,
    severity: String,
    path: Vec<Value>,
}

/// A reference diagnostic reduced to what is compared; the corpus says to compare sets.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct ReferenceDiagnostic {
    code: String,
    pointer: String,
}

/// Converts a reference path (keys and indices, indices possibly as strings) to an RFC 6901
/// JSON Pointer.
fn path_to_pointer(path: &[Value], context: &str) -> String {
    let mut out = String::new();
    for token in path {
        let token = match token {
            Value::String(s) => s.clone(),
            Value::Number(n) if n.is_u64() => n.to_string(),
            other => panic!("{context}: unexpected path token {other}"),
        };
        out = pointer::push(&out, &token);
    }
    out
}

/// The reference diagnostics of one fixture, deduplicated, with their severities.
fn reference_diagnostics(
    corpus: &Path,
    fixture: &CorpusFile,
) -> BTreeMap<ReferenceDiagnostic, BTreeSet<String>> {
    // The file carries the fixture's own name (so `<name>.yaml` for the YAML fixture, with
    // JSON content); `<stem>.json` is accepted too.
    let dir = corpus.join("reference-diagnostics").join(fixture.folder);
    let stem = fixture
        .name
        .rsplit_once('.')
        .map_or(fixture.name.as_str(), |(s, _)| s);
    let path = [dir.join(&fixture.name), dir.join(format!("{stem}.json"))]
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "no reference diagnostics for {} in {}",
                fixture.key(),
                dir.display()
            )
        });
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let format = Format::from_path(&path.to_string_lossy());
    let doc = Document::parse_str(&text, format, &Limits::default())
        .unwrap_or_else(|e| panic!("{} does not load: {e}", path.display()));
    let entries: Vec<ReferenceEntry> = serde_json::from_value(doc.to_value())
        .unwrap_or_else(|e| panic!("{} is malformed: {e}", path.display()));
    let mut out: BTreeMap<ReferenceDiagnostic, BTreeSet<String>> = BTreeMap::new();
    for e in entries {
        let key = ReferenceDiagnostic {
            pointer: path_to_pointer(&e.path, &path.display().to_string()),
            code: e.code,
        };
        out.entry(key).or_default().insert(e.severity);
    }
    out
}

/// The codes of `reference-codes.tsv` (header `code<TAB>severity<TAB>meaning`).
fn reference_codes(corpus: &Path) -> Vec<String> {
    let path = corpus.join("reference-codes.tsv");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default();
    assert!(
        header.starts_with("code\t"),
        "{}: unexpected header {header:?}",
        path.display()
    );
    let codes: Vec<String> = lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split('\t').next().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        codes.len(),
        87,
        "the corpus README lists 87 reference codes, {} has {}",
        path.display(),
        codes.len()
    );
    codes
}

fn validate(engine: &Engine, file: &CorpusFile) -> Report {
    engine
        .validate_file(&file.path)
        .unwrap_or_else(|e| panic!("{}: {e}", file.key()))
}

fn count(report: &Report, severity: Severity) -> usize {
    report
        .diagnostics
        .iter()
        .filter(|d| d.severity == severity)
        .count()
}

/// Whether a report has the verdict its fixture folder demands.
fn verdict_agrees(folder: &str, report: &Report) -> bool {
    let errors = count(report, Severity::Error);
    let warnings = count(report, Severity::Warning);
    let loaded = report.load_error.is_none();
    match folder {
        "expected-valid" => loaded && report.diagnostics.is_empty(),
        "expected-warning" => loaded && warnings > 0 && errors == 0,
        "expected-invalid" => !loaded || errors > 0,
        other => panic!("unknown fixture folder {other}"),
    }
}

fn describe(report: &Report) -> String {
    let mut parts = Vec::new();
    if let Some(l) = &report.load_error {
        parts.push(format!("load error {} ({})", l.code, l.message));
    }
    for sev in [Severity::Error, Severity::Warning, Severity::Info] {
        let n = count(report, sev);
        if n > 0 {
            parts.push(format!("{n} {}", sev.as_str()));
        }
    }
    if parts.is_empty() {
        "no diagnostics".to_string()
    } else {
        parts.join(", ")
    }
}

#[derive(Default)]
struct Tally {
    matched: usize,
    total: usize,
}

impl Tally {
    fn add(&mut self, matched: bool) {
        self.total += 1;
        if matched {
            self.matched += 1;
        }
    }
}

#[test]
fn conformance_corpus() {
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    let engine = common::engine();
    let catalogue = engine.catalogue();
    let mut deviations = BTreeSet::new();

    // Fixture verdicts and reference diagnostics.
    let fixtures = common::fixtures(&corpus);
    let mut agreeing = 0;
    let mut per_folder: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let (mut structural, mut semantic) = (Tally::default(), Tally::default());
    let mut severity_mismatches = Vec::new();
    for fixture in &fixtures {
        let report = validate(&engine, fixture);
        let agrees = verdict_agrees(fixture.folder, &report);
        let slot = per_folder.entry(fixture.folder).or_default();
        slot.1 += 1;
        if agrees {
            agreeing += 1;
            slot.0 += 1;
        } else {
            deviations.insert(format!("verdict:{}", fixture.key()));
            println!("verdict  {}: {}", fixture.key(), describe(&report));
        }

        // Our diagnostics with the rule that produced each.
        let ours: Vec<_> = report
            .diagnostics
            .iter()
            .filter_map(|d| catalogue.rule(&d.rule).map(|r| (r, d)))
            .collect();
        for (reference, severities) in reference_diagnostics(&corpus, fixture) {
            let ReferenceDiagnostic { code, pointer: ptr } = &reference;
            let hit = if code == SCHEMA_CODE {
                let parent = pointer::parent(ptr);
                ours.iter().find(|(rule, d)| {
                    rule.def.kind == RuleKind::Structural
                        && (d.pointer == *ptr || Some(d.pointer.as_str()) == parent)
                })
            } else {
                ours.iter().find(|(rule, d)| {
                    d.pointer == *ptr && rule.def.reference_codes.iter().any(|c| c == code)
                })
            };
            if code == SCHEMA_CODE {
                structural.add(hit.is_some());
            } else {
                semantic.add(hit.is_some());
            }
            match hit {
                None => {
                    deviations.insert(format!("reference:{}:{code}:{ptr}", fixture.key()));
                }
                Some((_, d)) if !severities.contains(d.severity.as_str()) => {
                    severity_mismatches.push(format!(
                        "{}:{code}:{ptr} reference {:?}, ours {} ({})",
                        fixture.key(),
                        severities,
                        d.severity.as_str(),
                        d.rule
                    ));
                }
                Some(_) => {}
            }
        }
    }

    // Examples.
    let examples = common::examples(&corpus);
    let mut examples_valid = 0;
    for example in &examples {
        let report = validate(&engine, example);
        if report.load_error.is_none() && report.diagnostics.is_empty() {
            examples_valid += 1;
        } else {
            deviations.insert(format!("example:{}", example.name));
            println!("example  {}: {}", example.name, describe(&report));
        }
    }

    // Reference codes no rule maps.
    let codes = reference_codes(&corpus);
    let mapped: BTreeSet<&str> = catalogue
        .rules
        .iter()
        .flat_map(|r| r.def.reference_codes.iter().map(String::as_str))
        .collect();
    let mut unmapped = 0;
    for code in &codes {
        if !mapped.contains(code.as_str()) {
            unmapped += 1;
            deviations.insert(format!("code-unmapped:{code}"));
        }
    }
    let known: BTreeSet<&str> = codes.iter().map(String::as_str).collect();
    let unknown: Vec<String> = catalogue
        .rules
        .iter()
        .flat_map(|r| {
            r.def
                .reference_codes
                .iter()
                .filter(|c| !known.contains(c.as_str()))
                .map(move |c| format!("{} lists {c}", r.def.id))
        })
        .collect();

    println!();
    println!(
        "rules: {} (from {})",
        catalogue.rules.len(),
        common::rules_dir().display()
    );
    for (folder, (ok, total)) in &per_folder {
        println!("  {folder}: {ok}/{total}");
    }
    println!("fixtures agreeing: {agreeing}/{}", fixtures.len());
    println!("examples valid: {examples_valid}/{}", examples.len());
    println!(
        "reference diagnostics matched: {}/{} (non-structural {}/{}, structural {}/{})",
        semantic.matched + structural.matched,
        semantic.total + structural.total,
        semantic.matched,
        semantic.total,
        structural.matched,
        structural.total
    );
    println!("unmapped reference codes: {unmapped}");
    // Informational, not deviations: the matching criteria above ignore severity.
    println!(
        "matched with a different severity: {}",
        severity_mismatches.len()
    );
    for m in &severity_mismatches {
        println!("  {m}");
    }
    println!(
        "rule reference codes not in reference-codes.tsv: {}",
        unknown.len()
    );
    for u in &unknown {
        println!("  {u}");
    }

    let path = common::manifest_dir().join("tests/conformance-expectations.yaml");
    common::check_expectations(&path, EXPECTATIONS_HEADER, &deviations);
}
