//! `named-entry`: a node names an entry of a keyed collection, and that entry decides whether
//! the node is acceptable.
//!
//! Design: the node names an entry either by its own member name (`name-from: key`, e.g. the
//! keys of a requirement object naming schemes) or by a string (`name-from: value`), and
//! `name-at` (a relative path from the node, default `@`) says which node's key or value that
//! is, so a scope string can be judged by the scheme its containing member names. The entry is
//! the member of that name of the object `entries` selects. Nothing is reported when no entry
//! has the name (pair the check with `reference` for that). Otherwise the check reports the
//! node when `entry-when` (a condition evaluated at the entry) holds and, if `absent-from` is
//! given (a relative path from the entry), the node's string value is not among the keys (or
//! values, with `targets: values`) of what `absent-from` selects. The check's own `when`
//! restricts which nodes are judged, so "a requirement naming a scheme of type X must have an
//! empty scope list" is `when` on the node plus `entry-when` on the scheme.

use serde::Deserialize;
use serde_json::Map;

use super::{options, relpath, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::document::{pointer, ValueRef};
use crate::eval::condition::Condition;
use crate::eval::context::{EvalCtx, Finding};
use crate::relpath::RelPath;
use crate::rules::file::ConditionDef;

#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
enum NameFrom {
    /// The member name under which the `name-at` node sits in its parent object.
    #[default]
    Key,
    /// The string value of the `name-at` node.
    Value,
}

#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
enum Targets {
    /// The keys of the objects `absent-from` selects.
    #[default]
    Keys,
    /// The string values `absent-from` selects.
    Values,
}

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// Relative path, from the node, of the object whose members are the entries.
    entries: String,
    /// Whether the entry's name is a member name or a string value.
    #[serde(default)]
    name_from: NameFrom,
    /// Relative path, from the node, of the node carrying the name (default `@`).
    #[serde(default)]
    name_at: Option<String>,
    /// Condition evaluated at the named entry; the node is reported only when it holds.
    #[serde(default)]
    entry_when: Option<ConditionDef>,
    /// Relative path, from the entry, of the names the node's string value must be among;
    /// the node is reported only when it is not.
    #[serde(default)]
    absent_from: Option<String>,
    /// Whether `absent-from` names are object keys or string values.
    #[serde(default)]
    targets: Targets,
}

#[derive(Debug)]
struct NamedEntry {
    entries: RelPath,
    name_from: NameFrom,
    name_at: RelPath,
    entry_when: Option<Condition>,
    absent_from: Option<RelPath>,
    targets: Targets,
}

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "named-entry",
    summary: "Looks up the entry of `entries` that the node names (its member name, or its \
              string value with `name-from: value`) and reports the node when `entry-when` \
              holds at that entry and, with `absent-from`, the node's value is not among the \
              names selected from the entry.",
    params: &["name", "entry"],
    compile: |m: &Map<_, _>, cx: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        let o = options::<Options>(m)?;
        let entry_when = o
            .entry_when
            .as_ref()
            .map(|d| {
                Condition::compile(d, cx)
                    .map_err(|e| OptionError::at(format!("/entry-when{}", e.pointer), e.message))
            })
            .transpose()?;
        Ok(Box::new(NamedEntry {
            entries: relpath("entries", &o.entries)?,
            name_from: o.name_from,
            name_at: relpath("name-at", o.name_at.as_deref().unwrap_or("@"))?,
            entry_when,
            absent_from: o
                .absent_from
                .as_deref()
                .map(|p| relpath("absent-from", p))
                .transpose()?,
            targets: o.targets,
        }))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

impl Check for NamedEntry {
    fn run(&self, node: Node<'_>, cx: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        let Some(holder) = self.name_at.first(cx.root, node.pointer) else {
            return;
        };
        let name = match self.name_from {
            NameFrom::Key => {
                // Only a member of an object has a name; an array index names nothing.
                let Some(parent) = pointer::parent(&holder.pointer) else {
                    return;
                };
                if !cx.root.pointer(parent).is_some_and(ValueRef::is_object) {
                    return;
                }
                match pointer::last(&holder.pointer) {
                    Some(k) => k.into_owned(),
                    None => return,
                }
            }
            NameFrom::Value => match holder.value.as_str() {
                Some(s) => s.to_owned(),
                None => return,
            },
        };
        let Some(map) = self.entries.first(cx.root, node.pointer) else {
            return;
        };
        if !map.value.as_object().is_some_and(|o| o.contains_key(&name)) {
            return;
        }
        let entry = pointer::push(&map.pointer, &name);
        if let Some(w) = &self.entry_when {
            if !w.holds(&entry, cx) {
                return;
            }
        }
        if let Some(path) = &self.absent_from {
            let Some(own) = node.value.as_str() else {
                return;
            };
            let found = path
                .select(cx.root, &entry)
                .iter()
                .any(|h| match self.targets {
                    Targets::Keys => h.value.as_object().is_some_and(|o| o.contains_key(own)),
                    Targets::Values => h.value.as_str() == Some(own),
                });
            if found {
                return;
            }
        }
        out.push(
            Finding::new(node.pointer)
                .with("name", name)
                .with("entry", entry),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::checks::tests_support::run_on;
    use serde_json::json;

    fn doc() -> serde_json::Value {
        json!({
            "schemes": {
                "bearer": {"type": "http"},
                "oauth": {"type": "oauth2", "flows": {"a": {"scopes": {"read": "r"}}}}
            },
            "req": [{"bearer": ["x"], "oauth": ["read", "write"], "other": ["y"]}]
        })
    }

    #[test]
    fn entry_condition_on_named_member() {
        let check = json!({
            "check": "named-entry",
            "entries": "$.schemes",
            "entry-when": {"path": "type", "equals": "http"}
        });
        assert_eq!(run_on(&check, &doc(), "/req/0/bearer").len(), 1);
        assert!(run_on(&check, &doc(), "/req/0/oauth").is_empty());
        assert!(run_on(&check, &doc(), "/req/0/other").is_empty());
    }

    #[test]
    fn value_absent_from_entry_catalogue() {
        let check = json!({
            "check": "named-entry",
            "entries": "$.schemes",
            "name-at": "^",
            "entry-when": {"path": "type", "equals": "oauth2"},
            "absent-from": "@.flows.*.scopes"
        });
        assert!(run_on(&check, &doc(), "/req/0/oauth/0").is_empty());
        let found = run_on(&check, &doc(), "/req/0/oauth/1");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].param("name"), Some("oauth"));
        assert_eq!(found[0].param("entry"), Some("/schemes/oauth"));
    }
}
