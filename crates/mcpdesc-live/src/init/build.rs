//! A description document from what the server reported: one declaration per distinct
//! content, scoped to the versions that reported it.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::observed::Observed;

/// Where the description's parts go, all named by the catalogue.
#[derive(Debug, Clone)]
pub(super) struct Shape {
    /// JSON Pointer of the specification version member, and its value.
    pub spec_pointer: String,
    pub spec_version: String,
    /// JSON Pointer of the server's description, and its members with the pointer of each
    /// in the server's self-description.
    pub info: String,
    pub info_members: BTreeMap<String, String>,
    /// The root member listing the protocol versions.
    pub root_versions: String,
    /// The member by which a declaration narrows its scope.
    pub scope_member: String,
    /// The collection of capability declarations.
    pub capabilities: String,
}

/// What one declaration of the built document was made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Source {
    Capabilities,
    Entry { collection: usize, entry: usize },
}

/// One declaration of the built document.
#[derive(Debug, Clone)]
pub(super) struct Declaration {
    /// Its JSON Pointer in the document.
    pub pointer: String,
    pub source: Source,
    /// The versions (indices into `Observed::versions`) it covers.
    pub versions: Vec<usize>,
}

pub(super) fn build(shape: &Shape, observed: &Observed) -> (Value, Vec<Declaration>) {
    let mut root = Value::Object(Map::new());
    set(
        &mut root,
        &shape.spec_pointer,
        Value::from(shape.spec_version.as_str()),
    );
    set(&mut root, &shape.info, info(shape, observed));
    let mut decls = Vec::new();
    let all = observed.versions.len();
    let Value::Object(doc) = &mut root else {
        unreachable!("the root was made an object above")
    };
    doc.insert(
        shape.root_versions.clone(),
        Value::from(observed.versions.clone()),
    );

    let mut caps = Vec::new();
    for (content, versions) in group(&observed.capabilities) {
        let mut decl = Map::new();
        if versions.len() < all {
            decl.insert(shape.scope_member.clone(), names(observed, &versions));
        }
        if let Value::Object(members) = content {
            decl.extend(members.clone());
        }
        decls.push(Declaration {
            pointer: format!("/{}/{}", escape(&shape.capabilities), caps.len()),
            source: Source::Capabilities,
            versions,
        });
        caps.push(Value::Object(decl));
    }
    if !caps.is_empty() {
        doc.insert(shape.capabilities.clone(), Value::Array(caps));
    }

    for (c, collection) in observed.collections.iter().enumerate() {
        let mut items = Vec::new();
        for (e, entry) in collection.entries.iter().enumerate() {
            for (content, versions) in group(&entry.by_version) {
                let Value::Object(members) = content else {
                    continue;
                };
                // The key first and the scope next, as an author would write them.
                let mut decl = Map::new();
                if let Some(key) = members.get(&collection.key) {
                    decl.insert(collection.key.clone(), key.clone());
                }
                if versions.len() < all {
                    decl.insert(shape.scope_member.clone(), names(observed, &versions));
                }
                for (k, v) in members {
                    decl.entry(k.clone()).or_insert_with(|| v.clone());
                }
                decls.push(Declaration {
                    pointer: format!("/{}/{}", escape(&collection.name), items.len()),
                    source: Source::Entry {
                        collection: c,
                        entry: e,
                    },
                    versions,
                });
                items.push(Value::Object(decl));
            }
        }
        // An empty collection is not "none": it is left out instead.
        if !items.is_empty() {
            doc.insert(collection.name.clone(), Value::Array(items));
        }
    }
    (root, decls)
}

fn info(shape: &Shape, observed: &Observed) -> Value {
    let mut info = Map::new();
    if let Some(server) = &observed.server_info {
        for (member, from) in &shape.info_members {
            if let Some(v) = server.pointer(from) {
                info.insert(member.clone(), v.clone());
            }
        }
    }
    Value::Object(info)
}

/// The distinct values of `by_version`, each with the versions that have it, in the order
/// of their oldest version.
fn group(by_version: &[Option<Value>]) -> Vec<(&Value, Vec<usize>)> {
    let mut groups: Vec<(&Value, Vec<usize>)> = Vec::new();
    for (i, v) in by_version.iter().enumerate() {
        let Some(v) = v else { continue };
        match groups.iter_mut().find(|(g, _)| *g == v) {
            Some((_, versions)) => versions.push(i),
            None => groups.push((v, vec![i])),
        }
    }
    groups
}

fn names(observed: &Observed, versions: &[usize]) -> Value {
    Value::from(
        versions
            .iter()
            .map(|&i| observed.versions[i].clone())
            .collect::<Vec<_>>(),
    )
}

fn escape(token: &str) -> std::borrow::Cow<'_, str> {
    mcpdesc_core::document::pointer::escape(token)
}

/// Sets the member at `pointer` (object members only), creating the objects on the way.
pub(super) fn set(root: &mut Value, pointer: &str, value: Value) {
    let tokens: Vec<_> = mcpdesc_core::document::pointer::tokens(pointer).collect();
    let Some((last, parents)) = tokens.split_last() else {
        *root = value;
        return;
    };
    let mut node = root;
    for token in parents {
        if !node.is_object() {
            *node = Value::Object(Map::new());
        }
        node = node
            .as_object_mut()
            .expect("made an object above")
            .entry(token.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    if !node.is_object() {
        *node = Value::Object(Map::new());
    }
    node.as_object_mut()
        .expect("made an object above")
        .insert(last.to_string(), value);
}
