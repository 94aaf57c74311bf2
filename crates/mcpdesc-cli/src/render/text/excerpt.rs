//! The source lines around a finding, with a caret under its node.

use std::fmt::Write as _;
use std::ops::Range;

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
        SourceLines { text, starts }
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
    let (start, len) = caret(lines.line(idx).trim_end_matches('\r'), column, yaml);
    let window = if lines.line(idx).chars().nth(MAX_LINE).is_none() {
        0..MAX_LINE
    } else {
        let from = start.saturating_sub(LEAD);
        from..from + MAX_LINE
    };
    let _ = writeln!(out, "{} {bar}", " ".repeat(width));
    for n in first..=last {
        let text = lines.line(n as usize).trim_end_matches('\r');
        let (part, before, after) = cut(text, &window);
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

/// The characters of `line` in `window`, and whether any were left out before and after it.
fn cut<'a>(line: &'a str, window: &Range<usize>) -> (&'a str, bool, bool) {
    let byte = |k: usize| line.char_indices().nth(k).map_or(line.len(), |(i, _)| i);
    let (from, to) = (byte(window.start), byte(window.end));
    (&line[from..to], from > 0, to < line.len())
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
fn caret(line: &str, column: u32, yaml: bool) -> (usize, usize) {
    let chars: Vec<char> = line.chars().collect();
    let start = (column.max(1) as usize - 1).min(chars.len());
    let rest = &chars[start..];
    let len = match rest.first() {
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
            let in_flow = chars[..start].iter().any(|&c| c == '[' || c == '{');
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
    };
    (start, len)
}

#[cfg(test)]
mod tests {
    use super::{caret, cut, Shown, SourceLines};

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
        assert_eq!(cut("aé€b", &(1..3)), ("é€", true, true));
        assert_eq!(cut("ab", &(0..500)), ("ab", false, false));
        assert_eq!(cut("ab", &(80..580)), ("", true, false));
    }
}
