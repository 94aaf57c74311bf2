//! The patterns and templates of a catalogue's `pages` block, as far as loading a rule file
//! needs them: the `{placeholder|transform}` patterns of page URLs, files and source links,
//! the template syntax, and the load-time checks of the block. Rendering the pages is the
//! authoring tools' business.

use std::collections::HashMap;

use minijinja::syntax::SyntaxConfig;
use minijinja::{AutoEscape, Environment, UndefinedBehavior};
use thiserror::Error;

use crate::rules::file::PagesDef;
use crate::rules::Text;

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
    /// A `{` is never closed.
    #[error("`{{` without a closing `}}`")]
    Unclosed,
    #[error("unknown placeholder `{{{0}}}`; known: {1}")]
    /// A placeholder that the pattern's kind does not know (it, and the known ones).
    UnknownPlaceholder(String, String),
    #[error("unknown transform `{0}`; known: dots-to-hyphens, dots-to-slashes")]
    /// A transform other than the known ones.
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

/// The template environment without filters: the syntax page templates are written in, so
/// that a template that parses here parses where the pages are rendered.
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
    }
}
