//! A new MCP protocol revision is a few lines of release data: the test release
//! `tests/releases/next-revision` adds `2026-12-15`, behaving like `2026-07-28` except in one
//! rule. Every fixture and capture, given the new revision beside (or instead of) 2026-07-28,
//! gets the same findings for both revisions, but for that rule's.

use std::path::{Path, PathBuf};

use mcpdesc_core::{Diagnostic, Engine, Format};

mod common;
use serde_json::Value;

const NEW: &str = "2026-12-15";
const LIKE: &str = "2026-07-28";
const CHANGED: &str = "mcp.capabilities.logging-deprecated";

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn release_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/releases/next-revision")
}

fn files(dir: &Path, ends: &[&str], out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, ends, out);
        } else if ends.iter().any(|e| p.to_string_lossy().ends_with(e)) {
            out.push(p);
        }
    }
}

/// A finding with the new revision folded into the one it behaves like; `None` when the
/// finding holds for only one of the two (the difference the release is about, or a bug).
fn folded(d: &Diagnostic) -> Option<(String, String, String, String, Vec<String>)> {
    let has_new = d.versions.iter().any(|v| v == NEW);
    let has_like = d.versions.iter().any(|v| v == LIKE);
    if has_new != has_like {
        return None;
    }
    let message = d
        .message
        .replace(&format!(", {NEW}"), "")
        .replace(&format!(" to {NEW}"), "")
        .replace(NEW, LIKE)
        .replace(", 0.8.1", "");
    Some((
        d.rule.clone(),
        d.pointer.clone(),
        d.severity.as_str().to_owned(),
        message,
        d.versions.iter().filter(|v| *v != NEW).cloned().collect(),
    ))
}

fn plain(d: &Diagnostic) -> (String, String, String, String, Vec<String>) {
    (
        d.rule.clone(),
        d.pointer.clone(),
        d.severity.as_str().to_owned(),
        d.message.clone(),
        d.versions.clone(),
    )
}

/// `2026-12-15` appended to every scope list that names 2026-07-28.
fn add_revision(v: &mut Value) -> bool {
    let mut changed = false;
    match v {
        Value::Object(map) => {
            for (k, child) in map.iter_mut() {
                if k == "protocolVersions" {
                    if let Value::Array(items) = child {
                        if items.iter().any(|i| i == LIKE) {
                            items.push(Value::from(NEW));
                            changed = true;
                        }
                    }
                }
                changed |= add_revision(child);
            }
        }
        Value::Array(items) => {
            for i in items {
                changed |= add_revision(i);
            }
        }
        _ => {}
    }
    changed
}

#[test]
fn the_release_adds_a_revision_in_a_few_lines_and_loads_beside_the_embedded_base() {
    let yaml: usize = std::fs::read_to_string(release_dir().join("catalogue.yaml"))
        .unwrap()
        .lines()
        .count();
    assert!(yaml <= 40, "{yaml} lines of YAML");
    let engine = Engine::from_dirs(&[release_dir()]).expect("the release loads");
    let versions: Vec<String> = engine
        .releases()
        .versions()
        .iter()
        .map(|v| v.to_string())
        .collect();
    assert_eq!(versions, ["0.8.0", "0.8.1"]);
    let old = r#"{"mcpdesc": "0.8.0", "info": {"name": "w", "version": "1.0.0"},
        "protocolVersions": ["2026-07-28", "2026-12-15"]}"#;
    let report = engine.validate_str(old, Format::Json);
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.rule == "mcp.version.known-protocol-versions"
                || d.message.contains("2026-12-15")),
        "0.8.0 does not know 2026-12-15: {:#?}",
        report.diagnostics
    );
    let new = old.replace("0.8.0", "0.8.1");
    let report = engine.validate_str(&new, Format::Json);
    assert_eq!(report.diagnostics, [], "0.8.1 knows it");
}

#[test]
fn every_description_fixture_gets_the_same_findings_for_both_revisions_but_one_rule() {
    let engine = Engine::from_dirs(&[release_dir()]).expect("the release loads");
    let mut fixtures = Vec::new();
    files(
        &workspace().join("spec-fixtures"),
        &[".json"],
        &mut fixtures,
    );
    fixtures.retain(|p| !p.starts_with(workspace().join("spec-fixtures/traffic")));
    let corpus = common::corpus_dir();
    if let Some(corpus) = &corpus {
        files(corpus, &[".json"], &mut fixtures);
    }
    let (mut compared, mut differing) = (0, Vec::new());
    for path in &fixtures {
        let text = std::fs::read_to_string(path).unwrap();
        let Ok(mut value) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        if value.get("mcpdesc").and_then(Value::as_str) != Some("0.8.0") {
            continue;
        }
        let before = serde_json::to_string_pretty(&value).unwrap();
        if !add_revision(&mut value) {
            continue;
        }
        value["mcpdesc"] = Value::from("0.8.1");
        let after = serde_json::to_string_pretty(&value).unwrap();
        let old = engine.validate_str(&before, Format::Json).diagnostics;
        let new = engine.validate_str(&after, Format::Json).diagnostics;
        let name = path.display().to_string();
        let mut expected: Vec<_> = old
            .iter()
            .filter(|d| d.rule != CHANGED)
            .map(plain)
            .collect();
        let mut got = Vec::new();
        for d in new.iter().filter(|d| d.rule != CHANGED) {
            let f = folded(d).unwrap_or_else(|| {
                panic!("{name}: {} holds for one revision only: {d:#?}", d.rule)
            });
            // The scope list itself grew by one entry; its findings point at the same list.
            got.push(f);
        }
        expected.sort();
        got.sort();
        assert_eq!(got, expected, "{name}");
        // The one rule the release changes: its findings hold for 2026-07-28, never 2026-12-15.
        for d in new.iter().filter(|d| d.rule == CHANGED) {
            assert!(!d.versions.iter().any(|v| v == NEW), "{name}: {d:#?}");
            differing.push(name.clone());
        }
        compared += 1;
    }
    let least = if corpus.is_some() { 60 } else { 20 };
    assert!(compared >= least, "only {compared} fixtures name {LIKE}");
    assert!(
        !differing.is_empty(),
        "no fixture shows the amended rule, so the test shows nothing of it"
    );
}

#[test]
fn every_capture_in_the_new_revision_gets_the_findings_it_gets_in_the_revision_it_behaves_like() {
    let base = Engine::embedded().unwrap();
    let engine = Engine::from_dirs(&[release_dir()])
        .unwrap()
        .with_spec_version(Some("0.8.1"))
        .unwrap();
    let mut captures = Vec::new();
    files(
        &workspace().join("spec-fixtures/traffic"),
        &[".ndjson", ".jsonl"],
        &mut captures,
    );
    let mut compared = 0;
    for path in &captures {
        let text = std::fs::read_to_string(path).unwrap();
        if !text.contains(LIKE) {
            continue;
        }
        let format = Format::from_path(&path.to_string_lossy());
        let old = base.validate_str(&text, format).diagnostics;
        let new = engine
            .validate_str(&text.replace(LIKE, NEW), format)
            .diagnostics;
        let name = path
            .strip_prefix(workspace())
            .unwrap()
            .display()
            .to_string();
        let rename = |d: &Diagnostic| {
            let mut d = d.clone();
            d.message = d.message.replace(NEW, LIKE).replace(", 0.8.1", "");
            for v in &mut d.versions {
                if v == NEW {
                    *v = LIKE.to_owned();
                }
            }
            d
        };
        let keep = |d: &&Diagnostic| d.rule != CHANGED;
        let expected: Vec<Diagnostic> = old.iter().filter(keep).cloned().collect();
        let got: Vec<Diagnostic> = new.iter().filter(keep).map(rename).collect();
        assert_eq!(got, expected, "{name}");
        compared += 1;
    }
    assert!(compared >= 5, "only {compared} captures are in {LIKE}");
}

/// The release's files with `extra` appended to its catalogue file, and without its protocol
/// schema unless `schema`.
fn broken_release(extra: &str, schema: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(release_dir().join("catalogue.yaml")).unwrap();
    std::fs::write(dir.path().join("catalogue.yaml"), format!("{text}{extra}")).unwrap();
    if schema {
        std::fs::create_dir_all(dir.path().join("schemas/mcp")).unwrap();
        std::fs::copy(
            release_dir().join("schemas/mcp/2026-12-15.json"),
            dir.path().join("schemas/mcp/2026-12-15.json"),
        )
        .unwrap();
    }
    dir
}

fn problems(dir: &Path) -> Vec<String> {
    match Engine::from_dirs(&[dir.to_path_buf()]) {
        Ok(_) => Vec::new(),
        Err(e) => e.problems.iter().map(|p| p.to_string()).collect(),
    }
}

#[test]
fn a_protocol_schema_the_added_revision_lacks_is_a_load_error_at_the_added_version() {
    let dir = broken_release("", false);
    let found = problems(dir.path());
    assert_eq!(found.len(), 2, "{found:#?}");
    for p in &found {
        assert!(
            p.starts_with("catalogue.yaml:8:7: rule `mcp.wire.")
                && p.contains("no schema file `schemas/mcp/2026-12-15.json` for protocol version `2026-12-15`"),
            "{p}"
        );
    }
}

#[test]
fn amendments_are_checked_where_they_are_written() {
    let dir = broken_release(
        "  - id: mcpdesc.tool.required\n    reason: r\n    levl: should\n\
         \x20 - id: mcpdesc.tool.closed\n    reason: nothing\n\
         \x20 - id: mcpdesc.tool.requird\n    reason: r\n    level: should\n\
         \x20 - id: mcpdesc.tool.field-shapes\n    reason: r\n    message: 'bad {nope}'\n",
        true,
    );
    let found = problems(dir.path());
    assert_eq!(
        found,
        [
            "catalogue.yaml:16:5: unknown field `levl`; did you mean `level`?",
            "catalogue.yaml:17:5: an amendment changes at least one member of the rule",
            "catalogue.yaml:19:9: cannot amend rule `mcpdesc.tool.requird`: release 0.8.0 has no such rule; did you mean `mcpdesc.tool.required`?",
            "catalogue.yaml:24:14: message template uses unknown placeholder(s) nope; available: actual, expected, field, key, pointer, suggestion, type, value, versions",
        ],
        "{found:#?}"
    );
}

#[test]
fn an_amendment_changes_only_what_it_names() {
    let dir = broken_release(
        "  - id: mcpdesc.tool.required\n    reason: Tools without a name are tolerated for now.\n    level: should\n",
        true,
    );
    let engine = Engine::from_dirs(&[dir.path().to_path_buf()]).unwrap();
    let set = engine.releases();
    let [old, new] = set.releases() else {
        panic!("two releases")
    };
    let (o, n) = (
        old.rule("mcpdesc.tool.required").unwrap(),
        new.rule("mcpdesc.tool.required").unwrap(),
    );
    assert_eq!(n.severity.as_str(), "warning");
    assert_eq!(o.severity.as_str(), "error");
    assert_eq!(n.def.title, o.def.title);
    assert_eq!(
        n.check_names().collect::<Vec<_>>(),
        o.check_names().collect::<Vec<_>>()
    );
    let change = n.history.changes.last().unwrap();
    assert_eq!(change.kind.as_str(), "amended");
    assert_eq!(change.fields, ["level"]);
    assert_eq!(n.applicability.get(NEW), o.applicability.get(LIKE));
    let doc = r#"{"mcpdesc": "0.8.1", "info": {"name": "w", "version": "1.0.0"},
        "protocolVersions": ["2026-12-15"], "tools": [{"inputSchema": {"type": "object"}}]}"#;
    let found: Vec<(String, String)> = engine
        .validate_str(doc, Format::Json)
        .diagnostics
        .iter()
        .filter(|d| d.rule == "mcpdesc.tool.required")
        .map(|d| (d.severity.as_str().to_owned(), d.versions.join(",")))
        .collect();
    assert_eq!(found, [("warning".to_owned(), NEW.to_owned())]);
}
