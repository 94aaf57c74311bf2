//! RFC 9535 JSONPath, compiled once and evaluated over document trees to JSON Pointers.
//!
//! `jsonpath-rust` (1.0.x) is the parser, and only that: [`JsonPath::compile`] reads a query with
//! `jsonpath_rust::parser::parse_json_path`, or, for the forms catalogues use, with a small
//! parser of ours that builds the same syntax tree at a fraction of the cost (`parse_fast`).
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
    Comparable, Comparison, FilterAtom, FnArg, JpQuery, Literal, Segment, Selector, SingularQuery,
    SingularQuerySegment, Test, TestFunction,
};
use thiserror::Error;

use crate::document::{pointer, ValueRef};
use filter::Scope;

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
        let query = match parse_fast(text) {
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

// ---------------------------------------------------------------------------------------------
// A fast parser for the queries catalogues are made of.
//
// `jsonpath_rust::parser::parse_json_path` is generated by `pest` and is slow: with filters in
// most of the shipped rules' paths, it took about a fifth of the time of loading the catalogue.
// The parser below builds the very same syntax tree for the forms catalogues use, and gives up
// (`None`) on anything else, which then goes to the crate's parser; so every error, and every
// form whose tree is not obvious from the crate's grammar, is still the crate's.

/// Parses `text` into exactly the [`JpQuery`] `jsonpath_rust::parser::parse_json_path` builds
/// for it, or returns `None`: for invalid queries, and for valid ones outside this subset.
///
/// * `$` followed, without whitespace in between, by segments `.name`, `.*`, `[…]`, `..name`,
///   `..*` and `..[…]`;
/// * bracketed selections of quoted names (no escapes), indices, `*` and filters, one or
///   several, with whitespace where RFC 9535 allows it;
/// * filters made of `||`, `&&`, `!`, parentheses, existence tests of `@` or `$` queries
///   (any of the above segments), and comparisons (`==`, `!=`, `<`, `<=`, `>`, `>=`) between
///   singular queries (`@.a['b'][0]`, `$.x`) and literals: strings without escapes, numbers of
///   at most 15 integer digits, `true`, `false`, `null`.
///
/// Left to the crate: slices, function calls, escapes, whitespace between segments or inside
/// the brackets of a singular query in a comparison (which the crate reads leniently), and
/// nesting deeper than [`FAST_MAX_DEPTH`].
fn parse_fast(text: &str) -> Option<JpQuery> {
    let mut parser = FastParser {
        text,
        at: 0,
        depth: 0,
    };
    if !parser.eat("$") {
        return None;
    }
    let segments = parser.segments()?.segments;
    (parser.at == text.len()).then(|| JpQuery::new(segments))
}

/// Filters and parentheses nested deeper than this are left to the crate's parser, which has
/// a limit of its own (128 brackets and parentheses) that must keep producing its error.
const FAST_MAX_DEPTH: usize = 32;

struct FastParser<'t> {
    text: &'t str,
    /// Byte offset of the next unread character.
    at: usize,
    depth: usize,
}

/// The segments of a query, and whether the crate's grammar reads them as a singular query
/// (`singular-query-segments`), which is what decides how a comparison operand is parsed.
struct FastSegments {
    segments: Vec<Segment>,
    singular: bool,
}

impl FastParser<'_> {
    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn eat(&mut self, token: &str) -> bool {
        let found = self.rest().starts_with(token);
        if found {
            self.at += token.len();
        }
        found
    }

    /// Skips RFC 9535 blank space (`S`), which is also what the crate's grammar skips; returns
    /// whether there was any.
    fn skip_space(&mut self) -> bool {
        let start = self.at;
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
        self.at > start
    }

    /// Runs `parse` one nesting level deeper, giving up beyond [`FAST_MAX_DEPTH`].
    fn nested<T>(&mut self, parse: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        if self.depth == FAST_MAX_DEPTH {
            return None;
        }
        self.depth += 1;
        let parsed = parse(self);
        self.depth -= 1;
        parsed
    }

    /// Segments up to the first character that cannot start one.
    fn segments(&mut self) -> Option<FastSegments> {
        let mut segments = Vec::new();
        let mut singular = true;
        loop {
            let segment = if self.eat("..") {
                singular = false;
                let inner = if self.eat("*") {
                    Segment::Selector(Selector::Wildcard)
                } else if self.peek() == Some(b'[') {
                    self.bracketed()?.0
                } else {
                    Segment::Selector(Selector::Name(self.member_name()?))
                };
                Segment::Descendant(Box::new(inner))
            } else if self.eat(".") {
                if self.eat("*") {
                    singular = false;
                    Segment::Selector(Selector::Wildcard)
                } else {
                    Segment::Selector(Selector::Name(self.member_name()?))
                }
            } else if self.peek() == Some(b'[') {
                let (segment, plain) = self.bracketed()?;
                singular &= plain;
                segment
            } else {
                return Some(FastSegments { segments, singular });
            };
            segments.push(segment);
        }
    }

    /// A member-name shorthand.
    fn member_name(&mut self) -> Option<String> {
        fn name_first(c: char) -> bool {
            c.is_ascii_alphabetic()
                || c == '_'
                || ('\u{80}'..='\u{D7FF}').contains(&c)
                || c >= '\u{E000}'
        }
        let rest = self.rest();
        let end = rest
            .char_indices()
            .find(|&(i, c)| !(name_first(c) || (i > 0 && c.is_ascii_digit())))
            .map_or(rest.len(), |(i, _)| i);
        let name = &rest[..end];
        // The crate trims the names it reads (and refuses some so trimmed), and name characters
        // include Unicode white space such as U+00A0 and U+3000.
        if name.is_empty()
            || name.starts_with(char::is_whitespace)
            || name.ends_with(char::is_whitespace)
        {
            return None;
        }
        let name = name.to_owned();
        self.at += end;
        Some(name)
    }

    /// A bracketed selection, and whether it is a name or index segment of a singular query:
    /// one name or index selector, without the white space the crate's grammar reads there
    /// although RFC 9535 does not allow it.
    fn bracketed(&mut self) -> Option<(Segment, bool)> {
        if !self.eat("[") {
            return None;
        }
        let mut selectors = Vec::new();
        let mut spaced = false;
        loop {
            spaced |= self.skip_space();
            selectors.push(self.selector()?);
            spaced |= self.skip_space();
            if self.eat("]") {
                break;
            }
            if !self.eat(",") {
                return None;
            }
        }
        if selectors.len() > 1 {
            return Some((Segment::Selectors(selectors), false));
        }
        let selector = selectors.pop()?;
        let plain = !spaced && matches!(selector, Selector::Name(_) | Selector::Index(_));
        Some((Segment::Selector(selector), plain))
    }

    fn selector(&mut self) -> Option<Selector> {
        match self.peek()? {
            b'*' => {
                self.at += 1;
                Some(Selector::Wildcard)
            }
            b'\'' | b'"' => self.string().map(Selector::Name),
            b'?' => {
                self.at += 1;
                self.nested(|p| {
                    p.skip_space();
                    p.logical_or()
                })
                .map(Selector::Filter)
            }
            _ => self.index().map(Selector::Index),
        }
    }

    /// A quoted string. Escapes are left to the crate, and so are control characters, which
    /// its grammar lets into strings and then refuses.
    fn string(&mut self) -> Option<String> {
        let quote = char::from(self.peek()?);
        let body_start = self.at + 1;
        let len = self.text[body_start..].find(quote)?;
        let body = &self.text[body_start..body_start + len];
        if body.chars().any(|c| c == '\\' || c < ' ') {
            return None;
        }
        let body = body.to_owned();
        self.at = body_start + len + 1;
        Some(body)
    }

    /// Consumes ASCII digits; returns them.
    fn digits(&mut self) -> &str {
        let start = self.at;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
        &self.text[start..self.at]
    }

    /// The integer part of an index or number: `0`, or up to 15 digits without a leading zero
    /// (the crate's grammar bounds longer ones by 2^53 - 1, a rule not worth repeating here).
    fn int_digits(&mut self) -> Option<()> {
        let digits = self.digits();
        (digits == "0" || ((1..=15).contains(&digits.len()) && !digits.starts_with('0')))
            .then_some(())
    }

    fn index(&mut self) -> Option<i64> {
        let start = self.at;
        let negative = self.eat("-");
        self.int_digits()?;
        let text = &self.text[start..self.at];
        if negative && text == "-0" {
            return None;
        }
        text.parse().ok()
    }

    /// A number literal; `Float` when it has a fraction or an exponent, as in the crate.
    fn number(&mut self) -> Option<Literal> {
        let start = self.at;
        self.eat("-");
        self.int_digits()?;
        let mut float = false;
        if self.eat(".") {
            float = true;
            if self.digits().is_empty() {
                return None;
            }
        }
        if self.eat("e") || self.eat("E") {
            float = true;
            let _ = self.eat("+") || self.eat("-");
            if self.digits().is_empty() {
                return None;
            }
        }
        let text = &self.text[start..self.at];
        if float {
            text.parse().ok().map(Literal::Float)
        } else {
            text.parse().ok().map(Literal::Int)
        }
    }

    fn literal(&mut self) -> Option<Literal> {
        match self.peek()? {
            b'\'' | b'"' => self.string().map(Literal::String),
            b'-' | b'0'..=b'9' => self.number(),
            _ if self.eat("true") => Some(Literal::Bool(true)),
            _ if self.eat("false") => Some(Literal::Bool(false)),
            _ if self.eat("null") => Some(Literal::Null),
            _ => None,
        }
    }

    /// `logical-or-expr`; like the crate, a single operand stands for itself.
    fn logical_or(&mut self) -> Option<FilterExpr> {
        let mut operands = vec![self.logical_and()?];
        loop {
            self.skip_space();
            if !self.eat("||") {
                break;
            }
            self.skip_space();
            operands.push(self.logical_and()?);
        }
        Some(match operands.len() {
            1 => operands.pop()?,
            _ => FilterExpr::Or(operands),
        })
    }

    fn logical_and(&mut self) -> Option<FilterExpr> {
        let mut operands = vec![FilterExpr::Atom(self.atom()?)];
        loop {
            self.skip_space();
            if !self.eat("&&") {
                break;
            }
            self.skip_space();
            operands.push(FilterExpr::Atom(self.atom()?));
        }
        Some(match operands.len() {
            1 => operands.pop()?,
            _ => FilterExpr::And(operands),
        })
    }

    /// A parenthesized expression, a test or a comparison, tried in the crate's order: a query
    /// followed by a comparison operator is a comparison, otherwise a test.
    fn atom(&mut self) -> Option<FilterAtom> {
        let not = self.eat("!");
        if not {
            self.skip_space();
        }
        if self.eat("(") {
            let expr = self.nested(|p| {
                p.skip_space();
                let expr = p.logical_or()?;
                p.skip_space();
                p.eat(")").then_some(expr)
            })?;
            return Some(FilterAtom::filter(expr, not));
        }
        let lhs = if matches!(self.peek(), Some(b'@' | b'$')) {
            let (absolute, query) = self.filter_query()?;
            let end = self.at;
            self.skip_space();
            if self.comparison_op().is_none() {
                self.at = end;
                let test = if absolute {
                    Test::AbsQuery(JpQuery::new(query.segments))
                } else {
                    Test::RelQuery(query.segments)
                };
                return Some(FilterAtom::test(test, not));
            }
            self.at = end;
            fast_singular(absolute, query)?
        } else {
            Comparable::Literal(self.literal()?)
        };
        // `!` applies to tests and parenthesized expressions only.
        if not {
            return None;
        }
        self.skip_space();
        let op = self.comparison_op()?;
        self.at += op.len();
        self.skip_space();
        let rhs = if matches!(self.peek(), Some(b'@' | b'$')) {
            let (absolute, query) = self.filter_query()?;
            fast_singular(absolute, query)?
        } else {
            Comparable::Literal(self.literal()?)
        };
        let comparison = Comparison::try_new(op, lhs, rhs).ok()?;
        Some(FilterAtom::cmp(Box::new(comparison)))
    }

    /// The comparison operator at the cursor, not consumed.
    fn comparison_op(&self) -> Option<&'static str> {
        ["==", "!=", "<=", ">=", "<", ">"]
            .into_iter()
            .find(|op| self.rest().starts_with(op))
    }

    /// A query inside a filter, and whether it is absolute (`$`) rather than relative (`@`).
    fn filter_query(&mut self) -> Option<(bool, FastSegments)> {
        let absolute = match self.peek()? {
            b'$' => true,
            b'@' => false,
            _ => return None,
        };
        self.at += 1;
        Some((absolute, self.segments()?))
    }
}

/// The comparison operand the crate builds for a singular query; `None` when it is not one.
fn fast_singular(absolute: bool, query: FastSegments) -> Option<Comparable> {
    if !query.singular {
        return None;
    }
    let segments = query
        .segments
        .into_iter()
        .map(|segment| match segment {
            Segment::Selector(Selector::Name(name)) => Some(SingularQuerySegment::Name(name)),
            Segment::Selector(Selector::Index(index)) => Some(SingularQuerySegment::Index(index)),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Comparable::SingularQuery(if absolute {
        SingularQuery::Root(segments)
    } else {
        SingularQuery::Current(segments)
    }))
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

    /// Asserts that the fast parser either gives up on `text` or builds what the crate builds;
    /// returns whether it parsed it.
    fn assert_fast_parse_agrees(text: &str) -> bool {
        let fast = parse_fast(text);
        let crate_query = jsonpath_rust::parser::parse_json_path(text);
        match (&fast, &crate_query) {
            (None, _) => false,
            (Some(fast), Ok(crate_query)) => {
                assert_eq!(fast, crate_query, "{text:?}");
                true
            }
            (Some(fast), Err(err)) => {
                panic!("{text:?}: parsed as {fast:?}, the crate says {err}")
            }
        }
    }

    #[test]
    fn fast_parse_builds_what_the_crate_builds() {
        for text in [
            "$",
            "$.a",
            "$.a.b_c.d1",
            "$.é.x",
            "$.*",
            "$[*]",
            "$.a[*].b",
            "$[0]",
            "$[12].x",
            "$[-1]",
            "$['a']",
            "$['a b']['c.d']",
            "$[\"x\"]",
            "$['']",
            "$['a/b~c']",
            "$['say \"hi\"']",
            "$[\"it's\"]",
            "$.tools[*].interactionExamples.*.steps[*]",
            "$['$schema']",
            "$['x-mcp-header']",
            "$[ 'a' ]",
            "$['a','b']",
            "$['a', 0, *]",
            "$..a",
            "$..*",
            "$..[0]",
            "$..['a','b']",
            "$.a..b.c",
            "$[?@]",
            "$[?$]",
            "$[?@.a]",
            "$[?!@.a]",
            "$[?! @.a[0]]",
            "$[?@.a[*]]",
            "$[?@..b]",
            "$[?$.x.*]",
            "$[?@[?@.b]]",
            "$[?@.a == 1]",
            "$[?@ > -2]",
            "$[?@ >= 1.5]",
            "$[?@ < 2e3]",
            "$[?@ <= -0.5E-2]",
            "$[?@ == -0]",
            "$[?@ != 0]",
            "$[?@.a == 'x y']",
            "$[?@.a == \"x\"]",
            "$[?@['a'][0] == $.b[-1]]",
            "$[?@ == true || @ == false && @ != null]",
            "$[?'a' == 'a']",
            "$[?1==@.a&&@.b]",
            "$[? @.a == 1 ]",
            "$[ ?@.a\n==\t'x'\r\n]",
            "$[?(@.a)]",
            "$[?!(@.a == 1)]",
            "$[?! ( @.a || @.b ) && @.c]",
            "$[?((@.a))]",
            "$[?@.a, 'b', ?@.c]",
            "$..[?@.type == 'tool_result' && !@.content[0]].content",
            "$.messages[?@.kind == 'result' && (@.method == 'tools/call' || @.method == 'prompts/get')].msg.result.inputRequests[?@.method == 'elicitation/create'].params",
            "$.tools[*].interactionExamples.*.steps[?@.type == 'sampling']..[?@.type == 'tool_result' && !@.content[0]].content",
        ] {
            assert!(assert_fast_parse_agrees(text), "{text:?} is not parsed");
        }
        for text in [
            "",
            "a",
            "$.",
            "$..",
            "$...a",
            "$.. a",
            "$.a b",
            "$.a ",
            "$ .a",
            "$.a .b",
            "$[01]",
            "$[-0]",
            "$[+1]",
            "$['a\\'b']",
            "$['\\u0041']",
            "$['a\tb']",
            "$['a'",
            "$[0:1]",
            "$[::-1]",
            "$.1a",
            "$.a\u{a0}",
            "$.\u{3000}a",
            "$..\u{3000}a",
            "$[?]",
            "$[?@.a == 01]",
            "$[?@.a == 1.]",
            "$[?@.a == 1.e5]",
            "$[?@.a == 1234567890123456]",
            "$[?@.a == 'x\\'y']",
            "$[?@.a == 'x\ny']",
            "$[?@.a == truex]",
            "$[?true]",
            "$[?!@.a == 1]",
            "$[?@.a[*] == 1]",
            "$[?@.a == @.b[*]]",
            "$[?@..a == 1]",
            "$[?@[ 'a' ] == 1]",
            "$[?@ .a == 1]",
            "$[?@.a b]",
            "$[?@.a == 1 b]",
            "$[?(@.a) == 1]",
            "$[?!!@.a]",
            "$[?length(@) > 1]",
            "$[?match(@.a, 'x')]",
            "$[?@.a = 1]",
            "$[?@.a === 1]",
            "$[?@.a == 1 &&]",
            "$[?@.a == 1 & @.b]",
            "$[?(@.a]",
            "$[?@.a)]",
            "$[?@.a]]",
        ] {
            assert!(!assert_fast_parse_agrees(text), "{text:?} is parsed");
        }
        let deep = format!("$[?{}@.a{}]", "(".repeat(200), ")".repeat(200));
        assert!(jsonpath_rust::parser::parse_json_path(&deep).is_err());
        assert!(!assert_fast_parse_agrees(&deep));
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
    fn fast_parse_agrees_on_the_compliance_suite() {
        let Some(suite) = compliance_suite() else {
            eprintln!("skipped: the RFC 9535 compliance suite is not there");
            return;
        };
        let (mut parsed, mut valid, mut total) = (0, 0, 0);
        for case in suite["tests"].as_array().expect("a `tests` array") {
            let selector = case["selector"].as_str().expect("a selector");
            total += 1;
            valid += usize::from(jsonpath_rust::parser::parse_json_path(selector).is_ok());
            parsed += usize::from(assert_fast_parse_agrees(selector));
        }
        eprintln!(
            "compliance suite: {total} selectors, {valid} parsed by the crate, {parsed} of them \
             by the fast parser too, identically"
        );
        assert!(total > 500 && parsed > valid / 2, "{parsed} of {valid}");
    }

    #[test]
    fn fast_parse_covers_the_catalogue() {
        let memo = CompileMemo::default();
        JsonPath::with_memo(Some(memo.clone()), || crate::RuleSet::embedded().compile())
            .expect("the shipped catalogue compiles");
        let mut texts: Vec<String> = memo.0.lock().unwrap().keys().cloned().collect();
        texts.sort();
        let left: Vec<&String> = texts
            .iter()
            .filter(|text| !assert_fast_parse_agrees(text))
            .collect();
        let filters = texts.iter().filter(|text| text.contains('?')).count();
        eprintln!(
            "catalogue: {} queries ({filters} with filters), {} left to the crate's parser: {left:?}",
            texts.len(),
            left.len()
        );
        assert!(texts.len() > 100 && filters > 10, "{} queries", texts.len());
        assert!(left.is_empty(), "left to the crate's parser: {left:?}");
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

        /// RFC 9535 blank space, mostly none.
        fn blank() -> impl Strategy<Value = &'static str> {
            prop::sample::select(vec!["", "", "", "", " ", "  ", "\t", "\n", "\r", "\r\n "])
        }

        fn quoted() -> impl Strategy<Value = String> {
            prop_oneof![
                "[a-c .\"/é$@?\\]\\[()|&=!]{0,3}".prop_map(|s| format!("'{s}'")),
                "[a-c .'~ß]{0,3}".prop_map(|s| format!("\"{s}\"")),
            ]
        }

        fn index() -> impl Strategy<Value = String> {
            prop_oneof![Just("0".to_string()), "-?[1-9][0-9]{0,3}"]
        }

        fn literal() -> impl Strategy<Value = String> {
            prop_oneof![
                quoted(),
                "-?(0|[1-9][0-9]{0,3})(\\.[0-9]{1,2})?([eE][+-]?[0-9]{1,2})?",
                prop::sample::select(vec!["true", "false", "null"]).prop_map(String::from),
            ]
        }

        /// A name or index segment, as a singular query has them.
        fn singular_segment() -> impl Strategy<Value = String> {
            prop_oneof![
                "[a-c_é][a-c0-9_]{0,2}".prop_map(|name| format!(".{name}")),
                quoted().prop_map(|name| format!("[{name}]")),
                index().prop_map(|index| format!("[{index}]")),
            ]
        }

        fn singular_query() -> impl Strategy<Value = String> {
            (
                prop::sample::select(vec!["@", "$"]),
                prop::collection::vec(singular_segment(), 0..3),
            )
                .prop_map(|(start, segments)| format!("{start}{}", segments.concat()))
        }

        fn comparable() -> impl Strategy<Value = String> {
            prop_oneof![singular_query(), literal()]
        }

        fn comparison() -> impl Strategy<Value = String> {
            (
                comparable(),
                blank(),
                prop::sample::select(vec!["==", "!=", "<", "<=", ">", ">="]),
                blank(),
                comparable(),
            )
                .prop_map(|(l, s1, op, s2, r)| format!("{l}{s1}{op}{s2}{r}"))
        }

        /// A bracketed selection of one or more selectors, `filter` generating filter
        /// expressions.
        fn bracketed(filter: BoxedStrategy<String>) -> impl Strategy<Value = String> {
            let selector = prop_oneof![
                2 => quoted(),
                1 => index(),
                1 => Just("*".to_string()),
                3 => (blank(), filter).prop_map(|(s, f)| format!("?{s}{f}")),
            ];
            (
                blank(),
                prop::collection::vec((selector, blank(), blank()), 1..3),
            )
                .prop_map(|(open, selectors)| {
                    let selectors: Vec<String> = selectors
                        .into_iter()
                        .map(|(sel, before, after)| format!("{sel}{before},{after}"))
                        .collect();
                    let joined = selectors.concat();
                    // The last selector's comma becomes the closing bracket.
                    let body = joined
                        .rsplit_once(',')
                        .map_or(joined.clone(), |(body, tail)| format!("{body}{tail}"));
                    format!("[{open}{body}]")
                })
        }

        /// A segment of any kind the fast parser reads.
        fn segment(filter: BoxedStrategy<String>) -> impl Strategy<Value = String> {
            prop_oneof![
                3 => singular_segment(),
                1 => Just(".*".to_string()),
                1 => Just("..*".to_string()),
                1 => Just("[*]".to_string()),
                1 => "[a-c][a-c0-9]{0,2}".prop_map(|name| format!("..{name}")),
                2 => bracketed(filter.clone()),
                1 => bracketed(filter).prop_map(|b| format!("..{b}")),
            ]
        }

        /// A filter expression of the subset the fast parser covers.
        fn filter_expr() -> BoxedStrategy<String> {
            let leaf = prop_oneof![
                3 => comparison(),
                1 => singular_query(),
                1 => (blank(), singular_query()).prop_map(|(s, q)| format!("!{s}{q}")),
            ];
            leaf.prop_recursive(4, 24, 3, |inner| {
                let inner = inner.boxed();
                prop_oneof![
                    (
                        inner.clone(),
                        blank(),
                        prop::sample::select(vec!["&&", "||"]),
                        blank(),
                        inner.clone()
                    )
                        .prop_map(|(l, s1, op, s2, r)| format!("{l}{s1}{op}{s2}{r}")),
                    (
                        prop::sample::select(vec!["", "!"]),
                        blank(),
                        blank(),
                        inner.clone(),
                        blank()
                    )
                        .prop_map(|(not, s1, s2, e, s3)| format!("{not}{s1}({s2}{e}{s3})")),
                    (
                        prop::sample::select(vec!["", "!"]),
                        prop::sample::select(vec!["@", "$"]),
                        prop::collection::vec(segment(inner), 1..3),
                    )
                        .prop_map(|(not, start, segments)| format!(
                            "{not}{start}{}",
                            segments.concat()
                        )),
                ]
            })
            .boxed()
        }

        fn fast_query() -> impl Strategy<Value = String> {
            prop::collection::vec(segment(filter_expr()), 0..4)
                .prop_map(|segments| format!("${}", segments.concat()))
        }

        /// `text` with one character removed, replaced or inserted at `at`.
        fn mutate(text: &str, at: usize, edit: u8, c: char) -> String {
            let mut chars: Vec<char> = text.chars().collect();
            let at = at % (chars.len() + 1);
            match edit % 3 {
                0 if at < chars.len() => {
                    chars.remove(at);
                }
                1 if at < chars.len() => chars[at] = c,
                _ => chars.insert(at, c),
            }
            chars.into_iter().collect()
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
            fn fast_parse_of_filters_matches_the_crate(text in fast_query()) {
                let crate_query = jsonpath_rust::parser::parse_json_path(&text);
                prop_assert!(crate_query.is_ok(), "{:?}: {:?}", text, crate_query);
                let fast = parse_fast(&text);
                prop_assert!(fast.is_some(), "{:?} is not parsed", text);
                prop_assert_eq!(fast, crate_query.ok(), "{:?}", text);
            }

            #[test]
            fn fast_parse_never_differs_from_the_crate(
                text in fast_query(),
                at in 0usize..200,
                edit in 0u8..3,
                c in prop::sample::select(
                    " \t.[]()?*,:'\"\\@$!=<>&|-+01eE.a\u{a0}".chars().collect::<Vec<_>>(),
                ),
            ) {
                let text = mutate(&text, at, edit, c);
                if let Some(fast) = parse_fast(&text) {
                    let crate_query = jsonpath_rust::parser::parse_json_path(&text);
                    prop_assert_eq!(Some(fast), crate_query.ok(), "{:?}", text);
                }
            }

            #[test]
            fn fast_parse_of_noise_matches_the_crate(
                text in "\\$[$@.\\[\\]()?*,:'\" \\\\ab01e=!<>&|-]{0,20}",
            ) {
                if let Some(fast) = parse_fast(&text) {
                    let crate_query = jsonpath_rust::parser::parse_json_path(&text);
                    prop_assert_eq!(Some(fast), crate_query.ok(), "{:?}", text);
                }
            }

            #[test]
            fn plain_parse_matches_the_crate(
                tail in "(\\.[a-c_é1]{1,3}|\\.\\*|\\[\\*\\]|\\[[0-9]{1,3}\\]|\\['[a-c .]{0,3}'\\]|\\[\"[a-c]{0,2}\"\\]){0,4}",
            ) {
                let text = format!("${tail}");
                if let Some(fast) = parse_fast(&text) {
                    prop_assert_eq!(Some(fast), jsonpath_rust::parser::parse_json_path(&text).ok());
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
