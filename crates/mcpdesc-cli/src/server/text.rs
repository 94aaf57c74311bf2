//! An open document's text and the three ways positions are counted in it: byte offsets
//! (edits), Unicode scalar values (the engine's 1-based columns) and UTF-16 code units (the
//! Language Server Protocol's columns).

use lsp_types::{Position, Range, TextDocumentContentChangeEvent};
use mcpdesc_core::document::Position as DocPosition;

/// A document's text with the byte offset of each line start.
#[derive(Debug, Clone)]
pub struct Text {
    text: String,
    line_starts: Vec<usize>,
}

impl Text {
    pub fn new(text: String) -> Text {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Text { text, line_starts }
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The text of line `line` (0-based), without its line break.
    pub fn line(&self, line: usize) -> &str {
        let Some(&start) = self.line_starts.get(line) else {
            return "";
        };
        let end = self
            .line_starts
            .get(line + 1)
            .map_or(self.text.len(), |&e| e - 1);
        self.text[start..end.max(start)].trim_end_matches('\r')
    }

    /// The byte offset of the start of line `line` (0-based), or the end of the text.
    pub fn line_start(&self, line: usize) -> usize {
        self.line_starts
            .get(line)
            .copied()
            .unwrap_or(self.text.len())
    }

    /// The byte offset of an LSP position; positions past a line's end clamp to it.
    pub fn offset(&self, pos: Position) -> usize {
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
    pub fn position(&self, offset: usize) -> Position {
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
    pub fn offset_of(&self, pos: DocPosition) -> Option<usize> {
        if pos.line == 0 {
            return None;
        }
        let line = pos.line as usize - 1;
        if line >= self.line_starts.len() {
            return None;
        }
        let start = self.line_starts[line];
        let text = self.line(line);
        let col = pos.column.saturating_sub(1) as usize;
        Some(start + text.char_indices().nth(col).map_or(text.len(), |(i, _)| i))
    }

    /// The engine position of an LSP position.
    pub fn doc_position(&self, pos: Position) -> DocPosition {
        let offset = self.offset(pos);
        let line = pos.line.min(self.line_starts.len() as u32 - 1);
        let start = self.line_starts[line as usize];
        let column = self.text[start..offset].chars().count() as u32 + 1;
        DocPosition::new(line + 1, column)
    }

    /// The LSP range of bytes `start..end`.
    pub fn range(&self, start: usize, end: usize) -> Range {
        Range::new(self.position(start), self.position(end))
    }

    /// Applies one change of a `didChange` notification: a range replaced, or the whole text.
    pub fn apply(&mut self, change: TextDocumentContentChangeEvent) {
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

    use proptest::prelude::*;

    /// Any text, with multi-byte and astral characters and both line endings.
    fn text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("a"),
                Just("é"),
                Just("😀"),
                Just("\n"),
                Just("\r\n"),
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
