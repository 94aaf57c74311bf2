//! The check functions rules call, and their registry.
//!
//! A check is compiled once from its options in a rule file and then run on every node the
//! rule selects. Adding a check means one module here and one entry in [`REGISTRY`].

mod base64;
mod closed;
mod compare;
mod custom;
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
mod schema_errors;
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

pub(crate) use custom::Found;
pub use custom::{CheckNode, CheckRegistry, CustomCheck, FindingBuilder, Findings, RegisterError};
pub use tree_instance::{TreeJson, TreeValidator};

use std::collections::HashMap;
use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::document::{LoadErrorKind, ValueRef};
use crate::eval::context::{EvalCtx, Finding};
use crate::relpath::RelPath;
use crate::versions::VersionList;

/// The node a check runs on.
#[derive(Debug, Clone, Copy)]
pub struct Node<'a> {
    /// The node's JSON Pointer in the document.
    pub pointer: &'a str,
    /// The node's value.
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

pub use parsed_files::{ParsedCell, ParsedFiles};
pub use regexes::Regexes;

/// The caches of one catalogue's compilation, kept with the catalogue for the releases that
/// extend it.
#[derive(Debug, Default)]
pub struct CompileCaches {
    /// The regular expressions the catalogue's rules compiled.
    pub regexes: Regexes,
    /// The JSON files of the rules directory the catalogue's checks parsed.
    pub parsed: ParsedFiles,
}

/// What a check may consult while it compiles.
pub struct CompileCx<'a> {
    /// The protocol versions of the catalogue being compiled.
    pub versions: &'a VersionList,
    /// Schema files of the rules directory by relative path (`schemas/x.json`).
    pub files: &'a HashMap<String, crate::rules::Text>,
    /// Regular expressions, shared by every rule of the catalogue.
    pub regexes: &'a Regexes,
    /// Parsed JSON files of the rules directory, shared likewise.
    pub parsed: &'a ParsedFiles,
    /// The checks the embedder registered with the loader, besides the built-in ones.
    pub custom: &'a CheckRegistry,
    /// The owners rule ids may start with.
    pub owners: &'a [crate::rules::file::Owner],
}

impl CompileCx<'_> {
    /// The check function `name`: a built-in one, else one the embedder registered.
    pub(crate) fn find(&self, name: &str) -> Option<Found<'_>> {
        match builtin(name) {
            Some(spec) => Some(Found::BuiltIn(spec)),
            None => self.custom.get(name).map(Found::Custom),
        }
    }

    /// Every check name rules may call here, built-in ones first.
    pub(crate) fn check_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        REGISTRY.iter().map(|s| s.name).chain(self.custom.names())
    }
}

/// An option problem, at a JSON Pointer relative to the check's object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionError {
    /// Where in the check's object the problem is, as a JSON Pointer (empty for the object itself).
    pub pointer: String,
    /// What is wrong with the option, for the load error.
    pub message: String,
}

impl OptionError {
    /// The problem `message` at `pointer`.
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
    /// The name rules give in `check`.
    pub name: &'static str,
    /// One sentence for the rule-format documentation.
    pub summary: &'static str,
    /// Message placeholders its findings fill, besides the common ones.
    pub params: &'static [&'static str],
    /// Compiles a check of this function from its options.
    pub compile: CompileFn,
    /// JSON Schema of its options (without the common keys).
    #[cfg(feature = "schema")]
    pub schema: fn(&mut schemars::SchemaGenerator) -> schemars::Schema,
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

/// The built-in check function `name`; checks an embedder registers are not among them.
pub fn lookup(name: &str) -> Option<&'static CheckSpec> {
    builtin(name)
}

/// The built-in check `name`.
fn builtin(name: &str) -> Option<&'static CheckSpec> {
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
        let mut pointer = path_to_pointer(e.path());
        let message = e.into_inner().to_string();
        // An unknown option is shown at its key, with the option probably meant.
        if let Some(name) = message
            .strip_prefix("unknown field `")
            .and_then(|r| r.split('`').next())
        {
            let key = crate::document::pointer::push(&pointer, name);
            if value.pointer(&key).is_some() {
                pointer = key;
            }
        }
        OptionError {
            pointer,
            message: crate::rules::suggest::serde_message(&message).into_owned(),
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

/// The file of the rules directory that option `at` names (`what`: "schema file"), or why
/// there is none: a path that leaves the release's rules directory (absolute, or climbing out
/// with `..`) is refused as such, and a missing file comes with the closest existing name.
pub(crate) fn rules_file<'a>(
    files: &'a HashMap<String, crate::rules::Text>,
    at: &str,
    name: &str,
    what: &str,
) -> Result<&'a crate::rules::Text, OptionError> {
    if let Some(text) = files.get(name) {
        return Ok(text);
    }
    let names = || files.keys().map(String::as_str);
    let meant = |c: Option<&str>| {
        c.map(|c| format!("; did you mean `{c}`?"))
            .unwrap_or_default()
    };
    // A directory in common makes any two names look alike: the file names must be close too.
    let stem = |p: &str| {
        let file = p.rsplit('/').next().unwrap_or(p);
        file.rsplit_once('.').map_or(file, |(s, _)| s).to_owned()
    };
    let similar = |wrong: &str| {
        crate::rules::suggest::closest(wrong, names())
            .filter(|c| crate::rules::suggest::closest(&stem(wrong), [stem(c).as_str()]).is_some())
    };
    let message = match inside_path(name) {
        Ok(normal) => format!(
            "no {what} `{name}` in the rules directory{}",
            meant(similar(&normal))
        ),
        Err(tail) => {
            // The file the path names, when the rules directory has it: the longest name
            // the path ends with, else the name closest to what follows the climb.
            let ends = names()
                .filter(|c| tail == *c || tail.ends_with(&format!("/{c}")))
                .max_by_key(|c| c.len());
            format!(
                "`{name}` is outside the rules directory: rule files may only read files \
                 inside their release's rules directory, named by their path relative to it{}",
                meant(ends.or_else(|| similar(&tail)))
            )
        }
    };
    Err(OptionError::at(at, message))
}

/// `path` with `.` and `..` resolved when it stays inside the directory; else (an absolute
/// path, or one that climbs out) `Err` with what follows its last `..` or its root.
fn inside_path(path: &str) -> Result<String, String> {
    let absolute = path.starts_with(['/', '\\'])
        || path.as_bytes().get(1) == Some(&b':') && path.as_bytes()[0].is_ascii_alphabetic();
    let mut parts: Vec<&str> = Vec::new();
    let mut out = absolute;
    let mut tail: Vec<&str> = Vec::new();
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    out = true;
                }
                tail.clear();
            }
            p => {
                parts.push(p);
                tail.push(p);
            }
        }
    }
    if out {
        let skip = usize::from(absolute && path.as_bytes().get(1) == Some(&b':'));
        Err(tail[skip.min(tail.len())..].join("/"))
    } else {
        Ok(parts.join("/"))
    }
}

/// The schema of an options struct.
#[cfg(feature = "schema")]
pub(crate) fn schema_of<T: schemars::JsonSchema>(
    gen: &mut schemars::SchemaGenerator,
) -> schemars::Schema {
    gen.subschema_for::<T>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_inside_and_outside_the_rules_directory() {
        assert_eq!(inside_path("schemas/a.json"), Ok("schemas/a.json".into()));
        assert_eq!(
            inside_path("./schemas/x/../a.json"),
            Ok("schemas/a.json".into())
        );
        assert_eq!(inside_path("../a.json"), Err("a.json".into()));
        assert_eq!(
            inside_path("schemas/../../r/a.json"),
            Err("r/a.json".into())
        );
        assert_eq!(inside_path("/home/r/a.json"), Err("home/r/a.json".into()));
        assert_eq!(inside_path("C:\\r\\a.json"), Err("r/a.json".into()));
    }

    #[test]
    fn a_file_named_wrongly_is_refused_with_the_file_meant() {
        let files: HashMap<String, crate::rules::Text> =
            ["schemas/mcp/2025-06-18.json", "schemas/tool.json"]
                .into_iter()
                .map(|p| (p.to_owned(), crate::rules::Text::Borrowed("{}")))
                .collect();
        let message = |name: &str| {
            rules_file(&files, "/f", name, "schema file")
                .unwrap_err()
                .message
        };
        assert!(rules_file(&files, "/f", "schemas/tool.json", "schema file").is_ok());
        assert_eq!(
            message("schemas/mcp/2025-06-81.json"),
            "no schema file `schemas/mcp/2025-06-81.json` in the rules directory; did you mean `schemas/mcp/2025-06-18.json`?"
        );
        assert_eq!(
            message("schemas/other.json"),
            "no schema file `schemas/other.json` in the rules directory"
        );
        assert!(message("../../x/schemas/tool.json").ends_with(
            "is outside the rules directory: rule files may only read files inside their \
             release's rules directory, named by their path relative to it; did you mean \
             `schemas/tool.json`?"
        ));
    }
}
