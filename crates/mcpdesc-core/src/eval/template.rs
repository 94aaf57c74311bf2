//! Message templates: literal text with `{name}` placeholders.

use std::collections::BTreeSet;

/// Marks where the merged version list goes until findings for several versions are merged.
pub(crate) const VERSIONS_MARK: char = '\u{E000}';

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Param(String),
}

/// A compiled message template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pieces: Vec<Piece>,
}

/// Placeholders every template may use, whatever its check.
pub const COMMON_PARAMS: &[&str] = &["pointer", "key", "value", "versions"];

impl Template {
    /// Parses `text`; `{{` and `}}` stand for literal braces.
    pub fn parse(text: &str) -> Result<Template, String> {
        let mut pieces = Vec::new();
        let mut buf = String::new();
        let mut rest = text;
        // Literal runs are copied whole: a catalogue parses hundreds of templates at load.
        while let Some(at) = rest.find(['{', '}']) {
            buf.push_str(&rest[..at]);
            let brace = rest.as_bytes()[at];
            let after = &rest[at + 1..];
            if after.as_bytes().first() == Some(&brace) {
                buf.push(char::from(brace));
                rest = &after[1..];
            } else if brace == b'}' {
                return Err("unmatched `}` (write `}}` for a literal brace)".into());
            } else {
                let len = after
                    .bytes()
                    .take_while(|b| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_')
                    .count();
                let name = &after[..len];
                if after.as_bytes().get(len) != Some(&b'}') {
                    return Err(format!("unterminated or invalid placeholder `{{{name}`"));
                }
                if !buf.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut buf)));
                }
                pieces.push(Piece::Param(name.to_owned()));
                rest = &after[len + 1..];
            }
        }
        buf.push_str(rest);
        if !buf.is_empty() {
            pieces.push(Piece::Text(buf));
        }
        Ok(Template { pieces })
    }

    /// Placeholder names used.
    pub fn params(&self) -> BTreeSet<&str> {
        self.pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Param(n) => Some(n.as_str()),
                Piece::Text(_) => None,
            })
            .collect()
    }

    /// Fills the template; `lookup` answers each placeholder except `versions`, which is
    /// left as a mark for `fill_versions`.
    pub fn render(&self, lookup: impl Fn(&str) -> Option<String>) -> String {
        let mut out = String::new();
        for p in &self.pieces {
            match p {
                Piece::Text(t) => out.push_str(t),
                Piece::Param(n) if n == "versions" => out.push(VERSIONS_MARK),
                Piece::Param(n) => out.push_str(&lookup(n).unwrap_or_default()),
            }
        }
        out
    }
}

/// Replaces the versions mark with the merged version list.
pub(crate) fn fill_versions(message: &str, versions: &[String]) -> String {
    if message.contains(VERSIONS_MARK) {
        message.replace(VERSIONS_MARK, &versions.join(", "))
    } else {
        message.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_and_escapes() {
        let t = Template::parse("`{field}` {{x}} in {versions}").unwrap();
        assert_eq!(
            t.params().into_iter().collect::<Vec<_>>(),
            vec!["field", "versions"]
        );
        let s = t.render(|n| (n == "field").then(|| "name".to_owned()));
        assert_eq!(
            fill_versions(&s, &["a".into(), "b".into()]),
            "`name` {x} in a, b"
        );
        assert!(Template::parse("{oops").is_err());
        assert!(Template::parse("a } b").is_err());
    }

    #[test]
    fn literal_runs_braces_and_placeholders_split_as_written() {
        let pieces = |text: &str| Template::parse(text).map(|t| t.pieces);
        let text = |s: &str| Piece::Text(s.to_owned());
        let param = |s: &str| Piece::Param(s.to_owned());
        assert_eq!(pieces(""), Ok(vec![]));
        assert_eq!(
            pieces("é{a-b_1}ü"),
            Ok(vec![text("é"), param("a-b_1"), text("ü")])
        );
        assert_eq!(
            pieces("{{{a}}}"),
            Ok(vec![text("{"), param("a"), text("}")])
        );
        assert_eq!(pieces("{}{b}"), Ok(vec![param(""), param("b")]));
        assert_eq!(pieces("}}{{"), Ok(vec![text("}{")]));
        assert_eq!(
            pieces("x {a b}"),
            Err("unterminated or invalid placeholder `{a`".to_owned())
        );
        assert_eq!(
            pieces("{a"),
            Err("unterminated or invalid placeholder `{a`".to_owned())
        );
        assert_eq!(
            pieces("a}"),
            Err("unmatched `}` (write `}}` for a literal brace)".to_owned())
        );
    }
}
