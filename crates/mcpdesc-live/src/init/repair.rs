//! Leaving out what a version cannot have: the rules, not this code, know which members
//! exist in which protocol version, so the draft is validated and every finding of a rule
//! whose fix is to narrow the scope is resolved by removing the node it is about from the
//! versions it names. Those versions' content then differs from the others', and the next
//! build gives them a declaration of their own.

use mcpdesc_core::internal::rules::file::FixKind;
use mcpdesc_core::{Diagnostic, Document, Engine};
use serde_json::Value;

use super::build::{build, Declaration, Shape, Source};
use super::observed::Observed;

/// Each round removes at least one node, and the findings of a round are all acted on, so
/// a handful of rounds suffice (one per nesting of revision rules); this bounds the loop
/// should a rule keep reporting a node that is already gone.
const MAX_ROUNDS: usize = 16;

/// The document once no scope-narrowing finding is left that removing a node resolves.
pub(super) fn settle(engine: &Engine, shape: &Shape, observed: &mut Observed) -> Value {
    for _ in 0..MAX_ROUNDS {
        let (doc, decls) = build(shape, observed);
        let compact = Document::from_value(&doc);
        let report = engine.validate_document(&compact);
        let cat = engine.catalogue_for(compact.root());
        let mut changed = false;
        for d in &report.diagnostics {
            let narrows = cat
                .rule(&d.rule)
                .and_then(|r| r.def.fix.as_ref())
                .is_some_and(|f| f.kind == FixKind::NarrowScope);
            if narrows {
                changed |= resolve(d, &decls, shape, observed);
            }
        }
        if !changed {
            return doc;
        }
    }
    build(shape, observed).0
}

/// Removes what `d` is about from the versions it names; whether anything was removed.
fn resolve(d: &Diagnostic, decls: &[Declaration], shape: &Shape, observed: &mut Observed) -> bool {
    let Some(decl) = decls.iter().find(|decl| within(&d.pointer, &decl.pointer)) else {
        return false;
    };
    let rest = &d.pointer[decl.pointer.len()..];
    // The declaration's own scope is ours to write, never a reported member.
    let own_scope = format!("/{}", shape.scope_member);
    if rest == own_scope || rest.starts_with(&format!("{own_scope}/")) {
        return false;
    }
    let versions: Vec<usize> = decl
        .versions
        .iter()
        .copied()
        .filter(|&i| d.versions.is_empty() || d.versions.contains(&observed.versions[i]))
        .collect();
    let mut changed = false;
    for i in versions {
        let slot = match decl.source {
            Source::Capabilities => &mut observed.capabilities[i],
            Source::Entry { collection, entry } => {
                &mut observed.collections[collection].entries[entry].by_version[i]
            }
        };
        if rest.is_empty() {
            // The whole declaration does not exist in that version.
            changed |= slot.take().is_some();
        } else if let Some(value) = slot {
            changed |= remove(value, rest);
        }
    }
    changed
}

/// Whether `pointer` is `base` or below it.
fn within(pointer: &str, base: &str) -> bool {
    pointer
        .strip_prefix(base)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Removes the node at `pointer` (relative, non-empty); whether there was one.
fn remove(value: &mut Value, pointer: &str) -> bool {
    let tokens: Vec<_> = mcpdesc_core::document::pointer::tokens(pointer).collect();
    let Some((last, parents)) = tokens.split_last() else {
        return false;
    };
    let mut node = value;
    for token in parents {
        let next = match node {
            Value::Object(map) => map.get_mut(token.as_ref()),
            Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get_mut(i)),
            _ => None,
        };
        match next {
            Some(n) => node = n,
            None => return false,
        }
    }
    match node {
        Value::Object(map) => map.shift_remove(last.as_ref()).is_some(),
        Value::Array(items) => match last.parse::<usize>() {
            Ok(i) if i < items.len() => {
                items.remove(i);
                true
            }
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn removes_members_and_items_by_pointer() {
        let mut v = json!({"a": {"b~/c": 1, "d": [1, 2, 3]}});
        assert!(remove(&mut v, "/a/b~0~1c"));
        assert!(remove(&mut v, "/a/d/1"));
        assert!(!remove(&mut v, "/a/missing"));
        assert!(!remove(&mut v, "/a/d/9"));
        assert_eq!(v, json!({"a": {"d": [1, 3]}}));
    }

    #[test]
    fn a_pointer_is_within_its_own_declaration_only() {
        assert!(within("/items/1/member", "/items/1"));
        assert!(within("/items/1", "/items/1"));
        assert!(!within("/items/10/member", "/items/1"));
    }
}
