//! Code actions on a finding: suppress it in the document (an `x-mcpdesc-suppress` entry
//! for its rule and node), and the fix its rule declares (`fix` in the rule file).

use std::collections::HashMap;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, TextEdit, Uri, WorkspaceEdit,
};
use mcpdesc_core::document::pointer;
use mcpdesc_core::internal::rules::FixKind;
use mcpdesc_core::internal::versions::VersionSet;
use mcpdesc_core::{Catalogue, Diagnostic, Document, Format};
use serde_json::{json, Value};

use super::diagnostics::{catalogue_of, range_of, FindingData};
use super::edits::{self, Edit};
use super::text::Text;
use super::worker::Checked;
use mcpdesc_project::suppress::{is_cli_rule, SUPPRESS_KEY};

/// What a new suppression says until its author writes the real reason.
pub(crate) const REASON_PLACEHOLDER: &str = "TODO: say why this finding does not apply";

pub(crate) fn code_actions(
    checked: &Checked,
    params: CodeActionParams,
) -> Vec<CodeActionOrCommand> {
    let Some(doc) = checked.doc.as_deref() else {
        return Vec::new();
    };
    let Some(cat) = catalogue_of(checked) else {
        return Vec::new();
    };
    let wanted = |kind: &CodeActionKind| {
        params
            .context
            .only
            .as_ref()
            .is_none_or(|only| only.iter().any(|o| kind.as_str().starts_with(o.as_str())))
    };
    // A capture is a recording: it has no place for a suppression or a scope, and an edit
    // would make it record something else.
    if !wanted(&CodeActionKind::QUICKFIX) || doc.format() == Format::Capture {
        return Vec::new();
    }
    let uri = &params.text_document.uri;
    let default_limits = mcpdesc_core::Limits::default();
    let limits = checked
        .engine
        .as_deref()
        .map_or(&default_limits, |e| e.limits());
    let keeps = |edit: &Edit| keeps_document(&checked.text, edit, doc.format(), limits);
    let mut out = Vec::new();
    for (lsp_diag, d) in findings_in(checked, &params) {
        if is_cli_rule(&d.rule) {
            continue;
        }
        if let Some(action) = fix(cat, doc, &checked.text, d).filter(|a| keeps(&a.edit)) {
            out.push(action.into_code_action(uri, &checked.text, lsp_diag.clone(), true));
        }
        if let Some(edit) = suppression(doc, &checked.text, d).filter(|e| keeps(e)) {
            out.push(
                Action {
                    title: format!("Suppress {} here (x-mcpdesc-suppress)", d.rule),
                    edit,
                }
                .into_code_action(uri, &checked.text, lsp_diag, false),
            );
        }
    }
    out
}

/// Whether `text` with `edit` applied still reads as a document of `format`: an action is
/// offered only when taking it leaves the author with a document we can read.
fn keeps_document(text: &Text, edit: &Edit, format: Format, limits: &mcpdesc_core::Limits) -> bool {
    let s = text.as_str();
    if edit.start > edit.end
        || edit.end > s.len()
        || !s.is_char_boundary(edit.start)
        || !s.is_char_boundary(edit.end)
    {
        return false;
    }
    let edited = format!("{}{}{}", &s[..edit.start], edit.text, &s[edit.end..]);
    Document::parse_str(&edited, format, limits).is_ok()
}

/// The findings whose diagnostics the request names, or else that overlap its range.
fn findings_in<'a>(
    checked: &'a Checked,
    params: &CodeActionParams,
) -> Vec<(Option<lsp_types::Diagnostic>, &'a Diagnostic)> {
    let mut out = Vec::new();
    for lsp in &params.context.diagnostics {
        let Some(data) = lsp
            .data
            .clone()
            .and_then(|v| serde_json::from_value::<FindingData>(v).ok())
        else {
            continue;
        };
        if let Some(d) = checked.findings.iter().find(|d| {
            d.rule == data.rule && d.pointer == data.pointer && d.versions == data.versions
        }) {
            out.push((Some(lsp.clone()), d));
        }
    }
    if out.is_empty() {
        let r = params.range;
        for d in &checked.findings {
            let range = range_of(&checked.text, d.line, d.column);
            if range.start <= r.end && r.start <= range.end {
                out.push((None, d));
            }
        }
    }
    out
}

struct Action {
    title: String,
    edit: Edit,
}

impl Action {
    fn into_code_action(
        self,
        uri: &Uri,
        text: &Text,
        diagnostic: Option<lsp_types::Diagnostic>,
        preferred: bool,
    ) -> CodeActionOrCommand {
        let edit = TextEdit {
            range: text.range(self.edit.start, self.edit.end),
            new_text: self.edit.text,
        };
        CodeActionOrCommand::CodeAction(CodeAction {
            title: self.title,
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: diagnostic.map(|d| vec![d]),
            edit: Some(WorkspaceEdit {
                changes: Some(HashMap::from([(uri.clone(), vec![edit])])),
                ..WorkspaceEdit::default()
            }),
            is_preferred: preferred.then_some(true),
            ..CodeAction::default()
        })
    }
}

/// The edit that adds an entry silencing `d` to the document's suppressions.
pub(crate) fn suppression(doc: &Document<'_>, text: &Text, d: &Diagnostic) -> Option<Edit> {
    let entry = json!({
        "rule": d.rule,
        "pointer": d.pointer,
        "reason": REASON_PLACEHOLDER,
    });
    let key = pointer::push("", SUPPRESS_KEY);
    match doc.root().get(SUPPRESS_KEY) {
        Some(list) if list.is_array() => edits::insert_element(text, doc, &key, &entry),
        // A malformed member is reported by its own rule; it is not ours to rewrite.
        Some(_) => None,
        None => edits::insert_member(text, doc, "", SUPPRESS_KEY, &Value::Array(vec![entry])),
    }
}

/// The rule's declared fix for `d`, when one applies.
fn fix(cat: &Catalogue, doc: &Document<'_>, text: &Text, d: &Diagnostic) -> Option<Action> {
    let rule = cat.rule(&d.rule)?;
    match rule.def.fix.as_ref()?.kind {
        FixKind::NarrowScope => narrow_scope(cat, doc, text, d),
    }
}

/// Narrows the nearest declaration enclosing the finding to the versions of its scope the
/// finding does not concern.
fn narrow_scope(
    cat: &Catalogue,
    doc: &Document<'_>,
    text: &Text,
    d: &Diagnostic,
) -> Option<Action> {
    let member = cat.def.scope.member.as_str();
    let scopes = cat.scopes(doc.root());
    let concerned: VersionSet = d
        .versions
        .iter()
        .filter_map(|v| cat.versions.parse(v))
        .collect();
    if concerned.is_empty() {
        return None;
    }
    let decl = std::iter::successors(Some(d.pointer.as_str()), |p| pointer::parent(p))
        .find(|p| scopes.is_declaration(p))
        .unwrap_or("");
    let current = if decl.is_empty() {
        scopes.root()
    } else {
        scopes.scope_of(decl)
    };
    let narrowed = current.difference(concerned);
    if narrowed.is_empty() || narrowed == current {
        return None;
    }
    let names = cat.versions.names(narrowed);
    let list = Value::Array(names.iter().map(|n| Value::from(n.as_str())).collect());
    let list_ptr = pointer::push(decl, member);
    let own = doc.root().pointer(&list_ptr).is_some();
    let edit = if own {
        edits::replace_value(text, doc, &list_ptr, &list)?
    } else {
        edits::insert_member(text, doc, decl, member, &list)?
    };
    let place = if decl.is_empty() {
        "the document".to_owned()
    } else {
        format!("`{}`", mcpdesc_project::safe::escape(decl))
    };
    Some(Action {
        title: format!("Limit {place} to MCP {} ({member})", names.join(", ")),
        edit,
    })
}
