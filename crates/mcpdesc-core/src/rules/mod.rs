//! Rules: the on-disk format (`file`), its compiled form ([`Catalogue`], [`Rule`]) and the
//! loader that turns one into the other (`load`).

mod compile;
pub(crate) mod embedded;
pub mod file;
mod load;
pub mod schema;
pub mod surfaces;

use std::path::PathBuf;

use crate::checks::Check;
use crate::eval::condition::Condition;
use crate::eval::scope::ScopeConfig;
use crate::eval::substitute::ReferenceConfig;
use crate::eval::template::Template;
use crate::path::JsonPath;
use crate::relpath::RelPath;
use crate::versions::{VersionList, VersionSet};

pub use file::{Applicability, RuleDef, Severity};
pub use load::{RuleLoadError, RuleProblem, RuleSet, Text};

/// A compiled catalogue: the protocol versions, the scope model and every rule.
#[derive(Debug)]
pub struct Catalogue {
    pub def: file::CatalogueDef,
    pub versions: VersionList,
    pub spec_versions: Vec<semver::Version>,
    pub(crate) scope: ScopeConfig,
    /// References substituted before evaluation, if the catalogue declares them.
    pub(crate) references: Option<ReferenceConfig>,
    /// Every distinct `given` path, evaluated once per document.
    pub(crate) paths: Vec<JsonPath>,
    /// The document kind each of `paths` reads.
    pub(crate) path_kinds: Vec<crate::DocumentKind>,
    /// Where each MCP surface occurs in each document kind.
    pub surfaces: surfaces::SurfaceMap,
    /// How the messages of a traffic capture are dated.
    pub(crate) traffic: crate::traffic::TrafficConfig,
    /// The scope model of traffic captures.
    pub(crate) traffic_scope: ScopeConfig,
    pub rules: Vec<Rule>,
    /// Where the rules were read from (`None` for the embedded catalogue).
    pub dir: Option<PathBuf>,
    /// The file that holds the catalogue definition.
    pub catalogue_file: String,
}

impl Catalogue {
    pub fn rule(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.def.id == id)
    }

    /// The fixture directory named by the catalogue, resolved against the rules directory.
    pub fn fixtures_dir(&self) -> Option<PathBuf> {
        let rel = self.def.fixtures.as_ref()?;
        let base = match &self.dir {
            Some(d) => d.clone(),
            None => PathBuf::from(embedded::RULES_DIR),
        };
        Some(base.join(rel))
    }
}

/// Where a rule was defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSource {
    /// Path relative to the rules directory.
    pub file: String,
    pub line: u32,
    pub column: u32,
}

/// A compiled rule.
#[derive(Debug)]
pub struct Rule {
    /// The rule as written.
    pub def: RuleDef,
    pub severity: Severity,
    /// Versions where the rule is evaluated (applies or warns).
    pub evaluated: VersionSet,
    /// Versions where its findings are downgraded to warnings.
    pub warns: VersionSet,
    pub source: RuleSource,
    pub(crate) given: Vec<usize>,
    /// The document kinds the rule reads, with the paths it reads in each (for display).
    pub reads: Vec<(crate::DocumentKind, String)>,
    pub(crate) when: Option<Condition>,
    pub(crate) checks: Vec<CompiledCheck>,
    pub(crate) message: Template,
    pub(crate) version_sensitive: bool,
}

impl Rule {
    pub fn id(&self) -> &str {
        &self.def.id
    }

    /// Names of the check functions the rule calls.
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
