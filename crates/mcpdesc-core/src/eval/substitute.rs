//! Reference substitution: in-document references are replaced by their targets before any
//! rule runs, so every rule that judges a use site judges the referenced value, in the use
//! site's protocol scope.
//!
//! Design: the catalogue's optional `references` section names the member that makes an
//! object a reference (`member`), the prefix every followed reference starts with (`prefix`,
//! a URI fragment `#…` whose rest is an RFC 6901 JSON Pointer into the same document), and the
//! use sites: JSONPaths, each with the target prefixes it accepts. The engine knows nothing
//! else about them. Before evaluation, every node a site path selects that is a *pure*
//! reference (an object whose only member is `member`, holding a string that starts with
//! `prefix`) is replaced by a copy of the value it resolves to. Resolution follows chains:
//! when the target is itself a pure reference it is followed in turn, each hop checked
//! against the accepted prefixes of the site the hop starts from (the use site, then each
//! intermediate node that is itself a site; a node that is not a site accepts any target
//! under `prefix`). A site is left exactly as written when its chain points at nothing,
//! points outside an accepted prefix, returns to a node already on the chain, or is longer
//! than `max-chain` hops; so rules that report unresolvable references (for example the
//! `local-reference` check) still see them, while every resolvable reference is judged by its
//! value. Sites are resolved against the document as written and substituted in a copy, so
//! the result does not depend on the order of the sites. Diagnostics keep use-site pointers;
//! their line and column are those of the use site in the source.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::document::{Kind, Limits, ValueRef};
use crate::path::JsonPath;

use super::context::DocCache;

/// How far following a chain of references got.
enum Resolution<'v> {
    Resolved(ValueRef<'v>),
    Unresolved,
    /// The chain was still going after `max-reference-chain` hops.
    TooLong,
}

/// Nodes in `value`, counting no further than `budget + 1`.
fn nodes_within(value: ValueRef<'_>, budget: u64) -> u64 {
    let mut count = 0u64;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        count += 1;
        if count > budget {
            break;
        }
        match v.kind() {
            Kind::Array(items) => stack.extend(items.iter()),
            Kind::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    count
}

/// The compiled `references` section of a catalogue.
#[derive(Debug, Clone)]
pub struct ReferenceConfig {
    /// The only member of an object that is a reference (`references.member`).
    pub member: String,
    /// The start of every reference followed (`references.prefix`): a URI fragment holding a
    /// JSON Pointer.
    pub prefix: String,
    /// Use-site paths and the target prefixes each accepts.
    pub sites: Vec<(JsonPath, Vec<String>)>,
    /// The longest chain of references followed from one site (`references.max-chain`).
    pub max_chain: usize,
}

impl ReferenceConfig {
    /// The reference text of `value` when it is a pure reference this configuration follows.
    fn reference<'v>(&self, value: ValueRef<'v>) -> Option<&'v str> {
        let obj = value.as_object()?;
        if obj.len() != 1 {
            return None;
        }
        obj.get(&self.member)?
            .as_str()
            .filter(|s| s.starts_with(&self.prefix))
    }

    /// The final value `text` (held by the site at `site`) resolves to, if it resolves.
    /// Follows at most `max_chain` hops.
    fn resolve<'v>(
        &self,
        root: ValueRef<'v>,
        sites: &HashMap<String, &[String]>,
        site: &str,
        text: &str,
        max_chain: usize,
    ) -> Resolution<'v> {
        let mut seen: HashSet<String> = HashSet::from([site.to_owned()]);
        let mut from = site.to_owned();
        let mut text = text.to_owned();
        for _ in 0..max_chain {
            if let Some(allowed) = sites.get(&from) {
                if !allowed.iter().any(|a| text.starts_with(a.as_str())) {
                    return Resolution::Unresolved;
                }
            }
            let target = text[1..].to_owned();
            if !seen.insert(target.clone()) {
                return Resolution::Unresolved;
            }
            let Some(value) = root.pointer(&target) else {
                return Resolution::Unresolved;
            };
            match self.reference(value) {
                Some(next) => {
                    text = next.to_owned();
                    from = target;
                }
                None => return Resolution::Resolved(value),
            }
        }
        Resolution::TooLong
    }

    /// A copy of `root` with every resolvable reference at a use site replaced by its value;
    /// `None` when there is nothing to replace.
    pub fn substitute(&self, root: ValueRef<'_>) -> Option<Value> {
        self.substitute_within(root, &Limits::default(), &DocCache::default())
    }

    /// [`ReferenceConfig::substitute`] under `limits`: chains follow at most
    /// `max-reference-chain` hops (and the catalogue's `max-chain`), and the copies made
    /// add at most `max-nodes` nodes, so a few references to a large target cannot blow the
    /// document up. A limit met is recorded in `cache`; the site stays as written.
    pub fn substitute_within(
        &self,
        root: ValueRef<'_>,
        limits: &Limits,
        cache: &DocCache,
    ) -> Option<Value> {
        // Most documents use no references: find that out without recording every site.
        let any = self
            .sites
            .iter()
            .any(|(path, _)| path.any_value(root, &mut |v| self.reference(v).is_some()));
        if !any {
            return None;
        }
        let engine_chain = usize::try_from(limits.max_reference_chain).unwrap_or(usize::MAX);
        let max_chain = self.max_chain.min(engine_chain);
        let mut added = 0u64;
        let mut sites: HashMap<String, &[String]> = HashMap::new();
        let mut order: Vec<(String, ValueRef<'_>)> = Vec::new();
        for (path, allowed) in &self.sites {
            for s in path.select(root) {
                if !sites.contains_key(&s.pointer) {
                    order.push((s.pointer.clone(), s.value));
                }
                sites.insert(s.pointer, allowed.as_slice());
            }
        }
        // By node: a pure reference holds only a string, so no replaced node is inside
        // another, and the copy can be made in one walk.
        let mut replacements: Vec<(u32, ValueRef<'_>)> = Vec::new();
        for (ptr, node) in &order {
            let Some(text) = self.reference(*node) else {
                continue;
            };
            match self.resolve(root, &sites, ptr, text, max_chain) {
                Resolution::Resolved(value) => {
                    let budget = limits.max_nodes.saturating_sub(added);
                    let size = nodes_within(value, budget);
                    if size > budget {
                        cache.exceeded("max-nodes", limits.max_nodes, ptr);
                        break;
                    }
                    added += size;
                    replacements.push((node.id(), value));
                }
                Resolution::TooLong if engine_chain <= self.max_chain => {
                    cache.exceeded("max-reference-chain", limits.max_reference_chain, ptr);
                }
                Resolution::TooLong | Resolution::Unresolved => {}
            }
        }
        if replacements.is_empty() {
            return None;
        }
        replacements.sort_unstable_by_key(|&(id, _)| id);
        Some(copy_replacing(root, &replacements))
    }
}

/// `value` as a `serde_json` value, with each node of `replacements` (sorted by node id)
/// replaced by a copy of its target as written.
fn copy_replacing(value: ValueRef<'_>, replacements: &[(u32, ValueRef<'_>)]) -> Value {
    match value.kind() {
        Kind::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| copy_replacing(v, replacements))
                .collect(),
        ),
        Kind::Object(map) => {
            // Only a pure reference (one member) is ever replaced.
            if map.len() == 1 {
                if let Ok(i) = replacements.binary_search_by_key(&value.id(), |&(id, _)| id) {
                    return replacements[i].1.to_value();
                }
            }
            Value::Object(
                map.iter()
                    .map(|(k, v)| (k.to_owned(), copy_replacing(v, replacements)))
                    .collect(),
            )
        }
        _ => value.to_value(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Tree;
    use serde_json::json;

    fn substitute(config: &ReferenceConfig, doc: &Value) -> Option<Value> {
        config.substitute(Tree::from_value(doc).root())
    }

    fn config() -> ReferenceConfig {
        ReferenceConfig {
            member: "$ref".into(),
            prefix: "#/defs/".into(),
            sites: vec![
                (
                    JsonPath::compile("$.uses[*]").unwrap(),
                    vec!["#/defs/a/".into()],
                ),
                (
                    JsonPath::compile("$.defs.a.*").unwrap(),
                    vec!["#/defs/a/".into()],
                ),
            ],
            max_chain: 8,
        }
    }

    #[test]
    fn resolvable_references_are_replaced_through_chains() {
        let doc = json!({
            "defs": {"a": {"x": {"v": 1}, "alias": {"$ref": "#/defs/a/x"}}, "b": {"y": 2}},
            "uses": [
                {"$ref": "#/defs/a/alias"},
                {"$ref": "#/defs/a/missing"},
                {"$ref": "#/defs/b/y"},
                {"$ref": "#/defs/a/x", "sibling": true},
                {"$ref": "https://elsewhere"}
            ]
        });
        let out = substitute(&config(), &doc).expect("something replaced");
        assert_eq!(out["uses"][0], json!({"v": 1}));
        assert_eq!(out["defs"]["a"]["alias"], json!({"v": 1}));
        assert_eq!(out["uses"][1], doc["uses"][1]);
        assert_eq!(out["uses"][2], doc["uses"][2]);
        assert_eq!(out["uses"][3], doc["uses"][3]);
        assert_eq!(out["uses"][4], doc["uses"][4]);
    }

    #[test]
    fn cycles_and_long_chains_are_left_alone() {
        let doc = json!({
            "defs": {"a": {"p": {"$ref": "#/defs/a/q"}, "q": {"$ref": "#/defs/a/p"}}},
            "uses": [{"$ref": "#/defs/a/p"}]
        });
        assert!(substitute(&config(), &doc).is_none());
        let mut a = serde_json::Map::new();
        for i in 0..20 {
            a.insert(
                format!("n{i}"),
                json!({"$ref": format!("#/defs/a/n{}", i + 1)}),
            );
        }
        a.insert("n20".into(), json!("end"));
        let doc = json!({"defs": {"a": a}, "uses": [{"$ref": "#/defs/a/n0"}]});
        let out = substitute(&config(), &doc).expect("short chains resolve");
        assert_eq!(out["uses"][0], doc["uses"][0]);
        assert_eq!(out["defs"]["a"]["n19"], json!("end"));
    }

    #[test]
    fn the_copy_keeps_the_rest_in_order_and_copies_stay_within_max_nodes() {
        let doc = json!({
            "z": [1, {"k": null}],
            "defs": {"a": {"x": {"v": [1, 2]}}},
            "uses": [{"$ref": "#/defs/a/x"}, {"$ref": "#/defs/a/x"}],
            "a": "end"
        });
        let tree = Tree::from_value(&doc);
        let limits = {
            let mut limits = Limits::default();
            limits.max_nodes = 6;
            limits
        };
        let cache = DocCache::with_limits(&limits);
        let out = config()
            .substitute_within(tree.root(), &limits, &cache)
            .expect("the first fits");
        assert_eq!(
            out.to_string(),
            r##"{"z":[1,{"k":null}],"defs":{"a":{"x":{"v":[1,2]}}},"uses":[{"v":[1,2]},{"$ref":"#/defs/a/x"}],"a":"end"}"##
        );
        let exceeded = cache.take_exceeded();
        assert_eq!(exceeded.len(), 1);
        assert_eq!(exceeded[0].limit, "max-nodes");
        assert_eq!(exceeded[0].pointer, "/uses/1");
    }

    #[test]
    fn nothing_to_replace() {
        let doc = json!({"uses": [{"v": 1}]});
        assert!(substitute(&config(), &doc).is_none());
    }
}
