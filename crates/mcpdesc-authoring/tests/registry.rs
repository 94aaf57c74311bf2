//! The registry of the workspace's catalogue is well-formed: unique ids, non-empty texts,
//! messages in house style, full applicability tables and well-formed section references.

use std::collections::HashSet;
use std::path::PathBuf;

use mcpdesc_authoring::corpus::registry::is_section_ref;
use mcpdesc_core::Engine;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn engine() -> Engine {
    Engine::from_dir(workspace().join("rules")).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn registry_is_well_formed() {
    let engine = engine();
    let cat = engine.catalogue();
    let mut ids = HashSet::new();
    for rule in &cat.rules {
        assert!(ids.insert(rule.id()), "duplicate id {}", rule.id());
        let d = &rule.def;
        for (name, text) in [
            ("title", &d.title),
            ("description", &d.description),
            ("requirement", &d.requirement),
            ("message", &d.message),
        ] {
            assert!(!text.trim().is_empty(), "{}: empty {name}", rule.id());
        }
        assert!(
            !d.message.ends_with('.')
                && d.message.chars().next().is_some_and(|c| !c.is_uppercase()),
            "{}: messages start lowercase and have no trailing period",
            rule.id()
        );
        assert_eq!(
            rule.applicability.len(),
            cat.versions.len(),
            "{}: applicability table",
            rule.id()
        );
        for s in &d.required_by.sections {
            assert!(is_section_ref(s), "{}: malformed section `{s}`", rule.id());
        }
    }
}
