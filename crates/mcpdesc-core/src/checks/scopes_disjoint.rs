//! `scopes-disjoint`: items that share a key apply to no common protocol version.
//!
//! Design: the check runs on a collection node. It selects the items (`items`, default every
//! element), reads each item's key (`key`, a relative path from the item) and groups the items
//! by the key's JSON text. Within a group every pair of items must have disjoint effective
//! protocol scopes, as computed by the evaluation's scope map (an item that narrows nothing
//! inherits its enclosing scope, so it overlaps every same-key item in that scope). A finding is
//! reported for each later item that overlaps an earlier one, at the item's `report` member when
//! present (e.g. its scope list), else at the item itself. The check does not depend on the
//! version being evaluated: scopes are a property of the whole document.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Map;

use super::{options, relpath, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::eval::context::{excerpt, EvalCtx, Finding};
use crate::relpath::RelPath;
use crate::versions::VersionSet;

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// Relative path of the items, from the node (default `@[*]`, every element or member).
    #[serde(default)]
    items: Option<String>,
    /// Relative path, from each item, of the identifying value; items without it are skipped.
    key: String,
    /// Relative path, from each item, of the member a finding points at (falls back to the
    /// item when it selects nothing).
    #[serde(default)]
    report: Option<String>,
}

#[derive(Debug)]
struct ScopesDisjoint {
    items: RelPath,
    key: RelPath,
    report: Option<RelPath>,
}

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "scopes-disjoint",
    summary: "Items of a collection that share the value selected by `key` have pairwise \
              disjoint effective protocol scopes; a finding at each later item that overlaps an \
              earlier one (at its `report` member when present).",
    params: &["name", "first", "overlap"],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        let o = options::<Options>(m)?;
        Ok(Box::new(ScopesDisjoint {
            items: relpath("items", o.items.as_deref().unwrap_or("@[*]"))?,
            key: relpath("key", &o.key)?,
            report: o
                .report
                .as_deref()
                .map(|r| relpath("report", r))
                .transpose()?,
        }))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

impl Check for ScopesDisjoint {
    fn run(&self, node: Node<'_>, cx: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        // Per key text: the union of the scopes seen so far, and the items that widened it
        // (their scope and pointer), in document order. The earliest item holding any version
        // of an overlap is always one that widened the union, so an item is kept only when it
        // adds a version: at most one item per version and key, whatever the document (a
        // pairwise comparison would be quadratic, one slot per version and key too large).
        type Seen = (VersionSet, Vec<(VersionSet, String)>);
        let mut seen: HashMap<Cow<'_, str>, Seen> = HashMap::new();
        for item in self.items.select_from(cx.root, node.pointer, node.value) {
            let Some(key) = self.key.first(cx.root, &item.pointer) else {
                continue;
            };
            let text = match key.value.as_str() {
                Some(s) => Cow::Borrowed(s),
                None => Cow::Owned(key.value.to_string()),
            };
            let scope = cx.scopes.scope_of(&item.pointer);
            let (union, widened) = seen.entry(text).or_default();
            let overlaps = union.intersection(scope);
            let first = widened
                .iter()
                .find(|(s, _)| !s.intersection(overlaps).is_empty())
                .map(|(_, p)| p.clone());
            if !scope.is_subset(*union) {
                *union = union.union(scope);
                widened.push((scope, item.pointer.clone()));
            }
            if let Some(first) = first {
                let at = self
                    .report
                    .as_ref()
                    .and_then(|r| r.first(cx.root, &item.pointer))
                    .map_or_else(|| item.pointer.clone(), |h| h.pointer);
                out.push(
                    Finding::new(at)
                        .with("name", excerpt(key.value))
                        .with("first", first)
                        .with("overlap", cx.versions.names(overlaps).join(", ")),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::checks::tests_support::run_on;
    use serde_json::json;

    #[test]
    fn overlapping_and_disjoint_scopes() {
        let doc = json!({
            "protocolVersions": ["2025-06-18", "2025-11-25"],
            "tools": [
                {"name": "a", "protocolVersions": ["2025-06-18"]},
                {"name": "a", "protocolVersions": ["2025-11-25"]},
                {"name": "b"},
                {"name": "b", "protocolVersions": ["2025-11-25"]}
            ]
        });
        let found = run_on(
            &json!({"check": "scopes-disjoint", "key": "name", "report": "protocolVersions"}),
            &doc,
            "/tools",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pointer, "/tools/3/protocolVersions");
        assert_eq!(found[0].param("first"), Some("/tools/2"));
        assert_eq!(found[0].param("overlap"), Some("2025-11-25"));
    }

    #[test]
    fn the_earliest_item_holding_an_overlapping_version_is_named() {
        let doc = json!({
            "protocolVersions": ["2025-03-26", "2025-06-18", "2025-11-25"],
            "tools": [
                {"name": "a", "protocolVersions": ["2025-06-18"]},
                {"name": "a", "protocolVersions": ["2025-11-25"]},
                {"name": "a", "protocolVersions": ["2025-06-18"]},
                {"name": "a", "protocolVersions": ["2025-11-25", "2025-03-26"]},
                {"name": "a"}
            ]
        });
        let found = run_on(
            &json!({"check": "scopes-disjoint", "key": "name"}),
            &doc,
            "/tools",
        );
        let seen: Vec<_> = found
            .iter()
            .map(|f| {
                (
                    f.pointer.as_str(),
                    f.param("first").unwrap_or(""),
                    f.param("overlap").unwrap_or(""),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                ("/tools/2", "/tools/0", "2025-06-18"),
                ("/tools/3", "/tools/1", "2025-11-25"),
                ("/tools/4", "/tools/0", "2025-03-26, 2025-06-18, 2025-11-25"),
            ]
        );
    }
}
