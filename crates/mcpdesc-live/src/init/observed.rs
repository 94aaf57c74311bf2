//! What a server reported, version by version, in the shape a description holds it.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::{LiveDef, ServerReport};

/// Everything the negotiated versions reported; every per-version vector is indexed like
/// `versions`.
#[derive(Debug, Clone)]
pub(super) struct Observed {
    /// The negotiated versions, oldest first.
    pub versions: Vec<String>,
    /// The server's self-description, from the newest version that gave one.
    pub server_info: Option<Value>,
    /// The capabilities object advertised in each version.
    pub capabilities: Vec<Option<Value>>,
    /// One per `live.lists` entry, in that order.
    pub collections: Vec<Collection>,
}

#[derive(Debug, Clone)]
pub(super) struct Collection {
    /// The description's collection.
    pub name: String,
    /// The member that identifies an entry.
    pub key: String,
    /// In the order the newest version that lists them lists them.
    pub entries: Vec<Entry>,
}

#[derive(Debug, Clone)]
pub(super) struct Entry {
    /// The entry as each version listed it; `None` where it was not listed.
    pub by_version: Vec<Option<Value>>,
}

impl Observed {
    /// Lines the reports of `versions` (catalogue order, oldest first) up by version;
    /// reports of versions that were not negotiated are ignored.
    pub(super) fn new(
        live: &LiveDef,
        drop: &[String],
        versions: &[&str],
        reports: &[ServerReport],
    ) -> Self {
        let chosen: Vec<&ServerReport> = versions
            .iter()
            .filter_map(|v| reports.iter().find(|r| r.negotiated.as_deref() == Some(*v)))
            .collect();
        let server_info = chosen.iter().rev().find_map(|r| r.server_info.clone());
        let capabilities = chosen.iter().map(|r| r.capabilities.clone()).collect();
        let collections = live
            .lists
            .iter()
            .map(|list| {
                let mut entries: Vec<Entry> = Vec::new();
                // Where each key's entry is: a server may list hundreds of thousands.
                let mut at: HashMap<&str, usize> = HashMap::new();
                // Newest first, so that the order is the current one and entries that only
                // old versions have come after it.
                for (i, report) in chosen.iter().enumerate().rev() {
                    let Some(items) = report.lists.get(&list.collection) else {
                        continue;
                    };
                    for item in items {
                        let Some(key) = item.get(&list.key).and_then(Value::as_str) else {
                            continue;
                        };
                        let pos = *at.entry(key).or_insert_with(|| {
                            entries.push(Entry {
                                by_version: vec![None; chosen.len()],
                            });
                            entries.len() - 1
                        });
                        entries[pos].by_version[i] = Some(without(item, drop));
                    }
                }
                Collection {
                    name: list.collection.clone(),
                    key: list.key.clone(),
                    entries,
                }
            })
            .collect();
        Observed {
            versions: chosen.iter().filter_map(|r| r.negotiated.clone()).collect(),
            server_info,
            capabilities,
            collections,
        }
    }
}

/// `item` without the members a description does not carry.
fn without(item: &Value, drop: &[String]) -> Value {
    match item {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !drop.contains(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<Map<_, _>>(),
        ),
        other => other.clone(),
    }
}
