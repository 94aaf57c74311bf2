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
//!
//! Nodes are reported to the sink at byte offsets; load errors keep the line and column
//! saphyr gives, so that they read the same whatever sink is used.

use saphyr_parser::{Event, Marker, Parser, ScalarStyle, ScanError, Span, Tag};
use serde_json::{Number, Value};

use super::json::{decimal_u64, integer_value};
use super::sink::{KeySet, Sink, ValueSink};
use super::tree::lines::{Breaks, LineIndex};
use super::tree::{Builder, Positions, Tree};
use super::{Limits, LoadError, LoadErrorKind, Position, SpanTree};

/// Parses YAML under the restricted profile into a value and its span tree.
pub(super) fn parse(text: &str, limits: &Limits) -> Result<(Value, SpanTree), LoadError> {
    let mut sink = ValueSink::new(text, Breaks::NewlineOrReturn);
    parse_into(text, limits, &mut sink)?;
    sink.finish().ok_or_else(incomplete)
}

/// Parses YAML under the restricted profile into a compact tree borrowing from `text`.
pub(super) fn parse_tree<'t>(text: &'t str, limits: &Limits) -> Result<Tree<'t>, LoadError> {
    // Block YAML is denser than pretty-printed JSON: about one node per sixteen bytes.
    let mut builder = Builder::new(text, text.len() / 16);
    parse_into(text, limits, &mut builder)?;
    Ok(builder.finish(Positions::Offsets(LineIndex::new(Breaks::NewlineOrReturn))))
}

/// Reads the one document of the YAML stream `text` into `sink`.
pub(super) fn parse_into<S: Sink>(
    text: &str,
    limits: &Limits,
    sink: &mut S,
) -> Result<(), LoadError> {
    let mut loader = Loader {
        text,
        limits,
        nodes: 0,
        sink,
        stack: Vec::new(),
        complete: false,
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
    if loader.complete && loader.stack.is_empty() {
        Ok(())
    } else {
        Err(incomplete())
    }
}

fn incomplete() -> LoadError {
    LoadError::new(
        LoadErrorKind::YamlSyntax("the document is incomplete".to_owned()),
        Position::START,
    )
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

/// Where a node or key starts: the byte offset reported to the sink, and the line and column
/// its errors are reported at.
#[derive(Debug, Clone, Copy)]
struct Place {
    offset: u32,
    at: Position,
}

/// An open sequence or mapping.
enum Frame<M> {
    Sequence(M),
    Mapping {
        mark: M,
        keys: KeySet,
        /// The position of the key whose value comes next; `None` when a key comes next.
        key: Option<Position>,
    },
}

struct Loader<'a, 's, S: Sink> {
    text: &'a str,
    limits: &'a Limits,
    nodes: u64,
    sink: &'s mut S,
    stack: Vec<Frame<S::Mark>>,
    /// Whether the root node is complete.
    complete: bool,
    /// A (character index, byte offset) pair of `text`, moved as offsets are asked; saphyr's
    /// markers count characters, and node starts come almost in order.
    cursor: (usize, usize),
}

impl<S: Sink> Loader<'_, '_, S> {
    /// The byte offset of character `index` of the text (its length past the end).
    fn byte_offset(&mut self, index: usize) -> usize {
        let (mut chars, mut bytes) = self.cursor;
        if index < chars {
            let mut back = self.text.get(..bytes).unwrap_or("").chars();
            while chars > index {
                let Some(c) = back.next_back() else { break };
                chars -= 1;
                bytes -= c.len_utf8();
            }
        } else {
            let mut rest = self.text.get(bytes..).unwrap_or("").chars();
            while chars < index {
                let Some(c) = rest.next() else { break };
                chars += 1;
                bytes += c.len_utf8();
            }
        }
        self.cursor = (chars, bytes);
        bytes
    }

    fn place(&mut self, mark: Marker) -> Place {
        let offset = self.byte_offset(mark.index());
        Place {
            offset: u32::try_from(offset).unwrap_or(u32::MAX),
            at: position(mark),
        }
    }

    /// Where a sequence starts. saphyr starts an indentless sequence (`key:\n- a`, the value
    /// of a block mapping entry whose `-` sits in the key's column) at its first entry's
    /// content; it is moved back to that `-`.
    fn sequence_place(&mut self, mark: Marker) -> Place {
        let place = self.place(mark);
        let key_column = match self.stack.last() {
            Some(Frame::Mapping { key: Some(key), .. }) => key.column,
            _ => return place,
        };
        // Only blanks may separate the `-` from the content, on the same line: saphyr's column
        // bounds the walk to that line.
        let bytes = self.text.as_bytes();
        let mut i = place.offset as usize;
        let mut column = mark.col();
        while column > 0 && i > 0 {
            i -= 1;
            column -= 1;
            match bytes.get(i) {
                Some(b' ' | b'\t') => {}
                Some(b'-') if column + 1 == key_column as usize => {
                    return Place {
                        offset: u32::try_from(i).unwrap_or(u32::MAX),
                        at: Position::new(place.at.line, key_column),
                    };
                }
                _ => break,
            }
        }
        place
    }

    /// Where a block scalar starts: saphyr starts it at its first content line, so it is moved
    /// to the `|` or `>` header ending the last non-blank line before that one.
    fn block_scalar_place(&mut self, mark: Marker) -> Place {
        let place = self.place(mark);
        let offset = place.offset as usize;
        if self
            .text
            .get(offset..)
            .is_some_and(|s| s.starts_with(['|', '>']))
        {
            // An empty block scalar starts at its header.
            return place;
        }
        let mut rest = self.text.get(..offset).unwrap_or("");
        let mut line = mark.line();
        while let Some(brk) = rest.rfind(['\n', '\r']) {
            let crlf =
                rest.as_bytes()[brk] == b'\n' && brk > 0 && rest.as_bytes()[brk - 1] == b'\r';
            rest = &rest[..brk - usize::from(crlf)];
            line = line.saturating_sub(1);
            let start = rest.rfind(['\n', '\r']).map_or(0, |i| i + 1);
            let text = &rest[start..];
            if text.trim().is_empty() {
                continue;
            }
            return match block_header(text) {
                Some(i) if line > 0 => Place {
                    offset: u32::try_from(start + i).unwrap_or(u32::MAX),
                    at: Position::new(
                        u32::try_from(line).unwrap_or(u32::MAX),
                        u32::try_from(text[..i].chars().count() + 1).unwrap_or(u32::MAX),
                    ),
                },
                _ => place,
            };
        }
        place
    }

    /// Whether the next node event is a mapping key.
    fn expects_key(&self) -> bool {
        matches!(self.stack.last(), Some(Frame::Mapping { key: None, .. }))
    }

    /// Refuses anchors and non-core tags; returns the core tag, if any.
    fn properties(
        &mut self,
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
                None => {
                    let offset = self.byte_offset(span.start.index());
                    Err(LoadError::new(
                        LoadErrorKind::Tag(written_tag(self.text, offset, tag)),
                        position(span.start),
                    ))
                }
            },
        }
    }

    /// Checks the limits for a new value node.
    fn begin_value(&mut self, at: Position) -> Result<(), LoadError> {
        if let Some(Frame::Sequence(mark)) = self.stack.last() {
            if self.sink.entries(*mark) as u64 >= self.limits.max_collection_len {
                return Err(limit_error(
                    "max-collection-len",
                    self.limits.max_collection_len,
                    at,
                ));
            }
        }
        self.nodes += 1;
        if self.nodes > self.limits.max_nodes {
            return Err(limit_error("max-nodes", self.limits.max_nodes, at));
        }
        Ok(())
    }

    /// A value is complete: its mapping expects a key next, or the document is done.
    fn completed(&mut self) {
        match self.stack.last_mut() {
            None => self.complete = true,
            Some(Frame::Mapping { key, .. }) => *key = None,
            Some(Frame::Sequence(_)) => {}
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
        let place = if block && anchor == 0 && tag.is_none() {
            self.block_scalar_place(span.start)
        } else {
            self.place(span.start)
        };
        let at = place.at;
        let core = self.properties(anchor, tag, span)?;
        if value.len() as u64 > self.limits.max_scalar_bytes {
            return Err(limit_error(
                "max-scalar-bytes",
                self.limits.max_scalar_bytes,
                at,
            ));
        }
        // A tagged scalar starts at its tag, not at its text.
        let value = match tag {
            None => as_written(self.text, value, style, place.offset as usize),
            Some(_) => value,
        };
        if self.expects_key() {
            let Scalar::Str(key) = resolve(value, style, core, at)? else {
                return Err(LoadError::new(LoadErrorKind::NonStringKey, at));
            };
            let max_len = self.limits.max_collection_len;
            if let Some(Frame::Mapping {
                mark,
                keys,
                key: slot,
            }) = self.stack.last_mut()
            {
                if keys.repeats(&*self.sink, *mark, key) {
                    return Err(LoadError::new(
                        LoadErrorKind::DuplicateKey(key.to_owned()),
                        at,
                    ));
                }
                if self.sink.entries(*mark) as u64 >= max_len {
                    return Err(limit_error("max-collection-len", max_len, at));
                }
                self.sink.key(key, place.offset);
                *slot = Some(at);
            }
            return Ok(());
        }
        self.begin_value(at)?;
        let pos = place.offset;
        match resolve(value, style, core, at)? {
            Scalar::Null => self.sink.null(pos),
            Scalar::Bool(b) => self.sink.bool(b, pos),
            Scalar::Number(n) => self.sink.number(n, pos),
            Scalar::Str(s) => self.sink.string(s, pos),
        }
        self.completed();
        Ok(())
    }

    fn start(
        &mut self,
        kind: Kind,
        anchor: usize,
        tag: Option<&Tag>,
        span: Span,
    ) -> Result<(), LoadError> {
        let place = if kind == Kind::Sequence && anchor == 0 && tag.is_none() {
            self.sequence_place(span.start)
        } else {
            self.place(span.start)
        };
        let at = place.at;
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
        self.begin_value(at)?;
        let frame = match kind {
            Kind::Sequence => Frame::Sequence(self.sink.open(place.offset, false)),
            Kind::Mapping => Frame::Mapping {
                mark: self.sink.open(place.offset, true),
                keys: KeySet::default(),
                key: None,
            },
        };
        self.stack.push(frame);
        Ok(())
    }

    fn end(&mut self, span: Span) -> Result<(), LoadError> {
        match self.stack.pop() {
            Some(Frame::Sequence(mark)) => self.sink.close_array(mark),
            Some(Frame::Mapping { mark, .. }) => self.sink.close_object(mark),
            None => {
                return Err(LoadError::new(
                    LoadErrorKind::YamlSyntax("unexpected end of collection".to_owned()),
                    position(span.start),
                ));
            }
        }
        self.completed();
        Ok(())
    }
}

/// `value` as the slice of `text` where its scalar, starting at byte `offset`, is written, when
/// it is written there as it reads: saphyr hands out every scalar as an owned copy, and a
/// slice of the text lets a sink keep it by reference.
fn as_written<'x>(text: &'x str, value: &'x str, style: ScalarStyle, offset: usize) -> &'x str {
    let start = match style {
        ScalarStyle::Plain => offset,
        ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => offset + 1,
        ScalarStyle::Literal | ScalarStyle::Folded => return value,
    };
    match text.get(start..start + value.len()) {
        Some(written) if written == value => written,
        _ => value,
    }
}

/// The byte index in `line` of the `|` or `>` of a block scalar header ending it (before an
/// optional comment), if there is one.
fn block_header(line: &str) -> Option<usize> {
    let header_end = |code: &str| {
        let code = code.trim_end();
        let header = code.trim_end_matches(['-', '+', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
        header.ends_with(['|', '>']).then(|| header.len() - 1)
    };
    if let Some(i) = header_end(line) {
        return Some(i);
    }
    // A comment follows the header: try each ` #` from the left.
    line.char_indices()
        .filter(|&(i, c)| c == '#' && line[..i].ends_with([' ', '\t']))
        .find_map(|(i, _)| header_end(&line[..i]))
}

/// The tag as written in the source, read from byte `offset` where the node starts (its tag
/// comes first, since anchors are refused before tags are looked at).
fn written_tag(text: &str, offset: usize, tag: &Tag) -> String {
    let from_source = text.get(offset..).and_then(|rest| {
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

/// A resolved scalar; a string borrows from the scalar's text.
#[derive(Debug, Clone, PartialEq)]
enum Scalar<'v> {
    Null,
    Bool(bool),
    Number(Number),
    Str(&'v str),
}

/// Resolves a scalar under the core schema, applying its core tag if it has one.
fn resolve(
    value: &str,
    style: ScalarStyle,
    tag: Option<CoreTag>,
    at: Position,
) -> Result<Scalar<'_>, LoadError> {
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
        None | Some(CoreTag::Str) => Ok(Scalar::Str(value)),
        Some(CoreTag::Null) if is_null(value) => Ok(Scalar::Null),
        Some(CoreTag::Bool) => match bool_of(value) {
            Some(b) => Ok(Scalar::Bool(b)),
            None => Err(invalid(CoreTag::Bool)),
        },
        Some(CoreTag::Int) => match int_of(value) {
            Some(Ok(n)) => Ok(Scalar::Number(n)),
            Some(Err(NonFinite)) => Err(non_finite()),
            None => Err(invalid(CoreTag::Int)),
        },
        Some(CoreTag::Float) => {
            if is_non_finite(value) {
                Err(non_finite())
            } else if is_core_float(value) {
                float_of(value)
                    .map(Scalar::Number)
                    .map_err(|NonFinite| non_finite())
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
fn resolve_plain(s: &str) -> Result<Scalar<'_>, NonFinite> {
    if is_null(s) {
        return Ok(Scalar::Null);
    }
    if let Some(b) = bool_of(s) {
        return Ok(Scalar::Bool(b));
    }
    if is_non_finite(s) {
        return Err(NonFinite);
    }
    if let Some(int) = int_of(s) {
        return int.map(Scalar::Number);
    }
    if is_core_float(s) {
        return float_of(s).map(Scalar::Number);
    }
    Ok(Scalar::Str(s))
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
fn int_of(s: &str) -> Option<Result<Number, NonFinite>> {
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
        Some(magnitude) => match integer_value(negative, magnitude) {
            Value::Number(n) => Ok(n),
            _ => Err(NonFinite),
        },
        None => float_of(s),
    })
}

fn radix_value(digits: &str, radix: u32) -> Result<Number, NonFinite> {
    if let Ok(n) = u64::from_str_radix(digits, radix) {
        return Ok(Number::from(n));
    }
    let f = digits
        .chars()
        .filter_map(|c| c.to_digit(radix))
        .fold(0f64, |acc, d| acc * f64::from(radix) + f64::from(d));
    Number::from_f64(f).ok_or(NonFinite)
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
fn float_of(s: &str) -> Result<Number, NonFinite> {
    s.parse::<f64>()
        .ok()
        .and_then(Number::from_f64)
        .ok_or(NonFinite)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value_of(scalar: Scalar<'_>) -> Value {
        match scalar {
            Scalar::Null => Value::Null,
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::Number(n) => Value::Number(n),
            Scalar::Str(s) => Value::from(s),
        }
    }

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
            assert_eq!(
                value_of(resolve_plain(text).unwrap()),
                *expected,
                "{text:?}"
            );
        }
        for text in [".inf", "-.Inf", "+.INF", ".nan", ".NaN", "1e400"] {
            assert!(resolve_plain(text).is_err(), "{text:?}");
        }
        assert_eq!(resolve_plain("-.nan").unwrap(), Scalar::Str("-.nan"));
    }
}

#[cfg(test)]
mod agreement_tests {
    //! The tree and the value with its span tree are two sinks of one loader: they must hold
    //! the same values at the same positions, and fail with the same errors.

    use std::path::{Path, PathBuf};

    use super::*;
    use crate::tree::{Kind as NodeKind, ValueRef};

    /// Documents whose positions are easy to get wrong: line breaks other than `\n`, tabs,
    /// multi-byte characters before nodes, indentless sequences, block scalar headers.
    const TRICKY: &[&str] = &[
        "a: 1\r\nb:\r\n- x\r\n- y\r\nc: |\r\n  text\r\n  more\r\nd: >- # folded\r\n  folded\r\ne: end\r\n",
        "a: 1\rb: [1, 2]\rc: 'q'\rd: {e: f}\r",
        "a: 1\rb:\r  - x\r  - y\rc: |\r  text\r",
        "a: 1\rb:\r- x\r- y\r",
        "a: |\n\r\r  x\nb: 2\n",
        "a:\t1\nb: {x:\t2,\ty: [\t3]}\nc:\n\t\nd: \"\t\"\n",
        "\u{e9}: \u{fc}\n\u{540d}\u{524d}: \u{5024}\nlist:\n- \u{65e5}\u{672c}\n- \"\u{df}\"\n\u{1f600}k: {\u{1f600}: \u{1f600}}\n",
        "\u{e9}\u{e9}:\n  k\u{e9}:\n  - 1\n  - \u{e9}\n",
        "a:\n- b:\n  - 1\n  - 2\n- c\nd:\n  - x\ne:\n- - f\n  - g\n",
        "x:\n  k:\n  - a\n  - b\n  l:\n  -\n  - c\n",
        "k:\n- a: 1\n  b: 2\n- {c: 3}\n- [d]\n",
        "k:\n-   spaced\n-\n- last",
        "a: | # comment\n  x\nb: >+2 # c # d\n    y\nc: |-\n\n  z\nd: |\n\ne: >\n",
        "a: |\n\n\n  x\nb: |2\n   x\nc: >+\n  x\n\nd: >-\n  # not a comment\n",
        "'k # x': |\n  v\n\"k: |\": >\n  w\n",
        "- |\n  a\n- >\n  b\n- |-\n  c\n-\n  |\n  d\n",
        "a: |\r\n  x\r\n\r\n  y\r\nb: > # c\r\n  z\r\n",
        "{a: [1, {b: c}], 'q k': \"v\", ? e : f, g: , h}\n",
        "[1, [2, [3]], {a: b}, 'x', \"y\", ]\n",
        "'a b': 1\n\"c\\td\": 2\n\"\u{e9}\\u00e9\": 3\n'it''s': 4\n",
        "a:\nb: \nc: []\nd: {}\ne: ''\nf:",
        "a:\nb:\n",
        "a:",
        "- a\n-",
        "hello",
        "|\n  x\n",
        ">-\n  folded\n  text\n",
        "- a\n- b",
        "--- \nfoo: bar\n...\n",
        "# comment\n\n---\n# another\nfoo: # trailing\n  bar\n",
        "a: !!str 1\nb: !!int '2'\nc: !!seq\n- x\nd: !!map {e: 1}\nf: !!float 1\n",
        "- !!str |\n  x\n- !<tag:yaml.org,2002:str> y\n",
        "? a\n: b\n? c\n",
        "a: 0x1F\nb: 1e3\nc: -0\nd: 0o17\ne: +12\nf: .5\ng: 18446744073709551616\nh: ~\ni: True\n",
        "a: multi\n  line\n  plain\nb: 'single\n\n  quoted'\nc: \"double\\\n  escaped\"\n",
        "- - a\n  - b\n- c\n- - - d\n",
        "k:\n-\ta\n",
        "a: {b: {c: {d: [[[]]]}}}\n",
        "<<: {a: 1}\nb: 2\n",
        "\t\na: 1\n",
        "a: 1 # \u{e9}\u{e9}\u{e9}\nb: 2\n",
        "a: b: c\n",
        "a: 1\na: 2\n",
        "a: &x 1\n",
        "a: *x\n",
        "a: !foo 1\n",
        "[a]: 1\n",
        "a: .inf\n",
        "--- a\n--- b\n",
        "",
        "# only a comment\n",
        "a: [1, 2\n",
        "k:\r\n- a\r\n- b\r\n",
        "k: \u{e9}\rl:\r- \u{e9}\r- |\r  x\r",
        "? c",
        "a: |",
        "a: >-",
        "- ",
        "k:\n-",
        "a:\n  b:",
        "?",
        "-",
        "a: !!str",
        "a: !!null",
        "a: !!str\nb: 1",
        "a: !!str |\n  x",
        "!!map\na: 1\n",
        "- !!seq\n- a\n",
        "? a\n: ",
        "a:\n  - b\n  -",
        "- a\n- - b\n  -",
        "a: 1\n? b",
        "k:\n- a\n  # c\n- b\n",
        "a: |\n  x\n\n",
        "a: >\n\n  x",
        "- [a,\n  b]\n- {c: d,\n   e: f}\n",
        "a:   \t  b\n",
        "a: !!int 0x\n",
        "a: !!bool yes\n",
        "? - a\n: b\n",
        "? {a: b}\n: c\n",
        "a: !!seq |\n  x\n",
        "\u{e9}: !bad 1\n",
        "a:\n  \u{e9}: [!local x]\n",
        "- !<tag:yaml.org,2002:int> 12\n- !!str\n",
        "a: 'x'\nb: '\u{e9}\u{e9}\nc'\nd: \"\\u00e9\"\n",
        "a: \"\u{e9}\"\n\u{e9}\u{e9}: \"x\\ny\"\n",
        "\u{feff}a: [1]\n",
    ];

    /// Crosses many line-index checkpoints, with every kind of line break and multi-byte
    /// characters before nodes.
    fn big_doc() -> String {
        let mut s = String::new();
        for i in 0..1500 {
            let brk = ["\n", "\r\n", "\r"][i % 3];
            s.push_str(&format!(
                "k\u{e9}{i}:{brk}- \u{1f600}{i}{brk}- |{brk}  t\u{e9}xt {i}{brk}- [a, {{b: \u{e9}}}]{brk}"
            ));
        }
        s
    }

    fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                yaml_files(&path, out);
            } else if path.extension().is_some_and(|x| x == "yaml" || x == "yml") {
                out.push(path);
            }
        }
    }

    fn corpus_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/mcpdesc-0.8.0")
    }

    fn documents() -> Vec<(String, String)> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = Vec::new();
        yaml_files(&root.join("spec-fixtures"), &mut files);
        yaml_files(&corpus_dir(), &mut files);
        files.sort();
        // A fixture that is not UTF-8 on purpose has no text to compare.
        let mut docs: Vec<(String, String)> = files
            .iter()
            .filter_map(|p| {
                let text = std::fs::read_to_string(p).ok()?;
                Some((p.display().to_string(), text))
            })
            .collect();
        for (i, doc) in TRICKY.iter().enumerate() {
            docs.push((format!("tricky document {i}"), (*doc).to_owned()));
        }
        docs.push(("large document".to_owned(), big_doc()));
        docs
    }

    /// Compares the positions of `ours` and `reference` node by node; returns the number of
    /// nodes compared.
    fn same_positions(name: &str, ours: ValueRef<'_>, reference: ValueRef<'_>, at: &str) -> usize {
        assert_eq!(
            ours.position(),
            reference.position(),
            "{name}: position of {at:?}"
        );
        match (ours.kind(), reference.kind()) {
            (NodeKind::Array(a), NodeKind::Array(b)) => {
                assert_eq!(a.len(), b.len(), "{name}: length of {at:?}");
                let mut nodes = 1;
                for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
                    nodes += same_positions(name, x, y, &format!("{at}/{i}"));
                }
                nodes
            }
            (NodeKind::Object(a), NodeKind::Object(b)) => {
                assert_eq!(a.len(), b.len(), "{name}: size of {at:?}");
                let mut nodes = 1;
                for i in 0..a.len() {
                    let (Some((k, x, kx)), Some((l, y, ky))) = (a.member(i), b.member(i)) else {
                        panic!("{name}: member {i} of {at:?}");
                    };
                    assert_eq!(k, l, "{name}: key {i} of {at:?}");
                    assert_eq!(kx, ky, "{name}: position of key {k:?} of {at:?}");
                    nodes += same_positions(name, x, y, &format!("{at}/{k}"));
                }
                nodes
            }
            (NodeKind::Array(_) | NodeKind::Object(_), _)
            | (_, NodeKind::Array(_) | NodeKind::Object(_)) => {
                panic!("{name}: kinds of {at:?} differ")
            }
            _ => 1,
        }
    }

    /// Compares both sinks on `text`; returns the number of nodes compared.
    fn compare(name: &str, text: &str) -> usize {
        let limits = Limits::default();
        match (parse_tree(text, &limits), parse(text, &limits)) {
            (Ok(tree), Ok((value, spans))) => {
                assert_eq!(tree.root().to_value(), value, "{name}: values differ");
                let reference = Tree::from_value_and_spans(&value, &spans);
                same_positions(name, tree.root(), reference.root(), "")
            }
            (Err(a), Err(b)) => {
                assert_eq!(a, b, "{name}: errors differ");
                0
            }
            (a, b) => panic!("{name}: {:?} / {:?}", a.err(), b.err()),
        }
    }

    #[test]
    fn tree_and_spans_agree() {
        let docs = documents();
        let nodes: usize = docs.iter().map(|(name, text)| compare(name, text)).sum();
        assert!(nodes > 1000, "{nodes} nodes compared");
    }

    #[test]
    fn invalid_documents_fail_alike() {
        let mut files = Vec::new();
        yaml_files(
            &corpus_dir().join("serialization-fixtures/expected-invalid"),
            &mut files,
        );
        for path in files {
            let text = std::fs::read_to_string(&path).expect("readable fixture");
            let limits = Limits::default();
            let from_tree = parse_tree(&text, &limits).expect_err("an invalid document");
            let from_value = parse(&text, &limits).expect_err("an invalid document");
            assert_eq!(from_tree, from_value, "{}", path.display());
        }
    }

    /// Every node of a document starts at the same line and column whatever its line breaks.
    #[test]
    fn line_breaks_do_not_move_nodes() {
        let limits = Limits::default();
        for (i, doc) in TRICKY.iter().filter(|d| !d.contains('\r')).enumerate() {
            let Ok(expected) = parse_tree(doc, &limits) else {
                continue;
            };
            let expected = Tree::from_value_and_spans(
                &expected.root().to_value(),
                &parse(doc, &limits).expect("loads").1,
            );
            for brk in ["\r\n", "\r"] {
                let text = doc.replace('\n', brk);
                let tree = parse_tree(&text, &limits).expect("loads with other line breaks");
                same_positions(
                    &format!("document {i} with {brk:?}"),
                    tree.root(),
                    expected.root(),
                    "",
                );
            }
        }
    }

    /// saphyr copies every scalar; those written as they read are kept by reference anyway.
    #[test]
    fn strings_written_as_they_read_are_borrowed() {
        let limits = Limits::default();
        let text = "a: plain\n'b': 'single'\n\"\u{e9}\": \"double\"\nd: [x, {e: y}]\n";
        let tree = parse_tree(text, &limits).expect("loads");
        assert!(tree.decoded.is_empty(), "{:?}", tree.decoded);
        let text = "a: 'it''s'\nb: \"tab\\t\"\nc: |\n  block\nd: two\n  lines\n";
        let tree = parse_tree(text, &limits).expect("loads");
        let expected =
            serde_json::json!({"a": "it's", "b": "tab\t", "c": "block\n", "d": "two lines"});
        assert_eq!(tree.root().to_value(), expected);
    }

    /// Indentless sequences start at their `-` and block scalars at their header, whatever the
    /// line breaks.
    #[test]
    fn moved_starts() {
        let limits = Limits::default();
        let cases: &[(&str, &str, (u32, u32))] = &[
            ("k:\n- a\n", "/k", (2, 1)),
            ("k:\r- a\r", "/k", (2, 1)),
            ("x:\n  \u{e9}:\n  -\ta\n", "/x/\u{e9}", (3, 3)),
            ("a: | # c\n  x\n", "/a", (1, 4)),
            ("a: |\r\r  x\r", "/a", (1, 4)),
            ("\u{e9}\u{e9}: >-\r\n\r\n  x\r\n", "/\u{e9}\u{e9}", (1, 5)),
            ("a: |\n", "/a", (1, 4)),
        ];
        for &(text, pointer, (line, column)) in cases {
            let tree = parse_tree(text, &limits).expect("loads");
            let node = tree.root().pointer(pointer).expect("node");
            assert_eq!(node.position(), Position::new(line, column), "{text:?}");
        }
    }
}
