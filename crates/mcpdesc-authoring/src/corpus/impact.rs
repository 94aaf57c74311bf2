//! The impact of a rule change: what differs between two catalogues (rules added, removed,
//! changed field by field) and what that does to a corpus (verdicts that changed,
//! diagnostics that appeared or vanished).
//!
//! When the new catalogue is a release that descends from the old one, its rules' history
//! says how each rule changed: added, replaced, applicability changed or retired, each with
//! the reason the release records. Differences the history does not record (two unrelated
//! directories, or an edited copy of a release) are reported as rules added, removed and
//! changed field by field.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;
use serde_json::Value;

use super::CorpusDoc;
use mcpdesc_core::internal::Applicability;
use mcpdesc_core::internal::ChangeKind;
use mcpdesc_core::{Catalogue, Rule};
use mcpdesc_core::{Diagnostic, Severity};
use mcpdesc_core::{Engine, FileError, Report};

/// One field that differs, with its old and new value (`None`: absent).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldChange {
    /// Dotted path of the field as named in rule files, e.g. `level`,
    /// `applicability.2025-06-18`, `then[1].since`.
    pub field: String,
    /// The field's value in the old catalogue.
    pub old: Option<Value>,
    /// The field's value in the new catalogue.
    pub new: Option<Value>,
}

/// A rule present in only one of the catalogues.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleSummary {
    /// The rule id.
    pub id: String,
    /// The rule's title.
    pub title: String,
    /// Who defines the constraint (`mcp`, `mcpdesc` or a declared owner).
    pub owner: String,
    /// The requirement level: `must`, `should` or `may`.
    pub level: String,
    /// The severity its findings take.
    pub severity: Severity,
    /// `file:line` in its rules directory.
    pub source: String,
    /// The release that added it, when the comparison follows the releases' history.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
}

/// A rule present in both catalogues whose definition differs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleChange {
    /// The rule id.
    pub id: String,
    /// The fields that differ.
    pub fields: Vec<FieldChange>,
}

/// One change a release records for a rule: which release, why, and where it is written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordedChange {
    /// `replaced` or `applicability changed`.
    pub kind: &'static str,
    /// The version of the release that records the change.
    pub release: String,
    /// The reason the release gives for the change.
    pub reason: String,
    /// `file:line` of the change in that release's rules directory.
    pub source: String,
}

/// A rule that a release between the two replaced with a new definition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplacedRule {
    /// The rule id.
    pub id: String,
    /// The rule's title in the new catalogue.
    pub title: String,
    /// Every change recorded for the rule after the base release, oldest first (at least
    /// one replacement).
    pub reasons: Vec<RecordedChange>,
    /// The definition's differences, field by field.
    pub fields: Vec<FieldChange>,
}

/// One protocol version of an applicability table, before and after (`None`: the table
/// does not name the version).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApplicabilityRow {
    /// The protocol version.
    pub version: String,
    /// How the old table has the rule apply to the version.
    pub old: Option<Applicability>,
    /// How the new table has the rule apply to the version.
    pub new: Option<Applicability>,
}

impl ApplicabilityRow {
    /// Whether the version's applicability differs between the tables.
    pub fn changed(&self) -> bool {
        self.old != self.new
    }
}

/// A rule whose applicability table alone a release between the two changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApplicabilityRuleChange {
    /// The rule id.
    pub id: String,
    /// The rule's title in the new catalogue.
    pub title: String,
    /// Every change recorded for the rule after the base release, oldest first.
    pub reasons: Vec<RecordedChange>,
    /// Every protocol version of either table, in catalogue order.
    pub table: Vec<ApplicabilityRow>,
}

/// A rule of the base release that a release between the two retired.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetiredRuleChange {
    /// The rule as the base release has it.
    #[serde(flatten)]
    pub rule: RuleSummary,
    /// The release that retired it.
    pub release: String,
    /// The reason the release gives for retiring it.
    pub reason: String,
    /// `file:line` of the retirement in that release's rules directory.
    #[serde(rename = "retiredAt")]
    pub retired_at: String,
}

/// How rule changes were classified.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeBasis {
    /// The two catalogues were compared definition by definition: rules added, removed and
    /// changed.
    #[default]
    Definitions,
    /// The new catalogue is a release descending from the old one: its history says which
    /// rules were added, replaced, retired or had their applicability changed. Differences
    /// it does not record are still reported as added, removed or changed.
    History,
}

/// What differs between two catalogues. Every rule that differs is in exactly one list.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CatalogueChanges {
    /// Whether the rules' history or their definitions classified the changes.
    pub basis: ChangeBasis,
    /// Changes of the catalogue definition itself (versions, scope model, ...).
    pub catalogue: Vec<FieldChange>,
    /// Rules the new catalogue has and the old lacks (with the release that added them when the
    /// history records it).
    pub added: Vec<RuleSummary>,
    /// Rules of the old catalogue the new one lacks, without a recorded retirement.
    pub removed: Vec<RuleSummary>,
    /// Rules whose definition differs without a recorded change.
    pub changed: Vec<RuleChange>,
    /// Rules a release between the two replaced with a new definition.
    pub replaced: Vec<ReplacedRule>,
    /// Rules a release between the two changed only the applicability table of.
    #[serde(rename = "applicabilityChanged")]
    pub applicability_changed: Vec<ApplicabilityRuleChange>,
    /// Rules of the old catalogue a release between the two retired.
    pub retired: Vec<RetiredRuleChange>,
    /// Protocol versions the new catalogue adds, each behaving like one of the old's. Every
    /// rule both catalogues have takes the new version as it takes that one; only rules that
    /// differ otherwise (or for the new version) are listed in the other lists.
    #[serde(rename = "versionsAdded")]
    pub versions_added: Vec<VersionAdded>,
}

/// A protocol version the new catalogue adds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VersionAdded {
    /// The protocol version added.
    pub version: String,
    /// The version it behaves like.
    pub like: String,
    /// How many rules of both catalogues take it as they take `like`, with no other change.
    pub rules: usize,
}

impl CatalogueChanges {
    /// Whether neither the catalogue definition nor any rule differs (versions added alone do
    /// not count).
    pub fn is_empty(&self) -> bool {
        self.catalogue.is_empty() && self.rules_changed() == 0
    }

    /// Number of rules that differ, whatever the kind.
    pub fn rules_changed(&self) -> usize {
        self.added.len()
            + self.removed.len()
            + self.changed.len()
            + self.replaced.len()
            + self.applicability_changed.len()
            + self.retired.len()
    }
}

/// Compares two catalogues rule by rule (by id). When `new` is a later release descending
/// from `old`, rule changes are classified by the history `new` records (see
/// [`ChangeBasis::History`]).
pub fn compare_catalogues(old: &Catalogue, new: &Catalogue) -> CatalogueChanges {
    let base = &old.release.version;
    let by_history =
        base < &new.release.version && new.release.lineage.iter().any(|a| &a.version == base);
    let old_rules: HashMap<&str, &Rule> = old.rules.iter().map(|r| (r.id(), &**r)).collect();
    let new_rules: HashMap<&str, &Rule> = new.rules.iter().map(|r| (r.id(), &**r)).collect();
    let mut changes = CatalogueChanges {
        basis: if by_history {
            ChangeBasis::History
        } else {
            ChangeBasis::Definitions
        },
        catalogue: diff_values(&to_value(&old.def), &to_value(&new.def)),
        ..CatalogueChanges::default()
    };
    // Versions the new catalogue adds, by name, with the name of the version each behaves like.
    let added: Vec<(String, String)> = new
        .versions
        .iter()
        .filter(|(v, n)| old.versions.parse(n).is_none() && new.versions.is_added(*v))
        .map(|(v, n)| {
            (
                n.to_owned(),
                new.versions.name(new.versions.model(v)).to_owned(),
            )
        })
        .collect();
    let mut uniform = 0;
    for r in &new.rules {
        let Some(o) = old_rules.get(r.id()) else {
            let mut s = summary(r);
            if by_history {
                s.since = Some(r.history.since.to_string());
            }
            changes.added.push(s);
            continue;
        };
        let fields = rule_fields(o, r, &added);
        let recorded: Vec<_> = if by_history {
            r.history
                .changes
                .iter()
                .filter(|c| &c.release > base)
                .collect()
        } else {
            Vec::new()
        };
        let reasons = || {
            recorded
                .iter()
                .map(|c| RecordedChange {
                    kind: c.kind.as_str(),
                    release: c.release.to_string(),
                    reason: c.reason.split_whitespace().collect::<Vec<_>>().join(" "),
                    source: format!("{}:{}", c.source.file, c.source.line),
                })
                .collect::<Vec<_>>()
        };
        if fields.is_empty() && recorded.is_empty() {
            uniform += 1;
        }
        // An amendment of more than the table is shown with its fields, as a replacement is.
        let amended_fields = recorded.iter().any(|c| {
            c.kind == ChangeKind::Amended && c.fields.iter().any(|f| f != "applicability")
        });
        if amended_fields || recorded.iter().any(|c| c.kind == ChangeKind::Replaced) {
            changes.replaced.push(ReplacedRule {
                id: r.id().to_owned(),
                title: r.def.title.clone(),
                reasons: reasons(),
                fields,
            });
        } else if !recorded.is_empty() {
            let table = applicability_table(old, new, &o.applicability, &r.applicability);
            // The history records only a new table; anything else that differs is an
            // unrecorded change.
            let rest: Vec<FieldChange> = fields
                .into_iter()
                .filter(|f| !f.field.starts_with("applicability."))
                .collect();
            changes.applicability_changed.push(ApplicabilityRuleChange {
                id: r.id().to_owned(),
                title: r.def.title.clone(),
                reasons: reasons(),
                table,
            });
            if !rest.is_empty() {
                changes.changed.push(RuleChange {
                    id: r.id().to_owned(),
                    fields: rest,
                });
            }
        } else if !fields.is_empty() {
            changes.changed.push(RuleChange {
                id: r.id().to_owned(),
                fields,
            });
        }
    }
    for r in &old.rules {
        if new_rules.contains_key(r.id()) {
            continue;
        }
        let retirement = new
            .retired
            .iter()
            .find(|x| by_history && &x.release > base && x.rule.id() == r.id());
        match retirement {
            Some(x) => changes.retired.push(RetiredRuleChange {
                rule: summary(r),
                release: x.release.to_string(),
                reason: x.reason.split_whitespace().collect::<Vec<_>>().join(" "),
                retired_at: format!("{}:{}", x.source.file, x.source.line),
            }),
            None => changes.removed.push(summary(r)),
        }
    }
    changes.added.sort_by(|a, b| a.id.cmp(&b.id));
    changes.removed.sort_by(|a, b| a.id.cmp(&b.id));
    changes.changed.sort_by(|a, b| a.id.cmp(&b.id));
    changes.replaced.sort_by(|a, b| a.id.cmp(&b.id));
    changes
        .applicability_changed
        .sort_by(|a, b| a.id.cmp(&b.id));
    changes.retired.sort_by(|a, b| a.rule.id.cmp(&b.rule.id));
    changes.versions_added = added
        .into_iter()
        .map(|(version, like)| VersionAdded {
            version,
            like,
            rules: uniform,
        })
        .collect();
    changes
}

/// The field-by-field differences of two definitions of a rule, and of their effective
/// severity.
///
/// Texts are compared as written (`{since:V}` is the same text whichever versions it names
/// today), tables as resolved (a table written in another form but saying the same is no
/// change), and an added version that a rule takes as it takes the version the new version
/// behaves like (`added`: names and the names they behave like) is no change of the rule.
fn rule_fields(o: &Rule, r: &Rule, added: &[(String, String)]) -> Vec<FieldChange> {
    let value = |r: &Rule| {
        let mut v = to_value(mcpdesc_core::internal::rule_as_written(r));
        if let Some(map) = v.as_object_mut() {
            map.insert("applicability".into(), to_value(&r.applicability));
        }
        v
    };
    let mut fields = diff_values(&value(o), &value(r));
    fields.retain(|f| {
        let Some((version, like)) = added
            .iter()
            .find(|(v, _)| f.field == format!("applicability.{v}"))
        else {
            return true;
        };
        let as_like = r.applicability.get(like).map(|a| Value::from(a.as_str()));
        !(f.old.is_none() && f.new == as_like && r.applicability.contains_key(version))
    });
    if o.severity != r.severity {
        fields.push(FieldChange {
            field: "effective severity".into(),
            old: Some(Value::from(o.severity.as_str())),
            new: Some(Value::from(r.severity.as_str())),
        });
    }
    fields
}

/// Both applicability tables side by side: the new catalogue's protocol versions in order,
/// then any other version either table names.
fn applicability_table(
    old_cat: &Catalogue,
    new_cat: &Catalogue,
    old: &BTreeMap<String, Applicability>,
    new: &BTreeMap<String, Applicability>,
) -> Vec<ApplicabilityRow> {
    let mut versions: Vec<String> = Vec::new();
    let ordered = new_cat
        .def
        .protocol_versions
        .iter()
        .chain(&old_cat.def.protocol_versions)
        .cloned();
    let named: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    for v in ordered.chain(named.into_iter().cloned()) {
        if !versions.contains(&v) {
            versions.push(v);
        }
    }
    versions
        .into_iter()
        .filter(|v| old.contains_key(v) || new.contains_key(v))
        .map(|v| ApplicabilityRow {
            old: old.get(&v).copied(),
            new: new.get(&v).copied(),
            version: v,
        })
        .collect()
}

fn summary(r: &Rule) -> RuleSummary {
    RuleSummary {
        id: r.id().to_owned(),
        title: r.def.title.clone(),
        owner: r.def.owner.as_str().to_owned(),
        level: r.def.level.as_str().to_owned(),
        severity: r.severity,
        source: format!("{}:{}", r.source.file, r.source.line),
        since: None,
    }
}

fn to_value<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// Leaf-by-leaf differences between two values, in the order fields appear (new first,
/// then fields only the old one has). Arrays of scalars are compared whole.
pub fn diff_values(old: &Value, new: &Value) -> Vec<FieldChange> {
    let (mut o, mut n) = (Vec::new(), Vec::new());
    flatten(old, "", &mut o);
    flatten(new, "", &mut n);
    let old_map: HashMap<&str, &Value> = o.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let new_map: HashMap<&str, &Value> = n.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let mut out = Vec::new();
    for (k, v) in &n {
        match old_map.get(k.as_str()) {
            Some(ov) if *ov == v => {}
            ov => out.push(FieldChange {
                field: k.clone(),
                old: ov.map(|v| (*v).clone()),
                new: Some(v.clone()),
            }),
        }
    }
    for (k, v) in &o {
        if !new_map.contains_key(k.as_str()) {
            out.push(FieldChange {
                field: k.clone(),
                old: Some(v.clone()),
                new: None,
            });
        }
    }
    out
}

fn flatten(v: &Value, prefix: &str, out: &mut Vec<(String, Value)>) {
    let join = |k: &str| {
        if prefix.is_empty() {
            k.to_owned()
        } else {
            format!("{prefix}.{k}")
        }
    };
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, v) in m {
                flatten(v, &join(k), out);
            }
        }
        Value::Array(a) if a.iter().any(|x| x.is_object() || x.is_array()) => {
            for (i, x) in a.iter().enumerate() {
                flatten(x, &format!("{prefix}[{i}]"), out);
            }
        }
        _ => out.push((prefix.to_owned(), v.clone())),
    }
}

/// The verdict of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// No errors and no warnings.
    Valid,
    /// Warnings, no errors.
    Warning,
    /// Errors, or the document does not load.
    Invalid,
}

impl Verdict {
    /// The verdict a report amounts to: invalid if it has an error or the document did not load,
    /// else warning if it has a warning, else valid.
    pub fn of(report: &Report) -> Verdict {
        if !report.is_valid() {
            Verdict::Invalid
        } else if report.has(Severity::Warning) {
            Verdict::Warning
        } else {
            Verdict::Valid
        }
    }

    /// The verdict's name as reports print it: `valid`, `warning` or `invalid`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Valid => "valid",
            Verdict::Warning => "warning",
            Verdict::Invalid => "invalid",
        }
    }
}

/// How one document's result changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentImpact {
    /// The document's display path.
    pub document: String,
    /// The verdict under the old catalogue.
    pub old_verdict: Verdict,
    /// The verdict under the new catalogue.
    pub new_verdict: Verdict,
    /// Diagnostics only the new catalogue reports.
    pub appeared: Vec<Diagnostic>,
    /// Diagnostics only the old catalogue reports.
    pub vanished: Vec<Diagnostic>,
}

impl DocumentImpact {
    /// Whether the verdict differs between the catalogues.
    pub fn verdict_changed(&self) -> bool {
        self.old_verdict != self.new_verdict
    }
}

/// One diagnostic that appeared or vanished, with its document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocDiagnostic {
    /// The display path of the document it was reported for.
    pub document: String,
    /// The diagnostic itself.
    #[serde(flatten)]
    pub diagnostic: Diagnostic,
}

/// The appeared and vanished diagnostics of one rule.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RuleImpact {
    /// Diagnostics of the rule only the new catalogue reports.
    pub appeared: Vec<DocDiagnostic>,
    /// Diagnostics of the rule only the old catalogue reports.
    pub vanished: Vec<DocDiagnostic>,
}

/// The whole impact report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Impact {
    /// The release of the old catalogue.
    pub base: String,
    /// The release of the new catalogue.
    pub new: String,
    /// What differs between the two catalogues.
    pub changes: CatalogueChanges,
    /// Number of documents run.
    pub documents: usize,
    /// Documents whose verdict or diagnostics changed, in corpus order.
    pub affected: Vec<DocumentImpact>,
}

impl Impact {
    /// Documents whose verdict changed.
    pub fn verdict_changes(&self) -> impl Iterator<Item = &DocumentImpact> {
        self.affected.iter().filter(|d| d.verdict_changed())
    }

    /// Appeared and vanished diagnostics grouped by rule id.
    pub fn by_rule(&self) -> BTreeMap<String, RuleImpact> {
        let mut out: BTreeMap<String, RuleImpact> = BTreeMap::new();
        for d in &self.affected {
            for x in &d.appeared {
                out.entry(x.rule.clone())
                    .or_default()
                    .appeared
                    .push(DocDiagnostic {
                        document: d.document.clone(),
                        diagnostic: x.clone(),
                    });
            }
            for x in &d.vanished {
                out.entry(x.rule.clone())
                    .or_default()
                    .vanished
                    .push(DocDiagnostic {
                        document: d.document.clone(),
                        diagnostic: x.clone(),
                    });
            }
        }
        out
    }
}

/// Runs `old` and `new` over `docs` and reports what changed. The catalogues compared are
/// each engine's [`Engine::catalogue`]: fix each engine's release with
/// [`Engine::with_spec_version`] so that every document is judged by that release.
pub fn corpus_impact(old: &Engine, new: &Engine, docs: &[CorpusDoc]) -> Result<Impact, FileError> {
    let mut affected = Vec::new();
    for doc in docs {
        let a = old.validate_file(&doc.path)?;
        let b = new.validate_file(&doc.path)?;
        let (vanished, appeared) = multiset_difference(&a.diagnostics, &b.diagnostics);
        let (old_verdict, new_verdict) = (Verdict::of(&a), Verdict::of(&b));
        if old_verdict != new_verdict || !appeared.is_empty() || !vanished.is_empty() {
            affected.push(DocumentImpact {
                document: doc.display.clone(),
                old_verdict,
                new_verdict,
                appeared,
                vanished,
            });
        }
    }
    Ok(Impact {
        base: old.catalogue().release.version.to_string(),
        new: new.catalogue().release.version.to_string(),
        changes: compare_catalogues(old.catalogue(), new.catalogue()),
        documents: docs.len(),
        affected,
    })
}

/// (only in `a`, only in `b`), counting duplicates, keeping each side's order.
fn multiset_difference(a: &[Diagnostic], b: &[Diagnostic]) -> (Vec<Diagnostic>, Vec<Diagnostic>) {
    type Key<'a> = (&'a str, &'a str, Severity, &'a [String], &'a str);
    fn k(d: &Diagnostic) -> Key<'_> {
        (&d.rule, &d.pointer, d.severity, &d.versions, &d.message)
    }
    let mut counts: HashMap<Key<'_>, i64> = HashMap::new();
    for d in a {
        *counts.entry(k(d)).or_default() += 1;
    }
    let mut only_b = Vec::new();
    for d in b {
        let c = counts.entry(k(d)).or_default();
        if *c > 0 {
            *c -= 1;
        } else {
            only_b.push(d.clone());
        }
    }
    let mut only_a = Vec::new();
    for d in a.iter().rev() {
        let c = counts.entry(k(d)).or_default();
        if *c > 0 {
            *c -= 1;
            only_a.push(d.clone());
        }
    }
    only_a.reverse();
    (only_a, only_b)
}

/// Renders a field value for people: strings bare, other values as compact JSON.
pub fn show_value(v: &Option<Value>) -> String {
    match v {
        None => "(absent)".into(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => serde_json::to_string(v).unwrap_or_default(),
    }
}
