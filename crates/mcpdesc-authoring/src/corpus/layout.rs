//! The layout of rule pages: the MiniJinja environment pages are rendered in (with the
//! Markdown escaping filters the built-in layout needs) and the Markdown text helpers. The
//! patterns and the load-time checks of a catalogue's `pages` block belong to the engine and
//! are re-exported here.

use minijinja::Environment;

pub use mcpdesc_core::internal::page_layout::{
    check_pages, check_pattern, describe_error, expand, is_relative_file, template_key,
    PatternError, DEFAULT_FILE, LINK_PLACEHOLDERS, PAGE_PLACEHOLDERS,
};

/// The built-in page layout.
pub const DEFAULT_TEMPLATE: &str = include_str!("page.md.j2");

/// The environment every page template and front-matter value is rendered in.
pub fn environment() -> Environment<'static> {
    let mut env = mcpdesc_core::internal::page_layout::environment();
    env.add_filter("one_line", |s: &str| one_line(s));
    env.add_filter("code", |s: &str| code(s));
    env.add_filter("md_escape", |s: &str| escape_md(s));
    env.add_filter("list_text", |s: &str| list_text(s));
    env.add_filter("cell", |s: &str| cell(s));
    env.add_filter("yaml_string", |s: &str| quoted(s));
    env.add_filter("truncate_chars", |s: &str, n: usize| {
        truncate(s, n).0.to_owned()
    });
    env.add_filter("typographic", |s: &str| typographic(s));
    env.add_filter("pad", |s: &str, width: usize, fill: Option<&str>| {
        let fill = fill.and_then(|f| f.chars().next()).unwrap_or(' ');
        let len = s.chars().count();
        let mut out = s.to_owned();
        out.extend(std::iter::repeat_n(fill, width.saturating_sub(len)));
        out
    });
    env
}

/// The `/`-separated link from directory `from_dir` to file `to`, both below one root.
pub fn relative_link(from_dir: &str, to: &str) -> String {
    let from: Vec<&str> = from_dir.split('/').filter(|s| !s.is_empty()).collect();
    let to_parts: Vec<&str> = to.split('/').filter(|s| !s.is_empty()).collect();
    let common = from
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut parts: Vec<&str> = vec![".."; from.len() - common];
    parts.extend(&to_parts[common..]);
    parts.join("/")
}

/// The directory part of a `/`-separated path (`""` at the top).
pub fn parent(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

/// At most `max` characters of `s`, and whether anything was cut.
pub fn truncate(s: &str, max: usize) -> (&str, bool) {
    match s.char_indices().nth(max) {
        Some((i, _)) => (&s[..i], true),
        None => (s, false),
    }
}

/// A JSON string, which is also a YAML double-quoted scalar.
pub fn quoted(s: &str) -> String {
    serde_json::to_string(&one_line(s)).unwrap_or_default()
}

/// `s` with every run of whitespace, line breaks included, made one space and the ends trimmed.
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Inline code that survives backticks in the text: its fence is one backtick longer than
/// the longest run inside.
pub fn code(s: &str) -> String {
    let s = one_line(s);
    if s.is_empty() {
        return "`\"\"`".into();
    }
    let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if longest > 0 { " " } else { "" };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// Escapes the characters that would change link text.
pub fn escape_md(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('[', "\\[")
        .replace(']', "\\]")
}

/// Text at the start of a list item: a leading `12.` would open an ordered list.
pub fn list_text(s: &str) -> String {
    let s = one_line(s);
    let digits = s.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && s[digits..].starts_with('.') {
        format!("{}\\{}", &s[..digits], &s[digits..])
    } else {
        s
    }
}

/// Text inside a table cell.
pub fn cell(s: &str) -> String {
    one_line(s).replace('|', "\\|")
}

/// Typographic quotes and apostrophes (`'` → `’`, `"a"` → `“a”`), as a published page sets
/// prose; inline code spans keep their straight quotes.
pub fn typographic(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_code = false;
    let mut prev: Option<char> = None;
    for c in s.chars() {
        let opens = prev.is_none_or(|p| p.is_whitespace() || "([{—–-".contains(p));
        match c {
            '`' => {
                in_code = !in_code;
                out.push(c);
            }
            '\'' if !in_code => out.push(if opens { '‘' } else { '’' }),
            '"' if !in_code => out.push(if opens { '“' } else { '”' }),
            _ => out.push(c),
        }
        prev = Some(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links() {
        assert_eq!(
            relative_link("0.9.0/mcp", "0.8.0/mcp/x.md"),
            "../../0.8.0/mcp/x.md"
        );
        assert_eq!(relative_link("0.8.0", "0.8.0/mcp/x.md"), "mcp/x.md");
        assert_eq!(relative_link("0.8.0/mcp", "0.8.0/mcp/x.md"), "x.md");
    }

    #[test]
    fn text_filters() {
        assert_eq!(list_text("12. Elicitation"), "12\\. Elicitation");
        assert_eq!(list_text("Tools"), "Tools");
        assert_eq!(code("a`b"), "`` a`b ``");
        assert_eq!(truncate("héllo", 2), ("hé", true));
        assert_eq!(truncate("hé", 2), ("hé", false));
        assert_eq!(
            typographic("A Tool's mode \"url\" (`'x'`)"),
            "A Tool’s mode “url” (`'x'`)"
        );
    }

    #[test]
    fn the_built_in_template_parses() {
        let mut env = environment();
        env.add_template("page", DEFAULT_TEMPLATE).unwrap();
    }
}
