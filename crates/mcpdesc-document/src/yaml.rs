//! The YAML loader: the restricted profile of the MCP Description specification, §15.
//!
//! Built on the `saphyr-parser` event stream. The profile allows exactly one document, no
//! anchors or aliases, only the core-schema tags (`!!str`, `!!int`, `!!float`, `!!bool`,
//! `!!null`, `!!seq`, `!!map`), string keys only, no duplicate keys and finite numbers only.
//! Plain scalars resolve with the YAML 1.2 core schema; `<<` is an ordinary key.
//!
//! `saphyr-parser` keeps an explicit state stack (it does not recurse) and bounds flow
//! nesting itself, and this loader keeps its own stack of open collections, so deep nesting
//! costs at most [`Limits::max_depth`] frames.

use saphyr_parser::{Event, Marker, Parser, ScalarStyle, ScanError, Span, Tag};
use serde_json::{Map, Value};

use super::json::{decimal_u64, float_value, integer_value};
use super::spans::NodeId;
use super::{Limits, LoadError, LoadErrorKind, Position, SpanTree, SpanTreeBuilder};

/// Parses YAML under the restricted profile into a value and its span tree.
pub(super) fn parse(text: &str, limits: &Limits) -> Result<(Value, SpanTree), LoadError> {
    let mut loader = Loader {
        text,
        limits,
        nodes: 0,
        spans: SpanTreeBuilder::new(),
        child_ids: Vec::new(),
        stack: Vec::new(),
        root: None,
        cursor: (0, 0),
    };
    let mut parser = Parser::new_from_str(text);
    let mut documents = 0u32;
    while let Some(next) = parser.next_event() {
        let (event, span) = next.map_err(scan_error)?;
        match event {
            Event::Nothing | Event::StreamStart | Event::DocumentEnd => {}
            Event::StreamEnd => break,
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return Err(LoadError::new(
                        LoadErrorKind::MultipleDocuments,
                        position(span.start),
                    ));
                }
            }
            Event::Alias(_) => {
                return Err(LoadError::new(LoadErrorKind::Alias, position(span.start)));
            }
            Event::Scalar(value, style, anchor, tag) => {
                loader.scalar(&value, style, anchor, tag.as_deref(), span)?;
            }
            Event::SequenceStart(anchor, tag) => {
                loader.start(Kind::Sequence, anchor, tag.as_deref(), span)?;
            }
            Event::MappingStart(anchor, tag) => {
                loader.start(Kind::Mapping, anchor, tag.as_deref(), span)?;
            }
            Event::SequenceEnd | Event::MappingEnd => loader.end(span)?,
        }
    }
    if documents == 0 {
        return Err(LoadError::new(LoadErrorKind::EmptyStream, Position::START));
    }
    match loader.root {
        Some((value, id)) if loader.stack.is_empty() => Ok((value, loader.spans.finish(id))),
        _ => Err(LoadError::new(
            LoadErrorKind::YamlSyntax("the document is incomplete".to_owned()),
            Position::START,
        )),
    }
}

/// A saphyr marker (1-based line, 0-based column in characters) as a [`Position`].
fn position(mark: Marker) -> Position {
    Position::new(
        u32::try_from(mark.line()).unwrap_or(u32::MAX),
        u32::try_from(mark.col())
            .unwrap_or(u32::MAX)
            .saturating_add(1),
    )
}

fn scan_error(error: ScanError) -> LoadError {
    let message = match error.info() {
        // The scanner's own bound on flow nesting (`[[[...` / `{a: {a: ...`).
        "recursion limit exceeded" => {
            "flow collections are nested more than 255 levels deep (parser limit)".to_owned()
        }
        info => info.to_owned(),
    };
    LoadError::new(
        LoadErrorKind::YamlSyntax(message),
        position(*error.marker()),
    )
}

fn limit_error(limit: &'static str, value: u64, position: Position) -> LoadError {
    LoadError::new(LoadErrorKind::Limit { limit, value }, position)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Sequence,
    Mapping,
}

/// The YAML core-schema tags the profile allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CoreTag {
    Str,
    Int,
    Float,
    Bool,
    Null,
    Seq,
    Map,
}

impl CoreTag {
    fn of(tag: &Tag) -> Option<CoreTag> {
        let name = if tag.handle.is_empty() {
            // A verbatim tag, `!<tag:yaml.org,2002:str>`.
            tag.suffix.strip_prefix("tag:yaml.org,2002:")?
        } else if tag.handle == "tag:yaml.org,2002:" {
            tag.suffix.as_str()
        } else {
            return None;
        };
        Some(match name {
            "str" => CoreTag::Str,
            "int" => CoreTag::Int,
            "float" => CoreTag::Float,
            "bool" => CoreTag::Bool,
            "null" => CoreTag::Null,
            "seq" => CoreTag::Seq,
            "map" => CoreTag::Map,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            CoreTag::Str => "!!str",
            CoreTag::Int => "!!int",
            CoreTag::Float => "!!float",
            CoreTag::Bool => "!!bool",
            CoreTag::Null => "!!null",
            CoreTag::Seq => "!!seq",
            CoreTag::Map => "!!map",
        }
    }
}

/// An open sequence or mapping.
enum Frame {
    Sequence {
        id: NodeId,
        items: Vec<Value>,
        /// Where this collection's children start in `Loader::child_ids`.
        children: usize,
    },
    Mapping {
        id: NodeId,
        map: Map<String, Value>,
        /// The key (and its position) whose value comes next; `None` when a key comes next.
        key: Option<(String, Position)>,
        children: usize,
    },
}

struct Loader<'a> {
    text: &'a str,
    limits: &'a Limits,
    nodes: u64,
    spans: SpanTreeBuilder,
    child_ids: Vec<NodeId>,
    stack: Vec<Frame>,
    root: Option<(Value, NodeId)>,
    /// A (character index, byte offset) pair of `text`, moved forward as positions are asked.
    cursor: (usize, usize),
}

impl Loader<'_> {
    /// The byte offset of character `index` of the text.
    fn byte_offset(&mut self, index: usize) -> usize {
        if index < self.cursor.0 {
            self.cursor = (0, 0);
        }
        let (mut chars, mut bytes) = self.cursor;
        let mut rest = self.text.get(bytes..).unwrap_or("").chars();
        while chars < index {
            let Some(c) = rest.next() else { break };
            chars += 1;
            bytes += c.len_utf8();
        }
        self.cursor = (chars, bytes);
        bytes
    }

    /// The position of a sequence. saphyr starts an indentless sequence (`key:\n- a`, the
    /// value of a block mapping entry whose `-` sits in the key's column) at its first entry's
    /// content; it is moved back to that `-`.
    fn sequence_position(&mut self, mark: Marker) -> Position {
        let at = position(mark);
        let key_pos = match self.stack.last() {
            Some(Frame::Mapping {
                key: Some((_, key_pos)),
                ..
            }) => *key_pos,
            _ => return at,
        };
        let key_column = key_pos.column as usize;
        let offset = self.byte_offset(mark.index());
        let Some(before) = self.text.get(..offset) else {
            return at;
        };
        if key_column == 0 {
            return at;
        }
        let prefix = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
        let mut chars = prefix.chars().skip(key_column - 1);
        if chars.next() == Some('-') && chars.all(|c| c == ' ' || c == '\t') {
            Position::new(at.line, key_pos.column)
        } else {
            at
        }
    }

    /// The position of a block scalar: saphyr starts it at its first content line, so find
    /// the `|` or `>` header on the last non-blank line before it.
    fn block_scalar_position(&mut self, mark: Marker) -> Position {
        let at = position(mark);
        let offset = self.byte_offset(mark.index());
        if self
            .text
            .get(offset..)
            .is_some_and(|s| s.starts_with(['|', '>']))
        {
            // An empty block scalar starts at its header.
            return at;
        }
        let mut rest = self.text.get(..offset).unwrap_or("");
        let mut line = mark.line();
        while let Some(newline) = rest.rfind('\n') {
            rest = &rest[..newline];
            line = line.saturating_sub(1);
            let text = &rest[rest.rfind('\n').map_or(0, |i| i + 1)..];
            if text.trim().is_empty() {
                continue;
            }
            return match block_header_column(text) {
                Some(col) if line > 0 => Position::new(
                    u32::try_from(line).unwrap_or(u32::MAX),
                    u32::try_from(col).unwrap_or(u32::MAX),
                ),
                _ => at,
            };
        }
        at
    }

    /// Whether the next node event is a mapping key.
    fn expects_key(&self) -> bool {
        matches!(self.stack.last(), Some(Frame::Mapping { key: None, .. }))
    }

    /// Refuses anchors and non-core tags; returns the core tag, if any.
    fn properties(
        &self,
        anchor: usize,
        tag: Option<&Tag>,
        span: Span,
    ) -> Result<Option<CoreTag>, LoadError> {
        if anchor != 0 {
            return Err(LoadError::new(LoadErrorKind::Alias, position(span.start)));
        }
        match tag {
            None => Ok(None),
            Some(tag) => match CoreTag::of(tag) {
                Some(core) => Ok(Some(core)),
                None => Err(LoadError::new(
                    LoadErrorKind::Tag(written_tag(self.text, span, tag)),
                    position(span.start),
                )),
            },
        }
    }

    /// Checks the limits for a new value node and records its span.
    fn begin_value(&mut self, at: Position) -> Result<NodeId, LoadError> {
        let key_pos = match self.stack.last() {
            Some(Frame::Mapping {
                key: Some((_, key_pos)),
                ..
            }) => *key_pos,
            Some(Frame::Sequence { items, .. }) => {
                if items.len() as u64 >= self.limits.max_collection_len {
                    return Err(limit_error(
                        "max-collection-len",
                        self.limits.max_collection_len,
                        at,
                    ));
                }
                Position::UNKNOWN
            }
            _ => Position::UNKNOWN,
        };
        self.nodes += 1;
        if self.nodes > self.limits.max_nodes {
            return Err(limit_error("max-nodes", self.limits.max_nodes, at));
        }
        Ok(self.spans.node(at, key_pos))
    }

    /// Adds a completed value to the innermost open collection (or makes it the root).
    fn attach(&mut self, value: Value, id: NodeId) {
        match self.stack.last_mut() {
            None => self.root = Some((value, id)),
            Some(Frame::Sequence { items, .. }) => {
                self.child_ids.push(id);
                items.push(value);
            }
            Some(Frame::Mapping { map, key, .. }) => {
                if let Some((k, _)) = key.take() {
                    self.child_ids.push(id);
                    map.insert(k, value);
                }
            }
        }
    }

    fn scalar(
        &mut self,
        value: &str,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<&Tag>,
        span: Span,
    ) -> Result<(), LoadError> {
        let block = matches!(style, ScalarStyle::Literal | ScalarStyle::Folded);
        let at = if block && anchor == 0 && tag.is_none() {
            self.block_scalar_position(span.start)
        } else {
            position(span.start)
        };
        let core = self.properties(anchor, tag, span)?;
        if value.len() as u64 > self.limits.max_scalar_bytes {
            return Err(limit_error(
                "max-scalar-bytes",
                self.limits.max_scalar_bytes,
                at,
            ));
        }
        if self.expects_key() {
            let Value::String(key) = resolve(value, style, core, at)? else {
                return Err(LoadError::new(LoadErrorKind::NonStringKey, at));
            };
            let max_len = self.limits.max_collection_len;
            if let Some(Frame::Mapping { map, key: slot, .. }) = self.stack.last_mut() {
                if map.contains_key(&key) {
                    return Err(LoadError::new(LoadErrorKind::DuplicateKey(key), at));
                }
                if map.len() as u64 >= max_len {
                    return Err(limit_error("max-collection-len", max_len, at));
                }
                *slot = Some((key, at));
            }
            return Ok(());
        }
        let id = self.begin_value(at)?;
        let value = resolve(value, style, core, at)?;
        self.attach(value, id);
        Ok(())
    }

    fn start(
        &mut self,
        kind: Kind,
        anchor: usize,
        tag: Option<&Tag>,
        span: Span,
    ) -> Result<(), LoadError> {
        let at = if kind == Kind::Sequence && anchor == 0 && tag.is_none() {
            self.sequence_position(span.start)
        } else {
            position(span.start)
        };
        let core = self.properties(anchor, tag, span)?;
        let expected = match kind {
            Kind::Sequence => CoreTag::Seq,
            Kind::Mapping => CoreTag::Map,
        };
        if let Some(core) = core.filter(|&c| c != expected) {
            let what = match kind {
                Kind::Sequence => "a sequence",
                Kind::Mapping => "a mapping",
            };
            return Err(LoadError::new(
                LoadErrorKind::YamlSyntax(format!(
                    "tag `{}` cannot be applied to {what}",
                    core.name()
                )),
                at,
            ));
        }
        if self.expects_key() {
            return Err(LoadError::new(LoadErrorKind::NonStringKey, at));
        }
        let max_depth = self.limits.max_depth;
        if self.stack.len() as u64 >= u64::from(max_depth) {
            return Err(limit_error("max-depth", u64::from(max_depth), at));
        }
        let id = self.begin_value(at)?;
        let children = self.child_ids.len();
        self.stack.push(match kind {
            Kind::Sequence => Frame::Sequence {
                id,
                items: Vec::new(),
                children,
            },
            Kind::Mapping => Frame::Mapping {
                id,
                map: Map::new(),
                key: None,
                children,
            },
        });
        Ok(())
    }

    fn end(&mut self, span: Span) -> Result<(), LoadError> {
        let (id, children, value) = match self.stack.pop() {
            Some(Frame::Sequence {
                id,
                items,
                children,
            }) => (id, children, super::exact_array(items)),
            Some(Frame::Mapping {
                id, map, children, ..
            }) => (id, children, super::exact_object(map)),
            None => {
                return Err(LoadError::new(
                    LoadErrorKind::YamlSyntax("unexpected end of collection".to_owned()),
                    position(span.start),
                ));
            }
        };
        self.spans
            .set_children(id, self.child_ids.get(children..).unwrap_or(&[]));
        self.child_ids.truncate(children);
        self.attach(value, id);
        Ok(())
    }
}

/// The 1-based column of the `|` or `>` of a block scalar header ending `line` (before an
/// optional comment), if there is one.
fn block_header_column(line: &str) -> Option<usize> {
    let header_end = |code: &str| {
        let code = code.trim_end();
        let header = code.trim_end_matches(['-', '+', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
        header.ends_with(['|', '>']).then(|| header.chars().count())
    };
    if let Some(col) = header_end(line) {
        return Some(col);
    }
    // A comment follows the header: try each ` #` from the left.
    line.char_indices()
        .filter(|&(i, c)| c == '#' && line[..i].ends_with([' ', '\t']))
        .find_map(|(i, _)| header_end(&line[..i]))
}

/// The tag as written in the source, read from where the node starts (its tag comes first,
/// since anchors are refused before tags are looked at).
fn written_tag(text: &str, span: Span, tag: &Tag) -> String {
    let index = span.start.index();
    let offset = text
        .char_indices()
        .map(|(b, _)| b)
        .chain(std::iter::once(text.len()))
        .nth(index);
    let from_source = offset.and_then(|b| text.get(b..)).and_then(|rest| {
        if rest.starts_with("!<") {
            rest.find('>').and_then(|end| rest.get(..=end))
        } else if rest.starts_with('!') {
            let end = rest
                .find(|c: char| c.is_whitespace() || matches!(c, ',' | '[' | ']' | '{' | '}'))
                .unwrap_or(rest.len());
            rest.get(..end)
        } else {
            None
        }
    });
    match from_source {
        Some(s) => s.to_owned(),
        None if tag.handle == "tag:yaml.org,2002:" => format!("!!{}", tag.suffix),
        None if tag.handle == "!" => format!("!{}", tag.suffix),
        None if tag.handle.is_empty() && tag.suffix == "!" => "!".to_owned(),
        None => format!("!<{}{}>", tag.handle, tag.suffix),
    }
}

/// Resolves a scalar under the core schema, applying its core tag if it has one.
fn resolve(
    value: &str,
    style: ScalarStyle,
    tag: Option<CoreTag>,
    at: Position,
) -> Result<Value, LoadError> {
    let non_finite = || LoadError::new(LoadErrorKind::NonFiniteNumber(value.to_owned()), at);
    let invalid = |tag: CoreTag| {
        LoadError::new(
            LoadErrorKind::YamlSyntax(format!("`{value}` is not a valid `{}`", tag.name())),
            at,
        )
    };
    match tag {
        None if style == ScalarStyle::Plain => {
            resolve_plain(value).map_err(|NonFinite| non_finite())
        }
        None | Some(CoreTag::Str) => Ok(Value::String(value.to_owned())),
        Some(CoreTag::Null) if is_null(value) => Ok(Value::Null),
        Some(CoreTag::Bool) => match bool_of(value) {
            Some(b) => Ok(Value::Bool(b)),
            None => Err(invalid(CoreTag::Bool)),
        },
        Some(CoreTag::Int) => match int_of(value) {
            Some(Ok(v)) => Ok(v),
            Some(Err(NonFinite)) => Err(non_finite()),
            None => Err(invalid(CoreTag::Int)),
        },
        Some(CoreTag::Float) => {
            if is_non_finite(value) {
                Err(non_finite())
            } else if is_core_float(value) {
                float_of(value).map_err(|NonFinite| non_finite())
            } else {
                Err(invalid(CoreTag::Float))
            }
        }
        Some(core @ (CoreTag::Null | CoreTag::Seq | CoreTag::Map)) => {
            if core == CoreTag::Null {
                Err(invalid(core))
            } else {
                Err(LoadError::new(
                    LoadErrorKind::YamlSyntax(format!(
                        "tag `{}` cannot be applied to a scalar",
                        core.name()
                    )),
                    at,
                ))
            }
        }
    }
}

/// A number that resolved to infinity or NaN.
#[derive(Debug)]
struct NonFinite;

/// Resolves a plain scalar with the YAML 1.2 core schema.
fn resolve_plain(s: &str) -> Result<Value, NonFinite> {
    if is_null(s) {
        return Ok(Value::Null);
    }
    if let Some(b) = bool_of(s) {
        return Ok(Value::Bool(b));
    }
    if is_non_finite(s) {
        return Err(NonFinite);
    }
    if let Some(int) = int_of(s) {
        return int;
    }
    if is_core_float(s) {
        return float_of(s);
    }
    Ok(Value::String(s.to_owned()))
}

fn is_null(s: &str) -> bool {
    matches!(s, "" | "~" | "null" | "Null" | "NULL")
}

fn bool_of(s: &str) -> Option<bool> {
    match s {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// `[-+]?(\.inf|\.Inf|\.INF)` or `\.nan|\.NaN|\.NAN`.
fn is_non_finite(s: &str) -> bool {
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s);
    matches!(unsigned, ".inf" | ".Inf" | ".INF") || matches!(s, ".nan" | ".NaN" | ".NAN")
}

/// Core-schema integers: `[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+`. Integers beyond the
/// 64-bit range become floats; `None` if `s` is not an integer.
fn int_of(s: &str) -> Option<Result<Value, NonFinite>> {
    for (prefix, radix) in [("0o", 8), ("0x", 16)] {
        if let Some(digits) = s.strip_prefix(prefix) {
            if !digits.is_empty() && digits.chars().all(|c| c.is_digit(radix)) {
                return Some(radix_value(digits, radix));
            }
            return None;
        }
    }
    let (negative, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(match decimal_u64(digits.as_bytes()) {
        Some(magnitude) => Ok(integer_value(negative, magnitude)),
        None => float_of(s),
    })
}

fn radix_value(digits: &str, radix: u32) -> Result<Value, NonFinite> {
    if let Ok(n) = u64::from_str_radix(digits, radix) {
        return Ok(Value::from(n));
    }
    let f = digits
        .chars()
        .filter_map(|c| c.to_digit(radix))
        .fold(0f64, |acc, d| acc * f64::from(radix) + f64::from(d));
    float_value(f).ok_or(NonFinite)
}

/// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`
fn is_core_float(s: &str) -> bool {
    let b = s.as_bytes();
    let digits_from = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let int_end = digits_from(i);
    if int_end == i {
        if b.get(i) != Some(&b'.') {
            return false;
        }
        let frac_end = digits_from(i + 1);
        if frac_end == i + 1 {
            return false;
        }
        i = frac_end;
    } else {
        i = int_end;
        if b.get(i) == Some(&b'.') {
            i = digits_from(i + 1);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp_end = digits_from(i);
        if exp_end == i {
            return false;
        }
        i = exp_end;
    }
    i == b.len()
}

/// A core-schema float (already checked with [`is_core_float`]) as a finite number.
fn float_of(s: &str) -> Result<Value, NonFinite> {
    s.parse::<f64>().ok().and_then(float_value).ok_or(NonFinite)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_schema_resolution() {
        let cases: &[(&str, Value)] = &[
            ("", Value::Null),
            ("~", Value::Null),
            ("NULL", Value::Null),
            ("True", Value::Bool(true)),
            ("FALSE", Value::Bool(false)),
            ("yes", Value::from("yes")),
            ("12", Value::from(12)),
            ("+12", Value::from(12)),
            ("-12", Value::from(-12)),
            ("0o17", Value::from(15)),
            ("0x1F", Value::from(31)),
            ("0x", Value::from("0x")),
            ("-0x1F", Value::from("-0x1F")),
            ("1.5", Value::from(1.5)),
            (".5", Value::from(0.5)),
            ("1.", Value::from(1.0)),
            ("6.02e23", Value::from(6.02e23)),
            ("1e5", Value::from(1e5)),
            ("1e", Value::from("1e")),
            ("0.8.0", Value::from("0.8.0")),
            ("2026-08-25", Value::from("2026-08-25")),
            ("18446744073709551616", Value::from(18446744073709551616f64)),
        ];
        for (text, expected) in cases {
            assert_eq!(resolve_plain(text).unwrap(), *expected, "{text:?}");
        }
        for text in [".inf", "-.Inf", "+.INF", ".nan", ".NaN", "1e400"] {
            assert!(resolve_plain(text).is_err(), "{text:?}");
        }
        assert_eq!(resolve_plain("-.nan").unwrap(), Value::from("-.nan"));
    }
}
