//! The document model: the compact tree of a document plus the source position of every node.
//!
//! Both loaders (JSON and the restricted YAML profile) produce the same [`Document`], so every
//! rule sees one data model whatever the serialization was.

mod capture;
mod json;
mod limits;
pub mod pointer;
mod sink;
mod snapshot;
mod spans;
pub mod tree;
mod yaml;

pub use capture::MESSAGES;
pub use limits::Limits;
pub use spans::{Position, SpanTree, SpanTreeBuilder};
pub use tree::{Added, ArrayRef, Kind, ObjectRef, Tree, ValueRef};

use serde_json::Value;
use thiserror::Error;

/// The serialization a document was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// JSON text (RFC 8259).
    Json,
    /// YAML text in the specification's restricted profile: one document, no anchors or
    /// aliases, only core schema tags.
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

/// A document read for validation: its compact tree (see [`tree`]) and its format.
///
/// A document read from text borrows its keys and strings from that text (`'t`);
/// [`Document::into_owned`] makes one that owns its text.
#[derive(Debug, Clone)]
pub struct Document<'t> {
    tree: Tree<'t>,
    format: Format,
}

impl<'t> Document<'t> {
    /// Parses `bytes` as `format` under `limits`.
    ///
    /// A UTF-8 byte order mark is skipped; any other invalid UTF-8 is refused.
    pub fn parse(
        bytes: &'t [u8],
        format: Format,
        limits: &Limits,
    ) -> Result<Document<'t>, LoadError> {
        Document::parse_str(decode(bytes, limits)?, format, limits)
    }

    /// Parses already-decoded text as `format` under `limits`.
    pub fn parse_str(
        text: &'t str,
        format: Format,
        limits: &Limits,
    ) -> Result<Document<'t>, LoadError> {
        within_input_limit(text.len(), limits)?;
        let tree = match format {
            Format::Json => json::parse_tree(text, limits)?,
            Format::Yaml => yaml::parse_tree(text, limits)?,
            Format::Capture => capture::parse_tree(text, limits)?,
        };
        Ok(Document { tree, format })
    }

    /// A document of an already-decoded value; positions are unknown (line 0, column 0).
    pub fn from_value(value: &Value) -> Document<'static> {
        Document {
            tree: Tree::from_value(value),
            format: Format::Json,
        }
    }

    /// The document owning its source text.
    pub fn into_owned(self) -> Document<'static> {
        Document {
            tree: self.tree.into_owned(),
            format: self.format,
        }
    }

    /// The root value.
    pub fn root(&self) -> ValueRef<'_> {
        self.tree.root()
    }

    /// The document as a value with the same positions.
    pub fn to_value_document(&self) -> ValueDocument {
        let (value, spans) = self.tree.to_value_and_spans();
        ValueDocument::from_parts(value, spans, self.format)
    }

    /// The whole document as a `serde_json` value.
    pub fn to_value(&self) -> Value {
        self.root().to_value()
    }

    /// The compact tree of the document's nodes.
    pub fn tree(&self) -> &Tree<'t> {
        &self.tree
    }

    /// Sets `members` of the object whose node is `object` ([`ValueRef::id`]): a member it
    /// has takes the new value in place, the others follow its members. What is added takes
    /// the object's position, and its keys have none.
    pub fn add_members(&mut self, object: u32, members: Vec<(&str, Added)>) {
        self.tree.add_members(object, members);
    }

    /// [`Document::add_members`] for each object of `edits`, in order: the keys and fixed
    /// texts the objects share are stored once.
    pub fn add_members_each<'k>(
        &mut self,
        edits: impl IntoIterator<Item = (u32, Vec<(&'k str, Added)>)>,
    ) {
        self.tree.add_members_each(edits);
    }

    /// The format the document was read as.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.tree.len()
    }

    /// Whether the document has no node (never the case for a parsed one).
    pub fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }

    /// The source position of the node at `pointer` (an RFC 6901 JSON Pointer).
    ///
    /// For a pointer that does not resolve, the position of the deepest node that does is
    /// returned, so that a diagnostic about a missing member points at its would-be parent.
    pub fn position(&self, pointer: &str) -> Position {
        self.tree.locate(pointer).0
    }

    /// Position of the key of the member at `pointer`, or of its value when it has no key
    /// (array elements, the root) or the pointer does not resolve.
    pub fn key_position(&self, pointer: &str) -> Position {
        let (value, key, exact) = self.tree.locate(pointer);
        if exact && key.line != 0 {
            key
        } else {
            value
        }
    }

    /// The value and key positions of the node at `pointer`, when it resolves (the key is
    /// [`Position::UNKNOWN`] for array elements and the root).
    pub fn node_positions(&self, pointer: &str) -> Option<(Position, Position)> {
        let (value, key, exact) = self.tree.locate(pointer);
        (exact && value.line != 0).then_some((value, key))
    }

    /// The pointer of the innermost node whose text starts at or before `pos`: descending
    /// from the root, the last child (by its key, or its value when it has none) that starts
    /// no later than `pos`. Editors ask this of a cursor position.
    pub fn pointer_at(&self, pos: Position) -> String {
        self.tree.pointer_at(pos)
    }
}

/// A document decoded as a `serde_json` value, with the source position of every node: the
/// form of rule files and of traffic captures before they are annotated.
#[derive(Debug, Clone)]
pub struct ValueDocument {
    value: Value,
    spans: SpanTree,
    format: Format,
}

/// The text of `bytes` within the input limit: a UTF-8 byte order mark is skipped, any other
/// invalid UTF-8 refused.
fn decode<'b>(bytes: &'b [u8], limits: &Limits) -> Result<&'b str, LoadError> {
    within_input_limit(bytes.len(), limits)?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    std::str::from_utf8(bytes).map_err(|e| {
        let pos = Position::of_byte_offset(bytes, e.valid_up_to());
        LoadError::new(LoadErrorKind::InvalidUtf8, pos)
    })
}

/// Refuses an input of `len` bytes past `max-input-bytes`, before any of it is decoded.
fn within_input_limit(len: usize, limits: &Limits) -> Result<(), LoadError> {
    // Positions are 32-bit offsets: no setting of the limit admits more than they address.
    let max = limits.max_input_bytes.min(u64::from(u32::MAX - 1));
    if len as u64 > max {
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

impl ValueDocument {
    /// Parses `bytes` as `format` under `limits`.
    ///
    /// A UTF-8 byte order mark is skipped; any other invalid UTF-8 is refused.
    pub fn parse(
        bytes: &[u8],
        format: Format,
        limits: &Limits,
    ) -> Result<ValueDocument, LoadError> {
        ValueDocument::parse_str(decode(bytes, limits)?, format, limits)
    }

    /// Parses already-decoded text as `format` under `limits`.
    pub fn parse_str(
        text: &str,
        format: Format,
        limits: &Limits,
    ) -> Result<ValueDocument, LoadError> {
        within_input_limit(text.len(), limits)?;
        let (value, spans) = match format {
            Format::Json => json::parse(text, limits)?,
            Format::Yaml => yaml::parse(text, limits)?,
            Format::Capture => capture::parse_tree(text, limits)?.to_value_and_spans(),
        };
        Ok(ValueDocument {
            value,
            spans,
            format,
        })
    }

    /// Wraps an already-decoded value; positions are unknown (reported as line 0, column 0).
    pub fn from_value(value: Value) -> ValueDocument {
        ValueDocument {
            spans: SpanTree::unknown(),
            value,
            format: Format::Json,
        }
    }

    fn from_parts(value: Value, spans: SpanTree, format: Format) -> ValueDocument {
        ValueDocument {
            value,
            spans,
            format,
        }
    }

    /// The value, without its positions.
    pub fn into_value(self) -> Value {
        self.value
    }

    /// The value, without its positions.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The value, to be amended. Positions stay valid for every node that keeps its place:
    /// members appended to an object, or values replaced in place, take the position of their
    /// container or of the node they replace.
    pub fn value_mut(&mut self) -> &mut Value {
        &mut self.value
    }

    /// The format the document was read as ([`Format::Json`] for one built from a value).
    pub fn format(&self) -> Format {
        self.format
    }

    /// The source positions of the value's nodes.
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

    /// Position of the key of the member at `pointer`, or of its value when it has no key.
    pub fn key_position(&self, pointer: &str) -> Position {
        self.spans.key_position(&self.value, pointer)
    }

    /// The compact document of this value, with the same positions.
    pub fn into_document(self) -> Document<'static> {
        let tree = Tree::from_value_and_spans(&self.value, &self.spans);
        Document {
            tree,
            format: self.format,
        }
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

/// Why a document could not be loaded.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{kind} at line {}, column {}", .position.line, .position.column)]
pub struct LoadError {
    /// What went wrong.
    pub kind: LoadErrorKind,
    /// Where in the input it went wrong.
    pub position: Position,
}

impl LoadError {
    /// A failure of `kind` at `position`.
    pub fn new(kind: LoadErrorKind, position: Position) -> LoadError {
        LoadError { kind, position }
    }
}

/// The kinds of load failure. Each names the serialization rule or limit it enforces.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum LoadErrorKind {
    /// The input is not valid UTF-8 (after an optional byte order mark).
    #[error("input is not valid UTF-8")]
    InvalidUtf8,
    /// The JSON text is malformed; the parser's message says how.
    #[error("JSON syntax error: {0}")]
    JsonSyntax(String),
    /// The YAML text is malformed; the parser's message says how.
    #[error("YAML syntax error: {0}")]
    YamlSyntax(String),
    /// The YAML stream holds no document at all.
    #[error("the YAML stream contains no document")]
    EmptyStream,
    /// The YAML stream holds more than one document; a description is exactly one.
    #[error("the YAML stream contains more than one document")]
    MultipleDocuments,
    /// The YAML uses an anchor or alias, which are refused so that no input expands past its size.
    #[error("YAML anchors and aliases are not allowed")]
    Alias,
    /// The YAML carries a tag outside the core schema (the tag as written).
    #[error("YAML tag `{0}` is not allowed; only the core schema tags are")]
    Tag(String),
    /// A YAML mapping key is not a string, which JSON cannot represent.
    #[error("mapping key is not a string")]
    NonStringKey,
    /// An object has the same key twice (the key).
    #[error("duplicate key `{0}`")]
    DuplicateKey(String),
    /// A number is infinite or NaN, which JSON cannot represent (the number as written).
    #[error("number `{0}` is not finite")]
    NonFiniteNumber(String),
    /// A JSON string escapes half of a UTF-16 surrogate pair without the other half.
    #[error("string contains an unpaired surrogate escape")]
    LoneSurrogate,
    /// A bound of [`Limits`] was exceeded.
    #[error("limit {limit} ({value}) exceeded; raise it with --{limit} if the input is trusted")]
    Limit {
        /// The bound's flag name, e.g. `max-depth`.
        limit: &'static str,
        /// The bound's setting.
        value: u64,
    },
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
