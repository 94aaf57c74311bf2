//! The JSON and capture loaders on arbitrary bytes: each must return a document or a load
//! error, never panic; every node of a loaded document must have a position, and the compact
//! document and the value document must read the same bytes alike.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpdesc_core::document::ValueDocument;
use mcpdesc_core::{Document, Format, Limits};

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_depth: 64,
        max_nodes: 100_000,
        ..Limits::default()
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
    }
});
