//! Protocol versions as an ordered, catalogue-defined set.
//!
//! The engine knows no version names: the catalogue lists them in order and each
//! [`Version`] is an index into that list, so sets of versions are bitsets.

use std::fmt;

/// The most protocol versions one catalogue may declare.
pub const MAX_VERSIONS: usize = 64;

/// A protocol version, as its position in the catalogue's ordered list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version(pub(crate) u8);

impl Version {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A set of protocol versions.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct VersionSet(u64);

impl VersionSet {
    pub const EMPTY: VersionSet = VersionSet(0);

    /// The first `n` versions.
    pub fn first_n(n: usize) -> VersionSet {
        if n >= 64 {
            VersionSet(u64::MAX)
        } else {
            VersionSet((1u64 << n) - 1)
        }
    }

    pub fn single(v: Version) -> VersionSet {
        VersionSet(1 << v.0)
    }

    pub fn insert(&mut self, v: Version) {
        self.0 |= 1 << v.0;
    }

    pub fn contains(self, v: Version) -> bool {
        self.0 & (1 << v.0) != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    pub fn union(self, other: VersionSet) -> VersionSet {
        VersionSet(self.0 | other.0)
    }

    pub fn intersection(self, other: VersionSet) -> VersionSet {
        VersionSet(self.0 & other.0)
    }

    pub fn difference(self, other: VersionSet) -> VersionSet {
        VersionSet(self.0 & !other.0)
    }

    pub fn is_subset(self, other: VersionSet) -> bool {
        self.0 & !other.0 == 0
    }

    /// Versions in ascending order.
    pub fn iter(self) -> impl Iterator<Item = Version> {
        (0..64u8)
            .filter(move |i| self.0 & (1 << i) != 0)
            .map(Version)
    }
}

impl fmt::Debug for VersionSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter().map(|v| v.0)).finish()
    }
}

impl FromIterator<Version> for VersionSet {
    fn from_iter<I: IntoIterator<Item = Version>>(iter: I) -> VersionSet {
        let mut set = VersionSet::EMPTY;
        for v in iter {
            set.insert(v);
        }
        set
    }
}

/// The ordered list of protocol version names a catalogue declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionList {
    names: Vec<String>,
}

impl VersionList {
    /// Builds the list; `None` when it is empty, too long or has duplicates.
    pub fn new(names: Vec<String>) -> Option<VersionList> {
        let mut seen = std::collections::HashSet::new();
        if names.is_empty() || names.len() > MAX_VERSIONS || !names.iter().all(|n| seen.insert(n)) {
            return None;
        }
        Some(VersionList { names })
    }

    pub fn parse(&self, name: &str) -> Option<Version> {
        self.names
            .iter()
            .position(|n| n == name)
            .map(|i| Version(i as u8))
    }

    pub fn name(&self, v: Version) -> &str {
        &self.names[v.index()]
    }

    pub fn all(&self) -> VersionSet {
        VersionSet::first_n(self.names.len())
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (Version, &str)> {
        self.names
            .iter()
            .enumerate()
            .map(|(i, n)| (Version(i as u8), n.as_str()))
    }

    /// Names of the versions in `set`, ascending.
    pub fn names(&self, set: VersionSet) -> Vec<String> {
        set.iter().map(|v| self.name(v).to_owned()).collect()
    }

    /// Versions from `from` on (inclusive).
    pub fn since(&self, from: Version) -> VersionSet {
        self.all().difference(VersionSet::first_n(from.index()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_algebra() {
        let list = VersionList::new(vec!["a".into(), "b".into(), "c".into()]).unwrap();
        let b = list.parse("b").unwrap();
        assert_eq!(list.since(b).len(), 2);
        assert!(list.since(b).is_subset(list.all()));
        assert_eq!(list.names(list.since(b)), vec!["b", "c"]);
        assert!(VersionList::new(vec!["a".into(), "a".into()]).is_none());
    }
}
