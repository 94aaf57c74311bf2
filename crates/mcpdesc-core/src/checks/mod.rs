//! The check functions rules call, and their registry.
//!
//! A check is compiled once from its options in a rule file and then run on every node the
//! rule selects. Adding a check means one module here and one entry in [`REGISTRY`].

mod base64;
mod closed;
mod compare;
mod earlier_message;
mod flag;
mod json_schema;
mod json_schema_document;
mod known_names;
mod known_version;
mod load_error;
mod local_reference;
mod matches_entry;
mod membership;
mod named_entry;
mod non_empty;
mod parsed_files;
mod pattern;
mod presence;
mod protocol_schema;
mod reference;
mod regexes;
mod schema_walk;
mod scope_sets;
mod scopes_disjoint;
mod supported_version;
#[cfg(test)]
mod tests_support;
mod tree_instance;
mod type_enum;
mod unique;
mod uri_template;
mod version_range;

pub use tree_instance::{TreeJson, TreeValidator};

use std::collections::HashMap;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::document::{LoadErrorKind, ValueRef};
use crate::eval::context::{EvalCtx, Finding};
use crate::relpath::RelPath;
use crate::versions::VersionList;

/// The node a check runs on.
#[derive(Debug, Clone, Copy)]
pub struct Node<'a> {
    pub pointer: &'a str,
    pub value: ValueRef<'a>,
}

/// A compiled check.
pub trait Check: Send + Sync + fmt::Debug {
    /// Appends a finding for each problem of `node`.
    fn run(&self, node: Node<'_>, cx: &EvalCtx<'_>, out: &mut Vec<Finding>);

    /// Whether the outcome depends on the protocol version being evaluated.
    fn version_sensitive(&self) -> bool {
        false
    }

    /// For checks about the raw source: the finding for a document that failed to load, read
    /// as `format` (`None` for a limit the evaluation met, whatever the format).
    fn on_load_error(
        &self,
        _error: &LoadErrorKind,
        _format: Option<crate::document::Format>,
    ) -> Option<Finding> {
        None
    }
}

/// What a check may consult while it compiles.
pub use parsed_files::{ParsedCell, ParsedFiles};
pub use regexes::Regexes;

pub struct CompileCx<'a> {
    pub versions: &'a VersionList,
    /// Schema files of the rules directory by relative path (`schemas/x.json`).
    pub files: &'a HashMap<String, crate::rules::Text>,
    /// Regular expressions, shared by every rule of the catalogue.
    pub regexes: &'a Regexes,
    /// Parsed JSON files of the rules directory, shared likewise.
    pub parsed: &'a ParsedFiles,
}

/// An option problem, at a JSON Pointer relative to the check's object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionError {
    pub pointer: String,
    pub message: String,
}

impl OptionError {
    pub fn at(pointer: impl Into<String>, message: impl Into<String>) -> OptionError {
        OptionError {
            pointer: pointer.into(),
            message: message.into(),
        }
    }
}

/// Compiles a check from its options object.
pub type CompileFn = fn(&Map<String, Value>, &CompileCx<'_>) -> Result<Box<dyn Check>, OptionError>;

/// One registered check function.
pub struct CheckSpec {
    pub name: &'static str,
    /// One sentence for the rule-format documentation.
    pub summary: &'static str,
    /// Message placeholders its findings fill, besides the common ones.
    pub params: &'static [&'static str],
    pub compile: CompileFn,
    /// JSON Schema of its options (without the common keys).
    pub schema: fn(&mut SchemaGenerator) -> Schema,
}

/// Every check function rules may name.
pub static REGISTRY: &[CheckSpec] = &[
    presence::REQUIRED,
    presence::FORBIDDEN,
    type_enum::TYPE,
    type_enum::ENUM,
    pattern::SPEC,
    non_empty::SPEC,
    unique::SPEC,
    reference::SPEC,
    matches_entry::SPEC,
    version_range::SPEC,
    json_schema::SPEC,
    closed::SPEC,
    supported_version::SPEC,
    known_version::SPEC,
    load_error::SPEC,
    scopes_disjoint::SPEC,
    uri_template::SPEC,
    base64::SPEC,
    compare::SPEC,
    membership::SPEC,
    schema_walk::SPEC,
    json_schema_document::SPEC,
    scope_sets::SUBSET,
    scope_sets::COVERAGE,
    named_entry::SPEC,
    local_reference::SPEC,
    known_names::SPEC,
    protocol_schema::SPEC,
    earlier_message::SPEC,
    flag::SPEC,
];

pub fn lookup(name: &str) -> Option<&'static CheckSpec> {
    REGISTRY.iter().find(|s| s.name == name)
}

/// Keys every check object may carry, handled by the evaluator rather than the check.
pub const COMMON_KEYS: &[&str] = &["check", "at", "when", "message"];

/// Deserializes a check's own options (the common keys removed), reporting the path of the
/// first problem.
pub(crate) fn options<T: DeserializeOwned>(map: &Map<String, Value>) -> Result<T, OptionError> {
    let own: Map<String, Value> = map
        .iter()
        .filter(|(k, _)| !COMMON_KEYS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let value = Value::Object(own);
    serde_path_to_error::deserialize::<_, T>(&value).map_err(|e| {
        let pointer = path_to_pointer(e.path());
        OptionError {
            pointer,
            message: e.into_inner().to_string(),
        }
    })
}

fn path_to_pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for seg in path.iter() {
        match seg {
            Segment::Seq { index } => {
                out = crate::document::pointer::push(&out, &index.to_string())
            }
            Segment::Map { key } => out = crate::document::pointer::push(&out, key),
            Segment::Enum { variant } => out = crate::document::pointer::push(&out, variant),
            Segment::Unknown => {}
        }
    }
    out
}

/// Compiles a relative path option, reporting errors at `field`.
pub(crate) fn relpath(field: &str, text: &str) -> Result<RelPath, OptionError> {
    RelPath::compile(text).map_err(|e| OptionError::at(format!("/{field}"), e.to_string()))
}

/// The schema of an options struct.
pub(crate) fn schema_of<T: JsonSchema>(gen: &mut SchemaGenerator) -> Schema {
    gen.subschema_for::<T>()
}
