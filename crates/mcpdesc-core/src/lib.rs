//! Data-driven rule engine for MCP Description documents.
//!
//! Rules are YAML data (see `docs/rule-format.md`); this crate parses them into a typed IR,
//! reads JSON and restricted-profile YAML documents with source positions, and evaluates
//! every rule once per protocol version in scope at each node it selects.
//!
//! Start with [`Engine`].

pub mod checks;

/// The hasher of the maps evaluation builds per document (strings and ids read from it):
/// `foldhash`, seeded at random per map like the standard library's, and several times faster
/// than SipHash on such keys.
pub(crate) type FastHash = foldhash::fast::RandomState;

pub mod diagnostic;
mod doc_urls;
pub use mcpdesc_document as document;
mod engine;
pub mod eval;
pub mod examples;
pub(crate) mod page_layout;
pub mod path;
pub mod relpath;
pub mod rules;
pub mod traffic;
pub mod versions;

pub use diagnostic::{Diagnostic, Severity};
pub use doc_urls::DocUrls;
pub use document::{Document, Format, Limits, LoadError, LoadErrorKind};
pub use engine::{Engine, EngineBuilder, FileError, LoadFailure, Report};
pub use eval::Selection;
pub use rules::{Catalogue, Rule, RuleLoadError, RuleProblem, RuleSet};
pub use traffic::DocumentKind;

/// Engine internals that the workspace's own crates (the authoring tools, the command line)
/// build on. Not part of the embedding API: nothing here carries a stability promise, and it
/// may change or go away in any release.
#[doc(hidden)]
pub mod internal {
    /// The patterns, template syntax and load-time checks of a catalogue's `pages` block.
    pub mod page_layout {
        pub use crate::page_layout::*;
    }

    pub use crate::doc_urls::{expand_docs_url, is_absolute_uri, page_var, release_dir, rule_name};
    pub use crate::examples::{run_examples, ExampleOutcome};
    pub use crate::rules::embedded::RULES_DIR;
    pub use crate::rules::file::{
        Applicability, Example, Level, PageSection, PagesDef, RuleDef, RuleKind, SourceLinksDef,
    };
    pub use crate::rules::releases::{describe, ChangeKind, RetiredRule};
    pub use crate::rules::{CatalogueSet, RuleSource, Text};

    /// The rule as its file wrote it (version placeholders unresolved), else as resolved.
    pub fn rule_as_written(rule: &crate::Rule) -> &RuleDef {
        rule.written.as_deref().unwrap_or(&rule.def)
    }

    /// One of a release's other files (schemas, page templates), by path relative to its
    /// directory.
    pub fn release_file<'a>(cat: &'a crate::Catalogue, path: &str) -> Option<&'a Text> {
        cat.files.get(path)
    }
}

#[cfg(test)]
mod send_sync {
    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn engine_is_send_and_sync() {
        assert_send_sync::<super::Engine>();
    }
}
