//! RFC 9535 JSONPath, compiled once and evaluated over document trees to JSON Pointers.
//!
//! `jsonpath-rust` (1.0.x) is the parser, and only that: [`JsonPath::compile`] reads a query with
//! `jsonpath_rust::parser::parse_json_path`. The queries of the embedded rule files were parsed
//! by the same function when the crate was built (`build.rs`) and are stored as syntax trees
//! (`embedded_queries`, in the form of `encoded_query`), so that loading the default catalogue
//! parses none; a query not in that table (as are most queries of other rule directories) is
//! parsed when it is compiled. Either way the checks below and the compilation into steps run
//! on the syntax tree.
//! The crate's grammar accepts more than RFC 9535 does, so `compile` also refuses:
//!
//! * the crate's extension functions `in`, `nin`, `none_of`, `any_of` and `subset_of`;
//! * function expressions that are not well-typed (RFC 9535, section 2.4.3), e.g. `length(@.*)`,
//!   `count(1)`, or `?length(@)` used as a test;
//! * whitespace the grammar lets through: inside a member-name shorthand (`$.a b`, which the
//!   crate reads as the name `a b`), after a `.` (`@. a == 1`) and at the end of the query
//!   (`$.a `).
//!
//! Still accepted although RFC 9535 has no whitespace there: spaces inside the brackets of a
//! singular query used in a comparison (`@[ 'a' ] == 1`). Brackets and parentheses nested
//! deeper than 128 are refused by the crate's parser.
//!
//! The syntax tree is compiled into steps (module `steps`) that one evaluator of ours runs over
//! [`ValueRef`] document trees, depth first, extending a single pointer buffer (`select`).
//! Nodes always come in RFC 9535 order: a segment of several selectors yields, for each input
//! node in turn, the nodes of each selector. Filters compare values as section 2.3.5.2.2 says
//! (`filter`), and the five functions of section 2.4 are in `functions`. [`PathSet`] runs many
//! queries in one traversal, sharing the leading steps they have in common (`trie`).
//!
//! The I-Regexp (RFC 9485) patterns of `match()` and `search()` are translated for the `regex`
//! crate (`iregexp`). An unescaped `^` or `$` outside a character class is an anchor there, as
//! in RFC 9485's mappings to ECMAScript and PCRE and as the compliance suite's "explicit caret"
//! and "explicit dollar" cases expect, although RFC 9485's grammar reads them as ordinary
//! characters. A pattern written in the query is compiled with it; one read from the document
//! is compiled each time the filter runs (`match(@.a, @.pattern)`), or once per traversal when
//! it does not depend on the current node (`match(@.a, $.pattern)`). An invalid pattern
//! matches nothing. Every query from the root inside a filter (`?count($.tools[*]) > 1`) is
//! evaluated once per traversal (`filter::Scope`), not once per node the filter tests.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use jsonpath_rust::parser::errors::JsonPathError;
use jsonpath_rust::parser::model::Filter as FilterExpr;
use jsonpath_rust::parser::model::{
    Comparable, FilterAtom, FnArg, Segment, Selector, Test, TestFunction,
};
use thiserror::Error;

use crate::document::{pointer, ValueRef};
use filter::Scope;

mod embedded_queries;
// `encode` is the build script's, which includes the module with `#[path]`.
#[cfg_attr(not(test), allow(dead_code))]
mod encoded_query;
mod filter;
mod functions;
mod iregexp;
mod select;
mod steps;
mod trie;

#[cfg(test)]
mod selection_tests;

/// A compiled RFC 9535 JSONPath query.
#[derive(Debug, Clone)]
pub struct JsonPath {
    // Shared: the same compiled path is handed to many rules and releases.
    text: Arc<str>,
    steps: Arc<[steps::Step]>,
    /// The pointer tokens of a query of plain name and non-negative index segments.
    singular: Option<Arc<[String]>>,
}

/// One node selected in a document tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Selected<'d> {
    /// The node's location, as an RFC 6901 JSON Pointer (`""` for the root).
    pub pointer: String,
    /// The node itself.
    pub value: ValueRef<'d>,
}

/// A query that could not be compiled.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("invalid JSONPath `{path}`: {message}")]
pub struct PathError {
    /// The query text as given.
    pub path: String,
    /// What is wrong with it.
    pub message: String,
    /// Where the syntax error was found, in characters from the start of `path`, when known.
    pub offset: Option<usize>,
}

/// A memo of compiled paths, shared by the threads of one catalogue compilation.
#[derive(Debug, Clone, Default)]
pub struct CompileMemo(Arc<Mutex<HashMap<String, Result<JsonPath, PathError>>>>);

thread_local! {
    /// The memo of [`JsonPath::with_compile_memo`], when one is active on this thread.
    static COMPILED: std::cell::RefCell<Option<CompileMemo>> =
        const { std::cell::RefCell::new(None) };
}

impl JsonPath {
    /// Compiles `text`. Errors carry a message and, where the crate gives it, the character offset.
    ///
    /// Anything outside RFC 9535 is rejected, including the extension functions of
    /// `jsonpath-rust` and function calls that are not well-typed.
    pub fn compile(text: &str) -> Result<JsonPath, PathError> {
        let memo = COMPILED.with(|c| c.borrow().clone());
        let Some(memo) = memo else {
            return JsonPath::compile_uncached(text);
        };
        let hit = memo.0.lock().ok().and_then(|m| m.get(text).cloned());
        if let Some(hit) = hit {
            return hit;
        }
        // Compiled outside the lock: two threads may compile one text, never wait on each other.
        let compiled = JsonPath::compile_uncached(text);
        if let Ok(mut m) = memo.0.lock() {
            m.insert(text.to_owned(), compiled.clone());
        }
        compiled
    }

    /// The memo active on this thread, to share it with the threads a compilation starts.
    pub fn current_memo() -> Option<CompileMemo> {
        COMPILED.with(|c| c.borrow().clone())
    }

    /// Runs `f` with `memo` active on this thread (none with `None`).
    pub fn with_memo<R>(memo: Option<CompileMemo>, f: impl FnOnce() -> R) -> R {
        let outer = COMPILED.with(|c| c.replace(memo));
        let result = f();
        COMPILED.with(|c| *c.borrow_mut() = outer);
        result
    }

    /// Runs `f` with a memo of compiled paths on this thread: a catalogue names the same
    /// relative paths (`kind`, `method`, `@.msg.params`) in hundreds of places, and parsing a
    /// path costs more than copying a parsed one. Inside an active memo, `f` uses that one;
    /// the memo ends with the outermost call, so every catalogue compilation parses its paths
    /// afresh.
    pub fn with_compile_memo<R>(f: impl FnOnce() -> R) -> R {
        match JsonPath::current_memo() {
            Some(_) => f(),
            None => JsonPath::with_memo(Some(CompileMemo::default()), f),
        }
    }

    fn compile_uncached(text: &str) -> Result<JsonPath, PathError> {
        check_whitespace(text).map_err(|(message, offset)| PathError {
            path: text.to_string(),
            message,
            offset: Some(offset),
        })?;
        let query = match embedded_queries::parsed(text) {
            Some(query) => query,
            None => jsonpath_rust::parser::parse_json_path(text)
                .map_err(|err| parse_error(text, &err))?,
        };
        check_segments(&query.segments).map_err(|message| PathError {
            path: text.to_string(),
            message,
            offset: None,
        })?;
        let steps = steps::steps(&query.segments).map_err(|message| PathError {
            path: text.to_string(),
            message,
            offset: None,
        })?;
        let singular = plain_tokens(&steps).map(Into::into);
        Ok(JsonPath {
            text: text.into(),
            steps: steps.into(),
            singular,
        })
    }

    /// How many levels below its start the nodes the query selects are: one per segment;
    /// `None` with a descendant segment (`..`), whose nodes are at any depth.
    pub fn depth(&self) -> Option<usize> {
        self.steps
            .iter()
            .all(|s| !matches!(s, steps::Step::Descendant(_)))
            .then_some(self.steps.len())
    }

    /// The query text, as given to [`JsonPath::compile`].
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Every node selected in `root`, as (RFC 6901 JSON Pointer, node), in RFC 9535 order.
    pub fn select<'d>(&self, root: ValueRef<'d>) -> Vec<Selected<'d>> {
        self.select_below(root, "")
    }

    /// [`JsonPath::select`] on `start`, a node at pointer `prefix`: the pointers returned
    /// are `prefix` followed by each node's pointer within `start`. `$` inside filters means
    /// `start`, as the query is evaluated with `start` as its root.
    pub fn select_below<'d>(&self, start: ValueRef<'d>, prefix: &str) -> Vec<Selected<'d>> {
        let mut out = Vec::new();
        self.for_each_below(start, prefix, &mut |pointer, value| {
            out.push(Selected {
                pointer: pointer.to_owned(),
                value,
            });
        });
        out
    }

    /// The nodes [`JsonPath::select`] selects, without their pointers.
    pub fn select_values<'d>(&self, root: ValueRef<'d>) -> Vec<ValueRef<'d>> {
        let mut out = Vec::new();
        select::walk(
            &self.steps,
            root,
            &Scope::new(root),
            &mut select::NoTrail,
            &mut |_, value| {
                out.push(value);
                false
            },
        );
        out
    }

    /// Calls `f` with the pointer (below `prefix`) and the node of each node
    /// [`JsonPath::select_below`] selects in `start`, in the same order, without allocating
    /// a pointer per node.
    pub fn for_each_below<'d>(
        &self,
        start: ValueRef<'d>,
        prefix: &str,
        f: &mut dyn FnMut(&str, ValueRef<'d>),
    ) {
        let mut at = pointer::buffer(prefix);
        select::walk(
            &self.steps,
            start,
            &Scope::new(start),
            &mut at,
            &mut |at, value| {
                f(at, value);
                false
            },
        );
    }

    /// Calls `f` on the nodes [`JsonPath::select`] selects, in order, until it returns
    /// true; returns whether it did.
    pub fn any_value<'d>(
        &self,
        root: ValueRef<'d>,
        f: &mut dyn FnMut(ValueRef<'d>) -> bool,
    ) -> bool {
        select::walk(
            &self.steps,
            root,
            &Scope::new(root),
            &mut select::NoTrail,
            &mut |_, value| f(value),
        )
    }

    /// True when the query is a singular query of plain name/index segments only (e.g.
    /// `$.a.b[0]`), in which case `singular_tokens()` returns the tokens, letting callers resolve
    /// it without evaluating the query.
    ///
    /// The tokens are unescaped RFC 6901 reference tokens (`$['a/b'][0]` gives `["a/b", "0"]`;
    /// `$` gives none). Queries with a negative index (`$.a[-1]`) return `None`. Note that a
    /// pointer does not say whether a token is a name or an index, whereas JSONPath does: `$[0]`
    /// selects nothing in `{"0": 1}` and `$['0']` nothing in `[1]`, while a plain RFC 6901
    /// resolution (`Value::pointer`) finds a node in both. Callers that need that distinction
    /// should use [`JsonPath::select`].
    pub fn singular_tokens(&self) -> Option<&[String]> {
        self.singular.as_deref()
    }
}

/// Several queries evaluated in one pass over a document: queries sharing leading steps
/// share their traversal, so each node is visited once for all of them while it is in cache.
#[derive(Debug)]
pub struct PathSet<'p> {
    trie: trie::StepTrie<'p>,
}

impl<'p> PathSet<'p> {
    /// The set of `paths[i]` for each `i` in `indices`.
    pub fn new(paths: &'p [JsonPath], indices: impl IntoIterator<Item = usize>) -> PathSet<'p> {
        let mut trie = trie::StepTrie::new();
        for i in indices {
            trie.insert(i, &paths[i].steps);
        }
        trie.plan_indexes();
        PathSet { trie }
    }

    /// Calls `f` with the query's index, the pointer and the node of every node each query
    /// selects in `root`: each query's nodes in RFC 9535 order, the queries' nodes interleaved.
    /// The traversal of the leading steps queries have in common is shared.
    pub fn for_each<'d>(&self, root: ValueRef<'d>, f: &mut dyn FnMut(usize, &str, ValueRef<'d>)) {
        self.trie.for_each(root, f);
    }
}

/// The unescaped RFC 6901 tokens of a query whose segments each select a member by name or an
/// element by a non-negative index; `None` for any other query.
fn plain_tokens(steps: &[steps::Step]) -> Option<Vec<String>> {
    steps
        .iter()
        .map(|step| match step {
            steps::Step::Child(steps::Selector::Name(name)) => Some(name.to_string()),
            steps::Step::Child(steps::Selector::Index(index)) if *index >= 0 => {
                Some(index.to_string())
            }
            _ => None,
        })
        .collect()
}

/// Converts a crate parse error into a [`PathError`], with a character offset for syntax errors.
fn parse_error(text: &str, err: &JsonPathError) -> PathError {
    let (message, offset) = match err {
        JsonPathError::PestError(pest) => {
            let offset = pest_byte_offset(&format!("{:?}", pest.location))
                .and_then(|byte| text.get(..byte))
                .map(|prefix| prefix.chars().count());
            let message = match offset {
                Some(at) => format!("syntax error at character {at}: {}", pest.variant.message()),
                None => format!("syntax error: {}", pest.variant.message()),
            };
            (message, offset)
        }
        other => (other.to_string(), None),
    };
    PathError {
        path: text.to_string(),
        message,
        offset,
    }
}

/// Reads the byte offset out of the `Debug` form of a `pest::error::InputLocation`
/// (`Pos(3)` or `Span((3, 5))`); `pest` is not a direct dependency, so its type cannot be named.
fn pest_byte_offset(location: &str) -> Option<usize> {
    let digits = location
        .trim_start_matches(|c: char| !c.is_ascii_digit())
        .split(|c: char| !c.is_ascii_digit())
        .next()?;
    digits.parse().ok()
}

/// Rejects the whitespace the crate's grammar lets through but RFC 9535 does not allow: inside a
/// member-name shorthand (`$.a b`, which the crate reads as the name `a b`), right after a `.`
/// (`@. a == 1`), and at the end of the query (`$.a `). Returns a message and a character offset.
fn check_whitespace(text: &str) -> Result<(), (String, usize)> {
    fn is_space(c: char) -> bool {
        matches!(c, ' ' | '\t' | '\n' | '\r')
    }
    fn is_name_first(c: char) -> bool {
        c.is_ascii_alphabetic()
            || c == '_'
            || ('\u{80}'..='\u{D7FF}').contains(&c)
            || c >= '\u{E000}'
    }
    let chars: Vec<char> = text.chars().collect();
    if chars.last().copied().is_some_and(is_space) {
        let start = chars
            .iter()
            .rposition(|&c| !is_space(c))
            .map_or(0, |i| i + 1);
        return Err(("whitespace at the end of the query".to_string(), start));
    }
    let mut i = 0;
    let mut quote = None;
    while let Some(&c) = chars.get(i) {
        i += 1;
        if let Some(q) = quote {
            match c {
                '\\' => i += 1,
                c if c == q => quote = None,
                _ => {}
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '.' if !chars.get(i).is_some_and(char::is_ascii_digit) => {
                if chars.get(i) == Some(&'.') {
                    i += 1;
                }
                if chars.get(i).copied().is_some_and(is_space) {
                    return Err(("whitespace after `.`".to_string(), i));
                }
                if !chars.get(i).copied().is_some_and(is_name_first) {
                    continue;
                }
                while chars
                    .get(i)
                    .is_some_and(|&c| is_name_first(c) || c.is_ascii_digit())
                {
                    i += 1;
                }
                let gap = i;
                while chars.get(i).copied().is_some_and(is_space) {
                    i += 1;
                }
                if i > gap
                    && chars
                        .get(i)
                        .is_some_and(|&c| is_name_first(c) || c.is_ascii_digit())
                {
                    return Err((
                        "whitespace inside a member name; quote the name: `['…']`".to_string(),
                        gap,
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// RFC 9535 conformance checks on the crate's syntax tree.
//
// `jsonpath-rust` parses a superset of RFC 9535: it has extension functions and does not fully
// enforce the type rules of section 2.4.3. These checks reject what the RFC does not allow.

type Checked = Result<(), String>;

fn check_segments(segments: &[Segment]) -> Checked {
    segments.iter().try_for_each(check_segment)
}

fn check_segment(segment: &Segment) -> Checked {
    match segment {
        Segment::Descendant(inner) => check_segment(inner),
        Segment::Selector(selector) => check_selector(selector),
        Segment::Selectors(selectors) => selectors.iter().try_for_each(check_selector),
    }
}

fn check_selector(selector: &Selector) -> Checked {
    match selector {
        Selector::Filter(filter) => check_logical(filter),
        Selector::Name(_) | Selector::Wildcard | Selector::Index(_) | Selector::Slice(..) => Ok(()),
    }
}

fn check_logical(filter: &FilterExpr) -> Checked {
    match filter {
        FilterExpr::Or(parts) | FilterExpr::And(parts) => parts.iter().try_for_each(check_logical),
        FilterExpr::Atom(FilterAtom::Filter { expr, .. }) => check_logical(expr),
        FilterExpr::Atom(FilterAtom::Test { expr, .. }) => match expr.as_ref() {
            Test::RelQuery(segments) => check_segments(segments),
            Test::AbsQuery(query) => check_segments(&query.segments),
            // A test expression needs a LogicalType or NodesType result (section 2.4.3).
            Test::Function(function) => match function.as_ref() {
                TestFunction::Match(..) | TestFunction::Search(..) | TestFunction::Custom(..) => {
                    check_function(function)
                }
                other => Err(format!(
                    "`{}()` returns a value, which cannot be used as a test; compare it instead",
                    function_name(other)
                )),
            },
        },
        FilterExpr::Atom(FilterAtom::Comparison(comparison)) => {
            let (left, right) = comparison.vals();
            check_comparable(left)?;
            check_comparable(right)
        }
    }
}

fn check_comparable(comparable: &Comparable) -> Checked {
    match comparable {
        Comparable::Literal(_) | Comparable::SingularQuery(_) => Ok(()),
        Comparable::Function(function) => {
            check_value_function(function)?;
            check_function(function)
        }
    }
}

/// A function whose result is a ValueType: `length`, `count`, `value`.
fn check_value_function(function: &TestFunction) -> Checked {
    match function {
        TestFunction::Length(_) | TestFunction::Count(_) | TestFunction::Value(_) => Ok(()),
        other => Err(format!(
            "`{}()` does not return a value and cannot be compared or passed as a value",
            function_name(other)
        )),
    }
}

fn check_function(function: &TestFunction) -> Checked {
    match function {
        TestFunction::Custom(name, _) => Err(format!(
            "`{name}()` is not an RFC 9535 function (it is a jsonpath-rust extension)"
        )),
        TestFunction::Length(arg) => check_value_arg("length", arg),
        TestFunction::Count(arg) => check_nodes_arg("count", arg),
        TestFunction::Value(arg) => check_nodes_arg("value", arg),
        TestFunction::Match(a, b) => {
            check_value_arg("match", a)?;
            check_value_arg("match", b)
        }
        TestFunction::Search(a, b) => {
            check_value_arg("search", a)?;
            check_value_arg("search", b)
        }
    }
}

/// A ValueType parameter: a literal, a singular query or a ValueType function.
fn check_value_arg(name: &str, arg: &FnArg) -> Checked {
    match arg {
        FnArg::Literal(_) => Ok(()),
        FnArg::Test(test) => match test.as_ref() {
            Test::RelQuery(segments) => check_singular(name, segments),
            Test::AbsQuery(query) => check_singular(name, &query.segments),
            Test::Function(function) => {
                check_value_function(function)?;
                check_function(function)
            }
        },
        FnArg::Filter(_) => Err(format!(
            "`{name}()` takes a value, not a logical expression"
        )),
    }
}

/// A NodesType parameter: a query (singular or not).
fn check_nodes_arg(name: &str, arg: &FnArg) -> Checked {
    match arg {
        FnArg::Test(test) => match test.as_ref() {
            Test::RelQuery(segments) => check_segments(segments),
            Test::AbsQuery(query) => check_segments(&query.segments),
            Test::Function(_) => Err(format!("`{name}()` takes a query, not a function result")),
        },
        FnArg::Literal(_) | FnArg::Filter(_) => Err(format!("`{name}()` takes a query")),
    }
}

fn check_singular(name: &str, segments: &[Segment]) -> Checked {
    let singular = segments.iter().all(|segment| {
        matches!(
            segment,
            Segment::Selector(Selector::Name(_) | Selector::Index(_))
        )
    });
    if singular {
        check_segments(segments)
    } else {
        Err(format!(
            "`{name}()` takes a value; a query argument must be a singular query"
        ))
    }
}

fn function_name(function: &TestFunction) -> &str {
    match function {
        TestFunction::Custom(name, _) => name,
        TestFunction::Length(_) => "length",
        TestFunction::Value(_) => "value",
        TestFunction::Count(_) => "count",
        TestFunction::Search(..) => "search",
        TestFunction::Match(..) => "match",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Tree;
    use serde_json::{json, Value};

    /// (pointer, value) of each node `select` selects in the tree of `root`.
    fn selected(path: &JsonPath, root: &Value) -> Vec<(String, Value)> {
        let tree = Tree::from_value(root);
        path.select(tree.root())
            .into_iter()
            .map(|s| (s.pointer, s.value.to_value()))
            .collect()
    }

    /// The pointers of the nodes `path` selects in `root`.
    fn pointers(path: &str, root: &Value) -> Vec<String> {
        let compiled = JsonPath::compile(path).unwrap();
        selected(&compiled, root)
            .into_iter()
            .map(|(pointer, _)| pointer)
            .collect()
    }

    fn sample() -> Value {
        json!({
            "tools": [
                {"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}},
                {"name": "b", "inputSchema": {"type": "object"}},
                {"name": "c"},
                "not an object",
                [1, 2, 3]
            ],
            "a/b": {"c~d": 1, "it's": 2, "back\\slash": 3, "ctl\u{1}": 4, "tab\t": 5, "é😀": 6},
            "0": "zero",
            "empty": {},
            "list": [],
            "nested": [[1, [2, 3]], {"k": [4, {"k": 5}]}],
            "": {"": "empty key"}
        })
    }

    #[test]
    fn selects_with_pointers() {
        let doc = sample();
        assert_eq!(
            pointers("$.tools[*].inputSchema", &doc),
            vec!["/tools/0/inputSchema", "/tools/1/inputSchema"]
        );
        assert_eq!(pointers("$['a/b']['c~d']", &doc), vec!["/a~1b/c~0d"]);
        assert_eq!(pointers("$.tools[-1][0]", &doc), vec!["/tools/4/0"]);
        assert_eq!(pointers("$", &doc), vec![""]);
        assert_eq!(pointers("$['']['']", &doc), vec!["//"]);
    }

    #[test]
    fn pointers_escape_names() {
        let doc = sample();
        assert_eq!(
            pointers("$['a/b'][?@ > 1]", &doc),
            vec![
                "/a~1b/it's",
                "/a~1b/back\\slash",
                "/a~1b/ctl\u{1}",
                "/a~1b/tab\t",
                "/a~1b/é😀"
            ]
        );
        assert_eq!(
            pointers("$..k", &doc),
            vec!["/nested/1/k", "/nested/1/k/1/k"]
        );
    }

    /// Where the RFC 9535 compliance suite is: `$MCPDESC_JSONPATH_CTS`, else next to the
    /// workspace (as in `tests/jsonpath_cts.rs`).
    fn compliance_suite() -> Option<Value> {
        let location = std::env::var_os("MCPDESC_JSONPATH_CTS")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../../../shared/conformance/jsonpath-rfc9535/cts.json")
            });
        let text = std::fs::read_to_string(&location).ok()?;
        Some(serde_json::from_str(&text).expect("the compliance suite is JSON"))
    }

    #[test]
    fn encoded_queries_decode_to_the_parsed_tree() {
        let Some(suite) = compliance_suite() else {
            eprintln!("skipped: the RFC 9535 compliance suite is not there");
            return;
        };
        let mut parsed = 0;
        for case in suite["tests"].as_array().expect("a `tests` array") {
            let selector = case["selector"].as_str().expect("a selector");
            if let Ok(query) = jsonpath_rust::parser::parse_json_path(selector) {
                let bytes = encoded_query::encode(&query);
                assert_eq!(encoded_query::decode(&bytes), Some(query), "{selector:?}");
                assert_eq!(encoded_query::decode(&bytes[..bytes.len() - 1]), None);
                parsed += 1;
            }
        }
        assert!(parsed > 400, "{parsed} selectors parsed");
        for text in [
            "$[?@.a == 1.5e300 && @.b != -7]",
            "$[-9007199254740991:2:-1]",
            "$[::]",
        ] {
            let query = jsonpath_rust::parser::parse_json_path(text).unwrap();
            assert_eq!(
                encoded_query::decode(&encoded_query::encode(&query)),
                Some(query)
            );
        }
        assert_eq!(encoded_query::decode(&[]), None);
        assert_eq!(encoded_query::decode(&[1, 7]), None);
        assert_eq!(encoded_query::decode(&[0xff; 12]), None);
    }

    /// Every query the shipped catalogue compiles is pre-parsed, into the tree the crate's
    /// parser builds for it.
    #[test]
    fn embedded_queries_cover_the_catalogue() {
        let memo = CompileMemo::default();
        JsonPath::with_memo(Some(memo.clone()), || crate::RuleSet::embedded().compile())
            .expect("the shipped catalogue compiles");
        let mut texts: Vec<String> = memo.0.lock().unwrap().keys().cloned().collect();
        texts.sort();
        let mut missing = Vec::new();
        for text in &texts {
            match embedded_queries::parsed(text) {
                Some(query) => assert_eq!(
                    Ok(query),
                    jsonpath_rust::parser::parse_json_path(text),
                    "{text:?}"
                ),
                None => missing.push(text),
            }
        }
        let filters = texts.iter().filter(|text| text.contains('?')).count();
        eprintln!(
            "catalogue: {} queries ({filters} with filters), {} not pre-parsed: {missing:?}",
            texts.len(),
            missing.len()
        );
        assert!(texts.len() > 100 && filters > 10, "{} queries", texts.len());
        assert!(missing.is_empty(), "not pre-parsed: {missing:?}");
    }

    #[test]
    fn path_set_selects_what_each_path_selects() {
        let texts = [
            "$",
            "$.tools[*]",
            "$.tools[*].name",
            "$.tools[*].inputSchema",
            "$.tools[*].inputSchema.properties.*",
            "$.tools[*]",
            "$..k",
            "$.nested[*][*]",
            "$.tools[?@.name == 'a'].inputSchema",
            "$[*]['a','b']",
            "$['a/b'][?@ > 2]",
        ];
        let paths: Vec<JsonPath> = texts
            .iter()
            .map(|t| JsonPath::compile(t).unwrap())
            .collect();
        let doc = sample();
        let set = PathSet::new(&paths, 0..paths.len());
        let tree = Tree::from_value(&doc);
        let mut by_set: Vec<Vec<(String, Value)>> = vec![Vec::new(); paths.len()];
        set.for_each(tree.root(), &mut |i, ptr, v| {
            by_set[i].push((ptr.to_owned(), v.to_value()))
        });
        for (i, path) in paths.iter().enumerate() {
            assert_eq!(by_set[i], selected(path, &doc), "{}", texts[i]);
        }
        assert_eq!(by_set[6].len(), 2, "$..k");
        let subset = PathSet::new(&paths, [2, 6]);
        let mut seen = Vec::new();
        subset.for_each(tree.root(), &mut |i, _, _| seen.push(i));
        assert!(seen.iter().all(|i| *i == 2 || *i == 6) && seen.contains(&6));
    }

    #[test]
    fn singular_tokens() {
        let tokens = |q: &str| {
            JsonPath::compile(q)
                .unwrap()
                .singular_tokens()
                .map(|t| t.to_vec())
        };
        assert_eq!(
            tokens("$.a.b[0]"),
            Some(vec!["a".into(), "b".into(), "0".into()])
        );
        assert_eq!(
            tokens("$['a/b'][0]"),
            Some(vec!["a/b".to_string(), "0".to_string()])
        );
        assert_eq!(tokens("$['~']"), Some(vec!["~".to_string()]));
        assert_eq!(tokens("$"), Some(vec![]));
        assert_eq!(tokens("$.a[-1]"), None);
        assert_eq!(tokens("$.a[*]"), None);
        assert_eq!(tokens("$.a['b','c']"), None);
        assert_eq!(tokens("$..a"), None);
        assert_eq!(tokens("$.a[0:1]"), None);
    }

    #[test]
    fn compile_errors() {
        let err = JsonPath::compile("$.a[").unwrap_err();
        assert_eq!(err.path, "$.a[");
        assert_eq!(err.offset, Some(4));
        let err = JsonPath::compile("$[?in(@, $.b)]").unwrap_err();
        assert!(err.message.contains("extension"), "{err}");
        let err = JsonPath::compile("$.é[").unwrap_err();
        assert_eq!(err.offset, Some(4), "offsets count characters, not bytes");
        assert!(err.to_string().starts_with("invalid JSONPath `$.é[`: "));
        for bad in [
            "",
            "a",
            "$.a[?in(@, $.b)]",
            "$.a[?nin(@, $.b)]",
            "$.a[?any_of(@, $.b)]",
            "$.a[?none_of(@, $.b)]",
            "$.a[?subset_of(@, $.b)]",
            "$.a[?length(@)]",
            "$.a[?count(@.*) == 'x' || count(@)]",
            "$.a[?length(@.*) == 1]",
            "$.a[?match(@.*, 'a')]",
            "$.a[?count(1) == 1]",
            "$.a[?value(length(@)) == 1]",
            "$.a[?match(@, 'a') == true]",
            "$.a ",
            " $.a",
            "$.a b",
            "$.a\tb",
            "$..a b",
            "$[?@.a b]",
            "$[?@.a b == 1]",
            "$[?@. a == 1]",
            "$. a",
            "$.. a",
        ] {
            assert!(JsonPath::compile(bad).is_err(), "{bad} should not compile");
        }
        for good in [
            "$.a[?length(@) > 1]",
            "$.a[?length(value(@.*)) > 1]",
            "$.a[?count(@..x) == 2]",
            "$.a[?match(@.b, 'a.*') && search($.c[0], @.d)]",
            "$.a[?value(@..x) == 1]",
            "$.a .b",
            "$ .a",
            "$['a b']",
            "$[?@.a == 1.5 && @.b]",
            "$[?@.a ]",
            "$[?@.a\n== 'x y' ]",
            "$[?@ .a .b]",
            "$[?@.*[?@ > 1]]",
            "$[?$[?@ > 1]]",
            "$[?@[?@>1]]",
            "$[?@..[?@>1]]",
            "$[?@[0, ?@>1]]",
            "$[?count(@[?@>1]) == 1]",
        ] {
            assert!(JsonPath::compile(good).is_ok(), "{good} should compile");
        }
    }

    #[test]
    fn whitespace_error_offsets() {
        let err = JsonPath::compile("$.ab c").unwrap_err();
        assert_eq!(err.offset, Some(4));
        let err = JsonPath::compile("$.é  ").unwrap_err();
        assert_eq!(err.offset, Some(3));
        let err = JsonPath::compile("$[?@. a == 1]").unwrap_err();
        assert_eq!(err.offset, Some(5));
    }

    #[test]
    fn multi_selector_segments_follow_rfc_order() {
        let doc = json!([{"a": 1, "b": 2}, {"a": 3, "b": 4}, {"b": 5}]);
        assert_eq!(
            pointers("$[*]['a','b']", &doc),
            vec!["/0/a", "/0/b", "/1/a", "/1/b", "/2/b"]
        );
        assert_eq!(
            pointers("$[*]['b','a']", &doc),
            vec!["/0/b", "/0/a", "/1/b", "/1/a", "/2/b"]
        );
        // Duplicate input nodes: each occurrence gets both selectors in turn.
        assert_eq!(
            pointers("$[0,0]['b','a']", &doc),
            vec!["/0/b", "/0/a", "/0/b", "/0/a"]
        );
        assert_eq!(
            pointers("$[0,1,0]['a','a',*]", &doc),
            vec![
                "/0/a", "/0/a", "/0/a", "/0/b", "/1/a", "/1/a", "/1/a", "/1/b", "/0/a", "/0/a",
                "/0/a", "/0/b"
            ]
        );
        let nested = json!({"x": {"a": 1, "d": 2, "y": {"a": 3, "d": 4}}, "a": 0});
        assert_eq!(
            pointers("$..['d','a']", &nested),
            vec!["/a", "/x/d", "/x/a", "/x/y/d", "/x/y/a"]
        );
        assert_eq!(
            pointers("$..[?@ > 1, 'a']", &nested),
            vec!["/a", "/x/d", "/x/a", "/x/y/a", "/x/y/d", "/x/y/a"]
        );
        // Overlapping inputs: `$..*` yields `/x` and `/x/y`, and `..` repeats `/x/y`'s subtree.
        assert_eq!(
            pointers("$.*..['d','a']", &nested),
            vec!["/x/d", "/x/a", "/x/y/d", "/x/y/a"]
        );
        assert_eq!(
            pointers("$..*..['d','a']", &nested),
            vec!["/x/d", "/x/a", "/x/y/d", "/x/y/a", "/x/y/d", "/x/y/a"]
        );
    }

    #[test]
    fn as_str_round_trips() {
        assert_eq!(JsonPath::compile("$.a[*]").unwrap().as_str(), "$.a[*]");
    }

    #[test]
    fn tree_comparisons_follow_rfc_9535() {
        let doc = json!([
            {"a": [1], "b": [1.0]},
            {"a": {"x": 1, "y": [2]}, "b": {"y": [2.0], "x": 1.0}},
            {"a": 9007199254740993u64, "b": 9007199254740992u64},
            {"a": 1e-17, "b": 0},
            {"a": "\u{E000}", "b": "😀"},
            {"a": 2, "b": 2.0},
            {"a": null},
            {},
            {"a": 9007199254740993u64, "b": 9007199254740992.0}
        ]);
        assert_eq!(
            pointers("$[?@.a == @.b]", &doc),
            vec!["/0", "/1", "/5", "/7"],
            "numbers by value, also inside arrays and objects; Nothing equals Nothing"
        );
        assert_eq!(pointers("$[?@.a < @.b]", &doc), vec!["/4"], "code points");
        assert_eq!(pointers("$[?@.a > @.b]", &doc), vec!["/2", "/3", "/8"]);
        assert_eq!(
            pointers("$[?@.a <= @.b]", &doc),
            vec!["/0", "/1", "/4", "/5", "/7"]
        );
        assert_eq!(pointers("$[?@.a >= 2]", &doc), vec!["/2", "/5", "/8"]);
        assert_eq!(pointers("$[?@.a == 2.0]", &doc), vec!["/5"]);
        assert_eq!(pointers("$[?@.a == null]", &doc), vec!["/6"]);
        assert_eq!(
            pointers("$[?@.a != @.b]", &doc),
            vec!["/2", "/3", "/4", "/6", "/8"]
        );
        assert_eq!(pointers("$[?@.a < true]", &doc), Vec::<String>::new());
    }

    #[test]
    fn tree_functions_follow_rfc_9535() {
        let doc = json!({
            "s": ["é😀", "ab", "a\nb", "a\rb", "ba", "a.b", "A", "ʰ", "ab^", "^ab"],
            "n": [[1, 2], {"a": 1, "b": 2}, "xy", 2, [1, 2, 3]],
            "r": {"pattern": "a.b", "bad": "(a", "values": ["axb", "ab", "xaxbx"]}
        });
        assert_eq!(
            pointers("$.s[?length(@) == 2]", &doc),
            vec!["/s/0", "/s/1", "/s/4"]
        );
        assert_eq!(
            pointers("$.n[?length(@) == 2]", &doc),
            vec!["/n/0", "/n/1", "/n/2"]
        );
        assert_eq!(pointers("$.n[?count(@.*) == 3]", &doc), vec!["/n/4"]);
        assert_eq!(
            pointers("$[?value(@.*[0]) == 'é😀']", &doc),
            Vec::<String>::new()
        );
        assert_eq!(pointers("$[?value(@[0]) == 'é😀']", &doc), vec!["/s"]);
        assert_eq!(pointers("$.n[?value(@.a) == 1]", &doc), vec!["/n/1"]);
        assert_eq!(
            pointers("$.n[?value(@.*) == 1]", &doc),
            Vec::<String>::new()
        );
        // `.` is anything but `\n` and `\r`; `match` is anchored, `search` is not.
        assert_eq!(pointers("$.s[?match(@, 'a.b')]", &doc), vec!["/s/5"]);
        assert_eq!(
            pointers("$.s[?search(@, 'b.')]", &doc),
            vec!["/s/4", "/s/8"]
        );
        assert_eq!(
            pointers("$.s[?match(@, 'a|b')]", &doc),
            Vec::<String>::new()
        );
        assert_eq!(pointers("$.s[?match(@, '\\\\p{Lu}')]", &doc), vec!["/s/6"]);
        assert_eq!(pointers("$.s[?match(@, '\\\\p{Lm}')]", &doc), vec!["/s/7"]);
        assert_eq!(pointers("$.s[?match(@, 'ab\\\\^')]", &doc), vec!["/s/8"]);
        assert_eq!(pointers("$.s[?match(@, '[\\\\^]ab')]", &doc), vec!["/s/9"]);
        assert_eq!(pointers("$.s[?match(@, '^ab$')]", &doc), vec!["/s/1"]);
        // Patterns read from the document; an invalid one matches nothing.
        assert_eq!(
            pointers("$.r.values[?match(@, $.r.pattern)]", &doc),
            vec!["/r/values/0"]
        );
        assert_eq!(
            pointers("$.r.values[?search(@, $.r.pattern)]", &doc),
            vec!["/r/values/0", "/r/values/2"]
        );
        assert_eq!(
            pointers("$.r.values[?search(@, $.r.bad)]", &doc),
            Vec::<String>::new()
        );
        assert_eq!(
            pointers("$.r.values[?!search(@, $.r.bad)]", &doc),
            vec!["/r/values/0", "/r/values/1", "/r/values/2"]
        );
        assert_eq!(
            pointers("$.r.values[?search(@, 'a{2,1}')]", &doc),
            Vec::<String>::new()
        );
        assert_eq!(
            pointers("$.r.values[?search(@, $.n)]", &doc),
            Vec::<String>::new()
        );
    }

    #[test]
    fn tree_slices_follow_rfc_9535() {
        let doc = json!([0, 1, 2, 3, 4, 5, 6]);
        let values = |query: &str| -> Vec<Value> {
            let path = JsonPath::compile(query).unwrap();
            selected(&path, &doc).into_iter().map(|(_, v)| v).collect()
        };
        assert_eq!(values("$[1:3]"), vec![json!(1), json!(2)]);
        assert_eq!(values("$[5:]"), vec![json!(5), json!(6)]);
        assert_eq!(
            values("$[::2]"),
            vec![json!(0), json!(2), json!(4), json!(6)]
        );
        assert_eq!(values("$[::-3]"), vec![json!(6), json!(3), json!(0)]);
        assert_eq!(values("$[5:1:-2]"), vec![json!(5), json!(3)]);
        assert_eq!(values("$[-2:]"), vec![json!(5), json!(6)]);
        assert_eq!(
            values("$[:-5:-1]"),
            vec![json!(6), json!(5), json!(4), json!(3)]
        );
        assert_eq!(values("$[-100:2]"), vec![json!(0), json!(1)]);
        assert_eq!(values("$[10:0:-4]"), vec![json!(6), json!(2)]);
        assert_eq!(values("$[1:5:0]"), Vec::<Value>::new());
        assert_eq!(values("$[3:1]"), Vec::<Value>::new());
        assert_eq!(
            values("$[-9007199254740991:9007199254740991:9007199254740991]"),
            vec![json!(0)]
        );
        assert_eq!(
            values("$[9007199254740991:-9007199254740991:-9007199254740991]"),
            vec![json!(6)]
        );
        assert_eq!(pointers("$[1:3]", &json!({"1": 1})), Vec::<String>::new());
    }

    /// A filter selector as the first segment of a relative query inside a filter selects
    /// children of the current node (RFC 9535, section 2.3.5); `jsonpath-rust`'s own evaluator
    /// read it as a test of the current node.
    #[test]
    fn filters_right_after_the_current_node_select_its_children() {
        let doc = json!([[0, 1], [0, 2], [0], {"a": 3}, 5]);
        assert_eq!(pointers("$[?@[?@>1]]", &doc), vec!["/1", "/3"]);
        assert_eq!(pointers("$[?!@[?@>1]]", &doc), vec!["/0", "/2", "/4"]);
        assert_eq!(pointers("$[?@..[?@>2]]", &doc), vec!["/3"]);
        assert_eq!(
            pointers("$[?count(@[?@>=1]) == 1]", &doc),
            vec!["/0", "/1", "/3"]
        );
        assert_eq!(pointers("$[?@[0, ?@==2]]", &doc), vec!["/0", "/1", "/2"]);
        let deep = json!([{"x": {"y": [1, 5]}}, {"x": [1, 2]}, [[3]]]);
        assert_eq!(pointers("$[?@..[?@>2]]", &deep), vec!["/0", "/2"]);
        assert_eq!(
            pointers("$[?count(@..[?@>=2]) == 1]", &deep),
            vec!["/0", "/1", "/2"]
        );
        assert_eq!(
            pointers("$[?count(@..[?@>=1]) == 2]", &deep),
            vec!["/0", "/1"]
        );
        let Some(suite) = compliance_suite() else {
            return;
        };
        let case = suite["tests"]
            .as_array()
            .and_then(|cases| cases.iter().find(|c| c["name"] == "filter, nested"))
            .expect("the case `filter, nested`");
        let selector = case["selector"].as_str().unwrap();
        let got: Vec<Value> = pointers(selector, &case["document"])
            .iter()
            .map(|p| case["document"].pointer(p).unwrap().clone())
            .collect();
        assert_eq!(Value::from(got), case["result"], "{selector}");
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        fn json() -> impl Strategy<Value = Value> {
            let leaf = prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::from),
                (-3i64..4).prop_map(Value::from),
                "[a-c]{0,2}".prop_map(Value::from),
            ];
            leaf.prop_recursive(4, 48, 4, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                    prop::collection::vec((key(), inner), 0..4)
                        .prop_map(|members| Value::Object(members.into_iter().collect())),
                ]
            })
        }

        fn key() -> impl Strategy<Value = String> {
            prop_oneof![
                Just("a".to_string()),
                Just("b".to_string()),
                Just("0".to_string()),
                Just("a/b".to_string()),
                Just("~1".to_string()),
                Just("it's".to_string()),
                Just("".to_string()),
            ]
        }

        proptest! {
            #[test]
            fn pointers_lead_to_their_nodes(
                doc in json(),
                query in prop::sample::select(vec![
                    "$..*", "$..a", "$..[0]", "$..['a','0']", "$[*]['a','b',0]", "$..[?@ > 0]",
                    "$..[1:]", "$..[::-1]", "$.*.*['~1','it\\'s','a/b']", "$..[?@.a]['a', 1]",
                ]),
            ) {
                let path = JsonPath::compile(query).unwrap();
                let tree = Tree::from_value(&doc);
                for node in path.select(tree.root()) {
                    let found = tree.root().pointer(&node.pointer);
                    prop_assert!(found.is_some_and(|v| v.same_node(node.value)));
                }
            }

            #[test]
            fn never_panics(text in "[$@.\\[\\]()?*,:'\"\\\\ab01=!<>&| -]{0,16}") {
                if let Ok(path) = JsonPath::compile(&text) {
                    let doc = json!({"a": [1, {"b": "x"}], "b": {"a": 0}});
                    let _ = path.select(Tree::from_value(&doc).root());
                }
            }
        }
    }

    /// A query from the root inside a filter selects the same nodes whichever node the filter
    /// tests: each is evaluated once per traversal, nested ones included.
    #[test]
    fn absolute_queries_in_filters_are_evaluated_once() {
        // `n` is `i % 7`: residues 0 to 2 occur 72 times among 500 items, the others 71.
        let items: Vec<Value> = (0..500)
            .map(|i| json!({"k": format!("k{i}"), "n": i % 7}))
            .collect();
        let doc = json!({"items": items, "pattern": "k1.*", "limit": 3});
        let tree = Tree::from_value(&doc);
        // (query, evaluations of absolute queries and compilations of patterns, nodes selected)
        let cases: &[(&str, usize, usize)] = &[
            ("$.items[?count($.items[?@.n == 0]) == 72]", 1, 500),
            ("$.items[?count($.items[?@.n == 0]) > 1000]", 1, 0),
            ("$.items[?@.n < value($.limit)]", 1, 216),
            ("$.items[?@.n == $.limit]", 1, 71),
            ("$.items[?$.items[?@.k == 'none']]", 1, 0),
            ("$.items[?!$.items[?@.k == 'none']]", 1, 500),
            // k1, k10 to k19, k100 to k199.
            ("$.items[?match(@.k, $.pattern)]", 2, 111),
            (
                "$.items[?search(@.k, $.pattern) && count($.items[*]) == 500]",
                3,
                111,
            ),
            (
                "$.items[?length(value($.items[?@.k == 'k3'].k)) == 2]",
                1,
                500,
            ),
            // The inner filter's `$.limit` is evaluated once too.
            ("$.items[?count($.items[?@.n == $.limit]) == 71]", 2, 500),
            // A relative query is evaluated per node, as it must be.
            ("$.items[?count(@.*) == 2]", 0, 500),
        ];
        for &(query, absolute, selects) in cases {
            let path = JsonPath::compile(query).unwrap();
            let scope = Scope::new(tree.root());
            let mut selected = Vec::new();
            select::walk(
                &path.steps,
                tree.root(),
                &scope,
                &mut String::new(),
                &mut |at, _| {
                    selected.push(at.clone());
                    false
                },
            );
            assert_eq!(scope.computed(), absolute, "{query}: evaluations");
            assert_eq!(selected.len(), selects, "{query}: selected");
            assert_eq!(selected, pointers(query, &doc), "{query}: entry points");
        }
    }
}
