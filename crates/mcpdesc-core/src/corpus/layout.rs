//! The layout of rule pages: the MiniJinja environment pages are rendered in (with the
//! Markdown escaping filters the built-in layout needs), the `{placeholder|transform}`
//! patterns of page URLs, files and source links, and the load-time checks of a catalogue's
//! `pages` block.

use std::collections::HashMap;

use minijinja::syntax::SyntaxConfig;
use minijinja::{AutoEscape, Environment, UndefinedBehavior};
use thiserror::Error;

use crate::rules::file::PagesDef;
use crate::rules::Text;

/// The built-in page layout.
pub const DEFAULT_TEMPLATE: &str = include_str!("page.md.j2");

/// Where a rule page goes below the output directory when the catalogue does not say.
pub const DEFAULT_FILE: &str = "{release}/{owner}/{id}.md";

/// Placeholders of a page URL or file pattern.
pub const PAGE_PLACEHOLDERS: &[&str] = &["release", "owner", "id", "name"];

/// Placeholders of a source-link pattern (those of a page, and what the link is to).
pub const LINK_PLACEHOLDERS: &[&str] = &[
    "release", "owner", "id", "name", "tag", "fixture", "file", "line",
];

/// A pattern that cannot be expanded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PatternError {
    #[error("`{{` without a closing `}}`")]
    Unclosed,
    #[error("unknown placeholder `{{{0}}}`; known: {1}")]
    UnknownPlaceholder(String, String),
    #[error("unknown transform `{0}`; known: dots-to-hyphens, dots-to-slashes")]
    UnknownTransform(String),
}

fn transform(name: &str, value: &str) -> Result<String, PatternError> {
    match name {
        "dots-to-hyphens" => Ok(value.replace('.', "-")),
        "dots-to-slashes" => Ok(value.replace('.', "/")),
        other => Err(PatternError::UnknownTransform(other.to_owned())),
    }
}

/// `pattern` with each `{name}` or `{name|transform|...}` replaced by `value(name)`. A name
/// `value` does not know is an error, or, when `lenient`, left as written (a `docs-url` has
/// always passed unknown braces through).
pub fn expand(
    pattern: &str,
    value: &dyn Fn(&str) -> Option<String>,
    known: &[&str],
    lenient: bool,
) -> Result<String, PatternError> {
    let mut out = String::new();
    let mut rest = pattern;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            if lenient {
                out.push_str(&rest[open..]);
                return Ok(out);
            }
            return Err(PatternError::Unclosed);
        };
        let inner = &after[..close];
        let mut parts = inner.split('|').map(str::trim);
        let name = parts.next().unwrap_or_default();
        match value(name) {
            Some(mut v) => {
                for t in parts {
                    match transform(t, &v) {
                        Ok(t) => v = t,
                        Err(e) if !lenient => return Err(e),
                        Err(_) => {}
                    }
                }
                out.push_str(&v);
            }
            None if lenient => out.push_str(&rest[open..open + close + 2]),
            None => {
                return Err(PatternError::UnknownPlaceholder(
                    name.to_owned(),
                    known.join(", "),
                ))
            }
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Checks that `pattern` uses only `known` placeholders and known transforms.
pub fn check_pattern(pattern: &str, known: &[&str]) -> Result<(), PatternError> {
    expand(
        pattern,
        &|n| known.contains(&n).then(|| "x".to_owned()),
        known,
        false,
    )
    .map(|_| ())
}

/// The environment every page template and front-matter value is rendered in.
pub fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    // Page templates are written like the pages: a block tag on its own line leaves no line.
    if let Ok(syntax) = SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .keep_trailing_newline(true)
        .build()
    {
        env.set_syntax(syntax);
    }
    env.set_auto_escape_callback(|_| AutoEscape::None);
    // A misspelt member is an error, not an empty line on every page.
    env.set_undefined_behavior(UndefinedBehavior::Strict);
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

/// "line N: message" of a template error.
pub fn describe_error(e: &minijinja::Error) -> String {
    let what = match e.detail() {
        Some(d) => format!("{}: {d}", e.kind()),
        None => e.kind().to_string(),
    };
    match e.line() {
        Some(line) => format!("line {line}: {what}"),
        None => what,
    }
}

/// The file name under which a catalogue's template is found among the release's files.
pub fn template_key(path: &str) -> &str {
    path.trim_start_matches("./")
}

/// Problems of a `pages` block, each as (JSON Pointer below the block, message). `files` are
/// the release's other files, by path relative to its directory.
pub fn check_pages(def: &PagesDef, files: &HashMap<String, Text>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let env = environment();
    if let Some(path) = &def.template {
        match files.get(template_key(path)) {
            None => out.push((
                "/template".to_owned(),
                format!(
                    "template file `{path}` not found in the release's directory (templates end in `.j2` or `.jinja`)"
                ),
            )),
            Some(text) => {
                let mut env = environment();
                if let Err(e) = env.add_template_owned(path.clone(), text.to_string()) {
                    out.push((
                        "/template".to_owned(),
                        format!("template `{path}` does not parse: {}", describe_error(&e)),
                    ));
                }
            }
        }
    }
    for (member, pattern) in [("url", &def.url), ("file", &def.file)] {
        let Some(pattern) = pattern else { continue };
        if let Err(e) = check_pattern(pattern, PAGE_PLACEHOLDERS) {
            out.push((format!("/{member}"), e.to_string()));
        }
    }
    if let Some(file) = &def.file {
        if !is_relative_file(file) {
            out.push((
                "/file".to_owned(),
                "a page file is a relative path below the output directory, without `..`"
                    .to_owned(),
            ));
        }
    }
    if let Some(links) = &def.source_links {
        for (member, pattern) in [
            ("tag", &links.tag),
            ("fixture", &links.fixture),
            ("rule-file", &links.rule_file),
            ("tree", &links.tree),
        ] {
            let Some(pattern) = pattern else { continue };
            if let Err(e) = check_pattern(pattern, LINK_PLACEHOLDERS) {
                out.push((format!("/source-links/{member}"), e.to_string()));
            }
        }
    }
    if let Some(fields) = &def.front_matter {
        for (name, value) in &fields.0 {
            if let Err(e) = env.template_from_str(value) {
                out.push((
                    format!("/front-matter/{}", crate::document::pointer::escape(name)),
                    format!("the value template does not parse: {}", describe_error(&e)),
                ));
            }
        }
    }
    out
}

/// Whether `file` (a page file pattern or its expansion) stays below the output directory.
pub fn is_relative_file(file: &str) -> bool {
    !file.is_empty()
        && !file.starts_with('/')
        && !file.contains('\\')
        && file
            .split('/')
            .all(|s| !s.is_empty() && s != "." && s != "..")
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

    fn vars(n: &str) -> Option<String> {
        match n {
            "release" => Some("0.9.0-rc.3".into()),
            "name" => Some("tool.interaction.x".into()),
            _ => None,
        }
    }

    #[test]
    fn patterns() {
        assert_eq!(
            expand("/{release}/{name|dots-to-hyphens}/", &vars, &[], false).unwrap(),
            "/0.9.0-rc.3/tool-interaction-x/"
        );
        assert_eq!(
            expand("{name | dots-to-slashes}", &vars, &[], false).unwrap(),
            "tool/interaction/x"
        );
        assert!(matches!(
            expand("{nope}", &vars, &["release"], false),
            Err(PatternError::UnknownPlaceholder(..))
        ));
        assert!(matches!(
            expand("{name|upper}", &vars, &[], false),
            Err(PatternError::UnknownTransform(_))
        ));
        assert_eq!(
            expand("{release", &vars, &[], false),
            Err(PatternError::Unclosed)
        );
        assert_eq!(
            expand("{x}/{release}", &vars, &[], true).unwrap(),
            "{x}/0.9.0-rc.3"
        );
        assert!(is_relative_file("{release}/{id}.md"));
        assert!(!is_relative_file("../x.md"));
        assert!(!is_relative_file("/x.md"));
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
