//! Hovers: on a flagged node, each finding's rule (its requirement and why); on a scope
//! list (the catalogue's `scope.member`, `protocolVersions` in MCP Description), the
//! versions the enclosing declaration is in effect for and where they come from.

use std::fmt::Write as _;

use lsp_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind, Position, Range};
use mcpdesc_core::document::pointer;
use mcpdesc_core::Catalogue;

use super::diagnostics::{catalogue_of, message, range_of};
use super::worker::Checked;
use mcpdesc_project::safe;

fn contains(range: Range, pos: Position) -> bool {
    range.start <= pos && (pos < range.end || range.start == range.end && pos == range.start)
}

/// Markdown code span of document text, safe to show.
fn code(text: &str) -> String {
    let text = safe::escape(text).replace('`', "'");
    format!("`{text}`")
}

pub(crate) fn hover(checked: &Checked, params: HoverParams) -> Option<Hover> {
    let pos = params.text_document_position_params.position;
    let text = &checked.text;
    let cat = catalogue_of(checked)?;
    let at = checked
        .doc
        .as_ref()
        .map(|d| d.pointer_at(text.doc_position(pos)));
    let mut sections = Vec::new();
    let mut range = None;
    // The findings underlined where the cursor is, else those of the node under it.
    let mut hits: Vec<_> = checked
        .findings
        .iter()
        .filter(|d| contains(range_of(text, d.line, d.column), pos))
        .collect();
    if hits.is_empty() {
        if let Some(at) = &at {
            hits = checked
                .findings
                .iter()
                .filter(|d| &d.pointer == at)
                .collect();
        }
    }
    for d in &hits {
        range.get_or_insert_with(|| range_of(text, d.line, d.column));
        sections.push(finding_section(cat, checked, d));
    }
    if let (Some(doc), Some(at)) = (&checked.doc, &at) {
        if let Some(s) = scope_section(cat, doc, at) {
            sections.push(s);
        }
    }
    if sections.is_empty() {
        return None;
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: sections.join("\n\n---\n\n"),
        }),
        range,
    })
}

fn finding_section(cat: &Catalogue, checked: &Checked, d: &mcpdesc_core::Diagnostic) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "**{}** ({}): {}",
        d.rule,
        d.severity.as_str(),
        message(d)
    );
    if let Some(rule) = cat.rule(&d.rule) {
        let def = &rule.def;
        let _ = writeln!(o, "\n**{}**\n", def.title.trim());
        let _ = writeln!(o, "Requirement: {}\n", def.requirement.trim());
        let _ = writeln!(o, "Why: {}", def.description.trim());
        if let Some(help) = &def.help {
            let _ = writeln!(o, "\nHow to fix: {}", help.trim());
        }
        let sections = &def.required_by.sections;
        if !sections.is_empty() {
            let _ = writeln!(
                o,
                "\nRequired by {}, section {}.",
                def.required_by.spec,
                sections.join(", ")
            );
        }
        if let Some(link) = checked.links.link(cat, &d.rule) {
            let _ = writeln!(o, "\n[Rule page]({})", link.as_str());
        }
    }
    o.trim_end().to_owned()
}

/// The scope of the declaration that a scope list under the cursor belongs to.
fn scope_section(cat: &Catalogue, doc: &mcpdesc_core::Document<'_>, at: &str) -> Option<String> {
    let member = cat.def.scope.member.as_str();
    // The cursor is on the list's key, or on one of its items.
    let list = std::iter::successors(Some(at), |p| pointer::parent(p))
        .take(2)
        .find(|p| pointer::last(p).is_some_and(|t| t == member))?;
    let decl = pointer::parent(list)?;
    let scopes = cat.scopes(doc.root());
    let names = |set| {
        let names = cat.versions.names(set);
        if names.is_empty() {
            "no protocol version".to_owned()
        } else {
            names.join(", ")
        }
    };
    let mut o = String::new();
    if decl.is_empty() {
        let _ = writeln!(
            o,
            "**Document scope**: {}\n\nEvery declaration without a `{member}` of its own is in \
             effect for these versions.",
            names(scopes.root())
        );
    } else if scopes.is_declaration(decl) {
        let effective = scopes.scope_of(decl);
        let enclosing = scopes.enclosing(decl);
        let _ = writeln!(
            o,
            "**Effective scope of {}**: {}",
            code(decl),
            names(effective)
        );
        let outside = scopes
            .declared(decl)
            .map(|own| own.difference(enclosing))
            .unwrap_or_default();
        let _ = writeln!(
            o,
            "\nDeclared here; the enclosing scope is {}.",
            names(enclosing)
        );
        if !outside.is_empty() {
            let _ = writeln!(
                o,
                "\nListed but outside the enclosing scope: {}.",
                names(outside)
            );
        }
    } else {
        let _ = writeln!(
            o,
            "{} does not declare a scope: `{member}` has no effect here.",
            code(decl)
        );
        return Some(o.trim_end().to_owned());
    }
    let inner: Vec<String> = {
        let mut v: Vec<(&str, _)> = scopes
            .declarations()
            .filter(|(p, _)| {
                p.len() > decl.len() && p.starts_with(decl) && p[decl.len()..].starts_with('/')
            })
            .collect();
        v.sort_by_key(|(p, _)| *p);
        v.into_iter()
            .take(20)
            .map(|(p, set)| format!("- {}: {}", code(p), names(set)))
            .collect()
    };
    if !inner.is_empty() {
        let _ = writeln!(o, "\nDeclarations inside it:\n{}", inner.join("\n"));
    }
    Some(o.trim_end().to_owned())
}
