//! Rules: the on-disk format (`file`), its compiled form ([`Catalogue`], [`Rule`]) and the
//! loader that turns one into the other (`load`).

mod climb;
mod compile;
pub(crate) mod embedded;
mod extend;
pub mod file;
pub mod file_house;
mod file_pages;
mod house;
mod load;
pub mod releases;
#[cfg(feature = "schema")]
pub mod schema;
pub(crate) mod suggest;
pub mod surfaces;

use std::path::PathBuf;
use std::sync::Arc;

use crate::checks::Check;
use crate::eval::condition::Condition;
use crate::eval::scope::ScopeConfig;
use crate::eval::substitute::ReferenceConfig;
use crate::eval::template::Template;
use crate::path::JsonPath;
use crate::relpath::RelPath;
use crate::versions::{VersionList, VersionSet};

pub use file::{Applicability, ApplicabilityDef, FixDef, FixKind, RuleDef, Severity};
pub use load::{RuleLoadError, RuleProblem, RuleSet, Text};
pub use releases::{CatalogueSet, Release, RetiredRule, RuleHistory, SpecVersionReq};

/// A compiled catalogue: the protocol versions, the scope model and every rule.
#[derive(Debug)]
pub struct Catalogue {
    #[doc(hidden)]
    pub def: file::CatalogueDef,
    #[doc(hidden)]
    pub versions: VersionList,
    /// The release this catalogue is, and the `mcpdesc` versions it judges.
    #[doc(hidden)]
    pub release: Release,
    pub(crate) scope: ScopeConfig,
    /// References substituted before evaluation, if the catalogue declares them.
    pub(crate) references: Option<ReferenceConfig>,
    /// Every distinct `given` path, evaluated once per document.
    pub(crate) paths: Vec<JsonPath>,
    /// The document kind each of `paths` reads.
    pub(crate) path_kinds: Vec<crate::DocumentKind>,
    /// Where each MCP surface occurs in each document kind.
    #[doc(hidden)]
    pub surfaces: surfaces::SurfaceMap,
    /// How the messages of a traffic capture are dated.
    pub(crate) traffic: crate::traffic::TrafficConfig,
    /// The scope model of traffic captures.
    pub(crate) traffic_scope: ScopeConfig,
    /// Shared with the releases that extend this one, where they are unchanged.
    #[doc(hidden)]
    pub rules: Vec<Arc<Rule>>,
    /// Rules of earlier releases that this release or one it extends retired.
    #[doc(hidden)]
    pub retired: Vec<RetiredRule>,
    /// The release's directory (`None` for the embedded catalogue).
    #[doc(hidden)]
    pub dir: Option<PathBuf>,
    /// The file that holds the catalogue definition.
    #[doc(hidden)]
    pub catalogue_file: String,
    /// The release's other files (schemas), by path relative to its directory; a release
    /// that extends it starts from them.
    pub(crate) files: Arc<std::collections::HashMap<String, Text>>,
    /// What compiling the release's checks made once: its regular expressions, and the cells
    /// of its parsed files; a release that extends it shares them.
    pub(crate) caches: Arc<crate::checks::CompileCaches>,
    /// The owners its rule ids may start with: the built-in ones and those declared.
    #[doc(hidden)]
    pub owners: Vec<file::Owner>,
    /// The page URL template of each owner that declares one, by owner name.
    #[doc(hidden)]
    pub owner_pages: std::collections::BTreeMap<String, String>,
    /// The house-rule sets applied on top of the release, by name.
    #[doc(hidden)]
    pub house: Vec<String>,
}

impl Catalogue {
    /// The method of the request that negotiates a protocol version for the traffic after
    /// it (`initialize`), if the catalogue's traffic has one.
    pub fn handshake_method(&self) -> Option<&str> {
        self.traffic.handshake.as_ref().map(|h| h.method.as_str())
    }

    /// The version of the release (`0.8.0`).
    pub fn version(&self) -> String {
        self.release.version.to_string()
    }

    /// The MCP protocol versions the release covers, oldest first.
    pub fn protocol_versions(&self) -> impl Iterator<Item = &str> {
        self.versions.iter().map(|(_, name)| name)
    }

    /// Every rule of the release, the house rules applied on top of it included.
    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.rules.iter().map(|r| &**r)
    }

    /// The rule with id `id`, if the release has it.
    pub fn rule(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.def.id == id).map(|r| &**r)
    }

    /// The release's own fixture directory, resolved against its directory.
    #[doc(hidden)]
    pub fn fixtures_dir(&self) -> Option<PathBuf> {
        self.release.lineage.last()?.fixtures.clone()
    }

    /// The fixture directory of the release that defines `rule` (its examples are there).
    #[doc(hidden)]
    pub fn fixtures_dir_of(&self, rule: &Rule) -> Option<PathBuf> {
        self.release
            .lineage
            .iter()
            .find(|a| a.version == rule.history.defined_in)?
            .fixtures
            .clone()
    }

    /// The effective protocol-version scope of every declaration of a description whose
    /// value is `root`, by the catalogue's scope model (as the evaluator computes it before
    /// references are substituted).
    #[doc(hidden)]
    pub fn scopes(&self, root: crate::document::ValueRef<'_>) -> crate::eval::scope::ScopeMap {
        crate::eval::scope::ScopeMap::compute(root, &self.scope, &self.versions)
    }

    /// `root` with every resolvable in-document reference at a use site replaced by its
    /// target, as rules see it (the original when there is nothing to replace), so that
    /// callers comparing a description with something else compare what rules judge.
    #[doc(hidden)]
    pub fn resolve_references(
        &self,
        root: crate::document::ValueRef<'_>,
        limits: &crate::Limits,
    ) -> serde_json::Value {
        let cache = crate::eval::context::DocCache::with_limits(limits);
        self.references
            .as_ref()
            .and_then(|r| r.substitute_within(root, limits, &cache))
            .unwrap_or_else(|| root.to_value())
    }

    /// The rules this release defines itself (added or replaced here): the rules whose
    /// examples are in its fixture directory.
    #[doc(hidden)]
    pub fn own_rules(&self) -> impl Iterator<Item = &Arc<Rule>> {
        self.rules
            .iter()
            .filter(|r| r.history.defined_in == self.release.version)
    }
}

/// The fixture directory `rel` of a release read from `dir` (the embedded rules directory
/// when `None`).
pub(crate) fn resolve_fixtures(dir: Option<&PathBuf>, rel: &str) -> PathBuf {
    match dir {
        Some(d) => d.join(rel),
        None => PathBuf::from(embedded::RULES_DIR).join(rel),
    }
}

/// Where a rule was defined.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RuleSource {
    /// Path relative to the rules directory.
    pub file: String,
    /// 1-based line of the rule's entry.
    pub line: u32,
    /// 1-based column of the rule's entry.
    pub column: u32,
}

/// A compiled rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The rule as written, its version placeholders (`{since:V}`) replaced.
    #[doc(hidden)]
    pub def: Arc<RuleDef>,
    /// The rule as written, when its texts had version placeholders: a release that adds a
    /// protocol version expands them again.
    pub(crate) written: Option<Arc<RuleDef>>,
    #[doc(hidden)]
    pub severity: Severity,
    /// Versions where the rule is evaluated (applies or warns).
    #[doc(hidden)]
    pub evaluated: VersionSet,
    /// Versions where its findings are downgraded to warnings.
    #[doc(hidden)]
    pub warns: VersionSet,
    /// Whether it applies in each protocol version of its catalogue, by version name: the
    /// written table (in whichever short form) resolved.
    #[doc(hidden)]
    pub applicability: std::collections::BTreeMap<String, Applicability>,
    #[doc(hidden)]
    pub source: RuleSource,
    /// Since which release it exists and what later releases changed.
    #[doc(hidden)]
    pub history: RuleHistory,
    pub(crate) given: Vec<usize>,
    /// The document kinds the rule reads, with the paths it reads in each (for display).
    #[doc(hidden)]
    pub reads: Vec<(crate::DocumentKind, String)>,
    pub(crate) when: Option<Condition>,
    pub(crate) checks: Arc<[CompiledCheck]>,
    pub(crate) message: Template,
    pub(crate) version_sensitive: bool,
}

impl Rule {
    /// Its dotted id, `<owner>.<area>.<name>`.
    pub fn id(&self) -> &str {
        &self.def.id
    }

    /// Its owner: the prefix of its id (`mcp`, `mcpdesc`, or one a rule set declares).
    pub fn owner(&self) -> &str {
        self.def.owner.as_str()
    }

    /// Its one-line title.
    pub fn title(&self) -> &str {
        &self.def.title
    }

    /// The severity of its findings where it applies in full (where it only warns, they are
    /// warnings).
    pub fn severity(&self) -> Severity {
        self.severity
    }

    /// Where its rule file defines it.
    pub fn source(&self) -> &RuleSource {
        &self.source
    }

    /// Names of the check functions the rule calls.
    #[doc(hidden)]
    pub fn check_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.checks.iter().map(|c| c.name)
    }
}

#[derive(Debug)]
pub(crate) struct CompiledCheck {
    pub name: &'static str,
    pub check: Box<dyn Check>,
    pub at: Option<RelPath>,
    pub when: Option<Condition>,
    pub message: Option<Template>,
}
