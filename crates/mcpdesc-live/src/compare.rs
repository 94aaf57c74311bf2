//! A description lined up with what its live server reported, one protocol version at a
//! time: refused versions, entries on one side only, entries that differ, capabilities on
//! one side only, and the server's own failures.
//!
//! Which server list lines up with which collection, which members are compared and which
//! hold schemas all come from the catalogue's `live` section; nothing here knows a protocol
//! name. A finding that holds for several versions is reported once, listing them.

use std::collections::{BTreeMap, HashSet};

use mcpdesc_core::document::{pointer, ValueRef};
use mcpdesc_core::internal::eval::scope::ScopeMap;
use mcpdesc_core::internal::rules::file::{LiveDef, LiveListDef};
use mcpdesc_core::internal::versions::{Version, VersionSet};
use mcpdesc_core::{Catalogue, Diagnostic, Document};
use serde_json::{Map, Value};

use super::rules as ids;
use super::ServerReport;
use crate::safe;

/// Longest excerpt of a server's value quoted in a message, in characters.
const EXCERPT_CHARS: usize = 200;

/// The description as both the comparison and its reader need it.
pub struct Description<'a> {
    /// As written: scopes and positions.
    pub doc: &'a Document<'a>,
    /// With component references replaced by their targets
    /// ([`Catalogue::resolve_references`]): what is compared.
    pub resolved: &'a Value,
}

/// The findings of `reports` (one per protocol version probed) against `desc`, with
/// positions in the description, ordered by position.
pub fn compare(
    cat: &Catalogue,
    live: &LiveDef,
    desc: &Description<'_>,
    reports: &[ServerReport],
) -> Vec<Diagnostic> {
    let scopes = cat.scopes(desc.doc.root());
    let mut found = Findings::default();
    for report in reports {
        let Some(version) = cat.versions.parse(&report.requested) else {
            continue;
        };
        let mut one = AtVersion {
            cat,
            live,
            desc,
            scopes: &scopes,
            version,
            out: Vec::new(),
        };
        one.compare(report);
        for (rule, ptr, message) in one.out {
            found.add(rule, ptr, message, version);
        }
    }
    found.into_diagnostics(cat, desc.doc)
}

/// Findings keyed by (rule, pointer, message), with the versions each holds for, in the
/// order first found.
#[derive(Default)]
struct Findings {
    order: Vec<(&'static str, String, String)>,
    versions: BTreeMap<(&'static str, String, String), VersionSet>,
}

impl Findings {
    fn add(&mut self, rule: &'static str, ptr: String, message: String, v: Version) {
        let key = (rule, ptr, message);
        let set = self.versions.entry(key.clone()).or_insert_with(|| {
            self.order.push(key);
            VersionSet::EMPTY
        });
        set.insert(v);
    }

    fn into_diagnostics(self, cat: &Catalogue, doc: &Document<'_>) -> Vec<Diagnostic> {
        let mut out: Vec<Diagnostic> = self
            .order
            .into_iter()
            .map(|key| {
                let set = self.versions[&key];
                let (rule, ptr, message) = key;
                let pos = doc.position(&ptr);
                Diagnostic::new(
                    rule.to_owned(),
                    super::RULES
                        .iter()
                        .find(|r| r.id == rule)
                        .map_or(mcpdesc_core::Severity::Error, |r| r.severity),
                    message,
                )
                .at(ptr, pos.line, pos.column)
                .for_versions(cat.versions.names(set))
            })
            .collect();
        out.sort_by(|a, b| {
            (a.line, a.column, &a.pointer, &a.rule, &a.message)
                .cmp(&(b.line, b.column, &b.pointer, &b.rule, &b.message))
        });
        out
    }
}

/// The comparison for one protocol version.
struct AtVersion<'a> {
    cat: &'a Catalogue,
    live: &'a LiveDef,
    desc: &'a Description<'a>,
    scopes: &'a ScopeMap,
    version: Version,
    out: Vec<(&'static str, String, String)>,
}

impl<'a> AtVersion<'a> {
    fn compare(&mut self, report: &ServerReport) {
        for e in &report.errors {
            self.push(
                ids::SERVER_ERROR,
                String::new(),
                safe::escape(e).into_owned(),
            );
        }
        if report.negotiated.is_none() {
            let why = report.refusal.as_deref().unwrap_or("no reason given");
            self.push(
                ids::VERSION_REFUSED,
                self.version_pointer(&report.requested),
                format!(
                    "the server does not serve protocol version {}: {}",
                    report.requested,
                    safe::escape(why)
                ),
            );
            return;
        }
        let live = self.live;
        for list in &live.lists {
            self.compare_list(list, report);
        }
        self.compare_capabilities(report);
    }

    fn push(&mut self, rule: &'static str, ptr: String, message: String) {
        self.out.push((rule, ptr, message));
    }

    fn in_scope(&self, ptr: &str) -> bool {
        self.scopes.scope_of(ptr).contains(self.version)
    }

    /// The item of the root scope list naming `version`, or the list itself.
    fn version_pointer(&self, version: &str) -> String {
        let member = &self.cat.def.scope.member;
        let list = pointer::push("", member);
        match self
            .desc
            .doc
            .root()
            .get(member)
            .and_then(ValueRef::as_array)
            .and_then(|items| items.iter().position(|v| v.as_str() == Some(version)))
        {
            Some(i) => format!("{list}/{i}"),
            None => list,
        }
    }

    /// The collection `name` of the description, or the root when it has none.
    fn collection_pointer(&self, name: &str) -> String {
        if self.desc.resolved.get(name).is_some() {
            pointer::push("", name)
        } else {
            String::new()
        }
    }

    /// The declarations of top-level collection `name` in scope for this version, with
    /// their pointers.
    fn declarations(&self, name: &str) -> Vec<(String, &'a Value)> {
        let base = pointer::push("", name);
        let resolved: &'a Value = self.desc.resolved;
        let items = resolved.get(name).and_then(Value::as_array);
        items
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, v)| (format!("{base}/{i}"), v))
            .filter(|(ptr, _)| self.in_scope(ptr))
            .collect()
    }

    /// The server's entries of `list`, when they can be compared: a list that failed, or
    /// that the session ended before, would only yield findings about its missing part.
    fn served<'r>(&self, list: &LiveListDef, report: &'r ServerReport) -> Option<&'r [Value]> {
        let failed_prefix = format!("{}:", list.method);
        if report.errors.iter().any(|e| e.starts_with(&failed_prefix)) {
            return None;
        }
        match report.lists.get(&list.collection) {
            Some(items) => Some(items),
            // Without the capability the server offers no such entries at all.
            None if !advertises(report, &list.capability) => Some(&[]),
            None => None,
        }
    }

    fn compare_list(&mut self, list: &LiveListDef, report: &ServerReport) {
        let Some(served) = self.served(list, report) else {
            return;
        };
        let described = self.declarations(&list.collection);
        let mut on_server: BTreeMap<String, &Value> = BTreeMap::new();
        for entry in served {
            if let Some(k) = entry.get(&list.key) {
                on_server.entry(key_text(k)).or_insert(entry);
            }
        }
        let mut seen = HashSet::new();
        let mut missing = Vec::new();
        for (ptr, entry) in &described {
            let Some(key) = entry.get(&list.key).map(key_text) else {
                continue;
            };
            if !seen.insert(key.clone()) {
                continue;
            }
            match on_server.get(&key) {
                None => missing.push((ptr.clone(), key, *entry)),
                Some(theirs) => self.compare_entry(list, ptr, &key, entry, theirs),
            }
        }
        let mut undescribed: Vec<(&String, &Value)> = on_server
            .iter()
            .filter(|(key, _)| !seen.contains(*key))
            .map(|(k, v)| (k, *v))
            .collect();
        for (ptr, key, entry) in missing {
            // An entry the server has under another key, and otherwise alike, was renamed on
            // one side: one finding, not a missing and an undescribed one.
            let same = |theirs: &Value| list.compare.iter().all(|m| entry.get(m) == theirs.get(m));
            if let Some(i) = undescribed.iter().position(|(_, theirs)| same(theirs)) {
                let (their_key, _) = undescribed.remove(i);
                self.push(
                    ids::ENTRY_RENAMED,
                    pointer::push(&ptr, &list.key),
                    format!(
                        "the server lists no {} `{}`, but lists `{}` with the same definition: \
                         renamed?",
                        list.label,
                        safe::escape(&key),
                        safe::escape(their_key)
                    ),
                );
                continue;
            }
            self.push(
                ids::ENTRY_MISSING,
                ptr,
                format!(
                    "the server lists no {} `{}`",
                    list.label,
                    safe::escape(&key)
                ),
            );
        }
        let at = self.collection_pointer(&list.collection);
        for (key, entry) in undescribed {
            self.push(
                ids::ENTRY_UNDESCRIBED,
                at.clone(),
                format!(
                    "the server lists {} `{}`, which the description does not declare: {}",
                    list.label,
                    safe::escape(key),
                    excerpt(entry)
                ),
            );
        }
    }

    fn compare_entry(
        &mut self,
        list: &LiveListDef,
        ptr: &str,
        key: &str,
        ours: &Value,
        theirs: &Value,
    ) {
        let what = format!("the server's {} `{}`", list.label, safe::escape(key));
        for member in &list.compare {
            let (a, b) = (ours.get(member), theirs.get(member));
            // Objects compare as maps (member order does not matter), which is also right for
            // schemas once their references are replaced.
            if a == b {
                continue;
            }
            let name = safe::escape(member);
            let (at, message) = match (a, b) {
                (Some(_), Some(v)) => (
                    pointer::push(ptr, member),
                    format!("{what} has a different `{name}`: {}", excerpt(v)),
                ),
                (Some(_), None) => (
                    pointer::push(ptr, member),
                    format!("{what} has no `{name}`, the description declares one"),
                ),
                (None, Some(v)) => (
                    ptr.to_owned(),
                    format!(
                        "{what} has `{name}` {}, the description declares none",
                        excerpt(v)
                    ),
                ),
                (None, None) => continue,
            };
            self.push(ids::MEMBER_DIFFERS, at, message);
        }
    }

    fn compare_capabilities(&mut self, report: &ServerReport) {
        let empty = Map::new();
        let theirs = report
            .capabilities
            .as_ref()
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let (cat, live) = (self.cat, self.live);
        let scope_member = &cat.def.scope.member;
        let extension = live.extension_prefix.as_deref();
        let mut described = HashSet::new();
        let decls = self.declarations(&live.capabilities);
        for (ptr, decl) in &decls {
            let Some(names) = decl.as_object() else {
                continue;
            };
            for name in names.keys() {
                if name == scope_member || extension.is_some_and(|p| name.starts_with(p)) {
                    continue;
                }
                described.insert(name.clone());
                if theirs.get(name).is_none_or(Value::is_null) {
                    self.push(
                        ids::CAPABILITY_MISSING,
                        pointer::push(ptr, name),
                        format!(
                            "the server does not declare capability `{}`",
                            safe::escape(name)
                        ),
                    );
                }
            }
        }
        let at = self.collection_pointer(&live.capabilities);
        for (name, value) in theirs {
            if value.is_null() || described.contains(name) {
                continue;
            }
            self.push(
                ids::CAPABILITY_UNDESCRIBED,
                at.clone(),
                format!(
                    "the server declares capability `{}` {}, which the description does not \
                     declare",
                    safe::escape(name),
                    excerpt(value)
                ),
            );
        }
    }
}

fn advertises(report: &ServerReport, capability: &str) -> bool {
    report
        .capabilities
        .as_ref()
        .and_then(|c| c.get(capability))
        .is_some_and(|v| !v.is_null())
}

/// An entry's key as text: strings as they are, anything else as compact JSON.
fn key_text(key: &Value) -> String {
    match key {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `value` as compact JSON, cut to [`EXCERPT_CHARS`] and made safe for any output.
fn excerpt(value: &Value) -> String {
    let text = value.to_string();
    let mut cut: String = text.chars().take(EXCERPT_CHARS).collect();
    if cut.len() < text.len() {
        cut.push('…');
    }
    safe::escape(&cut).into_owned()
}

#[cfg(test)]
mod tests;
