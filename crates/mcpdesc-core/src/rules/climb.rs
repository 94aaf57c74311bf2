//! Relative paths that climb above the document root from every node they start at.
//!
//! A relative path may start with `^`, one level up per `^`. The depth of the nodes a rule
//! inspects is known from its paths (one level per JSONPath segment), so a path that climbs
//! more levels than the deepest of them is above the root for every node, and selects
//! nothing: a mistake, reported at load. Where a depth cannot be known (a descendant segment,
//! `..`), nothing is reported.

use serde_json::{Map, Value};

use super::file::{ConditionDef, RuleDef};
use crate::path::JsonPath;
use crate::relpath::RelPath;
use crate::traffic::DocumentKind;

/// Options of each check that are relative paths evaluated from the check's subject (the
/// rule's node, or each node its `at` selects). Other path options start from nodes the check
/// finds (items, entries, earlier messages) and are not judged. `*` is any array index.
const SUBJECT_PATHS: &[(&str, &[&str])] = &[
    ("reference", &["to"]),
    ("json-schema", &["schema-at"]),
    ("matches-entry", &["name", "entries"]),
    ("compare", &["left", "right", "guard-equal/*"]),
    ("membership", &["values", "in", "report"]),
    ("named-entry", &["entries", "name-at"]),
    ("scopes-disjoint", &["items"]),
    ("unique", &["items"]),
    ("scope-coverage", &["items", "report-at"]),
    ("uri-template", &["template"]),
    ("protocol-schema", &["key/*", "key/*/path"]),
];

/// Where a path starts: the depths of the nodes it is evaluated from.
#[derive(Clone, Copy)]
struct Start {
    /// The deepest node.
    max: usize,
    /// Whether every node is at that depth.
    exact: bool,
    /// What the nodes are, for the message.
    what: &'static str,
}

/// The relative paths of `def` that climb above the root from every node the rule reads
/// (`reads`, the compiled paths of its nodes), as (pointer relative to the rule, message).
pub(super) fn problems(
    def: &RuleDef,
    reads: &[(DocumentKind, String, JsonPath)],
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let depths: Option<Vec<usize>> = reads.iter().map(|(_, _, p)| p.depth()).collect();
    let Some(depths) = depths else {
        return out;
    };
    let (Some(&max), Some(&min)) = (depths.iter().max(), depths.iter().min()) else {
        return out;
    };
    let node = Start {
        max,
        exact: max == min,
        what: "the rule's node",
    };
    if let Some(when) = &def.when {
        condition(when, "/when", node, &mut out);
    }
    for (i, check) in def.then.iter().enumerate() {
        let rel = format!("/then/{i}");
        let mut subject = Some(node);
        if let Some(Value::String(at)) = check.get("at") {
            subject = path(at, &format!("{rel}/at"), node, &mut out).map(|max| Start {
                max,
                exact: false,
                what: "the check's subject (the nodes of its `at`)",
            });
        }
        if let Some(when) = check.get("when") {
            if let Ok(when) = serde_json::from_value::<ConditionDef>(when.clone()) {
                condition(&when, &format!("{rel}/when"), node, &mut out);
            }
        }
        let (Some(subject), Some(Value::String(name))) = (subject, check.get("check")) else {
            continue;
        };
        let Some((_, options)) = SUBJECT_PATHS.iter().find(|(n, _)| n == name) else {
            continue;
        };
        for option in *options {
            for (ptr, text) in strings_at(check, option) {
                path(text, &format!("{rel}{ptr}"), subject, &mut out);
            }
        }
    }
    out
}

/// Judges the relative path `text` from `start`; the depth of the deepest node it can select
/// (`None` when unknown or when it selects nothing).
fn path(text: &str, at: &str, start: Start, out: &mut Vec<(String, String)>) -> Option<usize> {
    let p = RelPath::compile(text).ok()?;
    let up = p.climb() as usize;
    if up > start.max {
        let levels = if up == 1 { "level" } else { "levels" };
        let most = if start.exact { "" } else { " at most" };
        out.push((
            at.to_owned(),
            format!(
                "`{text}` climbs {up} {levels} above {}, which is at depth {}{most}, so it is above the document root and selects nothing",
                start.what, start.max
            ),
        ));
        return None;
    }
    p.depth_from(start.max)
}

/// Judges every path of a condition evaluated at `start`.
fn condition(def: &ConditionDef, rel: &str, start: Start, out: &mut Vec<(String, String)>) {
    for (name, items) in [("all", &def.all), ("any", &def.any)] {
        for (i, c) in items.iter().flatten().enumerate() {
            condition(c, &format!("{rel}/{name}/{i}"), start, out);
        }
    }
    if let Some(c) = &def.not {
        condition(c, &format!("{rel}/not"), start, out);
    }
    if let Some(p) = &def.path {
        path(p, &format!("{rel}/path"), start, out);
    }
}

/// The strings at `option` (`a`, `a/*`, `a/*/b`) of a check object, with their pointers.
fn strings_at<'v>(check: &'v Map<String, Value>, option: &str) -> Vec<(String, &'v str)> {
    let mut found: Vec<(String, &Value)> = Vec::new();
    let mut parts = option.split('/');
    let Some(first) = parts.next() else {
        return Vec::new();
    };
    if let Some(v) = check.get(first) {
        found.push((format!("/{first}"), v));
    }
    for part in parts {
        found = found
            .into_iter()
            .flat_map(|(ptr, v)| match (part, v) {
                ("*", Value::Array(items)) => items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| (format!("{ptr}/{i}"), item))
                    .collect::<Vec<_>>(),
                (name, Value::Object(m)) => m
                    .get(name)
                    .map(|item| (format!("{ptr}/{name}"), item))
                    .into_iter()
                    .collect(),
                _ => Vec::new(),
            })
            .collect();
    }
    found
        .into_iter()
        .filter_map(|(ptr, v)| v.as_str().map(|s| (ptr, s)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(given: &[&str], when: Option<Value>, then: Value) -> RuleDef {
        let mut v = serde_json::json!({
            "id": "a.b.c", "title": "T", "description": "d", "requirement": "r", "owner": "mcp",
            "surface": "s", "path": "p", "kind": "structural", "level": "must",
            "status": "internal", "enforcement": "internal", "applicability": {},
            "required-by": {"spec": "S", "sections": ["3"]},
            "based-on": {"tier": 1, "label": "l", "detail": "d"},
            "examples": {}, "given": given, "then": then, "message": "m"
        });
        if let Some(w) = when {
            v["when"] = w;
        }
        serde_json::from_value(v).unwrap()
    }

    fn found(given: &[&str], when: Option<Value>, then: Value) -> Vec<(String, String)> {
        let def = rule(given, when, then);
        let reads: Vec<_> = def
            .given
            .iter()
            .map(|t| {
                (
                    DocumentKind::Description,
                    t.clone(),
                    JsonPath::compile(t).unwrap(),
                )
            })
            .collect();
        problems(&def, &reads)
    }

    #[test]
    fn paths_that_stay_in_the_document_pass() {
        let then = serde_json::json!([
            {"check": "reference", "to": "^^.names[*]"},
            {"check": "required", "fields": ["x"], "at": "^.x", "when": {"path": "^^", "exists": true}},
        ]);
        assert_eq!(found(&["$.a[*]"], None, then.clone()), vec![]);
        // A descendant segment: any depth.
        let then = serde_json::json!([{"check": "reference", "to": "^^^^^^.x"}]);
        assert_eq!(found(&["$..a"], None, then), vec![]);
        // One node deep enough is enough.
        let then = serde_json::json!([{"check": "reference", "to": "^^^.x"}]);
        assert_eq!(found(&["$.a", "$.a.b.c"], None, then), vec![]);
    }

    #[test]
    fn paths_above_the_root_are_reported_where_they_are() {
        let then = serde_json::json!([
            {"check": "reference", "to": "^^^^.names", "at": "@.x",
             "when": {"any": [{"path": "^^^", "exists": true}]}},
            {"check": "compare", "left": "@", "right": "^^", "op": "<=", "at": "^"},
            {"check": "protocol-schema", "key": ["^^^^", {"path": "^^^^^", "as": "x"}]},
        ]);
        let when = serde_json::json!({"not": {"path": "^^^", "exists": true}});
        let got = found(&["$.a[*]", "$.b"], Some(when), then);
        let at: Vec<&str> = got.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            at,
            [
                "/when/not/path",
                "/then/0/when/any/0/path",
                "/then/0/to",
                "/then/1/right",
                "/then/2/key/0",
                "/then/2/key/1/path",
            ]
        );
        assert_eq!(
            got[0].1,
            "`^^^` climbs 3 levels above the rule's node, which is at depth 2 at most, so it is \
             above the document root and selects nothing"
        );
        assert_eq!(
            got[2].1,
            "`^^^^.names` climbs 4 levels above the check's subject (the nodes of its `at`), which \
             is at depth 3 at most, so it is above the document root and selects nothing"
        );
    }
}
