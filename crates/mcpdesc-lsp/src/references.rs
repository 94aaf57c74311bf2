//! Go to definition and find references for in-document references: the catalogue's
//! `references.member` (`$componentRef` in MCP Description) holding a local pointer
//! (`#/components/...`).

use lsp_types::{GotoDefinitionParams, GotoDefinitionResponse, Location, ReferenceParams, Uri};
use mcpdesc_core::document::{pointer, Kind, Position as DocPosition, ValueRef};
use mcpdesc_core::Document;

use super::diagnostics::catalogue_of;
use super::locate;
use super::text::Text;
use super::worker::Checked;

/// The pointer a reference value names, when it is local (`#/...`, percent-decoded).
fn target_of(reference: &str) -> Option<String> {
    let fragment = reference.strip_prefix('#')?;
    let decoded = percent_decode(fragment);
    (decoded.is_empty() || decoded.starts_with('/')).then_some(decoded)
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() + 1 {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(b) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The reference member's name in the judging catalogue.
fn member(checked: &Checked) -> Option<String> {
    Some(
        catalogue_of(checked)?
            .def
            .references
            .as_ref()?
            .member
            .clone(),
    )
}

/// The location of the node at `ptr`: its key for a member, else its value.
fn location(uri: &Uri, text: &Text, doc: &Document<'_>, ptr: &str, key: bool) -> Option<Location> {
    let (value_pos, key_pos) = doc.node_positions(ptr)?;
    let pos: DocPosition = if key && key_pos.line != 0 {
        key_pos
    } else {
        value_pos
    };
    let (start, end) = locate::token(text, pos)?;
    Some(Location::new(uri.clone(), text.range(start, end)))
}

/// When the cursor is on a reference (its member or the value), the referenced pointer.
fn reference_under(doc: &Document<'_>, at: &str, member: &str) -> Option<String> {
    let holder = if pointer::last(at).is_some_and(|t| t == member) {
        pointer::parent(at)?
    } else {
        at
    };
    let value = doc.root().pointer(holder)?.get(member)?.as_str()?;
    target_of(value)
}

pub(crate) fn definition(
    checked: &Checked,
    params: GotoDefinitionParams,
) -> Option<GotoDefinitionResponse> {
    let p = params.text_document_position_params;
    let doc = checked.doc.as_deref()?;
    let member = member(checked)?;
    let at = doc.pointer_at(checked.text.doc_position(p.position));
    let target = reference_under(doc, &at, &member)?;
    doc.root().pointer(&target)?;
    let loc = location(&p.text_document.uri, &checked.text, doc, &target, true)?;
    Some(GotoDefinitionResponse::Scalar(loc))
}

pub(crate) fn references(checked: &Checked, params: ReferenceParams) -> Option<Vec<Location>> {
    let p = params.text_document_position;
    let doc = checked.doc.as_deref()?;
    let member = member(checked)?;
    let at = doc.pointer_at(checked.text.doc_position(p.position));
    let mut uses = Vec::new();
    collect_references(doc.root(), &mut String::new(), &member, &mut uses);
    // A node that is referenced is the target, even when its own value is a reference to
    // another (a component that aliases one); a reference under the cursor names its
    // target; otherwise the cursor is inside the target: the innermost enclosing node that
    // something references.
    let on_member = pointer::last(&at).is_some_and(|t| t == member);
    let referenced = !on_member && uses.iter().any(|(_, t)| *t == at);
    let direct = if referenced {
        Some(at.clone())
    } else {
        reference_under(doc, &at, &member)
    };
    let target = direct.or_else(|| {
        std::iter::successors(Some(at.as_str()), |q| pointer::parent(q))
            .find(|q| uses.iter().any(|(_, t)| t == q))
            .map(str::to_owned)
    })?;
    let uri = &p.text_document.uri;
    let mut out = Vec::new();
    if params.context.include_declaration && doc.root().pointer(&target).is_some() {
        out.extend(location(uri, &checked.text, doc, &target, true));
    }
    for (site, t) in &uses {
        if *t == target {
            out.extend(location(
                uri,
                &checked.text,
                doc,
                &pointer::push(site, &member),
                false,
            ));
        }
    }
    Some(out)
}

/// Every `(object holding a reference, referenced pointer)` in the document.
fn collect_references(
    value: ValueRef<'_>,
    at: &mut String,
    member: &str,
    out: &mut Vec<(String, String)>,
) {
    match value.kind() {
        Kind::Object(map) => {
            if let Some(t) = map
                .get(member)
                .and_then(ValueRef::as_str)
                .and_then(target_of)
            {
                out.push((at.clone(), t));
            }
            for (k, v) in map.iter() {
                let len = at.len();
                pointer::push_token(at, k);
                collect_references(v, at, member, out);
                at.truncate(len);
            }
        }
        Kind::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                let len = at.len();
                pointer::push_index(at, i);
                collect_references(v, at, member, out);
                at.truncate(len);
            }
        }
        _ => {}
    }
}
