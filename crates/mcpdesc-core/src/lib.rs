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

pub mod corpus;
pub mod coverage;
pub mod diagnostic;
pub use mcpdesc_document as document;
mod engine;
pub mod eval;
pub mod examples;
pub mod path;
pub mod relpath;
pub mod rules;
pub mod traffic;
pub mod versions;

pub use diagnostic::{Diagnostic, Severity};
pub use document::{Document, Format, Limits, LoadError, LoadErrorKind};
pub use engine::{Engine, EngineBuilder, FileError, LoadFailure, Report};
pub use eval::Selection;
pub use rules::{Catalogue, Rule, RuleLoadError, RuleProblem, RuleSet};
pub use traffic::DocumentKind;

#[cfg(test)]
mod send_sync {
    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn engine_is_send_and_sync() {
        assert_send_sync::<super::Engine>();
    }
}
