//! The impact of a rule change: what differs between two catalogues (rules added, removed,
//! changed field by field) and what that does to a corpus (verdicts that changed,
//! diagnostics that appeared or vanished).

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::Value;

use super::CorpusDoc;
use crate::diagnostic::{Diagnostic, Severity};
use crate::engine::{Engine, FileError, Report};
use crate::rules::{Catalogue, Rule};

/// One field that differs, with its old and new value (`None`: absent).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldChange {
    /// Dotted path of the field as named in rule files, e.g. `level`,
    /// `applicability.2025-06-18`, `then[1].since`.
    pub field: String,
    pub old: Option<Value>,
    pub new: Option<Value>,
}

/// A rule present in only one of the catalogues.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleSummary {
    pub id: String,
    pub title: String,
    pub owner: String,
    pub level: String,
    pub severity: Severity,
    /// `file:line` in its rules directory.
    pub source: String,
}

/// A rule present in both catalogues whose definition differs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleChange {
    pub id: String,
    pub fields: Vec<FieldChange>,
}

/// What differs between two catalogues.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CatalogueChanges {
    /// Changes of the catalogue definition itself (versions, scope model, ...).
    pub catalogue: Vec<FieldChange>,
    pub added: Vec<RuleSummary>,
    pub removed: Vec<RuleSummary>,
    pub changed: Vec<RuleChange>,
}

impl CatalogueChanges {
    pub fn is_empty(&self) -> bool {
        self.catalogue.is_empty()
            && self.added.is_empty()
            && self.removed.is_empty()
            && self.changed.is_empty()
    }
}

/// Compares two catalogues rule by rule (by id).
pub fn compare_catalogues(old: &Catalogue, new: &Catalogue) -> CatalogueChanges {
    let old_rules: HashMap<&str, &Rule> = old.rules.iter().map(|r| (r.id(), &**r)).collect();
    let new_rules: HashMap<&str, &Rule> = new.rules.iter().map(|r| (r.id(), &**r)).collect();
    let mut changes = CatalogueChanges {
        catalogue: diff_values(&to_value(&old.def), &to_value(&new.def)),
        ..CatalogueChanges::default()
    };
    for r in &new.rules {
        match old_rules.get(r.id()) {
            None => changes.added.push(summary(r)),
            Some(o) => {
                let mut fields = diff_values(&to_value(&o.def), &to_value(&r.def));
                if o.severity != r.severity {
                    fields.push(FieldChange {
                        field: "effective severity".into(),
                        old: Some(Value::from(o.severity.as_str())),
                        new: Some(Value::from(r.severity.as_str())),
                    });
                }
                if !fields.is_empty() {
                    changes.changed.push(RuleChange {
                        id: r.id().to_owned(),
                        fields,
                    });
                }
            }
        }
    }
    for r in &old.rules {
        if !new_rules.contains_key(r.id()) {
            changes.removed.push(summary(r));
        }
    }
    changes.added.sort_by(|a, b| a.id.cmp(&b.id));
    changes.removed.sort_by(|a, b| a.id.cmp(&b.id));
    changes.changed.sort_by(|a, b| a.id.cmp(&b.id));
    changes
}

fn summary(r: &Rule) -> RuleSummary {
    RuleSummary {
        id: r.id().to_owned(),
        title: r.def.title.clone(),
        owner: r.def.owner.as_str().to_owned(),
        level: r.def.level.as_str().to_owned(),
        severity: r.severity,
        source: format!("{}:{}", r.source.file, r.source.line),
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
    pub fn of(report: &Report) -> Verdict {
        if !report.is_valid() {
            Verdict::Invalid
        } else if report.has(Severity::Warning) {
            Verdict::Warning
        } else {
            Verdict::Valid
        }
    }

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
    pub document: String,
    pub old_verdict: Verdict,
    pub new_verdict: Verdict,
    /// Diagnostics only the new catalogue reports.
    pub appeared: Vec<Diagnostic>,
    /// Diagnostics only the old catalogue reports.
    pub vanished: Vec<Diagnostic>,
}

impl DocumentImpact {
    pub fn verdict_changed(&self) -> bool {
        self.old_verdict != self.new_verdict
    }
}

/// One diagnostic that appeared or vanished, with its document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocDiagnostic {
    pub document: String,
    #[serde(flatten)]
    pub diagnostic: Diagnostic,
}

/// The appeared and vanished diagnostics of one rule.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RuleImpact {
    pub appeared: Vec<DocDiagnostic>,
    pub vanished: Vec<DocDiagnostic>,
}

/// The whole impact report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Impact {
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

    pub fn appeared(&self) -> usize {
        self.affected.iter().map(|d| d.appeared.len()).sum()
    }

    pub fn vanished(&self) -> usize {
        self.affected.iter().map(|d| d.vanished.len()).sum()
    }
}

/// Runs `old` and `new` over `docs` and reports what changed.
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
