//! `uri-template`: RFC 6570 URI Templates — syntax, expansion matching and variable names.
//!
//! Design: a template is parsed into literals and expressions (levels 1–4: operators
//! `+ # . / ; ? &`, prefix modifiers `:N` with 1 ≤ N ≤ 9999 and the explode modifier `*`;
//! the reserved operators `= , ! @ |` are rejected). With `test: valid` the node's string is
//! the template and a parse error is a finding. The other tests read the template at the
//! `template` path (from the node) and stay silent when it is absent or does not parse (the
//! `valid` test reports that): `expansion` asks whether the node's string is some expansion of
//! the template, by compiling the template into an anchored regular expression in which each
//! expression matches what its operator can produce for any values (including undefined
//! ones); `variable` asks whether the node's string, or each key of the node with
//! `subject: keys`, is one of the template's variable names (operators and modifiers ignored,
//! `{a,b}` declares both). Matching uses the `regex` crate, linear in the input.

#[cfg(test)]
use regex::Regex;
use serde::Deserialize;
use serde_json::Map;

use super::{options, relpath, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::document::{pointer, Kind};
use crate::eval::context::{EvalCtx, Finding};
use crate::relpath::RelPath;

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
enum Test {
    /// The node's string is a syntactically valid template.
    #[default]
    Valid,
    /// The node's string is an expansion of the template at `template`.
    Expansion,
    /// The node's string (or each key) is a variable of the template at `template`.
    Variable,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
enum Subject {
    /// The string value itself.
    #[default]
    Value,
    /// Every key of the object (for `test: variable`).
    Keys,
}

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// What to verify.
    #[serde(default)]
    test: Test,
    /// Relative path, from the node, of the template (required unless `test: valid`).
    #[serde(default)]
    template: Option<String>,
    /// What of the node is checked for `test: variable`.
    #[serde(default)]
    subject: Subject,
}

#[derive(Debug)]
struct UriTemplate {
    test: Test,
    template: Option<RelPath>,
    subject: Subject,
}

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "uri-template",
    summary: "RFC 6570 URI Templates: with `test: valid` the string is a template; with \
              `test: expansion` it is an expansion of the template at `template`; with \
              `test: variable` it (or each key, with `subject: keys`) is a variable of that \
              template.",
    params: &["error", "template"],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        let o = options::<Options>(m)?;
        if o.test != Test::Valid && o.template.is_none() {
            return Err(OptionError::at("/template", "this test needs `template`"));
        }
        Ok(Box::new(UriTemplate {
            test: o.test,
            template: o
                .template
                .as_deref()
                .map(|t| relpath("template", t))
                .transpose()?,
            subject: o.subject,
        }))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

/// One `{…}` expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Expression {
    pub op: Option<char>,
    pub vars: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Part {
    Literal(String),
    Expr(Expression),
}

fn is_literal_char(c: char) -> bool {
    !(c.is_control()
        || matches!(
            c,
            ' ' | '"' | '\'' | '<' | '>' | '\\' | '^' | '`' | '{' | '|' | '}'
        ))
}

fn is_varchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn pct_ok(chars: &[char], i: usize) -> bool {
    chars.len() > i + 2 && chars[i + 1].is_ascii_hexdigit() && chars[i + 2].is_ascii_hexdigit()
}

fn parse_varspec(spec: &str) -> Result<String, String> {
    let (name, modifier) = match spec.find([':', '*']) {
        Some(i) => (&spec[..i], &spec[i..]),
        None => (spec, ""),
    };
    let chars: Vec<char> = name.chars().collect();
    if chars.is_empty() {
        return Err("an expression has an empty variable name".into());
    }
    let mut i = 0;
    let mut prev_dot = true;
    while i < chars.len() {
        let c = chars[i];
        if c == '%' {
            if !pct_ok(&chars, i) {
                return Err(format!("variable `{name}` has a bad percent-encoding"));
            }
            i += 3;
            prev_dot = false;
            continue;
        }
        if c == '.' {
            if prev_dot {
                return Err(format!("variable `{name}` has a misplaced `.`"));
            }
            prev_dot = true;
        } else if is_varchar(c) {
            prev_dot = false;
        } else {
            return Err(format!("variable `{name}` contains `{c}`"));
        }
        i += 1;
    }
    if prev_dot {
        return Err(format!("variable `{name}` ends with `.`"));
    }
    match modifier {
        "" | "*" => {}
        m => {
            let digits = &m[1..];
            let ok = m.starts_with(':')
                && !digits.is_empty()
                && digits.len() <= 4
                && !digits.starts_with('0')
                && digits.chars().all(|c| c.is_ascii_digit());
            if !ok {
                return Err(format!(
                    "variable `{name}` has an invalid modifier `{m}` (use `*` or `:1` to `:9999`)"
                ));
            }
        }
    }
    Ok(name.to_owned())
}

/// Parses a template into its parts.
pub(crate) fn parse(template: &str) -> Result<Vec<Part>, String> {
    let chars: Vec<char> = template.chars().collect();
    let mut parts = Vec::new();
    let mut lit = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '{' => {
                let Some(len) = chars[i + 1..].iter().position(|&c| c == '}') else {
                    return Err(format!("expression at character {} is not closed", i + 1));
                };
                let body: String = chars[i + 1..i + 1 + len].iter().collect();
                if body.contains('{') {
                    return Err(format!("expression `{{{body}}}` contains `{{`"));
                }
                let mut rest = body.as_str();
                let op = rest.chars().next().filter(|c| "+#./;?&=,!@|".contains(*c));
                if let Some(o) = op {
                    if "=,!@|".contains(o) {
                        return Err(format!("operator `{o}` is reserved in `{{{body}}}`"));
                    }
                    rest = &rest[1..];
                }
                let vars = rest
                    .split(',')
                    .map(parse_varspec)
                    .collect::<Result<Vec<_>, _>>()?;
                if !lit.is_empty() {
                    parts.push(Part::Literal(std::mem::take(&mut lit)));
                }
                parts.push(Part::Expr(Expression { op, vars }));
                i += len + 2;
            }
            '}' => return Err(format!("unmatched `}}` at character {}", i + 1)),
            '%' => {
                if !pct_ok(&chars, i) {
                    return Err(format!("bad percent-encoding at character {}", i + 1));
                }
                lit.extend(&chars[i..i + 3]);
                i += 3;
            }
            c if is_literal_char(c) => {
                lit.push(c);
                i += 1;
            }
            c => return Err(format!("character `{c}` is not allowed in a template")),
        }
    }
    if !lit.is_empty() {
        parts.push(Part::Literal(lit));
    }
    Ok(parts)
}

/// Characters one step of an expression may consume (besides `%HH` triplets).
#[derive(Clone, Copy)]
enum Class {
    /// Unreserved characters, `,` and `=`.
    Simple,
    /// [`Class::Simple`] and one more character (`&` for query forms, or the operator).
    SimpleAnd(u8),
    /// Unreserved and reserved characters.
    Reserved,
}

impl Class {
    fn has(self, b: u8) -> bool {
        let unreserved = b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
        match self {
            Class::Simple => unreserved || matches!(b, b',' | b'='),
            Class::SimpleAnd(c) => unreserved || matches!(b, b',' | b'=') || b == c,
            Class::Reserved => unreserved || b":/?#[]@!$&'()*+,;=".contains(&b),
        }
    }
}

/// Whether `s` is an expansion of `parts`: the language of the tests' reference `matcher`,
/// decided by a pass over `s` per part (the set of positions each part can end at), without
/// compiling a regular expression per template.
pub(crate) fn matches(parts: &[Part], s: &str) -> bool {
    let s = s.as_bytes();
    let n = s.len();
    let mut at = vec![false; n + 1];
    at[0] = true;
    // Positions reachable from `from` by zero or more steps of `class`.
    let star = |from: &[bool], class: Class| -> Vec<bool> {
        let mut to = from.to_vec();
        for i in 0..n {
            if !to[i] {
                continue;
            }
            if class.has(s[i]) {
                to[i + 1] = true;
            } else if s[i] == b'%'
                && i + 2 < n
                && s[i + 1].is_ascii_hexdigit()
                && s[i + 2].is_ascii_hexdigit()
            {
                to[i + 3] = true;
            }
        }
        to
    };
    // Empty, or `lead` followed by zero or more steps of `class`.
    let led = |from: &[bool], lead: u8, class: Class| -> Vec<bool> {
        let mut after = vec![false; n + 1];
        for i in 0..n {
            after[i + 1] = from[i] && s[i] == lead;
        }
        let mut to = star(&after, class);
        for (t, f) in to.iter_mut().zip(from) {
            *t |= *f;
        }
        to
    };
    for p in parts {
        at = match p {
            Part::Literal(l) => {
                let l = l.as_bytes();
                let mut to = vec![false; n + 1];
                for i in 0..=n.saturating_sub(l.len()) {
                    if at[i] && s[i..].starts_with(l) {
                        to[i + l.len()] = true;
                    }
                }
                to
            }
            Part::Expr(e) => match e.op {
                None => star(&at, Class::Simple),
                Some('+') => star(&at, Class::Reserved),
                Some('#') => led(&at, b'#', Class::Reserved),
                Some('?') => led(&at, b'?', Class::SimpleAnd(b'&')),
                Some('&') => led(&at, b'&', Class::SimpleAnd(b'&')),
                Some(o) => {
                    let o = u8::try_from(o).unwrap_or(0);
                    led(&at, o, Class::SimpleAnd(o))
                }
            },
        };
        if !at.contains(&true) {
            return false;
        }
    }
    at[n]
}

/// An anchored regular expression matching every expansion of `parts` (the reference for
/// [`matches`]).
#[cfg(test)]
pub(crate) fn matcher(parts: &[Part]) -> Regex {
    const UNRESERVED: &str = r"A-Za-z0-9\-._~";
    const RESERVED: &str = r":/?#\[\]@!$&'()*+,;=";
    let mut re = String::from("^");
    for p in parts {
        match p {
            Part::Literal(l) => re.push_str(&regex::escape(l)),
            Part::Expr(e) => {
                let simple = format!("(?:[{UNRESERVED},=]|%[0-9A-Fa-f]{{2}})");
                let reserved = format!("(?:[{UNRESERVED}{RESERVED}]|%[0-9A-Fa-f]{{2}})");
                let piece = match e.op {
                    None => format!("{simple}*"),
                    Some('+') => format!("{reserved}*"),
                    Some('#') => format!("(?:#{reserved}*)?"),
                    Some('?') => format!("(?:\\?(?:{simple}|&)*)?"),
                    Some('&') => format!("(?:&(?:{simple}|&)*)?"),
                    Some(o) => format!("(?:{}{simple}*)*", regex::escape(&o.to_string())),
                };
                re.push_str(&piece);
            }
        }
    }
    re.push('$');
    Regex::new(&re).expect("template matcher is a valid regex")
}

/// Every variable name of `parts`, in order.
pub(crate) fn variables(parts: &[Part]) -> Vec<&str> {
    parts
        .iter()
        .filter_map(|p| match p {
            Part::Expr(e) => Some(e.vars.iter().map(String::as_str)),
            Part::Literal(_) => None,
        })
        .flatten()
        .collect()
}

impl Check for UriTemplate {
    fn run(&self, node: Node<'_>, cx: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        if self.test == Test::Valid {
            if let Some(s) = node.value.as_str() {
                if let Err(e) = parse(s) {
                    out.push(Finding::new(node.pointer).with("error", e));
                }
            }
            return;
        }
        let Some(path) = &self.template else {
            return;
        };
        let Some(hit) = path.first(cx.root, node.pointer) else {
            return;
        };
        let Some(text) = hit.value.as_str() else {
            return;
        };
        let Ok(parts) = parse(text) else {
            return;
        };
        match self.test {
            Test::Valid => {}
            Test::Expansion => {
                if let Some(s) = node.value.as_str() {
                    if !matches(&parts, s) {
                        out.push(Finding::new(node.pointer).with("template", text));
                    }
                }
            }
            Test::Variable => {
                let vars = variables(&parts);
                let mut check = |ptr: String, name: &str| {
                    if !vars.contains(&name) {
                        out.push(Finding::new(ptr).with("template", text));
                    }
                };
                match (self.subject, node.value.kind()) {
                    (Subject::Value, Kind::String(s)) => check(node.pointer.to_owned(), s),
                    (Subject::Keys, Kind::Object(o)) => {
                        for k in o.keys() {
                            check(pointer::push(node.pointer, k), k);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::tests_support::run_on;
    use serde_json::json;

    #[test]
    fn syntax() {
        for ok in [
            "repo://{owner}/{repository}/issues/{issue}",
            "http://x{/path*}{?q,lang:2}{&more}{#frag}",
            "file:///{+path}{.ext}{;params*}",
            "plain://no/expressions",
            "a%20b/{x.y}",
        ] {
            assert!(parse(ok).is_ok(), "{ok}");
        }
        for bad in [
            "test://items/{id",
            "repo://{owner/{repository}",
            "x}",
            "{=x}",
            "{x:0}",
            "{x:10000}",
            "{}",
            "{a b}",
            "a b",
            "%zz",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn expansion_and_variables() {
        let parts = parse("repo://{owner}/{repo}/issues/{issue}{?fields}").unwrap();
        let m = matcher(&parts);
        assert!(m.is_match("repo://acme/api/issues/12"));
        assert!(m.is_match("repo://acme/api/issues/12?fields=title,body"));
        assert!(!m.is_match("repo://acme/api/pulls/12"));
        assert!(!m.is_match("repo://acme/a/b/issues/12"));
        let m = matcher(&parse("file:///{+path}").unwrap());
        assert!(m.is_match("file:///src/lib.rs"));
        assert_eq!(
            variables(&parse("{a,b}/{+c:3}").unwrap()),
            vec!["a", "b", "c"]
        );
    }

    #[test]
    fn matches_agrees_with_the_regex() {
        let templates = [
            "repo://{owner}/{repo}/issues/{issue}{?fields}",
            "file:///{+path}",
            "http://x{/path*}{?q,lang:2}{&more}{#frag}",
            "file:///{+path}{.ext}{;params*}",
            "a%20b/{x.y}",
            "{a}{b}",
            "{.a}{.b}x",
            "é/{a}/ü",
            "",
            "plain",
        ];
        let strings = [
            "",
            "repo://acme/api/issues/12",
            "repo://acme/api/issues/12?fields=title,body",
            "repo://acme/api/issues/12?fields=a&b=c",
            "repo://acme/a/b/issues/12",
            "file:///src/lib.rs",
            "file:///a%2Fb.c;x=1;y",
            "file:///%zz",
            "http://x/a/b?q=1&lang=en&more=2#frag!",
            "http://x?q",
            "http://x#",
            "a%20b/c.d",
            "a%20b/c%2",
            "ab",
            "x",
            ".a.bx",
            "..x",
            "é/1/ü",
            "é//ü",
            "plain",
            "plainer",
        ];
        for t in templates {
            let parts = parse(t).unwrap();
            let re = matcher(&parts);
            for s in strings {
                assert_eq!(matches(&parts, s), re.is_match(s), "{t} on {s}");
            }
        }
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn matches_agrees_with_the_regex_on_random_input(
                template in "([a-c/.%]|%4[1a]|\\{[+#./;?&]?[ab](,b)?\\}){0,6}",
                s in "[a-c/.,=&?#;%4Az\\-]{0,12}",
            ) {
                if let Ok(parts) = parse(&template) {
                    prop_assert_eq!(matches(&parts, &s), matcher(&parts).is_match(&s));
                }
            }
        }
    }

    #[test]
    fn runs_on_documents() {
        let doc = json!({"t": {"uriTemplate": "data://items/{id}",
                               "ex": {"uri": "data://other/1"},
                               "ctx": {"id": "1", "other": "2"}}});
        let found = run_on(
            &json!({"check": "uri-template", "test": "expansion", "template": "^^.uriTemplate"}),
            &doc,
            "/t/ex/uri",
        );
        assert_eq!(found.len(), 1);
        let found = run_on(
            &json!({"check": "uri-template", "test": "variable", "subject": "keys",
                    "template": "^.uriTemplate"}),
            &doc,
            "/t/ctx",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pointer, "/t/ctx/other");
        let bad = json!({"u": "x/{id"});
        assert_eq!(
            run_on(&json!({"check": "uri-template"}), &bad, "/u").len(),
            1
        );
    }
}
