//! Requirement coverage: `docs/coverage.md` is current, and the rules' `covers` together with
//! `docs/coverage-notes.yaml` account for every row of the specification's requirement
//! inventory exactly once.
//!
//! The inventory is read from `$MCPDESC_REQUIREMENTS` if set, else from
//! `<CARGO_MANIFEST_DIR>/../../../shared/reference/requirements.md`; it is never copied into
//! the repository. When it is absent the checks that need it print that they were skipped and
//! pass, unless `CI` is set, in which case they fail.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use mcpdesc_authoring::coverage::{self, CoverageNotes, NoteStatus, RowKind};
use mcpdesc_core::{Catalogue, RuleSet};

const REQUIREMENTS_ENV: &str = "MCPDESC_REQUIREMENTS";

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn catalogue() -> std::sync::Arc<Catalogue> {
    let dir = workspace().join("rules");
    RuleSet::from_dir(&dir)
        .and_then(|set| set.compile())
        .unwrap_or_else(|e| panic!("the rules directory {} does not load:\n{e}", dir.display()))
        .default_release()
        .clone()
}

fn notes_text() -> String {
    std::fs::read_to_string(workspace().join("docs/coverage-notes.yaml"))
        .expect("docs/coverage-notes.yaml is readable")
}

fn notes() -> CoverageNotes {
    coverage::parse_notes(&notes_text()).unwrap_or_else(|e| panic!("docs/coverage-notes.yaml: {e}"))
}

/// Row reference → ids of the rules whose `covers` name it.
fn covered(catalogue: &Catalogue) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for rule in &catalogue.rules {
        for r in &rule.def.covers {
            out.entry(r.clone()).or_default().push(rule.def.id.clone());
        }
    }
    out
}

/// One row of the inventory: its level and kind columns as written there.
struct InventoryRow {
    level: String,
    kind: String,
}

fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// The cells of a Markdown table line (`\|` does not split a cell).
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    let mut out = Vec::new();
    let mut cell = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cell.push('|');
                chars.next();
            }
            '|' => out.push(std::mem::take(&mut cell).trim().to_owned()),
            _ => cell.push(c),
        }
    }
    out.push(cell.trim().to_owned());
    out
}

/// The requirement rows of the inventory, or `None` (after printing why) when it is absent
/// outside CI.
fn inventory() -> Option<BTreeMap<String, InventoryRow>> {
    let path = match std::env::var_os(REQUIREMENTS_ENV) {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => workspace().join("../shared/reference/requirements.md"),
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        if in_ci() {
            panic!(
                "requirement inventory not found at {} (set {REQUIREMENTS_ENV}); \
                 it is required when CI is set",
                path.display()
            );
        }
        eprintln!(
            "skipped: requirement inventory not found at {} (set {REQUIREMENTS_ENV} to check \
             coverage against it)",
            path.display()
        );
        return None;
    };
    let mut rows = BTreeMap::new();
    let mut columns: Option<(usize, usize, usize)> = None;
    for line in text.lines() {
        if !line.trim_start().starts_with('|') {
            columns = None;
            continue;
        }
        let cells = cells(line);
        if cells.first().map(String::as_str) == Some("Ref") {
            let col = |name: &str| cells.iter().position(|c| c == name);
            columns = match (col("Level"), col("Kind")) {
                (Some(l), Some(k)) => Some((0, l, k)),
                _ => None,
            };
            continue;
        }
        let Some((r, l, k)) = columns else { continue };
        let Some(reference) = cells.get(r) else {
            continue;
        };
        if coverage::split_ref(reference).is_none() {
            continue;
        }
        let row = InventoryRow {
            level: cells.get(l).cloned().unwrap_or_default(),
            kind: cells.get(k).cloned().unwrap_or_default(),
        };
        assert!(
            rows.insert(reference.clone(), row).is_none(),
            "{}: row {reference} appears twice",
            path.display()
        );
    }
    assert!(
        !rows.is_empty(),
        "{} holds no requirement rows; is it the inventory?",
        path.display()
    );
    Some(rows)
}

/// Whether an inventory kind is a check of one document.
fn is_document_kind(kind: &str) -> bool {
    kind == "structural" || kind == "serialization" || kind.starts_with("semantic:")
}

#[test]
fn coverage_page_is_current() {
    let catalogue = catalogue();
    let rules: Vec<_> = catalogue.rules.iter().map(|r| &*r.def).collect();
    let generated = coverage::markdown(&rules, &notes_text())
        .unwrap_or_else(|problems| panic!("coverage:\n  {}", problems.join("\n  ")));
    let committed =
        std::fs::read_to_string(workspace().join("docs/coverage.md")).unwrap_or_default();
    assert!(
        generated == committed,
        "docs/coverage.md is stale; run `cargo xtask generate`"
    );
}

#[test]
fn every_rule_covers_a_requirement_row() {
    let catalogue = catalogue();
    let bare: Vec<&str> = catalogue
        .rules
        .iter()
        // Rules that judge only traffic implement MCP itself, not rows of the description
        // specification's inventory; their `required-by` names the MCP pages instead.
        .filter(|r| {
            r.def.covers.is_empty()
                && r.reads
                    .iter()
                    .any(|(kind, _)| *kind == mcpdesc_core::DocumentKind::Description)
        })
        .map(|r| r.id())
        .collect();
    assert!(
        bare.is_empty(),
        "rules without `covers` (name the requirement rows each implements):\n  {}",
        bare.join("\n  ")
    );
}

#[test]
fn no_row_is_both_covered_and_noted() {
    let covered = covered(&catalogue());
    let both: Vec<String> = notes()
        .rows
        .iter()
        .filter_map(|n| {
            covered
                .get(&n.reference)
                .map(|ids| format!("{} (covered by {})", n.reference, ids.join(", ")))
        })
        .collect();
    assert!(
        both.is_empty(),
        "rows both covered by rules and listed in docs/coverage-notes.yaml:\n  {}",
        both.join("\n  ")
    );
}

#[test]
fn rows_match_the_inventory() {
    let Some(inventory) = inventory() else {
        return;
    };
    let covered = covered(&catalogue());
    let notes = notes();
    let noted: BTreeSet<&str> = notes.rows.iter().map(|n| n.reference.as_str()).collect();
    let mut problems = Vec::new();
    for (reference, ids) in &covered {
        if !inventory.contains_key(reference) {
            problems.push(format!(
                "{reference} (covers of {}) is not an inventory row",
                ids.join(", ")
            ));
        }
    }
    for n in &notes.rows {
        let Some(row) = inventory.get(&n.reference) else {
            problems.push(format!(
                "{} (coverage notes) is not an inventory row",
                n.reference
            ));
            continue;
        };
        let kind_agrees = match n.kind {
            RowKind::Processing => row.kind == "processing",
            RowKind::Advisory => row.kind == "advisory",
            _ => is_document_kind(&row.kind),
        };
        if !kind_agrees {
            problems.push(format!(
                "{}: the note's kind {} does not fit the inventory's {}",
                n.reference,
                n.kind.as_str(),
                row.kind
            ));
        }
        let level = if row.level == "warning" {
            "should"
        } else {
            row.level.as_str()
        };
        if n.level.as_str() != level {
            problems.push(format!(
                "{}: the note's level {} differs from the inventory's {}",
                n.reference,
                n.level.as_str(),
                row.level
            ));
        }
    }
    for reference in inventory.keys() {
        let in_covers = covered.contains_key(reference);
        let in_notes = noted.contains(reference.as_str());
        if !in_covers && !in_notes {
            problems.push(format!(
                "{reference}: no rule covers it and docs/coverage-notes.yaml does not list it"
            ));
        }
    }
    let mut seen = BTreeSet::new();
    for n in &notes.rows {
        if !seen.insert(n.reference.as_str()) {
            problems.push(format!(
                "{}: listed twice in docs/coverage-notes.yaml",
                n.reference
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "coverage vs inventory:\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn document_checks_are_covered_or_explained() {
    let covered = covered(&catalogue());
    let notes = notes();
    let inventory = inventory();
    let is_check = |reference: &str, kind: RowKind| match &inventory {
        Some(inv) => inv
            .get(reference)
            .is_some_and(|row| is_document_kind(&row.kind)),
        None => kind.is_document_check(),
    };
    let mut problems = Vec::new();
    let mut not_implemented = Vec::new();
    for n in notes.rows.iter().filter(|n| is_check(&n.reference, n.kind)) {
        if n.status == NoteStatus::NotImplemented {
            not_implemented.push(n.reference.as_str());
            if n.note.trim().is_empty() {
                problems.push(format!("{}: not implemented without a reason", n.reference));
            }
        }
    }
    if let Some(inv) = &inventory {
        let checks: Vec<&String> = inv
            .iter()
            .filter(|(_, row)| is_document_kind(&row.kind))
            .map(|(r, _)| r)
            .collect();
        let by_rules = checks
            .iter()
            .filter(|r| covered.contains_key(r.as_str()))
            .count();
        let noted: BTreeSet<&str> = notes.rows.iter().map(|n| n.reference.as_str()).collect();
        for r in &checks {
            if !covered.contains_key(r.as_str()) && !noted.contains(r.as_str()) {
                problems.push(format!(
                    "{r}: a document check with neither a rule nor a note"
                ));
            }
        }
        println!(
            "document-check rows of the inventory: {by_rules} of {} covered by rules",
            checks.len()
        );
    }
    println!(
        "document-check rows not implemented: {} ({})",
        not_implemented.len(),
        not_implemented.join(", ")
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
