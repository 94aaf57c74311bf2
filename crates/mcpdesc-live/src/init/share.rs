//! Writing once what several declarations of one entry repeat. A server usually lists an
//! entry the same way in every version, and the draft still needs one declaration per
//! version whenever the versions differ in what members they can carry; the rest of the
//! entry, its schemas most of all, would then be written once per version. A member that a
//! component reference may stand for (a use site of the catalogue's `references`) and that
//! two or more declarations of the same entry hold alike is put in the components the site
//! accepts, and each of those declarations refers to it.

use std::collections::{BTreeSet, HashMap};

use mcpdesc_core::internal::rules::file::{LiveListDef, ReferencesDef};
use serde_json::{Map, Value};

use super::build::set;

/// A member of a collection's declarations that a reference may stand for.
struct Site<'a> {
    collection: &'a str,
    key: &'a str,
    member: &'a str,
    /// The prefix of the references the site accepts (`#/components/schemas/`).
    prefix: &'a str,
}

/// The members of the collections in `lists` that `refs` lets a reference stand for: the
/// sites written `$.<collection>[*].<member>` whose first target prefix is a local pointer.
fn sites<'a>(refs: &'a ReferencesDef, lists: &'a [LiveListDef]) -> Vec<Site<'a>> {
    let mut out = Vec::new();
    for list in lists {
        let head = format!("$.{}[*].", list.collection);
        for (path, prefixes) in &refs.sites {
            let Some(member) = path.strip_prefix(&head) else {
                continue;
            };
            if member.is_empty() || member.contains(['.', '[', '*', '\'', '"']) {
                continue;
            }
            let Some(prefix) = prefixes.first().filter(|p| p.starts_with("#/")) else {
                continue;
            };
            out.push(Site {
                collection: &list.collection,
                key: &list.key,
                member,
                prefix,
            });
        }
    }
    out
}

/// Moves the members repeated across declarations of one entry of `doc` into components.
pub(super) fn share(doc: &mut Value, refs: &ReferencesDef, lists: &[LiveListDef]) {
    // Names already given, by namespace prefix: a name is never bound twice.
    let mut taken: BTreeSet<String> = BTreeSet::new();
    let mut components: Vec<(String, Value)> = Vec::new();
    for site in sites(refs, lists) {
        let Some(items) = doc.get_mut(site.collection).and_then(Value::as_array_mut) else {
            continue;
        };
        for (key, decls) in by_key(items, site.key) {
            if decls.len() < 2 {
                continue;
            }
            for (value, users) in alike(items, &decls, site.member) {
                if users.len() < 2 {
                    continue;
                }
                let name = component_name(&key, site.member);
                let mut reference = Map::new();
                reference.insert(
                    refs.member.clone(),
                    Value::from(format!("{}{name}", site.prefix)),
                );
                // A value no longer than a reference to it (`{"type": "object"}`) reads
                // better where it is used.
                if text_len(&value) <= text_len(&Value::Object(reference)) {
                    continue;
                }
                let name = unique(&mut taken, site.prefix, &name);
                let target = format!("{}{name}", site.prefix);
                for &i in &users {
                    let mut reference = Map::new();
                    reference.insert(refs.member.clone(), Value::from(target.as_str()));
                    if let Some(decl) = items[i].as_object_mut() {
                        decl.insert(site.member.to_owned(), Value::Object(reference));
                    }
                }
                // `#/components/schemas/x` is the pointer `/components/schemas/x`.
                components.push((target[1..].to_owned(), value));
            }
        }
    }
    for (pointer, value) in components {
        set(doc, &pointer, value);
    }
}

/// The length of `value` as compact JSON.
fn text_len(value: &Value) -> usize {
    value.to_string().len()
}

/// The declarations of `items` by the value of their `key` member, in order of first use.
fn by_key(items: &[Value], key: &str) -> Vec<(String, Vec<usize>)> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    // Where each key's group is: a server may list hundreds of thousands of entries.
    let mut at: HashMap<&str, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let Some(k) = item.get(key).and_then(Value::as_str) else {
            continue;
        };
        let group = *at.entry(k).or_insert_with(|| {
            groups.push((k.to_owned(), Vec::new()));
            groups.len() - 1
        });
        groups[group].1.push(i);
    }
    groups
}

/// The distinct object values of `member` among the declarations `decls`, each with the
/// declarations that hold it.
fn alike(items: &[Value], decls: &[usize], member: &str) -> Vec<(Value, Vec<usize>)> {
    let mut groups: Vec<(Value, Vec<usize>)> = Vec::new();
    for &i in decls {
        let Some(value) = items[i].get(member).filter(|v| v.is_object()) else {
            continue;
        };
        match groups.iter_mut().find(|(g, _)| g == value) {
            Some((_, users)) => users.push(i),
            None => groups.push((value.clone(), vec![i])),
        }
    }
    groups
}

/// `<key>.<member>` in the characters every component name may hold (letters, digits, `.`,
/// `_` and `-`); any other character becomes `-`.
fn component_name(key: &str, member: &str) -> String {
    format!("{key}.{member}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// `name`, or `name-2`, `name-3`, ... if it is taken in the namespace of `prefix`; recorded
/// as taken.
fn unique(taken: &mut BTreeSet<String>, prefix: &str, name: &str) -> String {
    let mut candidate = name.to_owned();
    let mut n = 2;
    while !taken.insert(format!("{prefix}{candidate}")) {
        candidate = format!("{name}-{n}");
        n += 1;
    }
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refs() -> ReferencesDef {
        serde_json::from_value(json!({
            "member": "$ref-to",
            "prefix": "#/parts/",
            "sites": {
                "$.items[*].shape": ["#/parts/shapes/"],
                "$.items[*].deep.shape": ["#/parts/shapes/"],
                "$.others[*].shape": ["#/parts/shapes/"]
            }
        }))
        .unwrap()
    }

    fn lists() -> Vec<LiveListDef> {
        serde_json::from_value(json!([{
            "collection": "items", "label": "item", "method": "items/list", "result": "items",
            "capability": "items", "key": "id", "compare": ["shape"]
        }]))
        .unwrap()
    }

    #[test]
    fn a_member_repeated_by_declarations_of_one_entry_is_written_once() {
        let shape = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
        let other = json!({"type": "object", "properties": {"s": {"type": "string"}}});
        let small = json!({"type": "object"});
        let mut doc = json!({"items": [
            {"id": "a b", "v": [1], "shape": shape},
            {"id": "a b", "v": [2], "shape": shape},
            {"id": "a b", "v": [3], "shape": other},
            {"id": "c", "shape": shape},
            {"id": "d", "v": [1], "shape": other},
            {"id": "d", "v": [2], "shape": other},
            {"id": "e", "v": [1], "shape": small},
            {"id": "e", "v": [2], "shape": small}
        ]});
        share(&mut doc, &refs(), &lists());
        let to = |name: &str| json!({"$ref-to": format!("#/parts/shapes/{name}")});
        assert_eq!(
            doc,
            json!({
                "items": [
                    {"id": "a b", "v": [1], "shape": to("a-b.shape")},
                    {"id": "a b", "v": [2], "shape": to("a-b.shape")},
                    // Used once: stays where it is.
                    {"id": "a b", "v": [3], "shape": other},
                    // Another entry's alike member is its own business.
                    {"id": "c", "shape": shape},
                    {"id": "d", "v": [1], "shape": to("d.shape")},
                    {"id": "d", "v": [2], "shape": to("d.shape")},
                    // Shorter than a reference to it.
                    {"id": "e", "v": [1], "shape": small},
                    {"id": "e", "v": [2], "shape": small}
                ],
                "parts": {"shapes": {"a-b.shape": shape, "d.shape": other}}
            })
        );
    }

    #[test]
    fn names_that_collide_once_cleaned_get_a_number() {
        let mut taken = BTreeSet::new();
        assert_eq!(unique(&mut taken, "#/p/", "a-b.s"), "a-b.s");
        assert_eq!(unique(&mut taken, "#/p/", "a-b.s"), "a-b.s-2");
        assert_eq!(unique(&mut taken, "#/q/", "a-b.s"), "a-b.s");
        assert_eq!(component_name("a/b ü", "s"), "a-b--.s");
    }
}
