//! Effective protocol-version scopes of the nodes of one document.

use std::collections::HashMap;

use crate::document::{pointer, ValueRef};
use crate::path::JsonPath;
use crate::versions::{VersionList, VersionSet};

/// How a catalogue says documents declare scopes (compiled form of `catalogue.scope`).
#[derive(Debug, Clone)]
pub struct ScopeConfig {
    /// Where the document-wide version list is (`scope.root`).
    pub root: JsonPath,
    /// The member by which a declaration narrows the scope (`scope.member`).
    pub member: String,
    /// The nodes that may narrow the scope (`scope.declarations`).
    pub declarations: Vec<JsonPath>,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    own: Option<VersionSet>,
    effective: VersionSet,
}

/// The scope of every declaration of one document.
#[derive(Debug, Clone, Default)]
pub struct ScopeMap {
    root: VersionSet,
    root_declared: bool,
    /// Keyed by pointer. The scope of every node a rule reads is looked up here, so the hash
    /// is `foldhash`: seeded at random like the standard library's, several times faster on
    /// keys this short.
    entries: HashMap<String, Entry, crate::FastHash>,
    /// Bit `d` is set when a declaration has `d` reference tokens (`d` < 64), so lookups
    /// probe only the ancestors at those depths.
    depths: u64,
}

/// The number of reference tokens of a pointer.
fn depth(ptr: &str) -> usize {
    ptr.bytes().filter(|&b| b == b'/').count()
}

/// The versions named in a scope list; `None` when the value is not an array.
fn parse_list(value: ValueRef<'_>, versions: &VersionList) -> Option<VersionSet> {
    let items = value.as_array()?;
    Some(
        items
            .iter()
            .filter_map(|v| v.as_str().and_then(|s| versions.parse(s)))
            .collect(),
    )
}

impl ScopeMap {
    /// The scopes of the document whose root is `root`, declared as `config` says; version names
    /// the catalogue does not know are ignored.
    pub fn compute(root: ValueRef<'_>, config: &ScopeConfig, versions: &VersionList) -> ScopeMap {
        let declared = config
            .root
            .select(root)
            .first()
            .and_then(|s| parse_list(s.value, versions));
        let mut map = ScopeMap {
            root: declared.unwrap_or(VersionSet::EMPTY),
            root_declared: declared.is_some(),
            entries: HashMap::default(),
            depths: 0,
        };
        let mut decls: Vec<(String, Option<VersionSet>)> = Vec::new();
        for path in &config.declarations {
            for s in path.select(root) {
                let own = s
                    .value
                    .get(&config.member)
                    .and_then(|v| parse_list(v, versions));
                decls.push((s.pointer, own));
            }
        }
        // Parents before children, so each effective scope can inherit from its enclosing one.
        decls.sort_by_key(|(p, _)| p.matches('/').count());
        map.entries.reserve(decls.len());
        for (ptr, own) in decls {
            let inherited = pointer::parent(&ptr).map_or(map.root, |p| map.scope_of(p));
            let effective = own.unwrap_or(inherited);
            if let Some(bit) = 1u64.checked_shl(depth(&ptr) as u32) {
                map.depths |= bit;
            }
            map.entries.insert(ptr, Entry { own, effective });
        }
        map
    }

    /// The document-wide scope (empty when the document declares none).
    pub fn root(&self) -> VersionSet {
        self.root
    }

    /// Whether the document declares a readable root scope.
    pub fn root_declared(&self) -> bool {
        self.root_declared
    }

    /// The effective scope of the node at `ptr`: that of its nearest enclosing declaration.
    pub fn scope_of(&self, ptr: &str) -> VersionSet {
        if self.entries.is_empty() {
            return self.root;
        }
        let mut p = ptr;
        let mut d = depth(ptr);
        loop {
            // Depths of 64 and more are always probed.
            let may_declare = 1u64
                .checked_shl(d as u32)
                .is_none_or(|b| self.depths & b != 0);
            if may_declare {
                if let Some(e) = self.entries.get(p) {
                    return e.effective;
                }
            }
            match pointer::parent(p) {
                Some(parent) => {
                    p = parent;
                    d -= 1;
                }
                None => return self.root,
            }
        }
    }

    /// The scope a declaration at `ptr` lists itself, if it is a declaration that lists one.
    pub fn declared(&self, ptr: &str) -> Option<VersionSet> {
        self.entries.get(ptr).and_then(|e| e.own)
    }

    /// The scope the declaration at `ptr` inherits: that of its enclosing declaration or root.
    pub fn enclosing(&self, ptr: &str) -> VersionSet {
        pointer::parent(ptr).map_or(self.root, |p| self.scope_of(p))
    }

    /// Whether `ptr` is a declaration.
    pub fn is_declaration(&self, ptr: &str) -> bool {
        self.entries.contains_key(ptr)
    }

    /// Declarations and their effective scopes.
    pub fn declarations(&self) -> impl Iterator<Item = (&str, VersionSet)> {
        self.entries.iter().map(|(p, e)| (p.as_str(), e.effective))
    }
}
