//! The document model: a decoded JSON value plus the source position of every node.
//!
//! Both loaders (JSON and the restricted YAML profile) produce the same [`Document`], so every
//! rule sees one data model whatever the serialization was.

mod capture;
mod json;
mod limits;
pub mod pointer;
mod snapshot;
mod spans;
mod yaml;

pub use capture::MESSAGES;
pub use limits::Limits;
pub use spans::{Position, SpanTree, SpanTreeBuilder};

use serde_json::Value;
use thiserror::Error;

/// The serialization a document was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Json,
    Yaml,
    /// A traffic capture: newline-delimited JSON messages (one per line, optionally
    /// recorded as `{"dir", "msg"}`), a JSON array of messages, or one message.
    Capture,
}

impl Format {
    /// Guesses the format from a file name: `.yaml` / `.yml` are YAML; `.ndjson`, `.jsonl`
    /// and `.traffic.json` are captures; everything else is JSON.
    pub fn from_path(path: &str) -> Format {
        Format::from_extension(path).unwrap_or(Format::Json)
    }

    /// The format a file name's extension names: `.json`, `.yaml` / `.yml`, or a capture's
    /// `.ndjson`, `.jsonl` or `.traffic.json`; none for any other name.
    pub fn from_extension(path: &str) -> Option<Format> {
        let lower = path.to_ascii_lowercase();
        if lower.ends_with(".yaml") || lower.ends_with(".yml") {
            Some(Format::Yaml)
        } else if lower.ends_with(".ndjson")
            || lower.ends_with(".jsonl")
            || lower.ends_with(".traffic.json")
        {
            Some(Format::Capture)
        } else if lower.ends_with(".json") {
            Some(Format::Json)
        } else {
            None
        }
    }
}

/// A decoded document with source positions.
#[derive(Debug, Clone)]
pub struct Document {
    value: Value,
    spans: SpanTree,
    format: Format,
}

/// Refuses an input of `len` bytes past `max-input-bytes`, before any of it is decoded.
fn within_input_limit(len: usize, limits: &Limits) -> Result<(), LoadError> {
    if len as u64 > limits.max_input_bytes {
        return Err(LoadError::new(
            LoadErrorKind::Limit {
                limit: "max-input-bytes",
                value: limits.max_input_bytes,
            },
            Position::START,
        ));
    }
    Ok(())
}

impl Document {
    /// Parses `bytes` as `format` under `limits`.
    ///
    /// A UTF-8 byte order mark is skipped; any other invalid UTF-8 is refused.
    pub fn parse(bytes: &[u8], format: Format, limits: &Limits) -> Result<Document, LoadError> {
        within_input_limit(bytes.len(), limits)?;
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let pos = Position::of_byte_offset(bytes, e.valid_up_to());
            LoadError::new(LoadErrorKind::InvalidUtf8, pos)
        })?;
        Document::parse_str(text, format, limits)
    }

    /// Parses already-decoded text as `format` under `limits`.
    pub fn parse_str(text: &str, format: Format, limits: &Limits) -> Result<Document, LoadError> {
        within_input_limit(text.len(), limits)?;
        let (value, spans) = match format {
            Format::Json => json::parse(text, limits)?,
            Format::Yaml => yaml::parse(text, limits)?,
            Format::Capture => capture::parse(text, limits)?,
        };
        Ok(Document {
            value,
            spans,
            format,
        })
    }

    /// Wraps an already-decoded value; positions are unknown (reported as line 0, column 0).
    pub fn from_value(value: Value) -> Document {
        Document {
            spans: SpanTree::unknown(),
            value,
            format: Format::Json,
        }
    }

    fn from_parts(value: Value, spans: SpanTree, format: Format) -> Document {
        Document {
            value,
            spans,
            format,
        }
    }

    /// The value, without its positions.
    pub fn into_value(self) -> Value {
        self.value
    }

    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The value, to be amended. Positions stay valid for every node that keeps its place:
    /// members appended to an object, or values replaced in place, take the position of their
    /// container or of the node they replace.
    pub fn value_mut(&mut self) -> &mut Value {
        &mut self.value
    }

    pub fn format(&self) -> Format {
        self.format
    }

    pub fn spans(&self) -> &SpanTree {
        &self.spans
    }

    /// The source position of the node at `pointer` (an RFC 6901 JSON Pointer).
    ///
    /// For a pointer that does not resolve, the position of the deepest node that does is
    /// returned, so that a diagnostic about a missing member points at its would-be parent.
    pub fn position(&self, pointer: &str) -> Position {
        self.spans.position(&self.value, pointer)
    }

    /// The value and key positions of the node at `pointer`, when it resolves.
    pub fn node_positions(&self, pointer: &str) -> Option<(Position, Position)> {
        self.spans.node_positions(&self.value, pointer)
    }

    /// The pointer of the innermost node that starts at or before `pos` (see
    /// [`SpanTree::pointer_at`]).
    pub fn pointer_at(&self, pos: Position) -> String {
        self.spans.pointer_at(&self.value, pos)
    }
}

/// Reads at most `limit + 1` bytes of the file at `path` (so an oversized file is refused
/// without reading it whole), into a buffer sized from the file's length rather than one
/// grown by doubling past it.
pub fn read_bounded(path: &std::path::Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let expected = file.metadata().map_or(0, |m| m.len()).min(limit);
    let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0).saturating_add(1));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// A container sized to its contents: parsers grow them by doubling, and the slack of every
/// array and object would otherwise stay for the document's lifetime.
fn exact_array(mut items: Vec<Value>) -> Value {
    items.shrink_to_fit();
    Value::Array(items)
}

/// See [`exact_array`]; an object is rebuilt, as a map cannot shrink in place.
fn exact_object(map: serde_json::Map<String, Value>) -> Value {
    Value::Object(map.into_iter().collect())
}

/// Why a document could not be loaded.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{kind} at line {}, column {}", .position.line, .position.column)]
pub struct LoadError {
    pub kind: LoadErrorKind,
    pub position: Position,
}

impl LoadError {
    pub fn new(kind: LoadErrorKind, position: Position) -> LoadError {
        LoadError { kind, position }
    }
}

/// The kinds of load failure. Each names the serialization rule or limit it enforces.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum LoadErrorKind {
    #[error("input is not valid UTF-8")]
    InvalidUtf8,
    #[error("JSON syntax error: {0}")]
    JsonSyntax(String),
    #[error("YAML syntax error: {0}")]
    YamlSyntax(String),
    #[error("the YAML stream contains no document")]
    EmptyStream,
    #[error("the YAML stream contains more than one document")]
    MultipleDocuments,
    #[error("YAML anchors and aliases are not allowed")]
    Alias,
    #[error("YAML tag `{0}` is not allowed; only the core schema tags are")]
    Tag(String),
    #[error("mapping key is not a string")]
    NonStringKey,
    #[error("duplicate key `{0}`")]
    DuplicateKey(String),
    #[error("number `{0}` is not finite")]
    NonFiniteNumber(String),
    #[error("string contains an unpaired surrogate escape")]
    LoneSurrogate,
    #[error("limit {limit} ({value}) exceeded; raise it with --{limit} if the input is trusted")]
    Limit { limit: &'static str, value: u64 },
}

impl LoadErrorKind {
    /// Every load-error code, as rules name them in `load-error` checks.
    pub const CODES: &'static [&'static str] = &[
        "invalid-utf8",
        "json-syntax",
        "yaml-syntax",
        "empty-stream",
        "multiple-documents",
        "alias",
        "tag",
        "non-string-key",
        "duplicate-key",
        "non-finite-number",
        "lone-surrogate",
        "limit",
    ];

    /// The stable code of this kind of failure.
    pub fn code(&self) -> &'static str {
        match self {
            LoadErrorKind::InvalidUtf8 => "invalid-utf8",
            LoadErrorKind::JsonSyntax(_) => "json-syntax",
            LoadErrorKind::YamlSyntax(_) => "yaml-syntax",
            LoadErrorKind::EmptyStream => "empty-stream",
            LoadErrorKind::MultipleDocuments => "multiple-documents",
            LoadErrorKind::Alias => "alias",
            LoadErrorKind::Tag(_) => "tag",
            LoadErrorKind::NonStringKey => "non-string-key",
            LoadErrorKind::DuplicateKey(_) => "duplicate-key",
            LoadErrorKind::NonFiniteNumber(_) => "non-finite-number",
            LoadErrorKind::LoneSurrogate => "lone-surrogate",
            LoadErrorKind::Limit { .. } => "limit",
        }
    }
}
