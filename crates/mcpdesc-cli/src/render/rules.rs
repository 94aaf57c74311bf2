//! The catalogue at the terminal: `rules list` and `rules show`.

use std::fmt::Write as _;

use anyhow::Result;
use mcpdesc_core::internal::rules::file::Applicability;
use mcpdesc_core::{Catalogue, Rule};
use serde_json::{json, Value};

use super::safe::{self, escape, escape_multiline};
use super::DocUrls;
use crate::cli::Format;

/// How a rule came to be what it is in its release.
fn history(r: &Rule) -> Value {
    json!({
        "since": r.history.since.to_string(),
        "definedIn": r.history.defined_in.to_string(),
        "changes": r.history.changes.iter().map(|c| json!({
            "release": c.release.to_string(),
            "kind": c.kind.as_str(),
            "reason": c.reason,
            "source": {"file": c.source.file, "line": c.source.line},
        })).collect::<Vec<_>>(),
    })
}

/// The rules of one release with their metadata, fields named as in the rule files; the
/// JSON form also names the release, its history per rule, and the rules it retired.
/// The text table is fitted to `width` terminal columns when given.
pub(crate) fn list(
    cat: &Catalogue,
    rules: &[&Rule],
    format: Format,
    width: Option<usize>,
) -> Result<String> {
    match format {
        Format::Json => {
            let rules: Vec<Value> = rules
                .iter()
                .map(|r| {
                    let mut v = serde_json::to_value(&*r.def)?;
                    if let Some(obj) = v.as_object_mut() {
                        // Resolved for every version, whichever short form the file uses.
                        obj.insert("applicability".into(), json!(r.applicability));
                        // The surface's text, whether it names a surface or is free text.
                        obj.insert("surface".into(), json!(r.def.surface.text()));
                        obj.insert("severity".into(), json!(r.severity));
                        obj.insert(
                            "source".into(),
                            json!({"file": r.source.file, "line": r.source.line}),
                        );
                        obj.insert("history".into(), history(r));
                    }
                    Ok(v)
                })
                .collect::<Result<_>>()?;
            let release = &cat.release;
            let retired: Vec<Value> = cat
                .retired
                .iter()
                .map(|r| {
                    json!({
                        "id": r.rule.id(),
                        "release": r.release.to_string(),
                        "reason": r.reason,
                        "source": {"file": r.source.file, "line": r.source.line},
                    })
                })
                .collect();
            let out = json!({
                "release": release.version.to_string(),
                "extends": release.extends.as_ref().map(|v| v.to_string()),
                "specVersions": release.serves.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                "rules": rules,
                "retired": retired,
            });
            Ok(safe::to_json_pretty(&out)? + "\n")
        }
        Format::Text => Ok(table(cat, rules, width)),
    }
}

/// The columns of the `rules list` table.
const HEADERS: [&str; 6] = ["ID", "OWNER", "LEVEL", "SEVERITY", "SURFACE", "TITLE"];
const ID: usize = 0;
const OWNER: usize = 1;
const SURFACE: usize = 4;
const TITLE: usize = 5;
/// The space between two columns.
const GAP: usize = 2;

/// The table of `rules list`, fitted to `width` columns when given (see [`fit`]).
fn table(cat: &Catalogue, rules: &[&Rule], width: Option<usize>) -> String {
    let rows: Vec<[String; 6]> = rules
        .iter()
        .map(|r| {
            [
                r.def.id.as_str(),
                r.def.owner.as_str(),
                r.def.level.as_str(),
                r.severity.as_str(),
                r.def.surface.text(),
                r.def.title.as_str(),
            ]
            .map(|cell| escape(cell).into_owned())
        })
        .collect();
    let mut natural = HEADERS.map(str::len);
    for row in &rows {
        for (w, cell) in natural.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let widths = match width {
        Some(width) => fit(natural, width),
        None => natural.map(Some),
    };
    let mut out = String::new();
    let headers = HEADERS.map(str::to_owned);
    for row in std::iter::once(&headers).chain(&rows) {
        let _ = writeln!(out, "{}", line(row, &widths));
    }
    let _ = writeln!(out, "{} of {} rule(s)", rules.len(), cat.rules.len());
    out
}

/// One row: every shown column padded to its width, the last one cut to its width with `…`.
/// An id longer than its column gets a line of its own, the rest of the row below it, so
/// that ids are never cut.
fn line(row: &[String; 6], widths: &[Option<usize>; 6]) -> String {
    let shown: Vec<(usize, usize)> = widths
        .iter()
        .enumerate()
        .filter_map(|(i, w)| w.map(|w| (i, w)))
        .collect();
    let mut s = String::new();
    for (n, &(i, w)) in shown.iter().enumerate() {
        let cell = &row[i];
        let last = n + 1 == shown.len();
        if i == ID && cell.chars().count() > w {
            let _ = write!(s, "{cell}\n{:w$}{:GAP$}", "", "");
            continue;
        }
        let cell = truncate(cell, w);
        if last {
            s.push_str(&cell);
        } else {
            let _ = write!(s, "{cell:<w$}{:GAP$}", "");
        }
    }
    s.trim_end().to_owned()
}

/// `cell` cut to `width` characters, ending with `…` when cut.
fn truncate(cell: &str, width: usize) -> String {
    if cell.chars().count() <= width {
        return cell.to_owned();
    }
    let mut cut: String = cell.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The width of each column (`None` for a column left out) that fits the table in `width`
/// terminal columns: the natural widths when they fit; else the id column gets at most two
/// fifths of the line (a longer id takes a line of its own), and then, until the title keeps
/// at least 20 characters, the surface is cut to 16, the owner column left out (every id
/// starts with its owner), and the surface left out. The title takes what remains.
pub(crate) fn fit(natural: [usize; 6], width: usize) -> [Option<usize>; 6] {
    let total: usize = natural.iter().sum::<usize>() + GAP * (natural.len() - 1);
    if total <= width {
        return natural.map(Some);
    }
    let id = natural[ID].min((width * 2 / 5).max(20));
    let min_title = natural[TITLE].min(20);
    let layouts = [
        (true, natural[SURFACE]),
        (true, natural[SURFACE].min(16)),
        (false, natural[SURFACE].min(16)),
        (false, 0),
    ];
    let mut chosen = [None; 6];
    for (owner, surface) in layouts {
        let mut widths = natural.map(Some);
        widths[ID] = Some(id);
        if !owner {
            widths[OWNER] = None;
        }
        widths[SURFACE] = (surface > 0).then_some(surface);
        let used: usize = widths[..TITLE].iter().flatten().map(|w| w + GAP).sum();
        let title = width.saturating_sub(used);
        widths[TITLE] = Some(title.max(min_title.min(10)));
        chosen = widths;
        if title >= min_title {
            break;
        }
    }
    chosen
}

/// Indents every line of `text` by `n` spaces, wrapping nothing.
fn indented(text: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    escape_multiline(text.trim())
        .lines()
        .map(|l| {
            if l.trim().is_empty() {
                String::new()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every metadata field of one rule, its applicability table and its examples.
pub(crate) fn show(cat: &Catalogue, rule: &Rule, docs: &DocUrls) -> String {
    let d = &rule.def;
    let mut o = String::new();
    let id = escape(&d.id);
    let _ = writeln!(o, "{id}");
    let _ = writeln!(o, "{}", "=".repeat(id.chars().count()));
    let _ = writeln!(o, "{}\n", escape(d.title.trim()));
    let _ = writeln!(o, "{}\n", indented(&d.description, 0));
    let _ = writeln!(o, "Requirement:\n{}\n", indented(&d.requirement, 2));
    let field = |o: &mut String, k: &str, v: &str| {
        let _ = writeln!(o, "  {k:<16}{}", escape(v));
    };
    let _ = writeln!(o, "Metadata:");
    field(&mut o, "owner", d.owner.as_str());
    field(&mut o, "surface", d.surface.text());
    field(&mut o, "path", &d.path);
    field(&mut o, "kind", d.kind.as_str());
    field(&mut o, "level", d.level.as_str());
    field(&mut o, "severity", rule.severity.as_str());
    field(&mut o, "status", d.status.as_str());
    field(&mut o, "enforcement", d.enforcement.as_str());
    field(
        &mut o,
        "defined in",
        &format!("{}:{}", rule.source.file, rule.source.line),
    );
    if let Some(url) = docs.url(cat, &d.id) {
        field(&mut o, "docs", &url);
    }
    if !d.reference_codes.is_empty() {
        field(&mut o, "reference codes", &d.reference_codes.join(", "));
    }
    let checks: Vec<&str> = rule.check_names().collect();
    field(&mut o, "checks", &checks.join(", "));
    field(&mut o, "given", &d.given.join(", "));

    let _ = writeln!(o, "\nRequired by:");
    field(&mut o, "spec", &d.required_by.spec);
    field(&mut o, "sections", &d.required_by.sections.join(", "));
    for r in &d.required_by.requirements {
        let url = r
            .url
            .as_deref()
            .map(|u| format!(" <{u}>"))
            .unwrap_or_default();
        field(
            &mut o,
            "requirement",
            &format!("{} #{}{url}", r.section, r.anchor),
        );
    }

    let _ = writeln!(
        o,
        "\nBased on (tier {}): {}",
        d.based_on.tier,
        escape(&d.based_on.label)
    );
    let _ = writeln!(o, "{}", indented(&d.based_on.detail, 2));
    for s in &d.based_on.sources {
        let url = s
            .url
            .as_deref()
            .map(|u| format!(" <{u}>"))
            .unwrap_or_default();
        let _ = writeln!(o, "  - {}", escape(&format!("{}{url}", s.text.trim())));
    }

    let _ = writeln!(o, "\nApplicability:");
    let width = cat
        .versions
        .iter()
        .map(|(_, n)| escape(n).chars().count())
        .max()
        .unwrap_or(7)
        .max(7);
    let _ = writeln!(o, "  {:<width$}  applicability", "version");
    let _ = writeln!(o, "  {:-<width$}  {:-<14}", "", "");
    for (_, name) in cat.versions.iter() {
        let a = rule.applicability.get(name).copied();
        let text = match a {
            Some(Applicability::Applies) => "applies",
            Some(Applicability::Warns) => "warns (findings are warnings)",
            Some(Applicability::NotApplicable) => "not applicable",
            None => "(not stated)",
        };
        let _ = writeln!(o, "  {:<width$}  {text}", escape(name));
    }

    let _ = writeln!(o, "\nHistory:");
    let _ = writeln!(o, "  since {}", rule.history.since);
    for c in &rule.history.changes {
        let _ = writeln!(
            o,
            "  {} in {} ({}:{}): {}",
            c.kind.as_str(),
            c.release,
            escape(&c.source.file),
            c.source.line,
            escape(c.reason.trim())
        );
    }

    let _ = writeln!(o, "\nMessage:\n  {}", escape(d.message.trim()));
    if let Some(help) = &d.help {
        let _ = writeln!(o, "\nHelp:\n{}", indented(help, 2));
    }
    if let Some(fix) = &d.fix {
        let _ = writeln!(o, "\nFix offered by editors:\n  {}", fix.kind.describe());
    }
    if !d.notes.is_empty() {
        let _ = writeln!(o, "\nNotes:");
        for n in &d.notes {
            let _ = writeln!(o, "  - {}", escape_multiline(n.trim()));
        }
    }
    let _ = writeln!(o, "\nExamples:");
    if d.examples.valid.is_empty() && d.examples.invalid.is_empty() {
        let _ = writeln!(o, "  (none)");
    }
    for (label, list) in [
        ("valid", &d.examples.valid),
        ("invalid", &d.examples.invalid),
    ] {
        for e in list {
            let pointer = if e.pointer.is_empty() {
                "(root)".into()
            } else {
                escape(&e.pointer)
            };
            let _ = writeln!(o, "  {label:<8}{}  at {pointer}", escape(&e.fixture));
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::{fit, line, truncate};

    fn row(cells: [&str; 6]) -> [String; 6] {
        cells.map(str::to_owned)
    }

    #[test]
    fn a_table_that_fits_is_left_alone() {
        let natural = [20, 7, 6, 8, 10, 30];
        assert_eq!(fit(natural, 200), natural.map(Some));
    }

    #[test]
    fn a_narrow_terminal_cuts_the_title_and_leaves_out_columns() {
        let natural = [58, 7, 6, 8, 58, 76];
        let widths = fit(natural, 80);
        assert_eq!(widths, [Some(32), None, Some(6), Some(8), None, Some(28)]);
        let used: usize = widths.iter().flatten().map(|w| w + 2).sum::<usize>() - 2;
        assert!(used <= 80, "{used}");
        let widths = fit(natural, 120);
        assert_eq!(
            widths,
            [Some(48), Some(7), Some(6), Some(8), Some(16), Some(25)]
        );
    }

    #[test]
    fn a_long_id_gets_its_own_line_and_a_long_title_an_ellipsis() {
        let widths = [Some(8), None, Some(4), None, None, Some(6)];
        assert_eq!(
            line(&row(["a.b", "a", "must", "error", "x", "Title"]), &widths),
            "a.b       must  Title"
        );
        assert_eq!(
            line(
                &row(["a.very.long", "a", "must", "error", "x", "A long title"]),
                &widths
            ),
            "a.very.long\n          must  A lon…"
        );
        assert_eq!(truncate("abc", 3), "abc");
        assert_eq!(truncate("abcd", 3), "ab…");
    }
}
