//! `earlier-message`: the node's entry of a sequence (a message of a capture) relates to an
//! earlier entry: one must exist, hold a condition, repeat or mirror some of its values, or
//! give the schema the node's value must satisfy.
//!
//! Design: the entries are the elements of the array at `sequence` (`$.messages` by
//! default) holding the node. The earlier entry is the nearest one before the node's entry
//! that meets `among` and whose values at `join.that` equal the node's at `join.this` (both absent is equal); with
//! `item`, it must also hold an element (at `item.at`) whose `item.key` equals the node's
//! value at `item.equals`, and that element is the one `validate.schema` is read from. Then,
//! each a finding of its own: no such entry (unless `if-none: pass`), `expect` failing on it,
//! `same-keys` pairs whose object members differ, `same-value` pairs that are not equal
//! (both absent is equal), and `validate` errors of the node's instance against the schema
//! found. Schemas compile through the evaluation's per-document cache.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::json_schema::{build, declared_draft, shorten};
use super::tree_instance::failures;
use super::{options, relpath, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::document::{pointer, ArrayRef, ValueRef};
use crate::eval::condition::Condition;
use crate::eval::context::{excerpt, Compiled, EvalCtx, Finding, MemoId};
use crate::path::JsonPath;
use crate::relpath::RelPath;
use crate::rules::file::ConditionDef;
use crate::FastHash;

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Pair {
    /// Relative path from the node.
    this: String,
    /// Relative path from the earlier entry.
    that: String,
}

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct ItemDef {
    /// Relative path, from the earlier entry, of the elements searched.
    at: String,
    /// Relative path, from each element, of its key.
    key: String,
    /// Relative path, from the node, of the key wanted.
    equals: String,
}

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct ValidateDef {
    /// Relative path, from the node, of the instance (skipped when absent).
    instance: String,
    /// Relative path, from the element found by `item` (or the earlier entry), of the schema.
    schema: String,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
enum IfNone {
    /// No earlier entry is a finding.
    #[default]
    Report,
    /// No earlier entry: nothing to judge.
    Pass,
}

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// Condition on an earlier entry (its relative paths start at the entry).
    among: ConditionDef,
    /// Values the earlier entry shares with the node.
    #[serde(default)]
    join: Vec<Pair>,
    /// Singular JSONPath of the array of entries (default `$.messages`).
    #[serde(default)]
    sequence: Option<String>,
    /// What no earlier entry means (default `report`).
    #[serde(default)]
    if_none: IfNone,
    /// Condition the earlier entry found must meet.
    #[serde(default)]
    expect: Option<ConditionDef>,
    /// Objects whose member names must be the same.
    #[serde(default)]
    same_keys: Vec<Pair>,
    /// Values that must be equal.
    #[serde(default)]
    same_value: Vec<Pair>,
    /// An element of the earlier entry matched by key.
    #[serde(default)]
    item: Option<ItemDef>,
    /// The node's instance against a schema of the earlier entry.
    #[serde(default)]
    validate: Option<ValidateDef>,
}

#[derive(Debug)]
struct CPair {
    this: RelPath,
    that: RelPath,
}

#[derive(Debug)]
struct CItem {
    at: RelPath,
    key: RelPath,
    equals: RelPath,
    /// What the index of the entries' elements by key is, as a memo's name.
    index_id: MemoId,
}

#[derive(Debug)]
struct EarlierMessage {
    sequence: Vec<String>,
    among: Condition,
    /// What the entries meeting `among` in `sequence` are, as a memo's name: checks with the
    /// same two (many rules look for the same initialize exchange) share those entries.
    among_id: MemoId,
    join: Vec<CPair>,
    if_none: IfNone,
    expect: Option<Condition>,
    same_keys: Vec<CPair>,
    same_value: Vec<CPair>,
    item: Option<CItem>,
    validate: Option<(RelPath, RelPath)>,
    version_sensitive: bool,
}

fn pairs(field: &str, list: &[Pair]) -> Result<Vec<CPair>, OptionError> {
    list.iter()
        .enumerate()
        .map(|(i, p)| {
            Ok(CPair {
                this: relpath(&format!("{field}/{i}/this"), &p.this)?,
                that: relpath(&format!("{field}/{i}/that"), &p.that)?,
            })
        })
        .collect()
}

fn condition(
    field: &str,
    def: &ConditionDef,
    cx: &CompileCx<'_>,
) -> Result<Condition, OptionError> {
    Condition::compile(def, cx)
        .map_err(|e| OptionError::at(format!("/{field}{}", e.pointer), e.message))
}

fn compile(m: &Map<String, Value>, cx: &CompileCx<'_>) -> Result<Box<dyn Check>, OptionError> {
    let o = options::<Options>(m)?;
    let default = format!("$.{}", crate::document::MESSAGES);
    let text = o.sequence.as_deref().unwrap_or(&default);
    let sequence = JsonPath::compile(text)
        .ok()
        .and_then(|p| p.singular_tokens().map(<[String]>::to_vec))
        .ok_or_else(|| {
            OptionError::at("/sequence", format!("`{text}` is not a singular JSONPath"))
        })?;
    let among = condition("among", &o.among, cx)?;
    let expect = o
        .expect
        .as_ref()
        .map(|e| condition("expect", e, cx))
        .transpose()?;
    let version_sensitive =
        among.uses_version() || expect.as_ref().is_some_and(Condition::uses_version);
    let among_id = MemoId::new(format!("{sequence:?} {:?}", o.among));
    let item = o
        .item
        .as_ref()
        .map(|i| {
            Ok::<_, OptionError>(CItem {
                at: relpath("item/at", &i.at)?,
                key: relpath("item/key", &i.key)?,
                equals: relpath("item/equals", &i.equals)?,
                index_id: MemoId::new(format!("{sequence:?} {:?} {} {}", o.among, i.at, i.key)),
            })
        })
        .transpose()?;
    Ok(Box::new(EarlierMessage {
        sequence,
        among,
        among_id,
        join: pairs("join", &o.join)?,
        if_none: o.if_none,
        expect,
        same_keys: pairs("same-keys", &o.same_keys)?,
        same_value: pairs("same-value", &o.same_value)?,
        item,
        validate: o
            .validate
            .as_ref()
            .map(|v| {
                Ok::<_, OptionError>((
                    relpath("validate/instance", &v.instance)?,
                    relpath("validate/schema", &v.schema)?,
                ))
            })
            .transpose()?,
        version_sensitive,
    }))
}

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "earlier-message",
    summary: "The node's entry of the `sequence` array (default `$.messages`) has an earlier \
              entry meeting `among` and `join` (and holding a matching `item`); findings: none \
              found (unless `if-none: pass`), `expect` failing on it, `same-keys` or \
              `same-value` pairs that differ, and `validate` errors of the node's instance \
              against a schema of the entry.",
    params: &["problem", "expected", "actual", "error", "earlier"],
    compile,
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

/// The pointer of the entry holding `ptr` in the array at `sequence`, and its index.
fn entry_of(sequence: &[String], ptr: &str) -> Option<(String, usize)> {
    let mut base = String::new();
    for t in sequence {
        pointer::push_token(&mut base, t);
    }
    let rest = ptr.strip_prefix(&base)?.strip_prefix('/')?;
    let index: usize = rest.split('/').next()?.parse().ok()?;
    Some((format!("{base}/{index}"), index))
}

fn first<'a>(path: &RelPath, root: ValueRef<'a>, at: &str) -> Option<(String, ValueRef<'a>)> {
    path.select(root, at)
        .into_iter()
        .next()
        .map(|h| (h.pointer, h.value))
}

fn keys(v: Option<ValueRef<'_>>) -> Vec<&str> {
    let mut k: Vec<&str> = v
        .and_then(ValueRef::as_object)
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    k.sort();
    k
}

/// The indices of the entries meeting one `among` condition.
struct Candidates {
    indices: Vec<usize>,
}

/// For each entry meeting `among`, the pointer of the first element with each string key:
/// every node looking its item up in an earlier entry (a call, the tool a listing names) makes
/// one lookup instead of a walk over the entry's elements.
struct Items {
    by_entry: HashMap<usize, HashMap<Box<str>, Box<str>, FastHash>, FastHash>,
}

impl EarlierMessage {
    /// The pointer of the sequence array.
    fn base(&self) -> String {
        let mut base = String::new();
        for t in &self.sequence {
            pointer::push_token(&mut base, t);
        }
        base
    }

    /// The indices of the entries meeting `among`, in order: computed once per document (and
    /// version, when `among` depends on it), so that finding the entry before a node is a
    /// binary search instead of a walk back over the whole capture.
    fn candidates(&self, cx: &EvalCtx<'_>, base: &str, entries: ArrayRef<'_>) -> Arc<Candidates> {
        let compute = || {
            let mut ptr = pointer::buffer(base);
            let indices = entries
                .iter()
                .enumerate()
                .filter(|(i, entry)| {
                    ptr.truncate(base.len());
                    pointer::push_index(&mut ptr, *i);
                    self.among.holds_at(&ptr, *entry, cx)
                })
                .map(|(i, _)| i)
                .collect();
            Candidates { indices }
        };
        cx.cache
            .memo(&self.among_id, self.memo_version(cx), compute)
    }

    /// The version a memo of the entries meeting `among` is for (`u8::MAX`: any).
    fn memo_version(&self, cx: &EvalCtx<'_>) -> u8 {
        if self.among.uses_version() {
            cx.version.map_or(u8::MAX, |v| v.index() as u8)
        } else {
            u8::MAX
        }
    }

    /// The elements of the `candidates` entries by their string key, once per document.
    fn items(
        &self,
        item: &CItem,
        cx: &EvalCtx<'_>,
        base: &str,
        entries: ArrayRef<'_>,
        candidates: &Candidates,
    ) -> Arc<Items> {
        let compute = || {
            let mut by_entry =
                HashMap::with_capacity_and_hasher(candidates.indices.len(), FastHash::default());
            let mut ptr = pointer::buffer(base);
            for &i in &candidates.indices {
                let Some(entry) = entries.get(i) else {
                    continue;
                };
                ptr.truncate(base.len());
                pointer::push_index(&mut ptr, i);
                let mut keyed: HashMap<Box<str>, Box<str>, FastHash> = HashMap::default();
                item.at
                    .for_each_from(cx.root, &ptr, entry, &mut |at, element| {
                        let key = item.key.first_value_from(cx.root, at, element);
                        if let Some(key) = key.and_then(ValueRef::as_str) {
                            keyed.entry(key.into()).or_insert_with(|| at.into());
                        }
                    });
                by_entry.insert(i, keyed);
            }
            Items { by_entry }
        };
        cx.cache
            .memo(&item.index_id, self.memo_version(cx), compute)
    }

    /// The earlier entry (pointer and value) and, with `item`, the element found in it.
    fn find<'a>(
        &self,
        node: Node<'_>,
        cx: &EvalCtx<'a>,
        index: usize,
    ) -> Option<(String, ValueRef<'a>, Option<String>)> {
        let base = self.base();
        let entries = cx.root.pointer(&base)?.as_array()?;
        let wanted: Vec<Option<ValueRef<'_>>> = self
            .join
            .iter()
            .map(|p| p.this.first_value_from(cx.root, node.pointer, node.value))
            .collect();
        let item_key = self
            .item
            .as_ref()
            .map(|i| i.equals.first_value_from(cx.root, node.pointer, node.value));
        let candidates = self.candidates(cx, &base, entries);
        // With a string key, the element is looked up in the entries' index.
        let indexed = match (&self.item, item_key.flatten().and_then(ValueRef::as_str)) {
            (Some(item), Some(name)) => {
                Some((self.items(item, cx, &base, entries, &candidates), name))
            }
            _ => None,
        };
        let before = candidates.indices.partition_point(|&i| i < index);
        let mut ptr = pointer::buffer(&base);
        for &i in candidates.indices[..before].iter().rev() {
            let Some(entry) = entries.get(i) else {
                continue;
            };
            ptr.truncate(base.len());
            pointer::push_index(&mut ptr, i);
            let joined = self.join.iter().zip(&wanted).all(|(p, want)| {
                let have = p.that.first_value_from(cx.root, &ptr, entry);
                match (want, have) {
                    (Some(w), Some(h)) => *w == h,
                    (None, None) => true,
                    _ => false,
                }
            });
            if !joined {
                continue;
            }
            let Some(item) = &self.item else {
                return Some((ptr, entry, None));
            };
            let Some(Some(key)) = item_key else {
                return None;
            };
            if let Some((items, name)) = &indexed {
                let found = items.by_entry.get(&i).and_then(|keyed| keyed.get(*name));
                if let Some(at) = found {
                    return Some((ptr, entry, Some(at.to_string())));
                }
                continue;
            }
            // A key that is no string: the entry's elements are compared one by one, and only
            // the one found gets a pointer of its own.
            let mut found: Option<String> = None;
            item.at
                .for_each_from(cx.root, &ptr, entry, &mut |at, element| {
                    if found.is_none()
                        && item.key.first_value_from(cx.root, at, element) == Some(key)
                    {
                        found = Some(at.to_owned());
                    }
                });
            if found.is_some() {
                return Some((ptr, entry, found));
            }
        }
        None
    }
}

impl Check for EarlierMessage {
    fn version_sensitive(&self) -> bool {
        self.version_sensitive
    }

    fn run(&self, node: Node<'_>, cx: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        let Some((_, index)) = entry_of(&self.sequence, node.pointer) else {
            return;
        };
        let Some((earlier, entry, item)) = self.find(node, cx, index) else {
            if self.if_none == IfNone::Report {
                out.push(Finding::new(node.pointer).with("problem", "none"));
            }
            return;
        };
        let line = entry
            .get("line")
            .map_or_else(|| earlier.clone(), |l| l.to_string());
        let found = |problem: &'static str, at: &str| {
            Finding::new(at)
                .with("problem", problem)
                .with("earlier", line.clone())
        };
        if let Some(expect) = &self.expect {
            if !expect.holds_at(&earlier, entry, cx) {
                out.push(found("expect", node.pointer));
            }
        }
        for p in &self.same_keys {
            let this = first(&p.this, cx.root, node.pointer);
            let that = first(&p.that, cx.root, &earlier);
            let (a, e) = (
                keys(this.as_ref().map(|t| t.1)),
                keys(that.as_ref().map(|t| t.1)),
            );
            if a != e {
                let at = this.map_or_else(|| node.pointer.to_owned(), |t| t.0);
                out.push(
                    found("same-keys", &at)
                        .with("expected", e.join(", "))
                        .with("actual", a.join(", ")),
                );
            }
        }
        for p in &self.same_value {
            let this = first(&p.this, cx.root, node.pointer);
            let that = first(&p.that, cx.root, &earlier);
            let (a, e) = (this.as_ref().map(|t| t.1), that.as_ref().map(|t| t.1));
            if a != e {
                let at = this
                    .as_ref()
                    .map_or_else(|| node.pointer.to_owned(), |t| t.0.clone());
                let show =
                    |v: Option<ValueRef<'_>>| v.map_or_else(|| "nothing".to_owned(), excerpt);
                out.push(
                    found("same-value", &at)
                        .with("expected", show(e))
                        .with("actual", show(a)),
                );
            }
        }
        if let Some((instance, schema)) = &self.validate {
            let Some((ipointer, ivalue)) = first(instance, cx.root, node.pointer) else {
                return;
            };
            let from = item.as_deref().unwrap_or(&earlier);
            let Some((spointer, svalue)) = first(schema, cx.root, from) else {
                return;
            };
            let draft = declared_draft(svalue.get("$schema").and_then(ValueRef::as_str));
            let Compiled::Valid(validator) =
                cx.cache.compile_at(&spointer, svalue, |s| build(s, draft))
            else {
                return;
            };
            for error in failures(&validator, ivalue) {
                out.push(
                    found("validate", &format!("{ipointer}{}", error.instance_path()))
                        .with("error", shorten(&error.to_string())),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::tests_support::run_on;
    use serde_json::json;

    fn capture() -> Value {
        json!({"messages": [
            {"kind": "result", "method": "items/list", "line": 3, "msg": {"result": {"tools": [
                {"name": "a", "inputSchema": {"type": "object", "required": ["x"]},
                 "annotations": {"k": 1}}
            ]}}},
            {"kind": "request", "method": "items/use", "line": 4, "msg": {"params": {
                "name": "a", "arguments": {}, "annotations": {"k": 2}
            }}},
            {"kind": "request", "method": "items/use", "line": 5, "msg": {"params": {
                "name": "b", "arguments": {}
            }}}
        ]})
    }

    fn among() -> Value {
        json!({"all": [{"path": "kind", "equals": "result"},
                       {"path": "method", "equals": "items/list"}]})
    }

    #[test]
    fn validates_against_the_item_of_the_earlier_entry() {
        let check = json!({"check": "earlier-message", "among": among(),
                           "item": {"at": "@.msg.result.tools[*]", "key": "name", "equals": "name"},
                           "if-none": "pass",
                           "validate": {"instance": "arguments", "schema": "inputSchema"}});
        let found = run_on(&check, &capture(), "/messages/1/msg/params");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pointer, "/messages/1/msg/params/arguments");
        assert_eq!(found[0].param("problem"), Some("validate"));
        assert_eq!(found[0].param("earlier"), Some("3"));
        assert!(run_on(&check, &capture(), "/messages/2/msg/params").is_empty());
    }

    /// The element is looked up in the latest entry that has one with the key (the first such
    /// element of that entry), whether the key is a string or any other value.
    #[test]
    fn the_item_comes_from_the_latest_entry_that_lists_it() {
        let list = |line: u64, tools: Value| {
            json!({"kind": "result", "method": "items/list", "line": line,
                   "msg": {"result": {"tools": tools}}})
        };
        let call = |name: Value| {
            json!({"kind": "request", "method": "items/use", "msg": {"params": {
                "name": name, "arguments": {"x": 1}}}})
        };
        let wants = |t: &str| json!({"type": "object", "required": [t]});
        let doc = json!({"messages": [
            list(1, json!([{"name": "a", "inputSchema": wants("x")},
                           {"name": 7, "inputSchema": wants("x")}])),
            list(2, json!([{"name": "b", "inputSchema": wants("x")},
                           {"name": "a", "inputSchema": wants("y")},
                           {"name": "a", "inputSchema": wants("x")},
                           {"name": 7, "inputSchema": wants("y")}])),
            call(json!("a")),
            call(json!(7)),
            call(json!("c")),
            list(3, json!([{"name": "c", "inputSchema": wants("x")}])),
            call(json!("a")),
            call(json!(7)),
        ]});
        let check = json!({"check": "earlier-message", "among": among(),
                           "item": {"at": "@.msg.result.tools[*]", "key": "name", "equals": "name"},
                           "if-none": "pass",
                           "validate": {"instance": "arguments", "schema": "inputSchema"}});
        let earlier = |at: &str| {
            run_on(&check, &doc, at)
                .iter()
                .map(|f| f.param("earlier").unwrap_or_default().to_owned())
                .collect::<Vec<_>>()
        };
        // List 2's first "a" wants `y`; list 3 does not list "a", so list 2 still answers.
        assert_eq!(earlier("/messages/2/msg/params"), ["2"]);
        assert_eq!(earlier("/messages/6/msg/params"), ["2"]);
        // A key that is no string: list 2 answers too, with a schema that wants `y`.
        assert_eq!(earlier("/messages/3/msg/params"), ["2"]);
        assert_eq!(earlier("/messages/7/msg/params"), ["2"]);
        // No list before it names "c".
        assert!(earlier("/messages/4/msg/params").is_empty());
    }

    #[test]
    fn missing_entries_and_differing_values() {
        let none = json!({"check": "earlier-message", "among": among()});
        let found = run_on(&none, &capture(), "/messages/0/msg");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].param("problem"), Some("none"));
        let same = json!({"check": "earlier-message", "among": among(),
                          "same-keys": [{"this": "arguments", "that": "@.msg.result.tools[0].inputSchema"}],
                          "same-value": [{"this": "annotations",
                                          "that": "@.msg.result.tools[0].annotations"}]});
        let found = run_on(&same, &capture(), "/messages/1/msg/params");
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].param("problem"), Some("same-keys"));
        assert_eq!(found[0].param("expected"), Some("required, type"));
        assert_eq!(found[0].param("actual"), Some(""));
        assert_eq!(found[1].pointer, "/messages/1/msg/params/annotations");
        assert_eq!(found[1].param("expected"), Some(r#"{"k":1}"#));
        assert_eq!(found[1].param("actual"), Some(r#"{"k":2}"#));
    }

    #[test]
    fn entries_are_found_from_pointers_below_them() {
        let seq = vec!["messages".to_owned()];
        assert_eq!(
            entry_of(&seq, "/messages/12/msg/params"),
            Some(("/messages/12".to_owned(), 12))
        );
        assert_eq!(
            entry_of(&seq, "/messages/3"),
            Some(("/messages/3".to_owned(), 3))
        );
        assert_eq!(entry_of(&seq, "/other/3"), None);
        assert_eq!(entry_of(&seq, "/messagesX/3"), None);
    }
}
