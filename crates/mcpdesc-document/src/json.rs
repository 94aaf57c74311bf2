//! The JSON loader: a strict RFC 8259 parser that records the position of every node.
//!
//! The parser works on bytes and keeps its own stack of open containers, so nesting depth is
//! bounded by [`Limits::max_depth`] and never by the call stack. Line and column are tracked
//! incrementally: the line from the newlines skipped as whitespace (strings cannot hold raw
//! newlines), the column by counting the characters of the current line only up to the
//! furthest position asked for so far.

use std::borrow::Cow;

use serde_json::{Number, Value};

use super::sink::{KeySet, Sink, ValueSink};
use super::tree::lines::{Breaks, LineIndex};
use super::tree::{Builder, Positions, Tree};
use super::{Limits, LoadError, LoadErrorKind, Position, SpanTree};

/// Parses RFC 8259 JSON into a value and its span tree.
pub(super) fn parse(text: &str, limits: &Limits) -> Result<(Value, SpanTree), LoadError> {
    let mut sink = ValueSink::new(text, Breaks::Newline);
    parse_into(text, limits, &mut sink)?;
    sink.finish().ok_or_else(|| {
        LoadError::new(
            LoadErrorKind::JsonSyntax("no value".into()),
            Position::START,
        )
    })
}

/// Parses RFC 8259 JSON into a compact tree borrowing from `text`.
pub(super) fn parse_tree<'t>(text: &'t str, limits: &Limits) -> Result<Tree<'t>, LoadError> {
    // About one node per twenty bytes of pretty-printed JSON.
    let mut builder = Builder::new(text, text.len() / 24);
    parse_into(text, limits, &mut builder)?;
    Ok(builder.finish(Positions::Offsets(LineIndex::new(Breaks::Newline))))
}

/// Reads one JSON value (and nothing else but whitespace) from `text` into `sink`.
pub(super) fn parse_into<S: Sink>(
    text: &str,
    limits: &Limits,
    sink: &mut S,
) -> Result<(), LoadError> {
    Loader {
        lex: Lexer::new(text),
        limits,
        nodes: 0,
        sink,
        stack: Vec::new(),
    }
    .run()
}

/// The value of an integer literal with the given sign and magnitude.
///
/// Follows `serde_json`: non-negative integers are `u64`, negative ones `i64`, and `-0` or a
/// negative integer below `i64::MIN` is a float.
pub(super) fn integer_value(negative: bool, magnitude: u64) -> Value {
    if !negative {
        return Value::from(magnitude);
    }
    if magnitude == 0 {
        return float_value(-0.0).unwrap_or(Value::from(0));
    }
    match i64::try_from(i128::from(magnitude).wrapping_neg()) {
        Ok(n) => Value::from(n),
        Err(_) => float_value(-(magnitude as f64)).unwrap_or(Value::from(0)),
    }
}

/// A finite float as a value, or `None` for NaN and the infinities.
pub(super) fn float_value(f: f64) -> Option<Value> {
    Number::from_f64(f).map(Value::Number)
}

/// The decimal digits of `digits` as a `u64`, or `None` on overflow or a non-digit.
pub(super) fn decimal_u64(digits: &[u8]) -> Option<u64> {
    let mut n: u64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    Some(n)
}

fn limit_error(limit: &'static str, value: u64, position: Position) -> LoadError {
    LoadError::new(LoadErrorKind::Limit { limit, value }, position)
}

/// An open array or object.
enum Frame<M> {
    Array(M),
    Object(M, KeySet),
}

struct Loader<'a, 's, S: Sink> {
    lex: Lexer<'a>,
    limits: &'a Limits,
    nodes: u64,
    sink: &'s mut S,
    stack: Vec<Frame<S::Mark>>,
}

fn offset(pos: usize) -> u32 {
    u32::try_from(pos).unwrap_or(u32::MAX)
}

impl<S: Sink> Loader<'_, '_, S> {
    fn run(mut self) -> Result<(), LoadError> {
        let limits = self.limits;
        let lex = &mut self.lex;
        let stack = &mut self.stack;
        let sink = &mut *self.sink;
        'value: loop {
            lex.skip_ws();
            let start = lex.pos;
            let Some(b) = lex.peek() else {
                return Err(lex.eof_error("expected a JSON value"));
            };
            self.nodes += 1;
            if self.nodes > limits.max_nodes {
                return Err(lex.limit_error("max-nodes", limits.max_nodes, start));
            }
            let pos = offset(start);
            match b {
                b'[' | b'{' => {
                    if stack.len() as u64 >= u64::from(limits.max_depth) {
                        return Err(lex.limit_error(
                            "max-depth",
                            u64::from(limits.max_depth),
                            start,
                        ));
                    }
                    lex.pos += 1;
                    lex.skip_ws();
                    if b == b'[' {
                        let mark = sink.open(pos, false);
                        if lex.peek() == Some(b']') {
                            lex.pos += 1;
                            sink.close_array(mark);
                        } else {
                            lex.room_for_entry(0, limits)?;
                            stack.push(Frame::Array(mark));
                            continue 'value;
                        }
                    } else {
                        let mark = sink.open(pos, true);
                        match lex.peek() {
                            Some(b'}') => {
                                lex.pos += 1;
                                sink.close_object(mark);
                            }
                            Some(b'"') => {
                                lex.room_for_entry(0, limits)?;
                                let (key, at) = lex.member_key(limits)?;
                                let mut keys = KeySet::default();
                                keys.repeats(&*sink, mark, &key);
                                sink.key(&key, at);
                                stack.push(Frame::Object(mark, keys));
                                continue 'value;
                            }
                            Some(_) => {
                                return Err(
                                    lex.error_here("expected `\"` to start an object key or `}`")
                                );
                            }
                            None => return Err(lex.eof_error("expected an object key or `}`")),
                        }
                    }
                }
                b'"' => {
                    let s = lex.string(limits.max_scalar_bytes)?;
                    sink.string(&s, pos);
                }
                b'-' | b'0'..=b'9' => match lex.number(limits.max_scalar_bytes)? {
                    Value::Number(n) => sink.number(n, pos),
                    _ => sink.null(pos),
                },
                b't' => {
                    lex.literal("true")?;
                    sink.bool(true, pos);
                }
                b'f' => {
                    lex.literal("false")?;
                    sink.bool(false, pos);
                }
                b'n' => {
                    lex.literal("null")?;
                    sink.null(pos);
                }
                _ => return Err(lex.unexpected_value()),
            }
            // The value is complete: continue its container; close containers that end here.
            loop {
                let Some(frame) = stack.last_mut() else {
                    lex.skip_ws();
                    if lex.pos < lex.bytes.len() {
                        return Err(lex.error_here("unexpected characters after the JSON value"));
                    }
                    return Ok(());
                };
                match frame {
                    Frame::Array(mark) => {
                        let count = sink.entries(*mark);
                        lex.skip_ws();
                        match lex.peek() {
                            Some(b',') => {
                                lex.pos += 1;
                                lex.skip_ws();
                                if lex.peek() == Some(b']') {
                                    return Err(
                                        lex.error_here("trailing comma before `]` is not allowed")
                                    );
                                }
                                lex.room_for_entry(count, limits)?;
                                continue 'value;
                            }
                            Some(b']') => lex.pos += 1,
                            Some(_) => {
                                return Err(
                                    lex.error_here("expected `,` or `]` after array element")
                                );
                            }
                            None => return Err(lex.eof_error("expected `,` or `]`")),
                        }
                    }
                    Frame::Object(mark, keys) => {
                        let count = sink.entries(*mark);
                        lex.skip_ws();
                        match lex.peek() {
                            Some(b',') => {
                                lex.pos += 1;
                                lex.skip_ws();
                                match lex.peek() {
                                    Some(b'"') => {
                                        lex.room_for_entry(count, limits)?;
                                        let (k, at) = lex.member_key(limits)?;
                                        if keys.repeats(&*sink, *mark, &k) {
                                            return Err(LoadError::new(
                                                LoadErrorKind::DuplicateKey(k.into_owned()),
                                                Position::of_byte_offset(lex.bytes, at as usize),
                                            ));
                                        }
                                        sink.key(&k, at);
                                        continue 'value;
                                    }
                                    Some(b'}') => {
                                        return Err(lex.error_here(
                                            "trailing comma before `}` is not allowed",
                                        ));
                                    }
                                    Some(_) => {
                                        return Err(
                                            lex.error_here("expected `\"` to start an object key")
                                        );
                                    }
                                    None => return Err(lex.eof_error("expected an object key")),
                                }
                            }
                            Some(b'}') => lex.pos += 1,
                            Some(_) => {
                                return Err(
                                    lex.error_here("expected `,` or `}` after object member")
                                );
                            }
                            None => return Err(lex.eof_error("expected `,` or `}`")),
                        }
                    }
                }
                // The innermost container closed: it is the completed value now.
                match stack.pop() {
                    Some(Frame::Array(mark)) => sink.close_array(mark),
                    Some(Frame::Object(mark, _)) => sink.close_object(mark),
                    None => return Err(lex.error_here("internal error: no open container")),
                }
            }
        }
    }
}

/// Byte-level cursor over the text.
struct Lexer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Lexer<'a> {
    fn new(text: &'a str) -> Lexer<'a> {
        Lexer {
            text,
            bytes: text.as_bytes(),
            pos: 0,
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    #[inline]
    fn skip_ws(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            match b {
                b' ' | b'\t' | b'\r' | b'\n' => self.pos += 1,
                _ => break,
            }
        }
    }

    fn limit_error(&self, limit: &'static str, value: u64, offset: usize) -> LoadError {
        limit_error(limit, value, Position::of_byte_offset(self.bytes, offset))
    }

    fn syntax(&self, offset: usize, message: impl Into<String>) -> LoadError {
        LoadError::new(
            LoadErrorKind::JsonSyntax(message.into()),
            Position::of_byte_offset(self.bytes, offset),
        )
    }

    fn error_here(&self, message: &str) -> LoadError {
        self.syntax(self.pos, message)
    }

    fn eof_error(&self, expected: &str) -> LoadError {
        self.syntax(
            self.bytes.len(),
            format!("unexpected end of input; {expected}"),
        )
    }

    /// Describes the character at byte `offset` for a message.
    fn describe(&self, offset: usize) -> String {
        match self.text.get(offset..).and_then(|s| s.chars().next()) {
            Some(c) if c.is_ascii_graphic() || (!c.is_ascii() && c.is_alphanumeric()) => {
                format!("`{c}`")
            }
            Some(c) => format!("U+{:04X}", u32::from(c)),
            None => "end of input".to_owned(),
        }
    }

    fn unexpected_value(&self) -> LoadError {
        let rest = self.bytes.get(self.pos..).unwrap_or(&[]);
        for lit in ["NaN", "Infinity"] {
            if rest.starts_with(lit.as_bytes()) {
                return LoadError::new(
                    LoadErrorKind::NonFiniteNumber(lit.to_owned()),
                    Position::of_byte_offset(self.bytes, self.pos),
                );
            }
        }
        self.syntax(
            self.pos,
            format!("expected a JSON value, found {}", self.describe(self.pos)),
        )
    }

    fn literal(&mut self, word: &'static str) -> Result<(), LoadError> {
        let rest = self.bytes.get(self.pos..).unwrap_or(&[]);
        if rest.starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(self.syntax(self.pos, format!("invalid literal; expected `{word}`")))
        }
    }

    /// Parses the key at the cursor (a `"`), refuses a duplicate of a key of `map`, and
    /// consumes the following `:`. Returns the key and its position.
    /// Refuses one more entry at the cursor for a container already holding `count`.
    fn room_for_entry(&mut self, count: usize, limits: &Limits) -> Result<(), LoadError> {
        if count as u64 >= limits.max_collection_len {
            return Err(self.limit_error(
                "max-collection-len",
                limits.max_collection_len,
                self.pos,
            ));
        }
        Ok(())
    }

    fn member_key(&mut self, limits: &Limits) -> Result<(Cow<'a, str>, u32), LoadError> {
        let at = offset(self.pos);
        let key = self.string(limits.max_scalar_bytes)?;
        self.skip_ws();
        match self.peek() {
            Some(b':') => {
                self.pos += 1;
                Ok((key, at))
            }
            Some(_) => Err(self.error_here("expected `:` after object key")),
            None => Err(self.eof_error("expected `:` after object key")),
        }
    }

    /// Parses the string starting at the cursor (a `"`).
    fn string(&mut self, max: u64) -> Result<Cow<'a, str>, LoadError> {
        let open = self.pos;
        let start = open + 1;
        let mut i = find_special(self.bytes, start);
        if self.bytes.get(i) == Some(&b'"') {
            if (i - start) as u64 > max {
                return Err(self.scalar_limit(open, max));
            }
            let s = self.slice(start, i)?;
            self.pos = i + 1;
            return Ok(Cow::Borrowed(s));
        }
        let cap = usize::try_from(max).unwrap_or(usize::MAX);
        let mut out = String::with_capacity((i - start).min(cap).saturating_add(16));
        out.push_str(self.slice(start, i)?);
        loop {
            match self.bytes.get(i) {
                Some(b'"') => {
                    self.pos = i + 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => {
                    i = self.escape(i, &mut out)?;
                }
                Some(&c) if c < 0x20 => {
                    return Err(self.syntax(
                        i,
                        format!("control character U+{c:04X} must be escaped in a string"),
                    ));
                }
                Some(_) => {
                    let j = find_special(self.bytes, i);
                    out.push_str(self.slice(i, j)?);
                    i = j;
                }
                None => {
                    return Err(self.eof_error("unterminated string"));
                }
            }
            if out.len() as u64 > max {
                return Err(self.scalar_limit(open, max));
            }
        }
    }

    fn scalar_limit(&self, offset: usize, max: u64) -> LoadError {
        limit_error(
            "max-scalar-bytes",
            max,
            Position::of_byte_offset(self.bytes, offset),
        )
    }

    /// `text[a..b]`; both offsets are at ASCII bytes or the end, hence char boundaries.
    fn slice(&self, a: usize, b: usize) -> Result<&'a str, LoadError> {
        self.text
            .get(a..b)
            .ok_or_else(|| self.syntax(a, "internal error: string slice off a char boundary"))
    }

    /// Decodes the escape sequence at byte `i` (a `\`) into `out`; returns the offset after it.
    fn escape(&self, i: usize, out: &mut String) -> Result<usize, LoadError> {
        let Some(&e) = self.bytes.get(i + 1) else {
            return Err(self.eof_error("unterminated string"));
        };
        let c = match e {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = self.hex4(i + 2)?;
                let (code, next) = if (0xD800..0xDC00).contains(&hi) {
                    let paired = self.bytes.get(i + 6) == Some(&b'\\')
                        && self.bytes.get(i + 7) == Some(&b'u');
                    if !paired {
                        return Err(self.lone_surrogate(i));
                    }
                    let lo = self.hex4(i + 8)?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return Err(self.lone_surrogate(i));
                    }
                    (0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00), i + 12)
                } else if (0xDC00..0xE000).contains(&hi) {
                    return Err(self.lone_surrogate(i));
                } else {
                    (hi, i + 6)
                };
                let Some(c) = char::from_u32(code) else {
                    return Err(self.lone_surrogate(i));
                };
                out.push(c);
                return Ok(next);
            }
            _ => {
                return Err(self.syntax(
                    i,
                    format!(
                        "invalid escape sequence: `\\` followed by {}",
                        self.describe(i + 1)
                    ),
                ));
            }
        };
        out.push(c);
        Ok(i + 2)
    }

    fn lone_surrogate(&self, offset: usize) -> LoadError {
        LoadError::new(
            LoadErrorKind::LoneSurrogate,
            Position::of_byte_offset(self.bytes, offset),
        )
    }

    /// Four hex digits at `offset`.
    fn hex4(&self, offset: usize) -> Result<u32, LoadError> {
        let mut code = 0u32;
        for k in 0..4 {
            let Some(&b) = self.bytes.get(offset + k) else {
                return Err(self.eof_error("unterminated `\\u` escape"));
            };
            let digit = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => b - b'A' + 10,
                _ => {
                    return Err(self.syntax(
                        offset + k,
                        "invalid `\\u` escape: expected four hexadecimal digits",
                    ));
                }
            };
            code = code * 16 + u32::from(digit);
        }
        Ok(code)
    }

    /// Parses the number starting at the cursor (`-` or a digit).
    fn number(&mut self, max: u64) -> Result<Value, LoadError> {
        let bytes = self.bytes;
        let start = self.pos;
        let mut i = start;
        let negative = bytes.get(i) == Some(&b'-');
        if negative {
            i += 1;
            if bytes.get(i..).is_some_and(|r| r.starts_with(b"Infinity")) {
                return Err(LoadError::new(
                    LoadErrorKind::NonFiniteNumber("-Infinity".to_owned()),
                    Position::of_byte_offset(bytes, start),
                ));
            }
        }
        let digits_start = i;
        match bytes.get(i) {
            Some(b'0') => {
                i += 1;
                if bytes.get(i).is_some_and(u8::is_ascii_digit) {
                    return Err(self.syntax(start, "invalid number: leading zeros are not allowed"));
                }
            }
            Some(b'1'..=b'9') => {
                i += 1;
                while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
            }
            None => return Err(self.eof_error("expected a digit after `-`")),
            Some(_) => {
                return Err(self.syntax(
                    i,
                    format!(
                        "invalid number: expected a digit, found {}",
                        self.describe(i)
                    ),
                ));
            }
        }
        let digits_end = i;
        let mut float = false;
        if bytes.get(i) == Some(&b'.') {
            float = true;
            i += 1;
            if !bytes.get(i).is_some_and(u8::is_ascii_digit) {
                return Err(self.syntax(
                    i,
                    "invalid number: expected a digit after the decimal point",
                ));
            }
            while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
        if matches!(bytes.get(i), Some(b'e' | b'E')) {
            float = true;
            i += 1;
            if matches!(bytes.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if !bytes.get(i).is_some_and(u8::is_ascii_digit) {
                return Err(self.syntax(i, "invalid number: expected a digit in the exponent"));
            }
            while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
        if (i - start) as u64 > max {
            return Err(self.scalar_limit(start, max));
        }
        self.pos = i;
        if !float {
            if let Some(magnitude) = bytes.get(digits_start..digits_end).and_then(decimal_u64) {
                return Ok(integer_value(negative, magnitude));
            }
        }
        let literal = self.slice(start, i)?;
        let f: f64 = literal
            .parse()
            .map_err(|_| self.syntax(start, "invalid number"))?;
        float_value(f).ok_or_else(|| {
            LoadError::new(
                LoadErrorKind::NonFiniteNumber(literal.to_owned()),
                Position::of_byte_offset(bytes, start),
            )
        })
    }
}

/// Offset of the first `"`, `\` or control character at or after `i`, or `bytes.len()`.
#[inline]
fn find_special(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const QUOTES: u64 = ONES * b'"' as u64;
    const BACKSLASHES: u64 = ONES * b'\\' as u64;
    const SPACES: u64 = ONES * 0x20;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let v = u64::from_le_bytes(word);
        let q = v ^ QUOTES;
        let s = v ^ BACKSLASHES;
        // SWAR: a byte's high bit is set for a zero byte in `q` or `s` or a byte below 0x20 in
        // `v`. Borrows only run towards later bytes, so the lowest flag is a real match.
        let found = (q.wrapping_sub(ONES) & !q)
            | (s.wrapping_sub(ONES) & !s)
            | (v.wrapping_sub(SPACES) & !v);
        let found = found & HIGHS;
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&b) = bytes.get(i) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            return i;
        }
        i += 1;
    }
    i.min(bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_special_matches_naive_scan() {
        let samples: [&[u8]; 6] = [
            b"abcdefghijklmnop\"",
            b"abc\\def",
            b"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\"x",
            b"0123456\x1f89",
            b"",
            b"no special bytes at all here.....",
        ];
        for s in samples {
            for start in 0..=s.len() {
                let naive = (start..s.len())
                    .find(|&k| s[k] == b'"' || s[k] == b'\\' || s[k] < 0x20)
                    .unwrap_or(s.len());
                assert_eq!(find_special(s, start), naive, "{s:?} from {start}");
            }
        }
    }

    #[test]
    fn numbers_follow_serde_json() {
        for text in [
            "0",
            "-0",
            "12",
            "-12",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "1.5",
            "-1.5e-3",
            "6.02e23",
            "1E2",
        ] {
            let (ours, _) = parse(text, &Limits::default()).unwrap();
            let theirs: Value = serde_json::from_str(text).unwrap();
            assert_eq!(ours, theirs, "{text}");
            assert_eq!(ours.to_string(), theirs.to_string(), "{text}");
        }
    }
}

#[cfg(test)]
mod duplicate_tests {
    use super::*;
    use crate::sink::LINEAR_KEYS;

    fn object(keys: &[String]) -> String {
        let members: Vec<String> = keys.iter().map(|k| format!("\"{k}\": [1, {{}}]")).collect();
        format!("{{\n{}\n}}", members.join(",\n"))
    }

    #[test]
    fn duplicates_are_found_in_small_and_large_objects() {
        for n in [1, 2, LINEAR_KEYS - 1, LINEAR_KEYS, LINEAR_KEYS + 1, 200] {
            let mut keys: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
            let (value, _) = parse(&object(&keys), &Limits::default()).expect("distinct keys");
            let map = value.as_object().expect("object");
            assert_eq!(map.len(), n);
            assert!(map.keys().eq(keys.iter()), "source order is kept");
            for repeated in [0, n / 2, n - 1] {
                keys.push(format!("k{repeated}"));
                let err = parse(&object(&keys), &Limits::default()).expect_err("duplicate");
                assert_eq!(
                    err.kind,
                    LoadErrorKind::DuplicateKey(format!("k{repeated}")),
                    "{n} keys"
                );
                assert_eq!(err.position, Position::new(n as u32 + 2, 1));
                keys.pop();
            }
        }
    }

    #[test]
    fn nested_containers_keep_their_own_members() {
        let text = r#"{"a": [1, [2, 3], {"b": {"c": [4]}, "d": 5}], "e": {"a": 1}, "f": []}"#;
        let (value, _) = parse(text, &Limits::default()).expect("valid");
        let expected: Value = serde_json::from_str(text).expect("valid");
        assert_eq!(value, expected);
    }
}
