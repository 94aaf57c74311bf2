//! Where a node's text is. The document model keeps where each node starts; editors also
//! want where it ends, so these scanners read forward from the start in the source text:
//! one token for a diagnostic's range, a whole value for an edit that replaces it.

use mcpdesc_core::document::Position as DocPosition;
use mcpdesc_core::Document;

use super::text::Text;

/// The byte range a finding at `pos` underlines: the key or scalar there, or the rest of
/// the line for a container.
pub(crate) fn token(text: &Text, pos: DocPosition) -> Option<(usize, usize)> {
    let start = text.offset_of(pos)?;
    let s = text.as_str();
    let rest = &s[start..];
    let line_end = start + rest.find('\n').unwrap_or(rest.len());
    let end = match rest.chars().next() {
        Some('"') => quoted_end(s, start, '"').unwrap_or(line_end),
        Some('\'') => quoted_end(s, start, '\'').unwrap_or(line_end),
        Some('{' | '[' | '-') | None => start + s[start..line_end].trim_end().len(),
        Some(_) => {
            let line = &s[start..line_end];
            let mut end = line.len();
            let bytes = line.as_bytes();
            for (i, &b) in bytes.iter().enumerate() {
                let next_blank = bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace());
                if matches!(b, b',' | b']' | b'}')
                    || (b == b':' && next_blank)
                    || (b == b'#' && i > 0 && bytes[i - 1].is_ascii_whitespace())
                {
                    end = i;
                    break;
                }
            }
            start + line[..end].trim_end().len()
        }
    };
    Some((
        start,
        end.max(start + rest.chars().next().map_or(0, char::len_utf8)),
    ))
}

/// The end (exclusive) of the quoted scalar opening at `start`.
fn quoted_end(s: &str, start: usize, quote: char) -> Option<usize> {
    let mut chars = s[start + 1..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' if quote == '"' => {
                chars.next();
            }
            c if c == quote => {
                // In single quotes, a doubled quote is an escaped one.
                if quote == '\'' && s[start + 1 + i + 1..].starts_with('\'') {
                    chars.next();
                    continue;
                }
                return Some(start + 1 + i + 1);
            }
            _ => {}
        }
    }
    None
}

/// The end (exclusive) of the bracketed value (`{…}` or `[…]`) opening at `start`.
pub(crate) fn bracket_end(s: &str, start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = start;
    let bytes = s.as_bytes();
    let mut prev_significant = b'[';
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'"' => {
                i = quoted_end(s, i, '"')?;
                prev_significant = b'"';
                continue;
            }
            // A single quote opens a scalar only where a flow value may start.
            b'\'' if matches!(prev_significant, b'[' | b'{' | b',' | b':') => {
                i = quoted_end(s, i, '\'')?;
                prev_significant = b'\'';
                continue;
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        if !b.is_ascii_whitespace() {
            prev_significant = b;
        }
        i += 1;
    }
    None
}

/// The end (exclusive, before the line break) of the block-style YAML node starting at
/// `start`: a sequence (`- …` items) or a mapping, by indentation.
pub(crate) fn block_end(text: &Text, start: usize) -> usize {
    let s = text.as_str();
    let pos = text.position(start);
    let line = pos.line as usize;
    let column = s[text.line_start(line)..start].chars().count();
    let sequence = s[start..].starts_with('-');
    let mut end = text.line_start(line) + text.line(line).len();
    let mut next = line + 1;
    loop {
        let l = text.line(next);
        if text.line_start(next) >= s.len() {
            return end;
        }
        let trimmed = l.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            next += 1;
            continue;
        }
        let indent = l.len() - trimmed.len();
        let belongs =
            indent > column || (indent == column && (!sequence || trimmed.starts_with('-')));
        if !belongs || trimmed.starts_with("---") || trimmed == "..." {
            return end;
        }
        end = text.line_start(next) + l.len();
        next += 1;
    }
}

/// The byte range of the whole value at `pointer`.
pub(crate) fn value_extent(
    text: &Text,
    doc: &Document<'_>,
    pointer: &str,
) -> Option<(usize, usize)> {
    let (value_pos, _) = doc.node_positions(pointer)?;
    let start = text.offset_of(value_pos)?;
    let s = text.as_str();
    let end = match s[start..].chars().next()? {
        '{' | '[' => bracket_end(s, start)?,
        '"' => quoted_end(s, start, '"')?,
        '\'' => quoted_end(s, start, '\'')?,
        _ if doc.format() == mcpdesc_core::Format::Yaml
            && doc
                .root()
                .pointer(pointer)
                .is_some_and(|v| v.is_array() || v.is_object()) =>
        {
            block_end(text, start)
        }
        _ => token(text, value_pos)?.1,
    };
    Some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdesc_core::{Format, Limits};

    fn parsed(src: &str, format: Format) -> (Text, Document<'_>) {
        (
            Text::new(src.into()),
            Document::parse_str(src, format, &Limits::default()).unwrap(),
        )
    }

    #[test]
    fn tokens_cover_keys_and_scalars() {
        let (t, _) = parsed("{\"a\\\"b\": 12, \"c\": [1]}", Format::Json);
        let (s, e) = token(&t, DocPosition::new(1, 2)).unwrap();
        assert_eq!(&t.as_str()[s..e], "\"a\\\"b\"");
        let (s, e) = token(&t, DocPosition::new(1, 10)).unwrap();
        assert_eq!(&t.as_str()[s..e], "12");
        let (t, _) = parsed("name: it's here # note\n", Format::Yaml);
        let (s, e) = token(&t, DocPosition::new(1, 7)).unwrap();
        assert_eq!(&t.as_str()[s..e], "it's here");
        let (s, e) = token(&t, DocPosition::new(1, 1)).unwrap();
        assert_eq!(&t.as_str()[s..e], "name");
    }

    #[test]
    fn extents_of_flow_and_block_values() {
        let src = "a:\n  - x\n  # c\n  - 'y]'\nb: {k: [\"]\", 1]}\nc: 1\n";
        let (t, d) = parsed(src, Format::Yaml);
        let (s, e) = value_extent(&t, &d, "/a").unwrap();
        assert_eq!(&src[s..e], "- x\n  # c\n  - 'y]'");
        let (s, e) = value_extent(&t, &d, "/b").unwrap();
        assert_eq!(&src[s..e], "{k: [\"]\", 1]}");
        let src = "items:\n- a: 1\n  b: [2]\n- a: 3\nz: 0\n";
        let (t, d) = parsed(src, Format::Yaml);
        let (s, e) = value_extent(&t, &d, "/items/0").unwrap();
        assert_eq!(&src[s..e], "a: 1\n  b: [2]");
        let (s, e) = value_extent(&t, &d, "/items").unwrap();
        assert_eq!(&src[s..e], "- a: 1\n  b: [2]\n- a: 3");
    }
}
