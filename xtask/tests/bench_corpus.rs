//! The benchmark corpus is valid under the full rule catalogue, and its YAML form decodes to
//! the same data as its JSON form.

#[allow(dead_code)]
#[path = "../src/bench_corpus.rs"]
mod bench_corpus;

use std::path::Path;

use bench_corpus::{generate, to_json, to_yaml, Size, SEED};
use mcpdesc_core::{Engine, Format};

fn engine() -> Engine {
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules");
    Engine::from_dir(&rules).expect("the rule catalogue compiles")
}

#[test]
fn small_document_is_valid_without_diagnostics() {
    let doc = generate(Size::Small, SEED);
    let engine = engine();
    for (format, text) in [(Format::Json, to_json(&doc)), (Format::Yaml, to_yaml(&doc))] {
        let report = engine.validate_str(&text, format);
        assert!(
            report.load_error.is_none(),
            "{format:?}: {:?}",
            report.load_error
        );
        assert!(
            report.diagnostics.is_empty(),
            "{format:?}: {:#?}",
            report.diagnostics
        );
    }
}

#[test]
fn yaml_and_json_decode_to_the_same_value() {
    let doc = generate(Size::Small, SEED);
    let limits = mcpdesc_core::document::Limits::default();
    let (yaml, json) = (to_yaml(&doc), to_json(&doc));
    let from_yaml = mcpdesc_core::Document::parse_str(&yaml, Format::Yaml, &limits).unwrap();
    let from_json = mcpdesc_core::Document::parse_str(&json, Format::Json, &limits).unwrap();
    assert_eq!(from_yaml.root(), doc);
    assert_eq!(from_json.root(), doc);
}

#[test]
fn generation_is_deterministic() {
    assert_eq!(generate(Size::Small, SEED), generate(Size::Small, SEED));
    assert_ne!(generate(Size::Small, SEED), generate(Size::Small, SEED + 1));
}

#[test]
fn yaml_strings_are_quoted_and_escaped() {
    let doc = serde_json::json!({
        "a": "x: y # z",
        "b": ["", "\u{7f}\u{85}\t\"\\", {}, [], [1, [true, null]], {"c": {"d": 1.5}}],
        "yes": "no",
        "e": {}
    });
    let text = to_yaml(&doc);
    let parsed = mcpdesc_core::Document::parse_str(
        &text,
        Format::Yaml,
        &mcpdesc_core::document::Limits::default(),
    )
    .unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(parsed.root(), doc, "{text}");
}
