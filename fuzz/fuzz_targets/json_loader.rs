//! The JSON loader on arbitrary bytes: it must return a document or a load error, never
//! panic, and every node of a loaded document must have a position.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpdesc_core::{Document, Format, Limits};

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_depth: 64,
        max_nodes: 100_000,
        ..Limits::default()
    };
    if let Ok(doc) = Document::parse(data, Format::Json, &limits) {
        // Whatever was loaded is JSON that serde_json reads back identically.
        let text = doc.value().to_string();
        let again: serde_json::Value = serde_json::from_str(&text).expect("round trip");
        assert_eq!(&again, doc.value());
        let _ = doc.position("");
    }
});
