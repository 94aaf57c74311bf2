//! The JSON and capture loaders on arbitrary bytes: each must return a document or a load
//! error, never panic; the compact document and the value document must read JSON alike, and
//! a capture must survive its annotation and every traffic rule.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mcpdesc_core::document::ValueDocument;
use mcpdesc_core::{Document, Engine, Format, Limits};

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| Engine::embedded().expect("the embedded catalogue compiles"))
}

fuzz_target!(|data: &[u8]| {
    let limits = {
        let mut limits = Limits::default();
        limits.max_depth = 64;
        limits.max_nodes = 100_000;
        limits
    };
    for format in [Format::Json, Format::Capture] {
        let loaded = (
            Document::parse(data, format, &limits),
            ValueDocument::parse(data, format, &limits),
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
        // Whatever was loaded is JSON that serde_json reads back identically.
        let text = doc.root().to_string();
        let again: serde_json::Value = serde_json::from_str(&text).expect("round trip");
        assert_eq!(doc.root(), again);
        assert_eq!(doc.root(), *value_doc.value());
        assert_eq!(doc.position(""), value_doc.position(""));
        if format == Format::Capture {
            // Annotating adds members to the tree; the messages themselves stay as read.
            let report = engine().validate_document(&doc);
            let direct = engine().validate_bytes(data, Format::Capture);
            assert_eq!(report.diagnostics, direct.diagnostics);
        }
    }
});
