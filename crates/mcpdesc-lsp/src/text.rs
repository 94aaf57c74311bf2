//! An open document's text and the three ways positions are counted in it: byte offsets
//! (edits), Unicode scalar values (the engine's 1-based columns) and UTF-16 code units (the
//! Language Server Protocol's columns).
//!
//! Lines differ too: the protocol ends a line at `\n`, `\r\n` and a lone `\r`; the engine does
//! so for YAML, but reads JSON and captures with `\n` alone (a lone `\r` is whitespace inside a
//! line there). Both are kept, so that a finding lands on the line the editor shows.

use std::sync::atomic::{AtomicBool, Ordering};

use lsp_types::{Position, Range, TextDocumentContentChangeEvent};
use mcpdesc_core::document::Position as DocPosition;
use mcpdesc_core::Format;

/// A document's text with the byte offset of each line start.
#[derive(Debug)]
pub(crate) struct Text {
    text: String,
    /// Line starts as the protocol counts them.
    line_starts: Vec<usize>,
    /// Line starts counting `\n` alone, when the text has a lone `\r` (else the same as
    /// `line_starts`).
    newline_starts: Option<Vec<usize>>,
    /// Whether the engine reads this text with `\n` alone as a line break. The worker, which
    /// decides the format, says so before any finding of this text is placed.
    newline_only: AtomicBool,
}

impl Clone for Text {
    fn clone(&self) -> Text {
        Text {
            text: self.text.clone(),
            line_starts: self.line_starts.clone(),
            newline_starts: self.newline_starts.clone(),
            newline_only: AtomicBool::new(self.newline_only.load(Ordering::Relaxed)),
        }
    }
}

impl Text {
    pub(crate) fn new(text: String) -> Text {
        let bytes = text.as_bytes();
        let mut line_starts = vec![0];
        let mut lone_return = false;
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                b'\n' => line_starts.push(i + 1),
                b'\r' if bytes.get(i + 1) != Some(&b'\n') => {
                    lone_return = true;
                    line_starts.push(i + 1);
                }
                _ => {}
            }
        }
        let newline_starts = lone_return.then(|| {
            std::iter::once(0)
                .chain(
                    bytes
                        .iter()
                        .enumerate()
                        .filter(|&(_, &b)| b == b'\n')
                        .map(|(i, _)| i + 1),
                )
                .collect()
        });
        Text {
            text,
            line_starts,
            newline_starts,
            newline_only: AtomicBool::new(true),
        }
    }

    /// Says how the engine reads this text: positions of findings and of nodes follow it.
    pub(crate) fn read_as(&self, format: Format) {
        self.newline_only
            .store(format != Format::Yaml, Ordering::Relaxed);
    }

    /// The line starts the engine counts.
    fn engine_starts(&self) -> &[usize] {
        match &self.newline_starts {
            Some(starts) if self.newline_only.load(Ordering::Relaxed) => starts,
            _ => &self.line_starts,
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }

    /// The text of line `line` (0-based) of `starts`, without its line break.
    fn line_in(&self, starts: &[usize], line: usize) -> &str {
        let Some(&start) = starts.get(line) else {
            return "";
        };
        let end = starts.get(line + 1).map_or(self.text.len(), |&e| e);
        let line = &self.text[start..end.max(start)];
        line.strip_suffix("\r\n")
            .or_else(|| line.strip_suffix('\n'))
            .or_else(|| line.strip_suffix('\r'))
            .unwrap_or(line)
    }

    /// The text of line `line` (0-based), without its line break.
    pub(crate) fn line(&self, line: usize) -> &str {
        self.line_in(&self.line_starts, line)
    }

    /// The byte offset of the start of line `line` (0-based), or the end of the text.
    pub(crate) fn line_start(&self, line: usize) -> usize {
        self.line_starts
            .get(line)
            .copied()
            .unwrap_or(self.text.len())
    }

    /// The byte offset of an LSP position; positions past a line's end clamp to it.
    pub(crate) fn offset(&self, pos: Position) -> usize {
        let line = pos.line as usize;
        if line >= self.line_starts.len() {
            return self.text.len();
        }
        let start = self.line_starts[line];
        let mut units = 0u32;
        for (i, c) in self.line(line).char_indices() {
            if units >= pos.character {
                return start + i;
            }
            units += c.len_utf16() as u32;
        }
        start + self.line(line).len()
    }

    /// The LSP position of byte `offset` (rounded down to a character boundary).
    pub(crate) fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let character = self.text[start..offset]
            .chars()
            .map(|c| c.len_utf16() as u32)
            .sum();
        Position::new(line as u32, character)
    }

    /// The byte offset of an engine position (1-based line, column in scalar values).
    pub(crate) fn offset_of(&self, pos: DocPosition) -> Option<usize> {
        if pos.line == 0 {
            return None;
        }
        let starts = self.engine_starts();
        let line = pos.line as usize - 1;
        if line >= starts.len() {
            return None;
        }
        let start = starts[line];
        let text = self.line_in(starts, line);
        let col = pos.column.saturating_sub(1) as usize;
        Some(start + text.char_indices().nth(col).map_or(text.len(), |(i, _)| i))
    }

    /// The engine position of an LSP position.
    pub(crate) fn doc_position(&self, pos: Position) -> DocPosition {
        let offset = self.offset(pos);
        let starts = self.engine_starts();
        let line = starts.partition_point(|&s| s <= offset) - 1;
        let column = self.text[starts[line]..offset].chars().count() as u32 + 1;
        DocPosition::new(line as u32 + 1, column)
    }

    /// The LSP range of bytes `start..end`.
    pub(crate) fn range(&self, start: usize, end: usize) -> Range {
        Range::new(self.position(start), self.position(end))
    }

    /// Applies one change of a `didChange` notification: a range replaced, or the whole text.
    pub(crate) fn apply(&mut self, change: TextDocumentContentChangeEvent) {
        match change.range {
            None => *self = Text::new(change.text),
            Some(range) => {
                let start = self.offset(range.start);
                let end = self.offset(range.end).max(start);
                let mut text = std::mem::take(&mut self.text);
                text.replace_range(start..end, &change.text);
                *self = Text::new(text);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_count_surrogate_pairs() {
        let t = Text::new("a😀b\nçd".into());
        assert_eq!(t.offset(Position::new(0, 3)), 5);
        assert_eq!(t.position(5), Position::new(0, 3));
        assert_eq!(t.offset(Position::new(1, 1)), 9);
        assert_eq!(t.doc_position(Position::new(0, 3)), DocPosition::new(1, 3));
        assert_eq!(t.offset_of(DocPosition::new(2, 2)), Some(9));
        assert_eq!(t.offset(Position::new(9, 0)), t.as_str().len());
    }

    #[test]
    fn incremental_changes_apply_in_order() {
        let mut t = Text::new("{\n  \"a\": 1\n}\n".into());
        t.apply(TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(1, 7), Position::new(1, 8))),
            range_length: None,
            text: "[2,\n3]".into(),
        });
        assert_eq!(t.as_str(), "{\n  \"a\": [2,\n3]\n}\n");
        assert_eq!(t.line(2), "3]");
        t.apply(TextDocumentContentChangeEvent {
            range: None,
            range_length: None,
            text: "x".into(),
        });
        assert_eq!(t.line(0), "x");
    }

    #[test]
    fn a_lone_return_ends_a_line_for_the_editor_and_for_yaml_only() {
        let t = Text::new("{\"a\": 1,\r\"b\": [\r\n2]}\n".into());
        // The editor: three lines.
        assert_eq!(t.position(9), Position::new(1, 0));
        assert_eq!(t.line(1), "\"b\": [");
        assert_eq!(
            t.position(t.as_str().find('2').unwrap()),
            Position::new(2, 0)
        );
        // The engine reads JSON with `\n` alone: `"b"` is on line 1, column 10.
        t.read_as(Format::Json);
        assert_eq!(t.offset_of(DocPosition::new(1, 10)), Some(9));
        assert_eq!(t.doc_position(Position::new(1, 0)), DocPosition::new(1, 10));
        assert_eq!(t.offset_of(DocPosition::new(2, 1)), t.as_str().find('2'));
        // YAML counts the lone `\r` as the editor does.
        t.read_as(Format::Yaml);
        assert_eq!(t.offset_of(DocPosition::new(2, 1)), Some(9));
        assert_eq!(t.doc_position(Position::new(1, 0)), DocPosition::new(2, 1));
    }

    use proptest::prelude::*;

    /// Any text, with multi-byte and astral characters and the three line endings.
    fn text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("a"),
                Just("é"),
                Just("😀"),
                Just("\n"),
                Just("\r\n"),
                Just("\r"),
                Just(" ")
            ],
            0..40,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        /// An edit sent as a range in UTF-16 positions gives the text a whole-document sync
        /// would have sent: what an editor and the server hold stays the same.
        #[test]
        fn range_edits_match_whole_text_edits(
            before in text(),
            inserted in text(),
            a in 0usize..60,
            b in 0usize..60,
        ) {
            let t = Text::new(before.clone());
            let boundaries: Vec<usize> = (0..=before.len())
                .filter(|&i| before.is_char_boundary(i))
                .collect();
            let (x, y) = (boundaries[a % boundaries.len()], boundaries[b % boundaries.len()]);
            let (start, end) = (x.min(y), x.max(y));
            // `\r\n` is one line break for positions; an edit inside one is not one an
            // editor can send.
            prop_assume!(!before[..start].ends_with('\r') || !before[start..].starts_with('\n'));
            prop_assume!(!before[..end].ends_with('\r') || !before[end..].starts_with('\n'));
            let range = Range::new(t.position(start), t.position(end));
            prop_assert_eq!(t.offset(range.start), start);
            prop_assert_eq!(t.offset(range.end), end);
            let mut edited = t.clone();
            edited.apply(TextDocumentContentChangeEvent {
                range: Some(range),
                range_length: None,
                text: inserted.clone(),
            });
            let expected = format!("{}{}{}", &before[..start], inserted, &before[end..]);
            prop_assert_eq!(edited.as_str(), expected.as_str());
            // The line index is that of the new text.
            let fresh = Text::new(expected);
            for line in 0..fresh.line_starts.len() {
                prop_assert_eq!(edited.line(line), fresh.line(line));
            }
        }
    }
}
