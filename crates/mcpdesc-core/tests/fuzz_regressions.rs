//! Replays every input the fuzz targets (`fuzz/fuzz_targets/`) ever found a problem with,
//! through the same code paths, so a fixed crash stays fixed without running the fuzzer.
//!
//! Inputs live in `tests/fuzz-regressions/<target>/`, one file each, named after the
//! libFuzzer artifact they came from.

use std::path::{Path, PathBuf};

use mcpdesc_core::document::ValueDocument;
use mcpdesc_core::{Document, Engine, Format, Limits, RuleSet};

/// The limits the fuzz targets use.
fn fuzz_limits() -> Limits {
    {
        let mut limits = Limits::default();
        limits.max_depth = 64;
        limits.max_nodes = 100_000;
        limits
    }
}

fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz-regressions")
        .join(target);
    let mut out: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n != ".gitkeep"))
                .map(|p| {
                    let bytes = std::fs::read(&p).expect("read regression input");
                    (p, bytes)
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

#[test]
fn json_loader() {
    for (path, data) in inputs("json_loader") {
        eprintln!("{}", path.display());
        for format in [Format::Json, Format::Capture] {
            let loaded = (
                Document::parse(&data, format, &fuzz_limits()),
                ValueDocument::parse(&data, format, &fuzz_limits()),
            );
            let (doc, value_doc) = match loaded {
                (Ok(doc), Ok(value_doc)) => (doc, value_doc),
                (Err(a), Err(b)) => {
                    assert_eq!(a, b, "{format:?}: the loaders fail alike");
                    continue;
                }
                (a, b) => panic!(
                    "{format:?}: one loader failed: {:?} / {:?}",
                    a.err(),
                    b.err()
                ),
            };
            let text = doc.root().to_string();
            let again: serde_json::Value = serde_json::from_str(&text).expect("round trip");
            assert_eq!(doc.root(), again);
            assert_eq!(doc.root(), *value_doc.value());
            assert_eq!(doc.position(""), value_doc.position(""));
        }
    }
}

#[test]
fn yaml_loader() {
    for (path, data) in inputs("yaml_loader") {
        eprintln!("{}", path.display());
        let loaded = (
            Document::parse(&data, Format::Yaml, &fuzz_limits()),
            ValueDocument::parse(&data, Format::Yaml, &fuzz_limits()),
        );
        match loaded {
            (Ok(doc), Ok(value_doc)) => {
                let _ = doc.root().to_string();
                assert_eq!(doc.root(), *value_doc.value());
                assert_eq!(doc.position(""), value_doc.position(""));
            }
            (Err(a), Err(b)) => assert_eq!(a, b, "the loaders fail alike"),
            (a, b) => panic!("one loader failed: {:?} / {:?}", a.err(), b.err()),
        }
    }
}

#[test]
fn rule_loader() {
    let catalogue = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../rules/catalogue.yaml"),
    )
    .expect("catalogue");
    for (path, data) in inputs("rule_loader") {
        eprintln!("{}", path.display());
        let Some((&mode, rest)) = data.split_first() else {
            continue;
        };
        let text = String::from_utf8_lossy(rest).into_owned();
        let files = if mode % 2 == 0 {
            vec![
                ("catalogue.yaml".to_owned(), catalogue.clone()),
                ("fuzz.yaml".to_owned(), text),
            ]
        } else {
            vec![("catalogue.yaml".to_owned(), text)]
        };
        if let Err(e) = RuleSet::from_files(files).compile() {
            assert!(!e.problems.is_empty());
            let _ = e.to_string();
        }
    }
}

#[test]
fn validate() {
    let engine = Engine::embedded()
        .expect("the embedded catalogue compiles")
        .with_limits(fuzz_limits());
    for (path, data) in inputs("validate") {
        eprintln!("{}", path.display());
        let Some((&mode, rest)) = data.split_first() else {
            continue;
        };
        let format = if mode % 2 == 0 {
            Format::Json
        } else {
            Format::Yaml
        };
        let report = engine.validate_bytes(rest, format);
        if report.load_error.is_none() && report.diagnostics.len() < 50 {
            assert_eq!(report, engine.validate_bytes(rest, format), "deterministic");
        }
    }
}
