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
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    buf.push('{');
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    buf.push('}');
                }
                '{' => {
                    let mut name = String::new();
                    loop {
                        match chars.next() {
                            Some('}') => break,
                            Some(c) if c.is_ascii_alphanumeric() || c == '-' || c == '_' => {
                                name.push(c)
                            }
                            _ => {
                                return Err(format!(
                                    "unterminated or invalid placeholder `{{{name}`"
                                ))
                            }
                        }
                    }
                    if !buf.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut buf)));
                    }
                    pieces.push(Piece::Param(name));
                }
                '}' => return Err("unmatched `}` (write `}}` for a literal brace)".into()),
                c => buf.push(c),
            }
        }
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
}
