//! Data-driven rule engine for MCP Description documents.
//!
//! Rules are YAML data (the rule format is documented with the project); this crate compiles
//! them once into an [`Engine`], reads JSON and restricted-profile YAML documents with source
//! positions, and evaluates every rule once per protocol version in scope at each node it
//! selects. The default catalogue is embedded: [`Engine::embedded`] needs no files.
//!
//! ```
//! use mcpdesc_core::{Engine, Format, Severity};
//!
//! let engine = Engine::embedded()?;
//! let report = engine.validate_str(
//!     "mcpdesc: 0.8.0\ninfo: {name: demo, version: 1.0.0}\nprotocolVersions: [2025-11-25]\n",
//!     Format::Yaml,
//! );
//! assert!(report.is_valid());
//! for diagnostic in &report.diagnostics {
//!     // One line each: position, severity, rule id, message, pointer, page link.
//!     println!("{diagnostic}");
//!     assert!(diagnostic.severity < Severity::Error);
//! }
//! # Ok::<(), mcpdesc_core::RuleLoadError>(())
//! ```
//!
//! # Extending the catalogue
//!
//! [`Engine::builder`] adds house rules ([`EngineBuilder::house_rules`]: rules of your own owner
//! prefix, re-scoped or disabled built-in rules, applied on top of whichever release judges a
//! document) and check functions of your own ([`CustomCheck`], registered with
//! [`EngineBuilder::check`]) that rule files then name like built-in ones.
//!
//! # Stability
//!
//! The items documented here are the API. Modules hidden from this documentation serve the
//! other crates of the mcpdesc workspace (the command line, the language server, the spec
//! authors' tools); they carry no stability promise and change in any release.

#![warn(missing_docs)]

mod checks;

/// The hasher of the maps evaluation builds per document (strings and ids read from it):
/// `foldhash`, seeded at random per map like the standard library's, and several times faster
/// than SipHash on such keys.
pub(crate) type FastHash = foldhash::fast::RandomState;

mod diagnostic;
mod doc_urls;
pub use mcpdesc_document as document;
mod engine;
mod eval;
mod examples;
pub(crate) mod page_layout;
mod path;
mod relpath;
mod rules;
mod traffic;
mod versions;

pub use checks::{CheckNode, CheckRegistry, CustomCheck, FindingBuilder, Findings, RegisterError};
pub use diagnostic::{Diagnostic, Severity};
pub use doc_urls::DocUrls;
pub use document::{Document, Format, Limits, LoadError, LoadErrorKind};
pub use engine::{Engine, EngineBuilder, FileError, LoadFailure, Report};
pub use eval::{Selection, UnknownProtocolVersion};
pub use rules::releases::UnservedVersion;
pub use rules::{Catalogue, Rule, RuleLoadError, RuleProblem, RuleSet, RuleSource};
pub use traffic::DocumentKind;

/// Engine internals that the workspace's own crates (the authoring tools, the command line)
/// build on. Not part of the embedding API: nothing here carries a stability promise, and it
/// may change or go away in any release.
#[doc(hidden)]
pub mod internal {
    /// The modules of the engine, as the workspace's crates reach them.
    pub mod checks {
        pub use crate::checks::*;
    }
    pub mod diagnostic {
        pub use crate::diagnostic::*;
    }
    pub mod eval {
        pub use crate::eval::*;
    }
    pub mod examples {
        pub use crate::examples::*;
    }
    pub mod path {
        pub use crate::path::*;
    }
    pub mod relpath {
        pub use crate::relpath::*;
    }
    pub mod rules {
        pub use crate::rules::*;
    }
    pub mod traffic {
        pub use crate::traffic::*;
    }
    pub mod versions {
        pub use crate::versions::*;
    }

    /// The patterns, template syntax and load-time checks of a catalogue's `pages` block.
    pub mod page_layout {
        pub use crate::page_layout::*;
    }

    pub use crate::doc_urls::{expand_docs_url, is_absolute_uri, page_var, release_dir, rule_name};
    pub use crate::examples::{run_examples, ExampleOutcome};
    pub use crate::rules::embedded::RULES_DIR;
    pub use crate::rules::file::{
        Applicability, Example, Level, MessageContext, PageSection, PagesDef, RuleDef, RuleKind,
        SourceLinksDef,
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
