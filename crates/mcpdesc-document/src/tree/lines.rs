//! Lines and columns of byte offsets, computed when asked.
//!
//! A document keeps one byte offset per node; most are never shown to anyone. The index
//! holds a checkpoint (offset, line, column) every [`STRIDE`] bytes of the source, built on
//! the first question, so any offset is placed by scanning at most one stride of text, on
//! long single-line documents too.

use std::sync::OnceLock;

use crate::Position;

/// Bytes of source between checkpoints.
const STRIDE: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Breaks {
    /// Only `\n` ends a line (JSON, where `\r` is whitespace within a line).
    Newline,
    /// `\n`, `\r\n` and a lone `\r` end a line (YAML).
    NewlineOrReturn,
}

#[derive(Debug, Clone, Copy)]
struct Checkpoint {
    offset: u32,
    /// 0-based line.
    line: u32,
    /// Characters between the line's start and `offset`.
    column: u32,
}

#[derive(Debug, Clone)]
pub(crate) struct LineIndex {
    breaks: Breaks,
    checkpoints: OnceLock<Vec<Checkpoint>>,
}

impl LineIndex {
    pub(crate) fn new(breaks: Breaks) -> LineIndex {
        LineIndex {
            breaks,
            checkpoints: OnceLock::new(),
        }
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.checkpoints
            .get()
            .map_or(0, |c| c.capacity() * std::mem::size_of::<Checkpoint>())
    }

    /// The 1-based line and column (in characters) of byte `offset` of `text`.
    pub(crate) fn position(&self, text: &str, offset: u32) -> Position {
        let checkpoints = self.checkpoints.get_or_init(|| build(text, self.breaks));
        let at = checkpoints.partition_point(|c| c.offset <= offset);
        let from = at
            .checked_sub(1)
            .and_then(|i| checkpoints.get(i))
            .copied()
            .unwrap_or(Checkpoint {
                offset: 0,
                line: 0,
                column: 0,
            });
        let end = (offset as usize).min(text.len());
        let reached = scan(text.as_bytes(), from, end, self.breaks);
        Position::new(
            reached.line.saturating_add(1),
            reached.column.saturating_add(1),
        )
    }
}

/// A reader of positions in increasing order: each continues from the last, so reading
/// every node of a document costs one pass over its text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cursor {
    at: Checkpoint,
}

impl Cursor {
    pub(crate) fn new() -> Cursor {
        Cursor {
            at: Checkpoint {
                offset: 0,
                line: 0,
                column: 0,
            },
        }
    }

    /// The position of byte `offset`; an offset before the last one read starts over from
    /// the index.
    pub(crate) fn position(&mut self, index: &LineIndex, text: &str, offset: u32) -> Position {
        if offset < self.at.offset {
            return index.position(text, offset);
        }
        let end = (offset as usize).min(text.len());
        self.at = scan(text.as_bytes(), self.at, end, index.breaks);
        Position::new(
            self.at.line.saturating_add(1),
            self.at.column.saturating_add(1),
        )
    }
}

/// The state at byte `end`, scanning from `from`.
///
/// Positions are asked for whole documents at once (the first finding builds every
/// checkpoint), so the text is counted a slice at a time rather than a byte at a time: the
/// line breaks in the slice, then the characters after the last one.
fn scan(bytes: &[u8], from: Checkpoint, end: usize, breaks: Breaks) -> Checkpoint {
    let start = (from.offset as usize).min(end);
    let slice = &bytes[start..end];
    if breaks == Breaks::NewlineOrReturn && memchr::memchr(b'\r', slice).is_some() {
        return scan_bytes(bytes, from, start, end, breaks);
    }
    let (line, column) = match memchr::memrchr(b'\n', slice) {
        Some(last) => (
            from.line
                .saturating_add(count_u32(memchr::memchr_iter(b'\n', slice).count())),
            count_u32(characters(&slice[last + 1..])),
        ),
        None => (
            from.line,
            from.column.saturating_add(count_u32(characters(slice))),
        ),
    };
    Checkpoint {
        offset: end as u32,
        line,
        column,
    }
}

/// The characters of UTF-8 text: the bytes that do not continue a character.
fn characters(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

fn count_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// [`scan`] one byte at a time, for YAML text holding a carriage return (a break alone, part
/// of one with a following `\n`, which may lie past `end`).
fn scan_bytes(
    bytes: &[u8],
    from: Checkpoint,
    start: usize,
    end: usize,
    breaks: Breaks,
) -> Checkpoint {
    let (mut line, mut column) = (from.line, from.column);
    for (i, &b) in bytes[start..end].iter().enumerate() {
        let is_break = b == b'\n'
            || (b == b'\r'
                && breaks == Breaks::NewlineOrReturn
                && bytes.get(start + i + 1) != Some(&b'\n'));
        if is_break {
            line = line.saturating_add(1);
            column = 0;
        } else if b & 0xC0 != 0x80 {
            column = column.saturating_add(1);
        }
    }
    Checkpoint {
        offset: end as u32,
        line,
        column,
    }
}

fn build(text: &str, breaks: Breaks) -> Vec<Checkpoint> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() / STRIDE + 1);
    let mut state = Checkpoint {
        offset: 0,
        line: 0,
        column: 0,
    };
    let mut next = STRIDE;
    while next < bytes.len() {
        // A checkpoint sits on a character boundary.
        while next < bytes.len() && !text.is_char_boundary(next) {
            next += 1;
        }
        state = scan(bytes, state, next, breaks);
        out.push(state);
        next += STRIDE;
    }
    out.shrink_to_fit();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(text: &str, offset: usize, breaks: Breaks) -> Position {
        let start = Checkpoint {
            offset: 0,
            line: 0,
            column: 0,
        };
        let s = scan_bytes(text.as_bytes(), start, 0, offset, breaks);
        Position::new(s.line + 1, s.column + 1)
    }

    #[test]
    fn checkpoints_agree_with_a_scan_from_the_start() {
        let (mut text, mut plain) = (String::new(), String::new());
        for i in 0..3000 {
            text.push_str(&format!("line {i} é\r\n\tø ∑{}\r", "x".repeat(i % 17)));
            // Some lines longer than the stride between checkpoints.
            let long = if i % 500 == 7 { 9000 } else { i % 17 };
            plain.push_str(&format!("line {i} é\n\tø ∑{}\n", "x".repeat(long)));
        }
        for (text, breaks) in [
            (&text, Breaks::Newline),
            (&text, Breaks::NewlineOrReturn),
            (&plain, Breaks::Newline),
            (&plain, Breaks::NewlineOrReturn),
        ] {
            let index = LineIndex::new(breaks);
            for offset in (0..text.len())
                .step_by(97)
                .filter(|&o| text.is_char_boundary(o))
            {
                assert_eq!(
                    index.position(text, offset as u32),
                    naive(text, offset, breaks),
                    "offset {offset}"
                );
            }
        }
    }

    #[test]
    fn lines_and_columns() {
        let index = LineIndex::new(Breaks::Newline);
        let text = "ab\n\u{e9}c\rd";
        assert_eq!(index.position(text, 0), Position::new(1, 1));
        assert_eq!(index.position(text, 3), Position::new(2, 1));
        assert_eq!(index.position(text, 5), Position::new(2, 2));
        assert_eq!(index.position(text, 7), Position::new(2, 4));
        let yaml = LineIndex::new(Breaks::NewlineOrReturn);
        assert_eq!(yaml.position(text, 7), Position::new(3, 1));
        assert_eq!(yaml.position("a\r\nb", 3), Position::new(2, 1));
    }
}
