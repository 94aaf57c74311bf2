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
    /// The version's position in the catalogue's list, from 0.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A set of protocol versions.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct VersionSet(u64);

impl VersionSet {
    /// The set of no versions.
    pub const EMPTY: VersionSet = VersionSet(0);

    /// The first `n` versions.
    pub fn first_n(n: usize) -> VersionSet {
        if n >= 64 {
            VersionSet(u64::MAX)
        } else {
            VersionSet((1u64 << n) - 1)
        }
    }

    /// The set of `v` alone.
    pub fn single(v: Version) -> VersionSet {
        VersionSet(1 << v.0)
    }

    /// Adds `v` to the set.
    pub fn insert(&mut self, v: Version) {
        self.0 |= 1 << v.0;
    }

    /// Whether `v` is in the set.
    pub fn contains(self, v: Version) -> bool {
        self.0 & (1 << v.0) != 0
    }

    /// Whether the set has no version.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// How many versions the set has.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The versions in either set.
    pub fn union(self, other: VersionSet) -> VersionSet {
        VersionSet(self.0 | other.0)
    }

    /// The versions in both sets.
    pub fn intersection(self, other: VersionSet) -> VersionSet {
        VersionSet(self.0 & other.0)
    }

    /// The versions of this set that are not in `other`.
    pub fn difference(self, other: VersionSet) -> VersionSet {
        VersionSet(self.0 & !other.0)
    }

    /// Whether every version of this set is also in `other`.
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
///
/// A release that extends another may add versions after its base's, each declared to
/// behave like one of the base's ("its model"). Everything a rule says in terms of the
/// base's versions (a range, a list, an applicability table) then holds for the added
/// version as it holds for its model, unless the rule names the added version itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionList {
    names: Vec<String>,
    /// Index of each version's model: itself for a version of the first catalogue.
    models: Vec<u8>,
}

/// Why a version cannot be added to a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AddVersionError {
    /// The list already has a version of that name.
    Duplicate,
    /// The model names no version of the list.
    UnknownModel,
    /// The list would be longer than [`MAX_VERSIONS`].
    TooMany,
}

impl VersionList {
    /// Builds the list; `None` when it is empty, too long or has duplicates.
    pub fn new(names: Vec<String>) -> Option<VersionList> {
        let mut seen = std::collections::HashSet::new();
        if names.is_empty() || names.len() > MAX_VERSIONS || !names.iter().all(|n| seen.insert(n)) {
            return None;
        }
        let models = (0..names.len() as u8).collect();
        Some(VersionList { names, models })
    }

    /// Appends `name`, behaving like the version named `like` (itself resolved to its own
    /// model, so every added version's model is a version of the first catalogue).
    pub fn add(&mut self, name: &str, like: &str) -> Result<Version, AddVersionError> {
        if self.parse(name).is_some() {
            return Err(AddVersionError::Duplicate);
        }
        let model = self.parse(like).ok_or(AddVersionError::UnknownModel)?;
        if self.names.len() >= MAX_VERSIONS {
            return Err(AddVersionError::TooMany);
        }
        self.names.push(name.to_owned());
        self.models.push(self.models[model.index()]);
        Ok(Version(self.names.len() as u8 - 1))
    }

    /// The version called `name`, if the list has one.
    pub fn parse(&self, name: &str) -> Option<Version> {
        self.names
            .iter()
            .position(|n| n == name)
            .map(|i| Version(i as u8))
    }

    /// The name of `v`, which must be a version of this list.
    pub fn name(&self, v: Version) -> &str {
        &self.names[v.index()]
    }

    /// The version `v` behaves like: itself, unless a release added it.
    pub fn model(&self, v: Version) -> Version {
        Version(self.models[v.index()])
    }

    /// Whether a release that extends another added `v`.
    pub fn is_added(&self, v: Version) -> bool {
        self.model(v) != v
    }

    /// The versions some release added.
    pub fn added(&self) -> VersionSet {
        self.iter()
            .map(|(v, _)| v)
            .filter(|v| self.is_added(*v))
            .collect()
    }

    /// Every version of the list.
    pub fn all(&self) -> VersionSet {
        VersionSet::first_n(self.names.len())
    }

    /// How many versions the list declares.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the list declares no version (never true of a list [`VersionList::new`] built).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Every version with its name, in the list's order.
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

    /// How `v` stands to the named version `to`: an added version compares as its model,
    /// unless `to` is itself an added version (a rule that names it means it).
    fn position_to(&self, v: Version, to: Version) -> std::cmp::Ordering {
        if self.is_added(to) {
            v.cmp(&to)
        } else {
            self.model(v).cmp(&to)
        }
    }

    /// Versions from `from` on (inclusive).
    pub fn since(&self, from: Version) -> VersionSet {
        self.iter()
            .map(|(v, _)| v)
            .filter(|v| self.position_to(*v, from).is_ge())
            .collect()
    }

    /// Versions up to `to` (inclusive).
    pub fn until(&self, to: Version) -> VersionSet {
        self.iter()
            .map(|(v, _)| v)
            .filter(|v| self.position_to(*v, to).is_le())
            .collect()
    }

    /// The versions a list names: those named, and every added version whose model is
    /// named, unless the list names an added version itself (it then says exactly which).
    pub fn listed(&self, named: VersionSet) -> VersionSet {
        if !named.intersection(self.added()).is_empty() {
            return named;
        }
        self.extend(named)
    }

    /// `set`, said in terms of the first catalogue's versions, with every added version
    /// whose model is in it.
    pub fn extend(&self, set: VersionSet) -> VersionSet {
        self.iter()
            .map(|(v, _)| v)
            .filter(|v| set.contains(*v) || (self.is_added(*v) && set.contains(self.model(*v))))
            .collect()
    }

    /// The versions of `within` from `from` on, for text: `2026-07-28`, or `2026-07-28 to
    /// 2026-12-15` (`from` itself when `within` has none of them).
    pub fn describe_since(&self, from: Version, within: VersionSet) -> String {
        let names = self.names(self.since(from).intersection(within));
        match names.as_slice() {
            [] => self.name(from).to_owned(),
            [one] => one.clone(),
            [a, .., z] => format!("{a} to {z}"),
        }
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

    #[test]
    fn an_added_version_behaves_like_its_model_unless_named() {
        let mut list = VersionList::new(vec!["a".into(), "b".into(), "c".into()]).unwrap();
        let d = list.add("d", "c").unwrap();
        let e = list.add("e", "b").unwrap();
        assert_eq!(list.add("d", "a"), Err(AddVersionError::Duplicate));
        assert_eq!(list.add("x", "nope"), Err(AddVersionError::UnknownModel));
        let [a, b, c] = ["a", "b", "c"].map(|n| list.parse(n).unwrap());
        assert_eq!(list.model(d), c);
        assert_eq!(list.model(e), b);
        assert_eq!(list.names(list.since(c)), vec!["c", "d"]);
        assert_eq!(list.names(list.until(c)), vec!["a", "b", "c", "d", "e"]);
        assert_eq!(list.names(list.until(b)), vec!["a", "b", "e"]);
        assert_eq!(
            list.names(list.since(d)),
            vec!["d", "e"],
            "named: by position"
        );
        assert_eq!(
            list.names(list.listed(VersionSet::single(c))),
            vec!["c", "d"]
        );
        let named: VersionSet = [c, e].into_iter().collect();
        assert_eq!(list.names(list.listed(named)), vec!["c", "e"]);
        assert_eq!(list.names(list.extend(VersionSet::single(a))), vec!["a"]);
        assert_eq!(list.describe_since(c, list.all()), "c to d");
        assert_eq!(list.describe_since(a, list.all()), "a to e");
        assert_eq!(list.describe_since(c, VersionSet::single(c)), "c");
    }
}
