//! The restricted-profile YAML loader on arbitrary bytes: a document or a load error, never a
//! panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpdesc_core::{Document, Format, Limits};

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_depth: 64,
        max_nodes: 100_000,
        ..Limits::default()
    };
    if let Ok(doc) = Document::parse(data, Format::Yaml, &limits) {
        let _ = doc.position("");
        let _ = doc.value().to_string();
    }
});
