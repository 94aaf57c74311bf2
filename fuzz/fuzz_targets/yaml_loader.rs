//! The restricted-profile YAML loader on arbitrary bytes: a document or a load error, never a
//! panic or a hang, and the same outcome for the compact document and the value document.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpdesc_core::document::ValueDocument;
use mcpdesc_core::{Document, Format, Limits};

fuzz_target!(|data: &[u8]| {
    let limits = {
        let mut limits = Limits::default();
        limits.max_depth = 64;
        limits.max_nodes = 100_000;
        limits
    };
    let loaded = (
        Document::parse(data, Format::Yaml, &limits),
        ValueDocument::parse(data, Format::Yaml, &limits),
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
});
