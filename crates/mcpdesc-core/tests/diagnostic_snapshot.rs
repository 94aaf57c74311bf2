//! Every diagnostic of every document we hold, compared with a recorded snapshot.
//!
//! The documents: the spec fixtures and traffic captures of this repository (sidecars
//! excluded), every document of the upstream conformance corpus (fixtures, examples,
//! serialization fixtures) and the shared benchmark documents, JSON and YAML. Each is read
//! from its bytes with the format its name gives and validated by the catalogue of the
//! rules directory; the snapshot holds one line per document with its full report (rule,
//! severity, message, pointer, line, column, versions, load error).
//!
//! The snapshot guards the read side of the engine (document model, loaders, path
//! evaluation): a change there must leave every line as it is. A change to a rule changes
//! lines on purpose; rewrite the snapshot with `MCPDESC_BLESS=1` and review the difference.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mcpdesc_core::Format;

const SNAPSHOT: &str = "tests/snapshots/diagnostics.jsonl";

/// Files of `dir` and below whose names end with one of `exts`, as (key, path), sorted.
fn files_under(dir: &Path, key_prefix: &str, exts: &[&str], out: &mut Vec<(String, PathBuf)>) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).unwrap_or_else(|e| panic!("cannot list {}: {e}", d.display()));
        for entry in entries {
            let path = entry
                .unwrap_or_else(|e| panic!("cannot list {}: {e}", d.display()))
                .path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path.to_string_lossy();
            if name.ends_with(".expected.yaml") || !exts.iter().any(|x| name.ends_with(x)) {
                continue;
            }
            let rel = path.strip_prefix(dir).expect("below its directory");
            out.push((format!("{key_prefix}/{}", rel.display()), path));
        }
    }
}

/// The shared benchmark directory, or `None` (after printing why) when absent outside CI.
fn bench_dir() -> Option<PathBuf> {
    let dir = common::manifest_dir().join("../../../shared/bench");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none_or(|v| v.is_empty() || v == "false" || v == "0"),
        "shared benchmark documents not found at {}; they are required when CI is set",
        dir.display()
    );
    println!(
        "skipped the benchmark documents: not found at {}",
        dir.display()
    );
    None
}

fn gunzip(path: &Path) -> Vec<u8> {
    let out = std::process::Command::new("gzip")
        .arg("-dc")
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("cannot run gzip on {}: {e}", path.display()));
    assert!(out.status.success(), "gzip -dc {} failed", path.display());
    out.stdout
}

#[test]
fn every_document_keeps_its_recorded_diagnostics() {
    let engine = common::engine();
    let mut docs: Vec<(String, Format, Vec<u8>)> = Vec::new();

    let mut files = Vec::new();
    let fixtures = common::manifest_dir().join("../../spec-fixtures");
    files_under(
        &fixtures,
        "spec-fixtures",
        &[".json", ".yaml", ".yml", ".ndjson", ".jsonl"],
        &mut files,
    );
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    for sub in ["fixtures", "examples", "serialization-fixtures"] {
        files_under(
            &corpus.join(sub),
            &format!("conformance/{sub}"),
            &[".json", ".yaml", ".yml"],
            &mut files,
        );
    }
    files.sort();
    for (key, path) in files {
        let bytes =
            std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        docs.push((key, Format::from_path(&path.to_string_lossy()), bytes));
    }
    if let Some(bench) = bench_dir() {
        for name in ["small", "medium", "large"] {
            for ext in ["json", "yaml"] {
                let file = format!("{name}.{ext}");
                let bytes = gunzip(&bench.join(format!("{file}.gz")));
                docs.push((format!("bench/{file}"), Format::from_path(&file), bytes));
            }
        }
    }
    assert!(docs.len() > 250, "only {} documents found", docs.len());

    let mut current: BTreeMap<String, String> = BTreeMap::new();
    for (key, format, bytes) in &docs {
        let report = engine.validate_bytes(bytes, *format);
        let line = serde_json::to_string(&report).expect("a report serializes");
        current.insert(key.clone(), line);
    }

    let reports: BTreeMap<&str, &str> = current
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    common::check_snapshot(&common::manifest_dir().join(SNAPSHOT), &reports);
    println!("{} documents match {SNAPSHOT}", reports.len());
}
