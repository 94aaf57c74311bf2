//! Requirement coverage: for every row of the specification's requirement inventory, the rules
//! that implement it (each rule's `covers`) or, for a row no rule implements, why none is
//! needed (the coverage notes, `docs/coverage-notes.yaml` in this repository).
//!
//! Plain data in, Markdown out: reading the rules directory and the notes file is the
//! caller's job (`cargo xtask generate` writes `docs/coverage.md`). The set of rows is the
//! union of the rules' `covers` and the notes, so the page can be generated without the
//! inventory itself; the test suite checks that this union is exactly the inventory.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::Deserialize;

use mcpdesc_core::internal::{Level, RuleDef, RuleKind};
use mcpdesc_document::{Format, Limits, ValueDocument};

/// The coverage notes file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CoverageNotes {
    /// Headings of the coverage page, in page order.
    pub sections: Vec<Section>,
    /// Every requirement row that no rule covers, with the reason.
    pub rows: Vec<Note>,
}

/// One heading of the coverage page: the rows whose reference has this group.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Section {
    /// The part of a row reference before its last `-` (`3` for `3-04`, `9.4` for `9.4-06`,
    /// `CE` for `CE-03`).
    pub group: String,
    /// The heading text.
    pub title: String,
}

/// Why a requirement row has no rule of its own.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Note {
    /// The row reference, e.g. `4-13`.
    #[serde(rename = "ref")]
    pub reference: String,
    /// The requirement level the row states.
    pub level: Level,
    /// What the row is about.
    pub kind: RowKind,
    /// Why no rule covers the row.
    pub status: NoteStatus,
    /// The reason, and where this product meets the duty when it does.
    pub note: String,
    /// Rules the note refers to (for `covered-by`).
    #[serde(default)]
    pub rules: Vec<String>,
}

/// What a requirement row is about: one of the rule kinds (a check of one document), or a
/// duty that is not a check of one document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RowKind {
    /// Expressible as a JSON Schema constraint.
    Structural,
    /// Needs protocol facts beyond structure.
    McpSemantic,
    /// Needs cross-references, scopes or content of the description.
    McpdescSemantic,
    /// About the raw JSON or YAML source.
    Serialization,
    /// A duty of a validator, projection or merge tool, producer, consumer or publisher.
    Processing,
    /// A duty of authors or consumers that no tool can check.
    Advisory,
}

impl RowKind {
    /// The kind's name as notes files write it (`mcp-semantic`, `processing`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            RowKind::Structural => "structural",
            RowKind::McpSemantic => "mcp-semantic",
            RowKind::McpdescSemantic => "mcpdesc-semantic",
            RowKind::Serialization => "serialization",
            RowKind::Processing => "processing",
            RowKind::Advisory => "advisory",
        }
    }

    /// Whether the row can be checked on one document.
    pub fn is_document_check(self) -> bool {
        !matches!(self, RowKind::Processing | RowKind::Advisory)
    }
}

impl From<RuleKind> for RowKind {
    fn from(kind: RuleKind) -> RowKind {
        match kind {
            RuleKind::Structural => RowKind::Structural,
            RuleKind::McpSemantic => RowKind::McpSemantic,
            RuleKind::McpdescSemantic => RowKind::McpdescSemantic,
            RuleKind::Serialization => RowKind::Serialization,
        }
    }
}

/// Why no rule covers a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoteStatus {
    /// A duty of a tool (validator, projection or merge tool, producer, consumer, publisher),
    /// not a check of one document.
    Tooling,
    /// A duty of authors or consumers that no tool can check.
    Author,
    /// Met by the document loader before any rule runs.
    Loader,
    /// Met by the rules the note lists, or by the engine, without a rule of its own.
    CoveredBy,
    /// A check of one document that no rule makes yet; the note says why.
    NotImplemented,
}

impl NoteStatus {
    /// Every status, in the order coverage pages list them.
    pub const ALL: [NoteStatus; 5] = [
        NoteStatus::Tooling,
        NoteStatus::Author,
        NoteStatus::Loader,
        NoteStatus::CoveredBy,
        NoteStatus::NotImplemented,
    ];

    /// The status's name as notes files write it (`covered-by`, `not-implemented`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            NoteStatus::Tooling => "tooling",
            NoteStatus::Author => "author",
            NoteStatus::Loader => "loader",
            NoteStatus::CoveredBy => "covered-by",
            NoteStatus::NotImplemented => "not-implemented",
        }
    }

    fn meaning(self) -> &'static str {
        match self {
            NoteStatus::Tooling => {
                "a duty of a tool (validator, projection or merge tool, converter, producer, \
                 consumer, client, schema publisher), not a check of one document; the note says \
                 where this product meets it when it does"
            }
            NoteStatus::Author => "a duty of authors or consumers that no tool can check",
            NoteStatus::Loader => "met by the document loader before any rule runs",
            NoteStatus::CoveredBy => {
                "met by other rules or by the engine, as the note explains, without a rule of its own"
            }
            NoteStatus::NotImplemented => "a check of one document that no rule makes; the note says why",
        }
    }
}

/// Reads a coverage notes file (restricted-profile YAML, like rule files).
pub fn parse_notes(text: &str) -> Result<CoverageNotes, String> {
    let doc = ValueDocument::parse_str(text, Format::Yaml, &Limits::default())
        .map_err(|e| e.to_string())?;
    serde_path_to_error::deserialize(doc.value()).map_err(|e| {
        let path = e.path().to_string();
        format!("{path}: {}", e.into_inner())
    })
}

/// A requirement row reference split into its group and number (`9.4-06` → `9.4`, 6).
pub fn split_ref(reference: &str) -> Option<(&str, u32)> {
    let (group, number) = reference.rsplit_once('-')?;
    let group_ok = group
        .split('.')
        .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        || (!group.is_empty() && group.bytes().all(|b| b.is_ascii_uppercase()));
    let number_ok = !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit());
    if !group_ok || !number_ok {
        return None;
    }
    Some((group, number.parse().ok()?))
}

/// How one row is covered.
#[derive(Debug, Clone)]
pub enum RowCoverage<'a> {
    /// The rules whose `covers` name the row, by id.
    Rules(Vec<&'a RuleDef>),
    /// The note explaining why no rule is needed.
    Note(&'a Note),
}

/// One requirement row.
#[derive(Debug, Clone)]
pub struct Row<'a> {
    /// The row reference, e.g. `4-13`.
    pub reference: &'a str,
    /// The rules or the note that cover the row.
    pub coverage: RowCoverage<'a>,
}

impl Row<'_> {
    /// Whether the row is a check of one document: every row a rule covers, and notes of a
    /// document kind.
    pub fn is_document_check(&self) -> bool {
        match &self.coverage {
            RowCoverage::Rules(_) => true,
            RowCoverage::Note(n) => n.kind.is_document_check(),
        }
    }
}

/// Every row, grouped by section in page order, rows in number order.
#[derive(Debug, Clone)]
pub struct Coverage<'a> {
    /// Each section with its rows.
    pub sections: Vec<(&'a Section, Vec<Row<'a>>)>,
}

impl Coverage<'_> {
    /// Every row, section by section.
    pub fn rows(&self) -> impl Iterator<Item = &Row<'_>> {
        self.sections.iter().flat_map(|(_, rows)| rows)
    }
}

/// Joins the rules' `covers` and the notes into one row per reference. Every inconsistency
/// is reported: malformed references, rows of no section, a row both covered and noted, a
/// row noted twice or named twice by one rule, notes naming unknown rules, empty notes.
pub fn build<'a>(
    rules: &[&'a RuleDef],
    notes: &'a CoverageNotes,
) -> Result<Coverage<'a>, Vec<String>> {
    let mut problems = Vec::new();
    let known_rules: BTreeSet<&str> = rules.iter().map(|r| r.id.as_str()).collect();

    let mut by_rule: BTreeMap<&'a str, Vec<&'a RuleDef>> = BTreeMap::new();
    for rule in rules {
        let mut seen = BTreeSet::new();
        for r in &rule.covers {
            if !seen.insert(r.as_str()) {
                problems.push(format!("rule {} covers {r} twice", rule.id));
                continue;
            }
            by_rule.entry(r).or_default().push(rule);
        }
    }
    let mut by_note: BTreeMap<&'a str, &'a Note> = BTreeMap::new();
    for note in &notes.rows {
        if by_note.insert(&note.reference, note).is_some() {
            problems.push(format!("coverage notes list {} twice", note.reference));
        }
        if let Some(covering) = by_rule.get(note.reference.as_str()) {
            let ids: Vec<&str> = covering.iter().map(|r| r.id.as_str()).collect();
            problems.push(format!(
                "{} is covered by {} and also listed in the coverage notes",
                note.reference,
                ids.join(", ")
            ));
        }
        if note.note.trim().is_empty() {
            problems.push(format!(
                "the coverage note of {} gives no reason",
                note.reference
            ));
        }
        for id in &note.rules {
            if !known_rules.contains(id.as_str()) {
                problems.push(format!(
                    "the coverage note of {} names unknown rule {id}",
                    note.reference
                ));
            }
        }
    }

    let mut groups: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, s) in notes.sections.iter().enumerate() {
        if groups.insert(&s.group, i).is_some() {
            problems.push(format!(
                "coverage notes list section group {} twice",
                s.group
            ));
        }
    }
    let mut rows: Vec<Vec<(u32, Row<'a>)>> = vec![Vec::new(); notes.sections.len()];
    let mut place = |reference: &'a str, coverage: RowCoverage<'a>, problems: &mut Vec<String>| {
        let Some((group, number)) = split_ref(reference) else {
            problems.push(format!(
                "{reference:?} is not a requirement row reference (like 3-04, 9.4-06, CE-03)"
            ));
            return;
        };
        match groups.get(group) {
            Some(&i) => rows[i].push((
                number,
                Row {
                    reference,
                    coverage,
                },
            )),
            None => problems.push(format!(
                "{reference}: no section of the coverage notes has group {group}"
            )),
        }
    };
    for (&reference, covering) in &by_rule {
        let mut covering = covering.clone();
        covering.sort_by(|a, b| a.id.cmp(&b.id));
        place(reference, RowCoverage::Rules(covering), &mut problems);
    }
    for (&reference, &note) in &by_note {
        if !by_rule.contains_key(reference) {
            place(reference, RowCoverage::Note(note), &mut problems);
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let sections = notes
        .sections
        .iter()
        .zip(rows)
        .map(|(s, mut rows)| {
            rows.sort_by_key(|(n, row)| (*n, row.reference));
            (s, rows.into_iter().map(|(_, row)| row).collect())
        })
        .collect();
    Ok(Coverage { sections })
}

/// Escapes text for one Markdown table cell: one line, `|` escaped, and `<` outside code
/// spans written as an entity so that it is not read as HTML.
fn cell(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    for c in text.chars() {
        match c {
            '`' => {
                in_code = !in_code;
                out.push(c);
            }
            '|' => out.push_str("\\|"),
            '<' if !in_code => out.push_str("&lt;"),
            _ => out.push(c),
        }
    }
    out
}

fn levels(rules: &[&RuleDef]) -> String {
    let mut out: Vec<&str> = Vec::new();
    for level in [Level::Must, Level::Should, Level::May] {
        if rules.iter().any(|r| r.level == level) {
            out.push(level.as_str());
        }
    }
    out.join(", ")
}

fn kinds(rules: &[&RuleDef]) -> String {
    let mut out: Vec<&str> = Vec::new();
    for kind in [
        RuleKind::Structural,
        RuleKind::McpSemantic,
        RuleKind::McpdescSemantic,
        RuleKind::Serialization,
    ] {
        if rules.iter().any(|r| r.kind == kind) {
            out.push(kind.as_str());
        }
    }
    out.join(", ")
}

/// The coverage page.
pub fn render_markdown(coverage: &Coverage<'_>) -> String {
    let mut out = String::new();
    out.push_str("# Requirement coverage\n\n");
    out.push_str(
        "<!-- Generated by `cargo xtask generate` from the rules' `covers` and \
         docs/coverage-notes.yaml; edit those, not this page. -->\n\n",
    );
    out.push_str(
        "Every row of the MCP Description 0.8.0 requirement inventory, by section: the rules \
         whose `covers` name it, or why it needs no rule of its own \
         ([`coverage-notes.yaml`](coverage-notes.yaml)). Level and kind are those of the \
         covering rules, or of the note.\n\n",
    );
    out.push_str("| coverage | meaning |\n|---|---|\n");
    out.push_str("| rules | checked on every document by the rules listed |\n");
    for status in NoteStatus::ALL {
        let _ = writeln!(out, "| {} | {} |", status.as_str(), status.meaning());
    }

    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    let (mut total, mut checks, mut checked) = (0, 0, 0);
    for row in coverage.rows() {
        total += 1;
        if row.is_document_check() {
            checks += 1;
        }
        let key = match &row.coverage {
            RowCoverage::Rules(_) => {
                checked += 1;
                "rules"
            }
            RowCoverage::Note(n) => n.status.as_str(),
        };
        *counts.entry(key).or_default() += 1;
    }
    out.push_str("\n## Totals\n\n| coverage | rows |\n|---|---:|\n");
    for key in std::iter::once("rules").chain(NoteStatus::ALL.iter().map(|s| s.as_str())) {
        let _ = writeln!(out, "| {key} | {} |", counts.get(key).copied().unwrap_or(0));
    }
    let _ = writeln!(out, "| **total** | **{total}** |");
    let not_implemented = counts
        .get(NoteStatus::NotImplemented.as_str())
        .copied()
        .unwrap_or(0);
    let _ = writeln!(
        out,
        "\nDocument checks (every row a rule covers, and the noted rows of a document kind): \
         **{checked} of {checks}** are covered by rules; {not_implemented} not implemented."
    );

    for (section, rows) in &coverage.sections {
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n## {}\n", section.title);
        out.push_str("| row | level | kind | coverage |\n|---|---|---|---|\n");
        for row in rows {
            let (level, kind, text) = match &row.coverage {
                RowCoverage::Rules(rules) => {
                    let list: Vec<String> = rules
                        .iter()
                        .map(|r| format!("`{}` {}", r.id, cell(&r.title)))
                        .collect();
                    (levels(rules), kinds(rules), list.join("<br>"))
                }
                RowCoverage::Note(n) => {
                    let mut text = format!("**{}**: {}", n.status.as_str(), cell(&n.note));
                    if !n.rules.is_empty() {
                        let ids: Vec<String> = n.rules.iter().map(|id| format!("`{id}`")).collect();
                        let _ = write!(text, " Rules: {}.", ids.join(", "));
                    }
                    (
                        n.level.as_str().to_owned(),
                        n.kind.as_str().to_owned(),
                        text,
                    )
                }
            };
            let _ = writeln!(out, "| {} | {level} | {kind} | {text} |", row.reference);
        }
    }
    out
}

/// The coverage page of `rules` and the notes file text, or every problem found.
pub fn markdown(rules: &[&RuleDef], notes_yaml: &str) -> Result<String, Vec<String>> {
    let notes = parse_notes(notes_yaml).map_err(|e| vec![format!("coverage notes: {e}")])?;
    let coverage = build(rules, &notes)?;
    Ok(render_markdown(&coverage))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_references() {
        assert_eq!(split_ref("3-04"), Some(("3", 4)));
        assert_eq!(split_ref("9.4-06"), Some(("9.4", 6)));
        assert_eq!(split_ref("CE-13"), Some(("CE", 13)));
        assert_eq!(split_ref("A-01"), Some(("A", 1)));
        for bad in ["3", "-04", "3-", "3.-04", "ce-01", "3-0x", "9..4-01"] {
            assert_eq!(split_ref(bad), None, "{bad}");
        }
    }

    #[test]
    fn escapes_table_cells() {
        assert_eq!(cell("x-<org>  a|b\n `<c>`"), "x-&lt;org> a\\|b `<c>`");
    }

    #[test]
    fn reports_rows_both_covered_and_noted() {
        let notes = parse_notes(
            "sections: [{group: \"3\", title: Three}]\n\
             rows: [{ref: \"3-01\", level: must, kind: processing, status: tooling, note: x}]\n",
        )
        .unwrap();
        let rule: RuleDef = serde_json::from_value(serde_json::json!({
            "id": "a.b.c", "title": "T", "description": "d", "requirement": "r", "owner": "mcp",
            "surface": "s", "path": "p", "kind": "structural", "level": "must",
            "status": "internal", "enforcement": "internal", "applicability": {},
            "covers": ["3-01", "4-01"],
            "required-by": {"spec": "S", "sections": ["3"]},
            "based-on": {"tier": 1, "label": "l", "detail": "d"},
            "examples": {}, "given": ["$"], "then": [], "message": "m"
        }))
        .unwrap();
        let problems = build(&[&rule], &notes).unwrap_err();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("also listed"), "{problems:?}");
        assert!(problems[1].contains("no section"), "{problems:?}");
    }
}
