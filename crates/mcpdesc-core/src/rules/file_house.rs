//! The on-disk format of house rules: a rule set an organisation applies on top of whichever
//! release judges a document, without being a release of its own.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::file::{
    ApplicabilityDef, BasedOn, ConditionDef, Enforcement, Examples, Level, OwnerDecl, RequiredBy,
    RuleDef, RuleKind, RuleSurface, Severity, Status, SurfaceText,
};

/// One YAML file of a house-rules directory.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct HouseRuleFile {
    /// What the rule set is; exactly one file of the directory carries it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub house_rules: Option<HouseRulesDef>,
    /// Rules the set adds, with short defaults (see [`HouseRuleDef`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<HouseRuleDef>,
    /// Changes to the paths, level or applicability of rules of the judging release.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rescope: Vec<RescopeDef>,
    /// Rules of the judging release that never run, by id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disable: Vec<String>,
}

/// The header of a house-rules directory.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct HouseRulesDef {
    /// The rule set's name, shown on its rules (`required-by.spec`).
    pub name: String,
    /// The owners its rule ids start with, each a name or `{name, docs-url}`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub owners: Vec<OwnerDecl>,
    /// Page URL template of its rules whose owner names none (`{owner}`, `{id}`, `{name}`,
    /// `{release}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docs_url: Option<String>,
}

/// A house rule: a rule whose metadata has defaults. Its owner is its id's first segment.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct HouseRuleDef {
    /// Dotted identifier, `<owner>.<area>.<name>`; the owner is declared in `owners`.
    pub id: String,
    /// JSONPaths of the nodes inspected in MCP Description documents.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub given: Vec<String>,
    /// JSONPaths of the nodes inspected in traffic captures.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub given_traffic: Vec<String>,
    /// With `surface`: the node inspected at each occurrence of the surface.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// Default: free text `house rule`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface: Option<RuleSurface>,
    /// Only nodes for which this condition holds are inspected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<ConditionDef>,
    /// The checks, each `{check: <function>, ...options}`.
    pub then: Vec<Map<String, Value>>,
    /// Message template of its findings.
    pub message: String,
    /// Default: `should` (findings are warnings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    /// The severity of its findings, overriding the one its level gives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    /// Default: every protocol version of the judging release.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applicability: Option<ApplicabilityDef>,
    /// Default: the message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Default: the message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Advice on fixing a finding, for reports and the rule's page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// Default: `stable`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    /// The member concerned, for display (default: `@`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl HouseRuleDef {
    /// The whole rule, its missing metadata filled in; `None` when the id has no owner
    /// segment (the rule compiler reports the id).
    pub fn into_rule(self, set: &str) -> Option<RuleDef> {
        let owner = super::file::Owner::new(self.id.split('.').next()?)?;
        let text = |t: Option<String>| t.unwrap_or_else(|| self.message.clone());
        Some(RuleDef {
            title: text(self.title),
            description: text(self.description),
            requirement: self.message.clone(),
            owner,
            surface: self.surface.unwrap_or(RuleSurface::Text(SurfaceText {
                text: "house rule".to_owned(),
            })),
            path: self.path.unwrap_or_else(|| "@".to_owned()),
            kind: RuleKind::McpdescSemantic,
            level: self.level.unwrap_or(Level::Should),
            severity: self.severity,
            status: self.status.unwrap_or(Status::Stable),
            enforcement: Enforcement::Internal,
            informational: false,
            depends_on: None,
            applicability: self
                .applicability
                .unwrap_or(ApplicabilityDef::All(super::file::Applicability::Applies)),
            covers: Vec::new(),
            required_by: RequiredBy {
                spec: set.to_owned(),
                sections: Vec::new(),
                requirements: Vec::new(),
            },
            based_on: BasedOn {
                tier: 3,
                label: "house rule".to_owned(),
                detail: format!("a rule of {set}"),
                sources: Vec::new(),
            },
            notes: Vec::new(),
            reference_codes: Vec::new(),
            examples: Examples::default(),
            given: self.given,
            given_traffic: self.given_traffic,
            subject: self.subject,
            when: self.when,
            then: self.then,
            message: self.message,
            help: self.help,
            fix: None,
            id: self.id,
        })
    }
}

/// A rule of the judging release, with other paths, level or applicability.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RescopeDef {
    /// The rule changed.
    pub id: String,
    /// The paths it reads instead of its own, in descriptions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<Vec<String>>,
    /// The paths it reads instead of its own, in traffic captures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given_traffic: Option<Vec<String>>,
    /// Only nodes for which this holds are inspected (replacing the rule's own condition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<ConditionDef>,
    /// The rule's level instead of its own (`must`, `should`, `may`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    /// The severity of its findings instead of the one the rule has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    /// Replaces the rule's applicability table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applicability: Option<ApplicabilityDef>,
}
