//! Mutation test: the catalogue's structural rules are at least as strict as the published
//! MCP Description 0.8.0 JSON Schema.
//!
//! Every valid document — the corpus's `fixtures/expected-valid/*` and `examples/*`, and our
//! own `spec-fixtures/expected-valid/*` — is mutated one node at a time:
//!
//! - a member or element is replaced by `null`, and by a value of each other JSON type
//!   (`"zz"`, `7`, `true`, `{}`, `[]`);
//! - a non-empty array or object is emptied;
//! - an object gets an unknown member `zzUnknown` and an extension member `x-zz` (kinds
//!   `+zzUnknown` and `+x-zz`).
//!
//! Each mutant is validated by the published schema (draft 2020-12) and by the catalogue's
//! rules of kind `structural` (errors only). Mutations are identified by the node's
//! generalised path — array indices and map keys that the schema does not name (user-chosen
//! names, extensions) become `*` — plus the mutation kind, and only the first mutant of each
//! identifier is run, so one gap is one finding and the run stays small.
//!
//! A disagreement is a deviation `missed:<path>:<kind>` (the schema rejects, our structural
//! rules accept) or `stricter:<path>:<kind>` (ours reject, the schema accepts); a valid
//! document that one side already rejects is not mutated and is a deviation
//! `baseline:<document>:schema=<verdict>:ours=<verdict>`. Known ones are
//! listed with a reason in `tests/structural-mutation-expectations.yaml`, held strictly
//! (unlisted deviations and stale entries both fail). Regenerate with
//! `MCPDESC_BLESS=1 cargo test -p mcpdesc-core --test structural_mutations`.
//!
//! Corpus location and the missing-corpus behaviour are those of `tests/conformance.rs`.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use mcpdesc_core::internal::rules::file::RuleKind;
use mcpdesc_core::{Selection, Severity};
use regex::Regex;
use serde_json::{json, Value};

const EXPECTATIONS_HEADER: &str = "\
Known disagreements between the published 0.8.0 JSON Schema and the catalogue's structural
rules on single-node mutations of valid documents (tests/structural_mutations.rs).
`missed:` the schema rejects the mutant and our structural rules accept it; `stricter:` our
structural rules reject a mutant the schema accepts; `baseline:` a valid document one side
already rejects (it is not mutated). The test fails on a disagreement missing
here and on an entry that no longer disagrees. Regenerate with MCPDESC_BLESS=1 (reasons are
kept).";

/// Bound on the `$ref`/applicator expansion while generalising paths (the schema is recursive).
const EXPAND_DEPTH: usize = 24;

/// One mutation of one node.
struct Mutation {
    /// JSON Pointer tokens of the node (the object, for added members).
    tokens: Vec<String>,
    kind: &'static str,
    /// The replacement value, or the name of the member to add (with the value `"zz"`).
    edit: Edit,
}

enum Edit {
    Replace(Value),
    Add(&'static str),
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The replacement values by mutation kind.
fn replacements() -> [(&'static str, Value); 6] {
    [
        ("null", Value::Null),
        ("string", json!("zz")),
        ("number", json!(7)),
        ("boolean", json!(true)),
        ("object", json!({})),
        ("array", json!([])),
    ]
}

/// All mutations of `value`, found by a depth-first walk in document order.
fn mutations(value: &Value) -> Vec<Mutation> {
    fn walk(v: &Value, tokens: &mut Vec<String>, out: &mut Vec<Mutation>) {
        if !tokens.is_empty() {
            let ty = json_type(v);
            for (kind, repl) in replacements() {
                if kind != ty {
                    out.push(Mutation {
                        tokens: tokens.clone(),
                        kind,
                        edit: Edit::Replace(repl),
                    });
                }
            }
            let empty = match v {
                Value::Array(a) if !a.is_empty() => Some(json!([])),
                Value::Object(o) if !o.is_empty() => Some(json!({})),
                _ => None,
            };
            if let Some(e) = empty {
                out.push(Mutation {
                    tokens: tokens.clone(),
                    kind: "empty",
                    edit: Edit::Replace(e),
                });
            }
        }
        match v {
            Value::Object(o) => {
                for (kind, name) in [("+zzUnknown", "zzUnknown"), ("+x-zz", "x-zz")] {
                    if !o.contains_key(name) {
                        out.push(Mutation {
                            tokens: tokens.clone(),
                            kind,
                            edit: Edit::Add(name),
                        });
                    }
                }
                for (k, c) in o {
                    tokens.push(k.clone());
                    walk(c, tokens, out);
                    tokens.pop();
                }
            }
            Value::Array(a) => {
                for (i, c) in a.iter().enumerate() {
                    tokens.push(i.to_string());
                    walk(c, tokens, out);
                    tokens.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, &mut Vec::new(), &mut out);
    out
}

/// Applies `m` to a copy of `value`.
fn apply(value: &Value, m: &Mutation) -> Value {
    let mut copy = value.clone();
    let mut node = &mut copy;
    for t in &m.tokens {
        node = match node {
            Value::Object(o) => o.get_mut(t).expect("the walk found this member"),
            Value::Array(a) => {
                let i: usize = t.parse().expect("an array index");
                &mut a[i]
            }
            _ => unreachable!("the walk only descends into containers"),
        };
    }
    match &m.edit {
        Edit::Replace(v) => *node = v.clone(),
        Edit::Add(name) => {
            node.as_object_mut()
                .expect("members are added to objects")
                .insert((*name).to_string(), json!("zz"));
        }
    }
    copy
}

/// Generalises instance paths with the published schema: a member name that some applicable
/// subschema lists in `properties` is kept, any other key (matched by `patternProperties` or
/// `additionalProperties`: a user-chosen name or an extension) and every array index
/// becomes `*`.
struct Generaliser<'s> {
    root: &'s Value,
    patterns: BTreeMap<String, Regex>,
}

impl<'s> Generaliser<'s> {
    fn new(root: &'s Value) -> Self {
        let mut patterns = BTreeMap::new();
        fn collect(v: &Value, out: &mut BTreeMap<String, Regex>) {
            match v {
                Value::Object(o) => {
                    if let Some(Value::Object(pp)) = o.get("patternProperties") {
                        for re in pp.keys() {
                            let compiled = Regex::new(re)
                                .unwrap_or_else(|e| panic!("schema pattern {re:?}: {e}"));
                            out.insert(re.clone(), compiled);
                        }
                    }
                    o.values().for_each(|c| collect(c, out));
                }
                Value::Array(a) => a.iter().for_each(|c| collect(c, out)),
                _ => {}
            }
        }
        collect(root, &mut patterns);
        Generaliser { root, patterns }
    }

    /// `s` and every subschema that applies to the same instance (`$ref` targets and the
    /// branches of `allOf`/`anyOf`/`oneOf`).
    fn expand(&self, s: &'s Value, depth: usize, out: &mut Vec<&'s Value>) {
        if depth > EXPAND_DEPTH || out.iter().any(|x| std::ptr::eq(*x, s)) {
            return;
        }
        let Value::Object(o) = s else { return };
        out.push(s);
        if let Some(Value::String(r)) = o.get("$ref") {
            let target = r
                .strip_prefix('#')
                .and_then(|p| self.root.pointer(p))
                .unwrap_or_else(|| panic!("unresolvable schema reference {r}"));
            self.expand(target, depth + 1, out);
        }
        for k in ["allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = o.get(k) {
                for b in branches {
                    self.expand(b, depth + 1, out);
                }
            }
        }
    }

    fn generalise(&self, tokens: &[String]) -> String {
        if tokens.is_empty() {
            return "/".to_string();
        }
        let mut current: Vec<&'s Value> = Vec::new();
        self.expand(self.root, 0, &mut current);
        let mut path = String::new();
        for t in tokens {
            let mut next = Vec::new();
            let mut named = false;
            let is_index = t.parse::<usize>().is_ok();
            for s in &current {
                let Value::Object(o) = s else { continue };
                if is_index {
                    let i: usize = t.parse().expect("checked");
                    if let Some(Value::Array(prefix)) = o.get("prefixItems") {
                        if let Some(p) = prefix.get(i) {
                            next.push(p);
                        }
                    }
                    if let Some(items @ Value::Object(_)) = o.get("items") {
                        next.push(items);
                    }
                }
                if let Some(p) = o.get("properties").and_then(|p| p.get(t)) {
                    named = true;
                    next.push(p);
                    continue;
                }
                if let Some(Value::Object(pp)) = o.get("patternProperties") {
                    for (re, sub) in pp {
                        if self.patterns[re].is_match(t) {
                            next.push(sub);
                        }
                    }
                }
                if let Some(ap @ Value::Object(_)) = o.get("additionalProperties") {
                    next.push(ap);
                }
            }
            path.push('/');
            if named && !is_index {
                path.push_str(&t.replace('~', "~0").replace('/', "~1"));
            } else {
                path.push('*');
            }
            current.clear();
            for s in next {
                self.expand(s, 0, &mut current);
            }
        }
        path
    }
}

fn verdict(valid: bool) -> &'static str {
    if valid {
        "valid"
    } else {
        "invalid"
    }
}

/// A mutant to validate: its identifier, where it came from, and the mutated document.
struct Mutant {
    id: String,
    example: String,
    value: Value,
}

struct Source {
    key: String,
    value: Value,
}

#[test]
fn structural_rules_are_as_strict_as_published_schema_under_mutation() {
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    let (schema, validator) = common::published_schema(&corpus);
    let generaliser = Generaliser::new(&schema);

    // Only the structural rules run; their errors are the verdict.
    let full = common::engine();
    let structural: Vec<String> = full
        .catalogue()
        .rules
        .iter()
        .filter(|r| r.def.kind == RuleKind::Structural)
        .map(|r| r.def.id.clone())
        .collect();
    let engine = full.with_selection(Selection {
        select: structural.clone(),
        ..Selection::default()
    });
    let catalogue = engine.catalogue();
    let accepts = |report: &mcpdesc_core::Report| {
        !report.diagnostics.iter().any(|d| {
            d.severity == Severity::Error
                && catalogue
                    .rule(&d.rule)
                    .is_some_and(|r| r.def.kind == RuleKind::Structural)
        })
    };
    let ours_accepts = |value: &Value| accepts(&engine.validate_value(value));

    // The valid documents: the corpus's, then ours.
    let mut sources: Vec<Source> = Vec::new();
    let mut corpus_files =
        common::documents_in(&corpus.join("fixtures/expected-valid"), "expected-valid");
    corpus_files.extend(common::examples(&corpus));
    for f in &corpus_files {
        sources.push(Source {
            key: format!("corpus:{}", f.key()),
            value: f.load().to_value(),
        });
    }
    let ours_dir = common::manifest_dir().join("../../spec-fixtures/expected-valid");
    // `<name>.expected.yaml` files are the regression runner's sidecars, not documents.
    for f in common::documents_in(&ours_dir, "expected-valid")
        .into_iter()
        .filter(|f| !f.name.ends_with(".expected.yaml"))
    {
        sources.push(Source {
            key: format!("spec-fixtures:{}", f.key()),
            value: f.load().to_value(),
        });
    }

    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut deviations: BTreeSet<String> = BTreeSet::new();
    let mut examples: BTreeMap<String, String> = BTreeMap::new();
    let mut mutants: Vec<Mutant> = Vec::new();
    let (mut skipped_docs, mut schema_rejects, mut ours_rejects) = (0, 0, 0);
    let (mut missed, mut stricter) = (0, 0);
    for src in &sources {
        let base = &src.value;
        // A mutant is compared only against a base both sides accept; a base one side rejects
        // is itself a deviation `baseline:<document>:schema=…:ours=…` and is not mutated.
        let (base_schema, base_ours) = (validator.is_valid(base), ours_accepts(base));
        if !(base_schema && base_ours) {
            let id = format!(
                "baseline:{}:schema={}:ours={}",
                src.key,
                verdict(base_schema),
                verdict(base_ours)
            );
            println!("not mutated: {id}");
            for e in validator.iter_errors(base).take(3) {
                println!("    schema {:?}: {e}", e.instance_path().as_str());
            }
            deviations.insert(id);
            skipped_docs += 1;
            continue;
        }
        // Mutations of one node are consecutive: generalise each node's path once.
        let mut last: Option<(Vec<String>, String)> = None;
        for m in mutations(base) {
            let path = match &last {
                Some((tokens, path)) if *tokens == m.tokens => path.clone(),
                _ => {
                    let path = generaliser.generalise(&m.tokens);
                    last = Some((m.tokens.clone(), path.clone()));
                    path
                }
            };
            let id = format!("{path}:{}", m.kind);
            if !seen.insert(id.clone()) {
                continue;
            }
            let pointer: String = m.tokens.iter().map(|t| format!("/{t}")).collect();
            mutants.push(Mutant {
                id,
                example: format!("{} at {pointer:?}", src.key),
                value: apply(base, &m),
            });
        }
    }

    // Both verdicts of every mutant, computed on all cores (mutants are independent).
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = mutants.len().div_ceil(threads).max(1);
    let verdicts: Vec<(bool, bool, String)> = std::thread::scope(|scope| {
        let workers: Vec<_> = mutants
            .chunks(chunk)
            .map(|part| {
                let (validator, accepts, engine) = (&validator, &accepts, &engine);
                scope.spawn(move || {
                    part.iter()
                        .map(|m| {
                            let report = engine.validate_value(&m.value);
                            let line = serde_json::to_string(&report.diagnostics)
                                .expect("diagnostics serialize");
                            (validator.is_valid(&m.value), accepts(&report), line)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a mutation worker panicked"))
            .collect()
    });

    let run = mutants.len();
    let reports: BTreeMap<&str, &str> = mutants
        .iter()
        .zip(&verdicts)
        .map(|(m, (_, _, line))| (m.id.as_str(), line.as_str()))
        .collect();
    common::check_snapshot(
        &common::manifest_dir().join("tests/snapshots/structural-mutations.jsonl"),
        &reports,
    );
    for (m, &(schema_ok, ours_ok, _)) in mutants.iter().zip(&verdicts) {
        schema_rejects += usize::from(!schema_ok);
        ours_rejects += usize::from(!ours_ok);
        let deviation = match (schema_ok, ours_ok) {
            (false, true) => {
                missed += 1;
                format!("missed:{}", m.id)
            }
            (true, false) => {
                stricter += 1;
                format!("stricter:{}", m.id)
            }
            _ => continue,
        };
        examples.insert(deviation.clone(), m.example.clone());
        deviations.insert(deviation);
    }

    for (d, example) in &examples {
        println!("{d}\n    e.g. {example}");
    }
    println!();
    println!("structural rules: {}", structural.len());
    println!(
        "documents: {} ({} not mutated)",
        sources.len(),
        skipped_docs
    );
    println!("mutants run (one per generalised path and kind): {run}");
    println!("rejected by the schema: {schema_rejects}");
    println!("rejected by our structural rules: {ours_rejects}");
    println!("missed (schema rejects, ours accept): {missed}");
    println!("stricter (ours reject, schema accepts): {stricter}");

    let path = common::manifest_dir().join("tests/structural-mutation-expectations.yaml");
    common::check_expectations(&path, EXPECTATIONS_HEADER, &deviations);
}

#[test]
fn mutations_cover_every_node_and_kind() {
    let doc = json!({"a": [1, {"b": null}]});
    let ms = mutations(&doc);
    let ids: Vec<String> = ms
        .iter()
        .map(|m| format!("/{}:{}", m.tokens.join("/"), m.kind))
        .collect();
    // Root: two additions; /a: 5 retypes + empty; /a/0: 5 retypes; /a/1: 5 retypes + empty
    // + 2 additions; /a/1/b: 5 retypes.
    assert_eq!(ms.len(), 2 + 6 + 5 + 8 + 5, "{ids:?}");
    assert!(ids.contains(&"/a/1/b:string".to_string()));
    assert!(!ids.contains(&"/a/1/b:null".to_string()));
    let m = ms
        .iter()
        .find(|m| m.kind == "+x-zz" && m.tokens.len() == 2)
        .expect("an addition");
    assert_eq!(apply(&doc, m), json!({"a": [1, {"b": null, "x-zz": "zz"}]}));
}

#[test]
fn generalised_paths_hide_indices_and_chosen_names() {
    let schema = json!({
        "properties": {
            "tools": {"items": {"$ref": "#/$defs/tool"}},
            "components": {"additionalProperties": {"type": "object"}}
        },
        "patternProperties": {"^x-": {}},
        "$defs": {"tool": {"allOf": [{"properties": {"annotations": {
            "properties": {"readOnlyHint": {"type": "boolean"}}}}}]}}
    });
    let g = Generaliser::new(&schema);
    let t = |p: &[&str]| g.generalise(&p.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    assert_eq!(
        t(&["tools", "3", "annotations", "readOnlyHint"]),
        "/tools/*/annotations/readOnlyHint"
    );
    assert_eq!(t(&["components", "mine"]), "/components/*");
    assert_eq!(t(&["x-vendor"]), "/*");
    assert_eq!(t(&[]), "/");
}
