//! Releases of the specification side by side: which `mcpdesc` versions each catalogue
//! judges, how a release descends from the one it extends, and the set of releases an
//! [`crate::Engine`] chooses from for each document.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;

use super::{Catalogue, Rule, RuleSource};

/// One entry of a catalogue's `spec-versions`: an exact version or a semver range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpecVersionReq {
    /// An exact version: that version only (not a caret range, so `0.8.0` excludes `0.8.1`).
    Exact(semver::Version),
    /// A range such as `>=0.9.0-rc.1, <0.10.0`, with its text as written.
    Range(semver::VersionReq, String),
}

impl SpecVersionReq {
    /// An exact version when the text is one, else a range.
    pub fn parse(text: &str) -> Result<SpecVersionReq, String> {
        if let Ok(v) = semver::Version::parse(text.trim()) {
            return Ok(SpecVersionReq::Exact(v));
        }
        semver::VersionReq::parse(text)
            .map(|r| SpecVersionReq::Range(r, text.trim().to_owned()))
            .map_err(|e| format!("`{text}` is neither a semantic version nor a version range: {e}"))
    }

    /// Whether `v` is in it. A range includes a pre-release only when one of its
    /// comparators names a pre-release of the same major.minor.patch (as Cargo does).
    pub fn matches(&self, v: &semver::Version) -> bool {
        match self {
            SpecVersionReq::Exact(e) => e == v,
            SpecVersionReq::Range(r, _) => r.matches(v),
        }
    }
}

impl fmt::Display for SpecVersionReq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecVersionReq::Exact(v) => write!(f, "{v}"),
            SpecVersionReq::Range(_, text) => write!(f, "{text}"),
        }
    }
}

/// The versions a list of requirements serves, for messages: `0.8.0`, and ranges in
/// parentheses because they contain commas.
pub fn describe(reqs: &[SpecVersionReq]) -> String {
    reqs.iter()
        .map(|r| match r {
            SpecVersionReq::Exact(v) => v.to_string(),
            SpecVersionReq::Range(_, text) => format!("({text})"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a catalogue knows of its own release.
#[derive(Debug, Clone)]
pub struct Release {
    /// The release's own version (`release` in its `catalogue` block).
    pub version: semver::Version,
    /// The `mcpdesc` versions it judges.
    pub serves: Vec<SpecVersionReq>,
    /// The release it extends, if any.
    pub extends: Option<semver::Version>,
    /// The `summary` of its `catalogue` block: what the release is, for its rule pages.
    pub summary: Option<String>,
    /// Every release it descends from, oldest first, itself last; with the directory and
    /// fixture directory of each.
    pub lineage: Vec<Ancestor>,
    /// Every `spec-versions` entry of the set of releases it was loaded with, for the
    /// diagnostic of a version no release serves.
    pub set_serves: Vec<SpecVersionReq>,
}

/// A release in a lineage.
#[derive(Debug, Clone)]
pub struct Ancestor {
    /// The ancestor's release version.
    pub version: semver::Version,
    /// The directory its files were read from (`None` when embedded and never on disk).
    pub dir: Option<PathBuf>,
    /// Its example fixture directory, resolved.
    pub fixtures: Option<PathBuf>,
}

impl Release {
    /// Whether one of the release's `spec-versions` entries includes specification version `v`.
    pub fn serves(&self, v: &semver::Version) -> bool {
        self.serves.iter().any(|r| r.matches(v))
    }
}

/// How a rule came to be what it is in a release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleHistory {
    /// The release that added the rule.
    pub since: semver::Version,
    /// The release whose files hold the rule's current definition (and its examples).
    pub defined_in: semver::Version,
    /// Changes since it was added, oldest first.
    pub changes: Vec<RuleChange>,
}

impl RuleHistory {
    /// The history of a rule that `release` adds.
    pub fn added_in(release: &semver::Version) -> RuleHistory {
        RuleHistory {
            since: release.clone(),
            defined_in: release.clone(),
            changes: Vec::new(),
        }
    }
}

/// One change a release made to a rule of the release it extends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleChange {
    /// The release that made the change.
    pub release: semver::Version,
    /// Which of the release's keys made it: `replace`, `applicability` or `amend`.
    pub kind: ChangeKind,
    /// The `reason` the change gives, as written.
    pub reason: String,
    /// Where the change is written.
    pub source: RuleSource,
    /// The members an amendment changed (empty for other kinds of change).
    pub fields: Vec<String>,
}

/// How a release changed a rule of its base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// The whole rule was replaced.
    Replaced,
    /// Only its applicability table changed.
    Applicability,
    /// Some named members changed, the rest kept.
    Amended,
}

impl ChangeKind {
    /// The kind in words, as rule pages and reports show it.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Replaced => "replaced",
            ChangeKind::Applicability => "applicability changed",
            ChangeKind::Amended => "amended",
        }
    }
}

/// A rule a release retired: the rule as it last was, and why.
#[derive(Debug, Clone)]
pub struct RetiredRule {
    /// The rule as it last was, in the release's base.
    pub rule: Arc<Rule>,
    /// The release that retired it.
    pub release: semver::Version,
    /// The `reason` its `retire` entry gives, as written.
    pub reason: String,
    /// Where the `retire` entry is written.
    pub source: RuleSource,
}

/// Every release loaded together, oldest first. The engine judges each document by the
/// release its declared specification version names.
#[derive(Debug, Clone)]
pub struct CatalogueSet {
    releases: Vec<Arc<Catalogue>>,
}

/// A specification version no release of a set serves.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no catalogue serves specification version `{requested}`; supported: {supported}")]
#[non_exhaustive]
pub struct UnservedVersion {
    /// The specification version asked for, as given.
    pub requested: String,
    /// Every version and range the loaded releases serve, for the message.
    pub supported: String,
}

impl CatalogueSet {
    /// The set of `releases`; each learns which versions the whole set serves.
    pub fn new(mut releases: Vec<Catalogue>) -> CatalogueSet {
        releases.sort_by(|a, b| a.release.version.cmp(&b.release.version));
        let all: Vec<SpecVersionReq> = releases
            .iter()
            .flat_map(|c| c.release.serves.clone())
            .collect();
        for c in &mut releases {
            c.release.set_serves = all.clone();
        }
        CatalogueSet {
            releases: releases.into_iter().map(Arc::new).collect(),
        }
    }

    /// Every release, oldest first.
    pub fn releases(&self) -> &[Arc<Catalogue>] {
        &self.releases
    }

    /// The version of every release, oldest first.
    pub fn versions(&self) -> Vec<semver::Version> {
        self.releases
            .iter()
            .map(|c| c.release.version.clone())
            .collect()
    }

    /// The release used when a document names none that the set serves: the newest
    /// release that is not a pre-release, else the newest.
    pub fn default_release(&self) -> &Arc<Catalogue> {
        self.releases
            .iter()
            .rev()
            .find(|c| c.release.version.pre.is_empty())
            .or(self.releases.last())
            .expect("a set has at least one release")
    }

    /// The release that judges specification version `v`: the release of that version
    /// when there is one, else the newest whose `spec-versions` include it.
    pub fn serving(&self, v: &semver::Version) -> Option<&Arc<Catalogue>> {
        self.releases
            .iter()
            .find(|c| &c.release.version == v)
            .or_else(|| self.releases.iter().rev().find(|c| c.release.serves(v)))
    }

    /// [`CatalogueSet::serving`] for a version given as text.
    pub fn for_spec_version(&self, text: &str) -> Result<&Arc<Catalogue>, UnservedVersion> {
        semver::Version::parse(text.trim())
            .ok()
            .and_then(|v| self.serving(&v))
            .ok_or_else(|| UnservedVersion {
                requested: text.to_owned(),
                supported: self.supported(),
            })
    }

    /// The release a document's declared specification version chooses, or the default
    /// release when it declares none the set serves (its version rule then says so).
    pub fn for_document(&self, root: crate::document::ValueRef<'_>) -> &Arc<Catalogue> {
        self.for_declared(|p| root.pointer(p).and_then(|v| v.as_str()))
    }

    /// [`CatalogueSet::for_document`] for a document held as a value.
    pub fn for_value(&self, root: &Value) -> &Arc<Catalogue> {
        self.for_declared(|p| root.pointer(p).and_then(Value::as_str))
    }

    fn for_declared<'v>(&self, at: impl Fn(&str) -> Option<&'v str>) -> &Arc<Catalogue> {
        if self.releases.len() == 1 {
            return &self.releases[0];
        }
        let mut pointers: Vec<&str> = Vec::new();
        for c in self.releases.iter().rev() {
            let Some(p) = c.def.spec_version_pointer.as_deref() else {
                continue;
            };
            if pointers.contains(&p) {
                continue;
            }
            pointers.push(p);
            let declared = at(p);
            if let Some(found) = declared
                .and_then(|t| semver::Version::parse(t).ok())
                .and_then(|v| self.serving(&v))
            {
                return found;
            }
        }
        self.default_release()
    }

    /// Every served version, for messages.
    pub fn supported(&self) -> String {
        describe(&self.default_release().release.set_serves)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> semver::Version {
        semver::Version::parse(s).unwrap()
    }

    #[test]
    fn exact_versions_and_ranges_with_pre_releases() {
        let exact = SpecVersionReq::parse("0.8.0").unwrap();
        assert!(exact.matches(&v("0.8.0")));
        assert!(
            !exact.matches(&v("0.8.1")),
            "an exact version is not a caret range"
        );
        let range = SpecVersionReq::parse(">=0.9.0-rc.1, <0.10.0").unwrap();
        for yes in ["0.9.0-rc.1", "0.9.0-rc.3", "0.9.0", "0.9.7"] {
            assert!(range.matches(&v(yes)), "{yes}");
        }
        for no in ["0.8.0", "0.9.0-beta.1", "0.10.0", "0.10.0-rc.1"] {
            assert!(!range.matches(&v(no)), "{no}");
        }
        assert!(SpecVersionReq::parse("not a version").is_err());
        assert_eq!(describe(&[exact, range]), "0.8.0, (>=0.9.0-rc.1, <0.10.0)");
    }
}
