//! House rules: a rule set applied on top of every compiled release, so that whichever
//! release judges a document also runs the set's rules, with the set's changes to its own.
//!
//! Unlike a release that `extends` another, a house-rule set changes no release's identity:
//! documents still choose their release by the version they declare, and the release's rule
//! pages stay where they are.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde_json::Value;

use crate::checks::{CheckRegistry, CompileCaches, CompileCx};
use crate::path::JsonPath;

use super::compile::{declared_owners, recompile, PathTable};
use super::file::RuleDef;
use super::file_house::{HouseRuleDef, HouseRulesDef, RescopeDef};
use super::load::{ParsedFile, Problems, Text};
use super::releases::RuleHistory;
use super::{Catalogue, Rule, RuleSource};

/// The top-level keys of a house-rule file.
const KEYS: &[&str] = &["house-rules", "rules", "rescope", "disable"];

/// One house-rules directory, parsed.
pub(super) struct HouseSet {
    pub files: Vec<ParsedFile>,
    /// Other files (schemas), by path relative to the directory.
    pub others: HashMap<String, Text>,
    /// Where the directory is, for a problem of the whole directory.
    pub label: String,
}

/// The header of a set, checked: its definition and the file that holds it.
struct Header<'a> {
    def: HouseRulesDef,
    file: &'a ParsedFile,
}

/// A rule the set names that a release lacks: reported only when every release lacks it.
struct Missing {
    file: String,
    line: u32,
    column: u32,
    message: String,
    releases: usize,
}

/// Applies every set to every release; a problem of a set is reported once, whatever the
/// number of releases it is applied to.
pub(super) fn apply_all(
    releases: &mut [Catalogue],
    sets: &[HouseSet],
    custom: &CheckRegistry,
    problems: &mut Problems,
) {
    for set in sets {
        let Some(header) = header(set, problems) else {
            continue;
        };
        for f in &set.files {
            check_keys(f, problems);
        }
        let mut missing: BTreeMap<(String, u32, u32), Missing> = BTreeMap::new();
        for cat in releases.iter_mut() {
            apply(cat, set, &header, custom, &mut missing, problems);
        }
        for m in missing.into_values() {
            if m.releases == releases.len() {
                problems.push_at(&m.file, m.line, m.column, m.message);
            }
        }
    }
}

/// The set's `house-rules` header: exactly one file carries it.
fn header<'a>(set: &'a HouseSet, problems: &mut Problems) -> Option<Header<'a>> {
    let mut with: Vec<&ParsedFile> = set
        .files
        .iter()
        .filter(|f| f.value("/house-rules").is_some())
        .collect();
    if with.is_empty() {
        problems.push_at(
            &set.label,
            0,
            0,
            "no rule file of this house-rules directory has the `house-rules` header",
        );
        return None;
    }
    let first = with.remove(0);
    for f in with {
        problems.push(
            f,
            "/house-rules",
            format!(
                "a second `house-rules` header; the first is in {}",
                first.path
            ),
        );
    }
    let def = first.deserialize::<HouseRulesDef>("/house-rules", problems)?;
    Some(Header { def, file: first })
}

fn check_keys(f: &ParsedFile, problems: &mut Problems) {
    let Some(Value::Object(map)) = f.value("") else {
        problems.push_value(
            f,
            "",
            "a house-rule file is a mapping with `house-rules`, `rules`, `rescope` and/or `disable`",
        );
        return;
    };
    for k in map.keys().filter(|k| !KEYS.contains(&k.as_str())) {
        let hint = super::suggest::hint(k, KEYS.iter().copied(), || {
            format!(
                "expected one of {}",
                KEYS.iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        });
        problems.push(
            f,
            &format!("/{k}"),
            format!("unknown top-level key `{k}`; {hint}"),
        );
    }
}

/// The indices of the list at `ptr`, or a problem when it is not a list.
fn items(f: &ParsedFile, ptr: &str, problems: &mut Problems) -> std::ops::Range<usize> {
    match f.value(ptr) {
        None => 0..0,
        Some(Value::Array(items)) => 0..items.len(),
        Some(_) => {
            problems.push_value(f, ptr, format!("`{}` is a list", &ptr[1..]));
            0..0
        }
    }
}

fn apply(
    cat: &mut Catalogue,
    set: &HouseSet,
    header: &Header<'_>,
    custom: &CheckRegistry,
    missing: &mut BTreeMap<(String, u32, u32), Missing>,
    problems: &mut Problems,
) {
    let name = header.def.name.clone();
    let (owners, mut pages) = declared_owners(
        &cat.owners,
        &header.def.owners,
        header.file,
        "/house-rules",
        problems,
    );
    if let Some(url) = &header.def.docs_url {
        for o in header.def.owners.iter().map(|d| d.owner()) {
            pages
                .entry(o.as_str().to_owned())
                .or_insert_with(|| url.clone());
        }
    }
    let mut files = (*cat.files).clone();
    files.extend(set.others.iter().map(|(k, v)| (k.clone(), v.clone())));
    let caches = CompileCaches::default();
    let cx = CompileCx {
        versions: &cat.versions,
        files: &files,
        regexes: &caches.regexes,
        parsed: &caches.parsed,
        custom,
        owners: &owners,
    };
    let mut table = PathTable::of(cat);
    let index: HashMap<String, usize> = cat
        .rules
        .iter()
        .enumerate()
        .map(|(i, r)| (r.id().to_owned(), i))
        .collect();
    let mut rules: Vec<Option<Arc<Rule>>> = cat.rules.iter().cloned().map(Some).collect();
    let ids: Vec<String> = index.keys().cloned().collect();
    let mut lacks = |f: &ParsedFile, ptr: &str, id: &str, verb: &str| {
        let pos = f.doc.position(ptr);
        let meant = super::suggest::closest(id, ids.iter().map(String::as_str))
            .map(|c| format!("; did you mean `{c}`?"))
            .unwrap_or_default();
        missing
            .entry((f.path.clone(), pos.line, pos.column))
            .or_insert_with(|| Missing {
                file: f.path.clone(),
                line: pos.line,
                column: pos.column,
                message: format!("cannot {verb} rule `{id}`: no loaded release has it{meant}"),
                releases: 0,
            })
            .releases += 1;
    };
    let mut added: Vec<Arc<Rule>> = Vec::new();
    for f in &set.files {
        for i in items(f, "/disable", problems) {
            let ptr = format!("/disable/{i}");
            let Some(id) = f.deserialize::<String>(&ptr, problems) else {
                continue;
            };
            match index.get(&id) {
                Some(&at) => rules[at] = None,
                None => lacks(f, &ptr, &id, "disable"),
            }
        }
        for i in items(f, "/rescope", problems) {
            let ptr = format!("/rescope/{i}");
            let Some(r) = f.deserialize::<RescopeDef>(&ptr, problems) else {
                continue;
            };
            let Some(&at) = index.get(&r.id) else {
                lacks(f, &format!("{ptr}/id"), &r.id, "re-scope");
                continue;
            };
            let Some(old) = rules[at].clone() else {
                continue;
            };
            let mut def = old.written.as_deref().unwrap_or(&old.def).clone();
            if !rescope(&mut def, r) {
                problems.push_value(
                    f,
                    &ptr,
                    "a re-scoping changes `given`, `given-traffic`, `when`, `level`, `severity` or `applicability`",
                );
                continue;
            }
            let outcome = JsonPath::with_compile_memo(|| {
                recompile(
                    def,
                    old.source.clone(),
                    f,
                    &ptr,
                    &cat.versions,
                    &cx,
                    &cat.surfaces,
                )
            });
            problems.0.extend(outcome.problems.0);
            let Some(mut rule) = outcome.rule else {
                continue;
            };
            table.intern(&mut rule, outcome.given);
            rule.history = old.history.clone();
            rules[at] = Some(Arc::new(rule));
        }
        for i in items(f, "/rules", problems) {
            let ptr = format!("/rules/{i}");
            let Some(h) = f.deserialize::<HouseRuleDef>(&ptr, problems) else {
                continue;
            };
            let id_ptr = format!("{ptr}/id");
            let id = h.id.clone();
            let Some(def) = h.into_rule(&name) else {
                problems.push_value(
                    f,
                    &id_ptr,
                    format!("rule id `{id}` is not dotted lowercase kebab-case"),
                );
                continue;
            };
            if index.contains_key(&id) {
                problems.push_value(
                    f,
                    &id_ptr,
                    format!(
                        "rule `{id}` is a rule of the judging release; change it with `rescope`, or turn it off with `disable`"
                    ),
                );
                continue;
            }
            if let Some(first) = added.iter().find(|r| r.id() == id) {
                problems.push_value(
                    f,
                    &id_ptr,
                    format!(
                        "duplicate rule id `{id}`; first defined at {}:{}:{}",
                        first.source.file, first.source.line, first.source.column
                    ),
                );
                continue;
            }
            let pos = f.doc.position(&ptr);
            let source = RuleSource {
                file: f.path.clone(),
                line: pos.line,
                column: pos.column,
            };
            let outcome = JsonPath::with_compile_memo(|| {
                recompile(def, source, f, &ptr, &cat.versions, &cx, &cat.surfaces)
            });
            problems.0.extend(outcome.problems.0);
            let Some(mut rule) = outcome.rule else {
                continue;
            };
            table.intern(&mut rule, outcome.given);
            rule.history = RuleHistory::added_in(&cat.release.version);
            added.push(Arc::new(rule));
        }
    }
    let mut rules: Vec<Arc<Rule>> = rules.into_iter().flatten().collect();
    rules.extend(added);
    cat.rules = rules;
    cat.paths = table.paths;
    cat.path_kinds = table.kinds;
    cat.owners = owners;
    for (owner, url) in pages {
        cat.owner_pages.entry(owner).or_insert(url);
    }
    cat.house.push(name);
}

/// `def` with the members `r` gives; whether it gives any.
fn rescope(def: &mut RuleDef, r: RescopeDef) -> bool {
    let mut changed = false;
    if let Some(g) = r.given {
        def.given = g;
        changed = true;
    }
    if let Some(g) = r.given_traffic {
        def.given_traffic = g;
        changed = true;
    }
    if changed {
        // New paths replace what the rule read through its surface too.
        def.subject = None;
    }
    if let Some(w) = r.when {
        def.when = Some(w);
        changed = true;
    }
    if let Some(level) = r.level {
        // A severity that only restated the old level's default follows the new level.
        if r.severity.is_none() && def.severity == Some(def.level.default_severity()) {
            def.severity = None;
        }
        def.level = level;
        changed = true;
    }
    if let Some(s) = r.severity {
        def.severity = Some(s);
        changed = true;
    }
    if let Some(a) = r.applicability {
        def.applicability = a;
        changed = true;
    }
    changed
}
