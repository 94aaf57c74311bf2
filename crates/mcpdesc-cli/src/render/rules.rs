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
pub(crate) fn list(cat: &Catalogue, rules: &[&Rule], format: Format) -> Result<String> {
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
        Format::Text => {
            let headers = ["ID", "OWNER", "LEVEL", "SEVERITY", "SURFACE", "TITLE"];
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
            let mut widths = headers.map(str::len);
            for row in &rows {
                for (w, cell) in widths.iter_mut().zip(row) {
                    *w = (*w).max(cell.chars().count());
                }
            }
            let mut out = String::new();
            let line = |cells: &[&str]| {
                let mut s = String::new();
                for (i, cell) in cells.iter().enumerate() {
                    if i + 1 == cells.len() {
                        s.push_str(cell);
                    } else {
                        let _ = write!(s, "{cell:<w$}  ", w = widths[i]);
                    }
                }
                s
            };
            let _ = writeln!(out, "{}", line(&headers));
            for row in &rows {
                let cells: Vec<&str> = row.iter().map(String::as_str).collect();
                let _ = writeln!(out, "{}", line(&cells));
            }
            let _ = writeln!(out, "{} of {} rule(s)", rules.len(), cat.rules.len());
            Ok(out)
        }
    }
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
