//! The rule-file loader and compiler on arbitrary text: every outcome is a catalogue or a list
//! of problems with positions, never a panic. The first byte picks whether the input is an
//! extra rule file next to the embedded catalogue, or replaces `catalogue.yaml` itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpdesc_core::RuleSet;

const CATALOGUE: &str = include_str!("../../rules/catalogue.yaml");

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest).into_owned();
    let files = if mode % 2 == 0 {
        vec![
            ("catalogue.yaml".to_owned(), CATALOGUE.to_owned()),
            ("fuzz.yaml".to_owned(), text),
        ]
    } else {
        vec![("catalogue.yaml".to_owned(), text)]
    };
    if let Err(e) = RuleSet::from_files(files).compile() {
        assert!(!e.problems.is_empty());
        let _ = e.to_string();
    }
});
