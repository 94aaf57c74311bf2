//! The source lines around a finding, with a caret under its node.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::Range;
use std::rc::Rc;

use super::{paint, Palette};
use crate::render::safe;

/// Lines of context shown above and below the line of a finding.
const CONTEXT: u32 = 1;

/// Longer source lines (a minified document, a huge scalar) are cut to this many characters
/// around the finding, so that a finding takes bounded space however long its line.
const MAX_LINE: usize = 500;

/// Characters of a cut line kept before the finding's column.
const LEAD: usize = 80;

/// The lines of a source text, split as [`str::lines`] splits them (at `\n`, a `\r` before it
/// dropped), by the byte offsets where they start: a document of 400,000 lines with one
/// finding is searched for its line breaks, not cut into a vector of every line.
pub(super) struct SourceLines<'a> {
    text: &'a str,
    starts: Vec<usize>,
    /// The character index of each long line that holds a finding, made when first needed.
    long: RefCell<HashMap<usize, Rc<LongLine>>>,
}

/// Lines longer than this many bytes get a [`LongLine`] index.
const LONG_LINE_BYTES: usize = 4 * MAX_LINE;

/// Characters between two marks of a [`LongLine`].
const MARK_EVERY: usize = 256;

/// Where every [`MARK_EVERY`]-th character of a long line starts, and where its first YAML
/// flow indicator is: made once per line, so that each of the thousands of findings on the
/// one line of a minified document costs the width of its excerpt, not the line's length.
struct LongLine {
    marks: Vec<usize>,
    chars: usize,
    first_flow: Option<usize>,
}

impl LongLine {
    fn new(line: &str) -> LongLine {
        let mut marks = Vec::with_capacity(line.len() / MARK_EVERY + 1);
        let mut chars = 0;
        for (k, (at, _)) in line.char_indices().enumerate() {
            if k % MARK_EVERY == 0 {
                marks.push(at);
            }
            chars = k + 1;
        }
        LongLine {
            marks,
            chars,
            first_flow: line.find(['[', '{']),
        }
    }
}

impl<'a> SourceLines<'a> {
    pub(super) fn new(text: &'a str) -> SourceLines<'a> {
        let mut starts = Vec::new();
        if !text.is_empty() {
            starts.push(0);
            starts.extend(
                memchr::memchr_iter(b'\n', text.as_bytes())
                    .map(|at| at + 1)
                    .filter(|&next| next < text.len()),
            );
        }
        SourceLines {
            text,
            starts,
            long: RefCell::new(HashMap::new()),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.starts.len()
    }

    /// Line `n` (1-based) without its line break.
    fn line(&self, n: usize) -> &'a str {
        let start = self.starts[n - 1];
        let line = match self.starts.get(n) {
            Some(&next) => &self.text[start..next - 1],
            None => {
                let rest = &self.text[start..];
                rest.strip_suffix('\n').unwrap_or(rest)
            }
        };
        if line.len() < self.text.len() - start {
            line.strip_suffix('\r').unwrap_or(line)
        } else {
            line
        }
    }

    /// Line `n` as shown: without any carriage returns at its end.
    fn shown(&self, n: usize) -> &'a str {
        self.line(n).trim_end_matches('\r')
    }

    fn long_line(&self, n: usize) -> Option<Rc<LongLine>> {
        let line = self.shown(n);
        if line.len() <= LONG_LINE_BYTES {
            return None;
        }
        let mut long = self.long.borrow_mut();
        Some(Rc::clone(
            long.entry(n)
                .or_insert_with(|| Rc::new(LongLine::new(line))),
        ))
    }

    /// The characters of shown line `n`.
    fn chars(&self, n: usize) -> usize {
        match self.long_line(n) {
            Some(long) => long.chars,
            None => self.shown(n).chars().count(),
        }
    }

    /// The byte offset of character `k` of shown line `n`, or its length past its end.
    fn byte_of(&self, n: usize, k: usize) -> usize {
        let line = self.shown(n);
        let (from, skip) = match self.long_line(n) {
            Some(long) => match long.marks.get(k / MARK_EVERY) {
                Some(&at) => (at, k % MARK_EVERY),
                None => return line.len(),
            },
            None => (0, k),
        };
        line[from..]
            .char_indices()
            .nth(skip)
            .map_or(line.len(), |(i, _)| from + i)
    }

    /// Whether a YAML flow indicator (`[`, `{`) comes before byte `at` of shown line `n`.
    fn flow_before(&self, n: usize, at: usize) -> bool {
        match self.long_line(n) {
            Some(long) => long.first_flow.is_some_and(|f| f < at),
            None => self.shown(n)[..at].contains(['[', '{']),
        }
    }

    /// The characters of shown line `n` in `window`, and whether any were left out before
    /// and after it.
    fn cut(&self, n: usize, window: &Range<usize>) -> (&'a str, bool, bool) {
        let line = self.shown(n);
        let (from, to) = (self.byte_of(n, window.start), self.byte_of(n, window.end));
        (&line[from..to], from > 0, to < line.len())
    }
}

/// Writes the lines (of `lines`, the source) around `line` with a caret under the node at
/// `column`; returns the gutter width used (0 when the line is not in the source).
pub(super) fn excerpt(
    out: &mut String,
    p: &Palette,
    lines: &SourceLines<'_>,
    line: u32,
    column: u32,
    yaml: bool,
) -> usize {
    let idx = line as usize;
    if idx == 0 || idx > lines.len() {
        return 0;
    }
    let first = line.saturating_sub(CONTEXT).max(1);
    let last = (line + CONTEXT).min(lines.len() as u32);
    let width = last.to_string().len();
    let bar = paint(p.gutter, "|");
    let chars = lines.chars(idx);
    let start = (column.max(1) as usize - 1).min(chars);
    let at = lines.byte_of(idx, start);
    let in_flow = yaml && lines.flow_before(idx, at);
    let len = token_len(&lines.shown(idx)[at..], in_flow, yaml);
    let window = if chars <= MAX_LINE {
        0..MAX_LINE
    } else {
        let from = start.saturating_sub(LEAD);
        from..from + MAX_LINE
    };
    let _ = writeln!(out, "{} {bar}", " ".repeat(width));
    for n in first..=last {
        let text = lines.shown(n as usize);
        let (part, before, after) = lines.cut(n as usize, &window);
        let shown = Shown::new(part);
        let num = paint(p.gutter, &format!("{n:>width$}"));
        if text.is_empty() {
            let _ = writeln!(out, "{num} {bar}");
        } else {
            let _ = writeln!(
                out,
                "{num} {bar} {}{}{}",
                if before { "…" } else { "" },
                shown.text,
                if after { "…" } else { "" }
            );
        }
        if n == line {
            let start = start - window.start;
            let len = len.min(window.len().saturating_sub(start));
            let (indent, len) = shown.span(start, len);
            let _ = writeln!(
                out,
                "{} {bar} {}{indent}{}",
                " ".repeat(width),
                if before { " " } else { "" },
                paint(p.error, &"^".repeat(len))
            );
        }
    }
    width
}

/// A source line as printed, with unsafe characters in their visible form, and where each of
/// its characters went, so that the caret lines up with the escaped text.
struct Shown {
    text: String,
    /// `at[i]`: the index, in characters of `text`, of the source line's `i`-th character;
    /// one more entry for the end of the line.
    at: Vec<usize>,
}

impl Shown {
    fn new(line: &str) -> Shown {
        let mut text = String::with_capacity(line.len());
        let mut at = Vec::with_capacity(line.len() + 1);
        let mut width = 0;
        for c in line.chars() {
            at.push(width);
            // Tabs stay: the caret line copies them, so both lines expand them alike.
            if c != '\t' && safe::is_unsafe(c) {
                let before = text.len();
                safe::push_escaped(&mut text, c);
                width += text.len() - before;
            } else {
                text.push(c);
                width += 1;
            }
        }
        at.push(width);
        Shown { text, at }
    }

    /// The whitespace before the `len` source characters from `start` (tabs kept) and the
    /// width they take in the printed line.
    fn span(&self, start: usize, len: usize) -> (String, usize) {
        let last = self.at.len() - 1;
        let from = self.at[start.min(last)];
        let to = self.at[(start + len).min(last)];
        let indent = self
            .text
            .chars()
            .take(from)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        (indent, (to - from).max(1))
    }
}

/// The index (in characters) of column `column` and the width, in source characters, of the
/// token that starts there.
#[cfg(test)]
fn caret(line: &str, column: u32, yaml: bool) -> (usize, usize) {
    let start = (column.max(1) as usize - 1).min(line.chars().count());
    let at = line
        .char_indices()
        .nth(start)
        .map_or(line.len(), |(i, _)| i);
    let in_flow = line[..at].contains(['[', '{']);
    (start, token_len(&line[at..], in_flow, yaml))
}

/// The width, in characters, of the token at the start of `rest` (the rest of its line);
/// `in_flow`: whether a YAML flow collection opened before it. Tokens longer than an excerpt
/// are not followed to their end: the caret stops at the excerpt's edge anyway.
fn token_len(rest: &str, in_flow: bool, yaml: bool) -> usize {
    let rest: Vec<char> = rest.chars().take(MAX_LINE + 1).collect();
    match rest.first() {
        None => 1,
        Some(&q @ ('"' | '\'')) => {
            let mut i = 1;
            let mut escaped = false;
            while i < rest.len() {
                let c = rest[i];
                if escaped {
                    escaped = false;
                } else if c == '\\' && q == '"' {
                    escaped = true;
                } else if c == q {
                    break;
                }
                i += 1;
            }
            (i + 1).min(rest.len())
        }
        Some('{' | '[') => 1,
        Some(_) => {
            let mut i = 0;
            while i < rest.len() {
                let c = rest[i];
                let next = rest.get(i + 1).copied();
                let stop = if yaml {
                    (c == ':' && next.is_none_or(|n| n == ' '))
                        || (c == ' ' && next == Some('#'))
                        || (in_flow && matches!(c, ',' | ']' | '}'))
                } else {
                    c.is_whitespace() || matches!(c, ',' | ']' | '}' | ':')
                };
                if stop {
                    break;
                }
                i += 1;
            }
            let token: String = rest[..i].iter().collect();
            token.trim_end().chars().count().max(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{caret, Shown, SourceLines};

    #[test]
    fn source_lines_split_as_str_lines_does() {
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "a\n\n",
            "a\r\nb\r\n",
            "a\rb\r",
            "foo\nbar\n\r\nbaz\r",
            "\r\n\r\n\n",
            "é\n∑ x\r\n\tz",
        ] {
            let lines = SourceLines::new(text);
            let got: Vec<&str> = (1..=lines.len()).map(|n| lines.line(n)).collect();
            assert_eq!(got, text.lines().collect::<Vec<_>>(), "{text:?}");
        }
    }

    fn under(line: &str, column: u32, yaml: bool) -> (String, usize) {
        let (start, len) = caret(line, column, yaml);
        Shown::new(line).span(start, len)
    }

    #[test]
    fn caret_spans_the_token() {
        assert_eq!(
            under(r#"  "mode": "url","#, 11, false),
            ("          ".into(), 5)
        );
        assert_eq!(caret("  name: My Server # x", 9, true).1, 9);
        assert_eq!(caret("  - {a: 1}", 5, true).1, 1);
        assert_eq!(under("\tx: 1", 2, true), ("\t".into(), 1));
        assert_eq!(under("", 3, false), (String::new(), 1));
    }

    #[test]
    fn caret_lines_up_with_escaped_text() {
        // The key `a<ESC>b` is printed 8 characters wide, after the 11 of `x\u{202e}: `.
        let line = "x\u{202e}: a\u{1b}b: 1";
        let shown = Shown::new(line);
        assert_eq!(shown.text, "x\\u{202e}: a\\u{1b}b: 1");
        let (indent, len) = under(line, 5, true);
        assert_eq!(&shown.text[indent.len()..indent.len() + len], "a\\u{1b}b");
        let (indent, len) = under(line, 1, true);
        assert_eq!((indent.as_str(), len), ("", 9));
        let (indent, len) = under("\t\u{9b}k", 2, true);
        assert_eq!((indent.as_str(), len), ("\t", 7));
    }

    #[test]
    fn a_window_cuts_at_characters() {
        let lines = SourceLines::new("aé€b\nab");
        assert_eq!(lines.cut(1, &(1..3)), ("é€", true, true));
        assert_eq!(lines.cut(2, &(0..500)), ("ab", false, false));
        assert_eq!(lines.cut(2, &(80..580)), ("", true, false));
    }

    /// A long line is indexed once: its cuts, character positions and flow indicators agree
    /// with those of a plain scan, at every mark and between marks.
    #[test]
    fn a_long_line_is_cut_as_a_short_one_is() {
        let line: String = (0..3000)
            .map(|i| match i % 7 {
                0 => 'é',
                1 => '€',
                2 if i > 1500 => '[',
                _ => 'a',
            })
            .collect();
        let text = format!("short\n{line}\r\nend");
        let lines = SourceLines::new(&text);
        assert!(lines.long_line(2).is_some() && lines.long_line(1).is_none());
        assert_eq!(lines.chars(2), 3000);
        for k in [0, 1, 255, 256, 257, 1023, 1500, 2999, 3000, 5000] {
            let plain = line.char_indices().nth(k).map_or(line.len(), |(i, _)| i);
            assert_eq!(lines.byte_of(2, k), plain, "character {k}");
            assert_eq!(
                lines.flow_before(2, plain),
                line[..plain].contains(['[', '{']),
                "character {k}"
            );
        }
        let (part, before, after) = lines.cut(2, &(1000..1500));
        assert_eq!(part, line.chars().skip(1000).take(500).collect::<String>());
        assert!(before && after);
    }
}
