//! Shared by the corpus harnesses (`conformance`, `structural_cross_check`): locating the
//! upstream conformance corpus and the strict expectations files of known deviations.
//!
//! An expectations file is a YAML list of `{id, reason}`. A harness computes its current
//! deviations (stable string ids) and [`check_expectations`] fails listing every deviation the
//! file does not name and every entry of the file that no longer deviates, so the file can
//! neither hide a regression nor rot. With `MCPDESC_BLESS=1` the file is rewritten instead.

// Each integration test compiles this module separately and uses a different subset of it.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use mcpdesc_core::{Document, Engine, Format, Limits};
use serde::Deserialize;

/// Environment variable naming the corpus directory.
pub(crate) const CORPUS_ENV: &str = "MCPDESC_CONFORMANCE_DIR";

/// Environment variable that makes a harness rewrite its expectations file.
pub(crate) const BLESS_ENV: &str = "MCPDESC_BLESS";

/// Reason recorded for a deviation that is new when blessing.
pub(crate) const DEFAULT_REASON: &str = "not yet implemented";

/// The corpus's published JSON Schema and its validator. The draft it declares is checked, so
/// a wrong file fails loudly (its SHA-256 is not re-checked: no hashing dependency).
pub(crate) fn published_schema(corpus: &Path) -> (serde_json::Value, jsonschema::Validator) {
    use serde_json::Value;
    let schema_path = corpus.join("schema/mcp-description-0.8.0.json");
    let schema_text = std::fs::read_to_string(&schema_path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", schema_path.display()));
    let schema: Value = serde_json::from_str(&schema_text)
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", schema_path.display()));
    assert_eq!(
        schema.get("$schema").and_then(Value::as_str),
        Some("https://json-schema.org/draft/2020-12/schema"),
        "{} is not a draft 2020-12 schema",
        schema_path.display()
    );
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&schema)
        .unwrap_or_else(|e| panic!("{} does not compile: {e}", schema_path.display()));
    (schema, validator)
}

pub(crate) fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace's rules directory, read at run time so rule edits need no rebuild.
pub(crate) fn rules_dir() -> PathBuf {
    manifest_dir().join("../../rules")
}

pub(crate) fn engine() -> Engine {
    let dir = rules_dir();
    Engine::from_dir(&dir)
        .unwrap_or_else(|e| panic!("the rules directory {} does not load:\n{e}", dir.display()))
}

/// Whether we run under CI, where a missing corpus is a failure rather than a skip.
fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// The corpus directory, or `None` (after printing why) when it is absent outside CI.
/// Under CI (`CI` set) an absent corpus fails the test.
pub(crate) fn corpus_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os(CORPUS_ENV) {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => manifest_dir().join("../../../shared/conformance/mcpdesc-0.8.0"),
    };
    if dir.is_dir() {
        return Some(dir);
    }
    if in_ci() {
        panic!(
            "conformance corpus not found at {} (set {CORPUS_ENV}); \
             it is required when CI is set",
            dir.display()
        );
    }
    println!(
        "skipped: conformance corpus not found at {} (set {CORPUS_ENV})",
        dir.display()
    );
    None
}

/// The three fixture folders, in report order.
pub(crate) const FIXTURE_FOLDERS: [&str; 3] =
    ["expected-valid", "expected-invalid", "expected-warning"];

/// One document of the corpus.
#[derive(Debug, Clone)]
pub(crate) struct CorpusFile {
    /// `expected-valid`, `expected-invalid`, `expected-warning` or `examples`.
    pub folder: &'static str,
    pub name: String,
    pub path: PathBuf,
}

impl CorpusFile {
    /// `<folder>/<file>`, as deviation ids name it.
    pub(crate) fn key(&self) -> String {
        format!("{}/{}", self.folder, self.name)
    }

    pub(crate) fn format(&self) -> Format {
        Format::from_path(&self.name)
    }

    /// Decodes the file with the crate's own loader; a corpus document that does not load is
    /// a harness failure.
    pub(crate) fn load(&self) -> Document<'static> {
        let bytes = std::fs::read(&self.path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", self.path.display()));
        Document::parse(&bytes, self.format(), &Limits::default())
            .unwrap_or_else(|e| panic!("{} does not load: {e}", self.key()))
            .into_owned()
    }
}

/// The `.json`, `.yaml` and `.yml` files of `dir`, sorted by name. Fails on a missing folder or
/// on any other entry, so a changed corpus layout cannot shrink the run silently.
pub(crate) fn documents_in(dir: &Path, folder: &'static str) -> Vec<CorpusFile> {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list corpus folder {}: {e}", dir.display()));
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        let ext_ok = [".json", ".yaml", ".yml"].iter().any(|x| name.ends_with(x));
        assert!(
            path.is_file() && ext_ok,
            "unexpected entry {} in the corpus (expected only .json/.yaml documents)",
            path.display()
        );
        out.push(CorpusFile { folder, name, path });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The fixtures of the three folders, with the counts the corpus README states checked.
pub(crate) fn fixtures(corpus: &Path) -> Vec<CorpusFile> {
    let expected_counts = [20usize, 62, 15];
    let mut out = Vec::new();
    for (folder, expected) in FIXTURE_FOLDERS.into_iter().zip(expected_counts) {
        let files = documents_in(&corpus.join("fixtures").join(folder), folder);
        assert_eq!(
            files.len(),
            expected,
            "the corpus README lists {expected} fixtures in {folder}, found {}",
            files.len()
        );
        out.extend(files);
    }
    out
}

/// The examples of the specification (8 YAML documents).
pub(crate) fn examples(corpus: &Path) -> Vec<CorpusFile> {
    let files = documents_in(&corpus.join("examples"), "examples");
    assert_eq!(
        files.len(),
        8,
        "the corpus README lists 8 examples, found {}",
        files.len()
    );
    files
}

// ---------------------------------------------------------------------------------------------
// Expectations files

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Expectation {
    pub id: String,
    pub reason: String,
}

/// Reads an expectations file; a missing file is an empty list.
pub(crate) fn read_expectations(path: &Path) -> Vec<Expectation> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => panic!("cannot read {}: {e}", path.display()),
    };
    let doc = Document::parse_str(&text, Format::Yaml, &Limits::default())
        .unwrap_or_else(|e| panic!("{} is not valid YAML: {e}", path.display()));
    let value = doc.to_value();
    if value.is_null() {
        return Vec::new();
    }
    serde_json::from_value(value).unwrap_or_else(|e| {
        panic!(
            "{} must be a list of {{id, reason}} entries: {e}",
            path.display()
        )
    })
}

/// Writes an expectations file: one `{id, reason}` entry per deviation, strings quoted as JSON
/// strings (valid YAML).
pub(crate) fn write_expectations(path: &Path, header: &str, entries: &[Expectation]) {
    let quote = |s: &str| serde_json::to_string(s).expect("a string serializes");
    let mut text = String::new();
    for line in header.lines() {
        text.push_str("# ");
        text.push_str(line);
        text.push('\n');
    }
    if entries.is_empty() {
        text.push_str("[]\n");
    }
    for e in entries {
        text.push_str(&format!(
            "- id: {}\n  reason: {}\n",
            quote(&e.id),
            quote(&e.reason)
        ));
    }
    std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

fn blessing() -> bool {
    std::env::var_os(BLESS_ENV).is_some_and(|v| v == "1")
}

/// Compares the current `deviations` with the expectations file at `path`.
///
/// Blessing (`MCPDESC_BLESS=1`) rewrites the file with the current deviations, sorted, keeping
/// the reasons of entries that remain and giving new ones [`DEFAULT_REASON`]. Otherwise the
/// call panics listing every unexpected deviation, every stale entry and every duplicate entry.
pub(crate) fn check_expectations(path: &Path, header: &str, deviations: &BTreeSet<String>) {
    let existing = read_expectations(path);
    let mut reasons: BTreeMap<&str, &str> = BTreeMap::new();
    let mut duplicates = Vec::new();
    for e in &existing {
        if reasons.insert(&e.id, &e.reason).is_some() {
            duplicates.push(e.id.clone());
        }
    }

    if blessing() {
        let entries: Vec<Expectation> = deviations
            .iter()
            .map(|id| Expectation {
                id: id.clone(),
                reason: reasons
                    .get(id.as_str())
                    .map_or(DEFAULT_REASON, |r| *r)
                    .to_string(),
            })
            .collect();
        let stale = existing
            .iter()
            .filter(|e| !deviations.contains(&e.id))
            .count();
        let new = deviations
            .iter()
            .filter(|d| !reasons.contains_key(d.as_str()))
            .count();
        write_expectations(path, header, &entries);
        println!(
            "blessed {}: {} entries ({new} new, {stale} removed)",
            path.display(),
            entries.len()
        );
        return;
    }

    let unexpected: Vec<&String> = deviations
        .iter()
        .filter(|d| !reasons.contains_key(d.as_str()))
        .collect();
    let stale: Vec<&str> = reasons
        .keys()
        .copied()
        .filter(|id| !deviations.contains(*id))
        .collect();
    println!(
        "expectations {}: {} entries, {} current deviations",
        path.display(),
        existing.len(),
        deviations.len()
    );
    if unexpected.is_empty() && stale.is_empty() && duplicates.is_empty() {
        return;
    }
    let mut msg = format!("deviations disagree with {}:\n", path.display());
    if !unexpected.is_empty() {
        msg.push_str(&format!(
            "\n{} deviation(s) not in the expectations file (fix them, or add them with a reason):\n",
            unexpected.len()
        ));
        for d in &unexpected {
            msg.push_str(&format!("  + {d}\n"));
        }
    }
    if !stale.is_empty() {
        msg.push_str(&format!(
            "\n{} expectation(s) that no longer deviate (remove them from the file):\n",
            stale.len()
        ));
        for s in &stale {
            msg.push_str(&format!("  - {s}\n"));
        }
    }
    if !duplicates.is_empty() {
        msg.push_str(&format!(
            "\n{} duplicate expectation id(s):\n",
            duplicates.len()
        ));
        for d in &duplicates {
            msg.push_str(&format!("  = {d}\n"));
        }
    }
    msg.push_str(&format!(
        "\nRegenerate with {BLESS_ENV}=1 (existing reasons are kept) after reviewing the change.\n"
    ));
    panic!("{msg}");
}

// ---------------------------------------------------------------------------------------------
// Snapshots

/// Compares `current` (key → one line of JSON) with the snapshot file at `path` (one
/// `key<TAB>line` per entry, sorted by key); with `MCPDESC_BLESS=1` rewrites the file instead.
/// Fails listing every entry that differs, is new or has gone.
pub(crate) fn check_snapshot(path: &Path, current: &BTreeMap<&str, &str>) {
    let text: String = current.iter().map(|(k, v)| format!("{k}\t{v}\n")).collect();
    if blessing() {
        std::fs::create_dir_all(path.parent().expect("has a parent")).expect("snapshot folder");
        std::fs::write(path, text)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    let recorded = std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!(
            "cannot read {} (record it with {BLESS_ENV}=1): {e}",
            path.display()
        )
    });
    let recorded: BTreeMap<&str, &str> = recorded
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .collect();
    let mut problems = Vec::new();
    for (key, line) in current {
        match recorded.get(key) {
            None => problems.push(format!("{key}: not in the snapshot\n    now: {line}")),
            Some(old) if old != line => problems.push(format!(
                "{key}: differs\n    recorded: {old}\n    now:      {line}"
            )),
            Some(_) => {}
        }
    }
    for key in recorded.keys() {
        if !current.contains_key(key) {
            problems.push(format!("{key}: recorded but no longer produced"));
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {} entries differ from {} ({BLESS_ENV}=1 rewrites it):\n{}",
        problems.len(),
        current.len(),
        path.display(),
        problems.join("\n")
    );
}
