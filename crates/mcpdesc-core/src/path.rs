//! RFC 9535 JSONPath, compiled once and evaluated to JSON Pointers.
//!
//! A thin wrapper over the `jsonpath-rust` crate (1.0.x).
//!
//! [`JsonPath::compile`] parses with `jsonpath_rust::parser::parse_json_path` (the queries
//! catalogues use, filters included, are read by a small parser of ours that builds the same
//! query, as the crate's parser costs more than the rest of compiling a rule), and also rejects
//! what that crate accepts beyond RFC 9535:
//!
//! * its extension functions `in`, `nin`, `none_of`, `any_of` and `subset_of`;
//! * function expressions that are not well-typed (RFC 9535, section 2.4.3), e.g. `length(@.*)`,
//!   `count(1)`, or `?length(@)` used as a test;
//! * whitespace its grammar lets through: inside a member-name shorthand (`$.a b`, read by the
//!   crate as the name `a b`), after a `.` (`@. a == 1`) and at the end of the query (`$.a `).
//!
//! It also refuses one valid form the crate evaluates wrongly: a filter selector as the first
//! segment of a relative query inside a filter (`$[?@[?@ > 1]]`, `@..[?…]`, `count(@[?…])`);
//! the crate treats it as a test of `@` itself and selects nothing or too little.
//!
//! Still accepted although RFC 9535's grammar has no whitespace there: spaces inside the brackets
//! of a singular query used in a comparison (`@[ 'a' ] == 1`). Queries nesting brackets and
//! parentheses deeper than 128 are rejected by the crate.
//!
//! [`JsonPath::select`] returns every selected node with its RFC 6901 JSON Pointer. Queries whose
//! segments each hold a single name, index or wildcard selector, or a filter made of
//! comparisons, existence tests and `&&` / `||` / `!` (no function calls), as child or
//! descendant segments, are evaluated directly over [`serde_json::Value`] in one depth-first
//! pass that extends a single pointer buffer; so are name/index unions (`['a','b']`) where the
//! crate keeps RFC order (see below). The direct filter reproduces the crate's comparison rules
//! exactly. Everything else (slices, functions, other unions) goes through
//! `jsonpath_rust::query::js_path_process`, whose normalized paths (`$['a'][0]`) are converted to
//! pointers. Both evaluators yield the same nodes in the same order. [`PathSet`] runs many
//! queries in one pass, sharing the traversal of their common leading steps.
//!
//! Result order follows RFC 9535 except in one case: the crate applies a multi-selector segment
//! (`['a','b']`, `..['a','b']`) selector by selector across all its input nodes. When that
//! segment is the last one (`$[*]['a','b']`, `$..['a','b']`) the order is corrected here; when
//! further segments follow it (`$[*]['a','b'].c`) the crate's order is kept.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use jsonpath_rust::parser::errors::JsonPathError;
use jsonpath_rust::parser::model::Filter as FilterExpr;
use jsonpath_rust::parser::model::{
    Comparable, Comparison, FilterAtom, FnArg, JpQuery, Literal, Segment, Selector, SingularQuery,
    SingularQuerySegment, Test, TestFunction,
};
use jsonpath_rust::query::js_path_process;
use serde_json::Value;
use thiserror::Error;

use crate::document::pointer;

/// A compiled RFC 9535 JSONPath query.
#[derive(Debug, Clone)]
pub struct JsonPath {
    // Shared: the same compiled path is handed to many rules and releases.
    text: Arc<str>,
    query: Arc<JpQuery>,
    plan: Arc<Plan>,
}

/// How [`JsonPath::select`] evaluates the query.
#[derive(Debug, Clone)]
enum Plan {
    /// Segments with a single selector each (name, index, wildcard, or a filter of
    /// comparisons and existence tests), as child or descendant segments: evaluated directly.
    /// `singular` holds the pointer tokens when every step is a name or a non-negative index.
    Direct {
        steps: Vec<Step>,
        singular: Option<Vec<String>>,
    },
    /// Everything else: evaluated by `jsonpath-rust`.
    Engine,
}

/// One step of a [`Plan::Direct`] query.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Name(String),
    Index(i64),
    Wildcard,
    Filter(Pred),
    /// Several name or index selectors in one segment (`['a','b']`), applied in turn to each
    /// input node.
    Multi(Vec<Step>),
    /// A descendant segment: the step applied to the node and to each of its descendants,
    /// visited node first, children in order.
    Descendant(Box<Step>),
}

/// A filter expression the direct evaluator understands.
#[derive(Debug, Clone, PartialEq)]
enum Pred {
    Or(Vec<Pred>),
    And(Vec<Pred>),
    Not(Box<Pred>),
    /// The query selects at least one node.
    Exists(Query),
    Compare(Op, Operand, Operand),
}

/// A query inside a filter: relative (`@`) or absolute (`$`).
#[derive(Debug, Clone, PartialEq)]
struct Query {
    absolute: bool,
    steps: Vec<Step>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone, PartialEq)]
enum Operand {
    Literal(Value),
    /// A singular query (names and indices only).
    Singular(Query),
}

/// One node selected by a query.
#[derive(Debug, Clone, PartialEq)]
pub struct Selected<'a> {
    /// The node's location, as an RFC 6901 JSON Pointer (`""` for the root).
    pub pointer: String,
    /// The node itself.
    pub value: &'a Value,
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
        let plan = plan(&query);
        Ok(JsonPath {
            text: text.into(),
            query: Arc::new(query),
            plan: Arc::new(plan),
        })
    }

    /// The query text, as given to [`JsonPath::compile`].
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Every node selected in `root`, as (RFC 6901 JSON Pointer, value), in the order the query
    /// yields them.
    pub fn select<'a>(&self, root: &'a Value) -> Vec<Selected<'a>> {
        self.select_below(root, "")
    }

    /// [`JsonPath::select`] on `start`, a node at pointer `prefix`: the pointers returned are
    /// `prefix` followed by each node's pointer within `start`.
    pub fn select_below<'a>(&self, start: &'a Value, prefix: &str) -> Vec<Selected<'a>> {
        match &*self.plan {
            Plan::Direct { steps, .. } => {
                let mut out = Vec::new();
                let mut at = prefix.to_owned();
                walk(steps, start, start, &mut at, &mut |at, value| {
                    out.push(Selected {
                        pointer: at.clone(),
                        value,
                    });
                    false
                });
                out
            }
            Plan::Engine => {
                let mut found = select_engine(&self.query, start);
                if !prefix.is_empty() {
                    for node in &mut found {
                        node.pointer.insert_str(0, prefix);
                    }
                }
                found
            }
        }
    }

    /// The nodes [`JsonPath::select`] selects, without their pointers.
    pub fn select_values<'a>(&self, root: &'a Value) -> Vec<&'a Value> {
        match &*self.plan {
            Plan::Direct { steps, .. } => {
                let mut out = Vec::new();
                visit(steps, root, root, &mut |value| {
                    out.push(value);
                    false
                });
                out
            }
            Plan::Engine => select_engine(&self.query, root)
                .into_iter()
                .map(|node| node.value)
                .collect(),
        }
    }

    /// Calls `f` with the pointer (below `prefix`) and value of each node [`JsonPath::select_below`]
    /// selects in `start`, in the same order, without allocating a pointer per node.
    pub fn for_each_below<'a>(
        &self,
        start: &'a Value,
        prefix: &str,
        f: &mut dyn FnMut(&str, &'a Value),
    ) {
        match &*self.plan {
            Plan::Direct { steps, .. } => {
                let mut at = prefix.to_owned();
                walk(steps, start, start, &mut at, &mut |at, value| {
                    f(at, value);
                    false
                });
            }
            Plan::Engine => {
                for node in self.select_below(start, prefix) {
                    f(&node.pointer, node.value);
                }
            }
        }
    }

    /// Calls `f` on the values [`JsonPath::select`] selects, in order, until it returns true;
    /// returns whether it did.
    pub fn any_value<'a>(&self, root: &'a Value, f: &mut dyn FnMut(&'a Value) -> bool) -> bool {
        match &*self.plan {
            Plan::Direct { steps, .. } => visit(steps, root, root, f),
            Plan::Engine => select_engine(&self.query, root)
                .into_iter()
                .any(|node| f(node.value)),
        }
    }

    /// True when the query is a singular query of plain name/index segments only (e.g.
    /// `$.a.b[0]`), in which case `singular_tokens()` returns the tokens, letting callers resolve
    /// it without the query engine.
    ///
    /// The tokens are unescaped RFC 6901 reference tokens (`$['a/b'][0]` gives `["a/b", "0"]`;
    /// `$` gives none). Queries with a negative index (`$.a[-1]`) return `None`. Note that a
    /// pointer does not say whether a token is a name or an index, whereas JSONPath does: `$[0]`
    /// selects nothing in `{"0": 1}` and `$['0']` nothing in `[1]`, while a plain RFC 6901
    /// resolution (`Value::pointer`) finds a node in both. Callers that need that distinction
    /// should use [`JsonPath::select`].
    pub fn singular_tokens(&self) -> Option<&[String]> {
        match &*self.plan {
            Plan::Direct {
                singular: Some(tokens),
                ..
            } => Some(tokens),
            _ => None,
        }
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
    nodes: Vec<TrieNode<'p>>,
    /// Queries the direct evaluator cannot run, by index.
    others: Vec<(usize, &'p JsonPath)>,
}

#[derive(Debug, Default)]
struct TrieNode<'p> {
    /// Indices of the queries that end here.
    ends: Vec<usize>,
    children: Vec<(&'p Step, usize)>,
}

impl<'p> PathSet<'p> {
    /// The set of `paths[i]` for each `i` in `indices`.
    pub fn new(paths: &'p [JsonPath], indices: impl IntoIterator<Item = usize>) -> PathSet<'p> {
        let mut set = PathSet {
            nodes: vec![TrieNode::default()],
            others: Vec::new(),
        };
        for i in indices {
            let Plan::Direct { steps, .. } = &*paths[i].plan else {
                set.others.push((i, &paths[i]));
                continue;
            };
            let mut at = 0;
            for step in steps {
                let found = set.nodes[at].children.iter().find(|(s, _)| *s == step);
                at = match found {
                    Some(&(_, child)) => child,
                    None => {
                        set.nodes.push(TrieNode::default());
                        let child = set.nodes.len() - 1;
                        set.nodes[at].children.push((step, child));
                        child
                    }
                };
            }
            set.nodes[at].ends.push(i);
        }
        set
    }

    /// Calls `f` with the query's index, the pointer and the value of every node each query
    /// selects in `root`. Each query's nodes come in its own order, but the queries' nodes are
    /// interleaved (document order, roughly).
    pub fn for_each<'a>(&self, root: &'a Value, f: &mut dyn FnMut(usize, &str, &'a Value)) {
        let mut at = String::new();
        self.visit_trie(0, root, root, &mut at, f);
        for (i, path) in &self.others {
            for node in path.select(root) {
                f(*i, &node.pointer, node.value);
            }
        }
    }

    fn visit_trie<'a>(
        &self,
        t: usize,
        node: &'a Value,
        root: &'a Value,
        at: &mut String,
        f: &mut dyn FnMut(usize, &str, &'a Value),
    ) {
        let trie = &self.nodes[t];
        for &i in &trie.ends {
            f(i, at, node);
        }
        for &(step, child) in &trie.children {
            walk(
                std::slice::from_ref(step),
                node,
                root,
                at,
                &mut |at, value| {
                    self.visit_trie(child, value, root, at, f);
                    false
                },
            );
        }
    }
}

/// Evaluates `query` through `jsonpath-rust`, converting its normalized paths to pointers.
///
/// The crate applies a segment with several selectors (`['a','b']`, `..['a','b']`) one selector
/// at a time over all its input nodes, so with several input nodes it yields the `a`s and then
/// the `b`s, where RFC 9535 (section 2.5.1.2) wants each input node's `a` and `b` in turn. When
/// that segment is the last one and no earlier segment has the same problem, the result is put
/// back in RFC order here (see [`rfc_order`]); otherwise the crate's order is kept.
fn select_engine<'a>(query: &JpQuery, root: &'a Value) -> Vec<Selected<'a>> {
    // The crate only errs when the whole query evaluates to a computed value, which a
    // `jsonpath-query` never does; no nodes is the only sensible answer then.
    let found = js_path_process(query, root).unwrap_or_default();
    let mut selected: Vec<Selected<'a>> = found
        .into_iter()
        // The crate writes normalized paths itself; one that does not parse would be a crate
        // bug, and such a node is dropped rather than given a wrong pointer.
        .filter_map(|node| {
            normalized_path_to_pointer(&node.path).map(|pointer| Selected {
                pointer,
                value: node.val,
            })
        })
        .collect();
    if let Some((last, prefix)) = query.segments.split_last() {
        let descendant = match last {
            Segment::Selectors(_) if !is_singular(prefix) => Some(false),
            Segment::Descendant(inner) if matches!(inner.as_ref(), Segment::Selectors(_)) => {
                Some(true)
            }
            _ => None,
        };
        if let Some(descendant) = descendant.filter(|_| !misorders(prefix)) {
            let prefix = JpQuery::new(prefix.to_vec());
            let found = match plan(&prefix) {
                Plan::Direct { steps, .. } => {
                    let mut found = Vec::new();
                    visit(&steps, root, root, &mut |value| {
                        found.push(value);
                        false
                    });
                    found
                }
                Plan::Engine => select_engine(&prefix, root)
                    .into_iter()
                    .map(|node| node.value)
                    .collect(),
            };
            let mut inputs: Vec<&Value> = found;
            if descendant {
                inputs = descendants_or_self(inputs);
            }
            rfc_order(&mut selected, root, &inputs);
        }
    }
    selected
}

/// True when `segments` select at most one node (names and indices only).
fn is_singular(segments: &[Segment]) -> bool {
    segments.iter().all(|segment| {
        matches!(
            segment,
            Segment::Selector(Selector::Name(_) | Selector::Index(_))
        )
    })
}

/// True when the crate may yield `segments`' nodes out of RFC order: a multi-selector segment
/// that can get more than one input node.
fn misorders(segments: &[Segment]) -> bool {
    segments
        .iter()
        .enumerate()
        .any(|(i, segment)| match segment {
            Segment::Selectors(_) => !is_singular(&segments[..i]),
            Segment::Descendant(inner) => matches!(inner.as_ref(), Segment::Selectors(_)),
            Segment::Selector(_) => false,
        })
}

/// Each of `nodes` followed by its descendants, in the order the crate's descendant segment
/// visits them (a node before its descendants, children in array / object order).
fn descendants_or_self(nodes: Vec<&Value>) -> Vec<&Value> {
    let mut out = Vec::with_capacity(nodes.len());
    for node in nodes {
        let mut stack = vec![node];
        while let Some(node) = stack.pop() {
            out.push(node);
            match node {
                Value::Array(items) => stack.extend(items.iter().rev()),
                Value::Object(members) => stack.extend(members.values().rev()),
                _ => {}
            }
        }
    }
    out
}

/// Reorders the crate's result of a final multi-selector segment applied to `inputs` (its input
/// nodes, in order) into RFC order: by input node, then selector, then the selector's own order.
///
/// The crate yields, for each selector in turn, its results on every input in order. Every
/// result is a child of its input, and a given selector selects a given child at most once per
/// input, so the k-th occurrence of a node among the results belongs to the (k mod m)-th of the
/// m occurrences of its parent among the inputs. A stable sort on that input position then
/// keeps the selectors' order within each input. Nodes are told apart by address, as the same
/// node may occur several times. Leaves `selected` as it is if a result's parent is not among
/// the inputs (which would be a crate bug).
fn rfc_order(selected: &mut Vec<Selected<'_>>, root: &Value, inputs: &[&Value]) {
    let address = |node: &Value| std::ptr::from_ref(node) as usize;
    let Some(parents) = selected
        .iter()
        .map(|node| {
            let parent = root.pointer(pointer::parent(&node.pointer)?)?;
            Some(address(parent))
        })
        .collect::<Option<Vec<usize>>>()
    else {
        return;
    };
    let mut positions: HashMap<usize, Vec<usize>> =
        parents.iter().map(|&parent| (parent, Vec::new())).collect();
    for (i, input) in inputs.iter().enumerate() {
        if let Some(at) = positions.get_mut(&address(input)) {
            at.push(i);
        }
    }
    let mut seen: HashMap<usize, usize> = HashMap::new();
    let mut keys = Vec::with_capacity(selected.len());
    for (node, parent) in selected.iter().zip(&parents) {
        let Some(at) = positions.get(parent).filter(|at| !at.is_empty()) else {
            return;
        };
        let occurrence = seen.entry(address(node.value)).or_default();
        keys.push(at[*occurrence % at.len()]);
        *occurrence += 1;
    }
    let mut keyed: Vec<_> = keys.into_iter().zip(selected.drain(..)).collect();
    keyed.sort_by_key(|(key, _)| *key);
    selected.extend(keyed.into_iter().map(|(_, node)| node));
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

/// Chooses the evaluator: [`Plan::Direct`] when every segment has a single selector the
/// direct evaluator understands.
fn plan(query: &JpQuery) -> Plan {
    let Some(steps) = direct_steps(&query.segments) else {
        return Plan::Engine;
    };
    // A multi-selector segment yields RFC order (by input node) from `select_engine` only
    // when its input is a single node, or when it is the last segment and nothing before it
    // is out of order (see `select_engine`); the direct evaluator always yields RFC order.
    let segments = &query.segments;
    let rfc_ordered = segments.iter().enumerate().all(|(i, segment)| {
        !matches!(segment, Segment::Selectors(_))
            || is_singular(&segments[..i])
            || (i + 1 == segments.len() && !misorders(&segments[..i]))
    });
    if !rfc_ordered {
        return Plan::Engine;
    }
    let singular = steps
        .iter()
        .map(|step| match step {
            Step::Name(name) => Some(name.clone()),
            Step::Index(index) if *index >= 0 => Some(index.to_string()),
            _ => None,
        })
        .collect();
    Plan::Direct { steps, singular }
}

fn direct_steps(segments: &[Segment]) -> Option<Vec<Step>> {
    segments
        .iter()
        .map(|segment| match segment {
            Segment::Selector(selector) => direct_step(selector),
            Segment::Descendant(inner) => match inner.as_ref() {
                Segment::Selector(selector) => {
                    Some(Step::Descendant(Box::new(direct_step(selector)?)))
                }
                _ => None,
            },
            Segment::Selectors(selectors) => selectors
                .iter()
                .map(|selector| match selector {
                    Selector::Name(name) => Some(Step::Name(name.clone())),
                    Selector::Index(index) => Some(Step::Index(*index)),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()
                .map(Step::Multi),
        })
        .collect()
}

fn direct_step(selector: &Selector) -> Option<Step> {
    match selector {
        Selector::Name(name) => Some(Step::Name(name.clone())),
        Selector::Index(index) => Some(Step::Index(*index)),
        Selector::Wildcard => Some(Step::Wildcard),
        Selector::Filter(filter) => Some(Step::Filter(pred(filter)?)),
        Selector::Slice(..) => None,
    }
}

/// The direct form of a filter, or `None` when it uses functions.
fn pred(filter: &FilterExpr) -> Option<Pred> {
    match filter {
        FilterExpr::Or(items) => Some(Pred::Or(items.iter().map(pred).collect::<Option<_>>()?)),
        FilterExpr::And(items) => Some(Pred::And(items.iter().map(pred).collect::<Option<_>>()?)),
        FilterExpr::Atom(atom) => {
            let (inner, not) = match atom {
                FilterAtom::Filter { expr, not } => (pred(expr)?, *not),
                FilterAtom::Test { expr, not } => {
                    let query = match expr.as_ref() {
                        Test::RelQuery(segments) => Query {
                            absolute: false,
                            steps: direct_steps(segments)?,
                        },
                        Test::AbsQuery(query) => Query {
                            absolute: true,
                            steps: direct_steps(&query.segments)?,
                        },
                        Test::Function(_) => return None,
                    };
                    (Pred::Exists(query), *not)
                }
                FilterAtom::Comparison(cmp) => {
                    let op = match cmp.as_ref() {
                        Comparison::Eq(..) => Op::Eq,
                        Comparison::Ne(..) => Op::Ne,
                        Comparison::Lt(..) => Op::Lt,
                        Comparison::Lte(..) => Op::Le,
                        Comparison::Gt(..) => Op::Gt,
                        Comparison::Gte(..) => Op::Ge,
                    };
                    let (lhs, rhs) = cmp.vals();
                    (Pred::Compare(op, operand(lhs)?, operand(rhs)?), false)
                }
            };
            Some(if not {
                Pred::Not(Box::new(inner))
            } else {
                inner
            })
        }
    }
}

fn operand(c: &Comparable) -> Option<Operand> {
    match c {
        Comparable::Literal(lit) => Some(Operand::Literal(match lit {
            Literal::Int(i) => Value::from(*i),
            Literal::Float(f) => Value::from(*f),
            Literal::String(s) => Value::from(s.as_str()),
            Literal::Bool(b) => Value::from(*b),
            Literal::Null => Value::Null,
        })),
        Comparable::SingularQuery(q) => {
            let (absolute, segments) = match q {
                SingularQuery::Current(segments) => (false, segments),
                SingularQuery::Root(segments) => (true, segments),
            };
            let steps = segments
                .iter()
                .map(|s| match s {
                    SingularQuerySegment::Name(name) => Step::Name(name.clone()),
                    SingularQuerySegment::Index(index) => Step::Index(*index),
                })
                .collect();
            Some(Operand::Singular(Query { absolute, steps }))
        }
        Comparable::Function(_) => None,
    }
}

/// Applies `steps` to `node`, calling `found` with the pointer (`at`, extended in place) and
/// the value of each selected node, in query order. `found` returns true to stop; so does
/// `walk`, when it was stopped. `root` is what `$` means inside filters.
fn walk<'a>(
    steps: &[Step],
    node: &'a Value,
    root: &'a Value,
    at: &mut String,
    found: &mut dyn FnMut(&mut String, &'a Value) -> bool,
) -> bool {
    let Some((step, rest)) = steps.split_first() else {
        return found(at, node);
    };
    let len = at.len();
    let mut stopped = false;
    match step {
        Step::Name(name) => {
            if let Some(child) = node.as_object().and_then(|m| pointer::member(m, name)) {
                pointer::push_token(at, name);
                stopped = walk(rest, child, root, at, found);
            }
        }
        Step::Index(index) => {
            if let Some(items) = node.as_array() {
                if let Some(i) = resolve_index(*index, items.len()) {
                    pointer::push_index(at, i);
                    stopped = walk(rest, &items[i], root, at, found);
                }
            }
        }
        Step::Wildcard | Step::Filter(_) => {
            let keep = |child: &Value| match step {
                Step::Filter(p) => p.holds(child, root),
                _ => true,
            };
            match node {
                Value::Array(items) => {
                    for (i, child) in items.iter().enumerate() {
                        if keep(child) {
                            pointer::push_index(at, i);
                            stopped = walk(rest, child, root, at, found);
                            at.truncate(len);
                            if stopped {
                                break;
                            }
                        }
                    }
                }
                Value::Object(members) => {
                    for (key, child) in members {
                        if keep(child) {
                            pointer::push_token(at, key);
                            stopped = walk(rest, child, root, at, found);
                            at.truncate(len);
                            if stopped {
                                break;
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        Step::Multi(selectors) => {
            for selector in selectors {
                stopped = walk_one(selector, rest, node, root, at, found);
                at.truncate(len);
                if stopped {
                    break;
                }
            }
        }
        Step::Descendant(inner) => {
            stopped = descend(inner, rest, node, root, at, found);
        }
    }
    at.truncate(len);
    stopped
}

/// `step` followed by `rest`.
fn walk_one<'a>(
    step: &Step,
    rest: &[Step],
    node: &'a Value,
    root: &'a Value,
    at: &mut String,
    found: &mut dyn FnMut(&mut String, &'a Value) -> bool,
) -> bool {
    walk(
        std::slice::from_ref(step),
        node,
        root,
        at,
        &mut |at, value| walk(rest, value, root, at, found),
    )
}

/// The descendant segment `..inner` followed by `rest`, on `node` and then on each of its
/// descendants in document order.
fn descend<'a>(
    inner: &Step,
    rest: &[Step],
    node: &'a Value,
    root: &'a Value,
    at: &mut String,
    found: &mut dyn FnMut(&mut String, &'a Value) -> bool,
) -> bool {
    let len = at.len();
    if walk_one(inner, rest, node, root, at, found) {
        return true;
    }
    match node {
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                pointer::push_index(at, i);
                let stopped = descend(inner, rest, child, root, at, found);
                at.truncate(len);
                if stopped {
                    return true;
                }
            }
        }
        Value::Object(members) => {
            for (key, child) in members {
                pointer::push_token(at, key);
                let stopped = descend(inner, rest, child, root, at, found);
                at.truncate(len);
                if stopped {
                    return true;
                }
            }
        }
        _ => {}
    }
    false
}

/// [`walk`] without pointers.
fn visit<'a>(
    steps: &[Step],
    node: &'a Value,
    root: &'a Value,
    found: &mut dyn FnMut(&'a Value) -> bool,
) -> bool {
    let Some((step, rest)) = steps.split_first() else {
        return found(node);
    };
    match step {
        Step::Name(name) => node
            .as_object()
            .and_then(|m| pointer::member(m, name))
            .is_some_and(|child| visit(rest, child, root, found)),
        Step::Index(index) => node
            .as_array()
            .and_then(|items| items.get(resolve_index(*index, items.len())?))
            .is_some_and(|child| visit(rest, child, root, found)),
        Step::Wildcard | Step::Filter(_) => {
            let mut each = |child: &'a Value| match step {
                Step::Filter(p) if !p.holds(child, root) => false,
                _ => visit(rest, child, root, found),
            };
            match node {
                Value::Array(items) => items.iter().any(&mut each),
                Value::Object(members) => members.values().any(&mut each),
                _ => false,
            }
        }
        Step::Multi(selectors) => selectors.iter().any(|selector| {
            visit(std::slice::from_ref(selector), node, root, &mut |value| {
                visit(rest, value, root, found)
            })
        }),
        Step::Descendant(inner) => descend_values(inner, rest, node, root, found),
    }
}

fn descend_values<'a>(
    inner: &Step,
    rest: &[Step],
    node: &'a Value,
    root: &'a Value,
    found: &mut dyn FnMut(&'a Value) -> bool,
) -> bool {
    if visit(std::slice::from_ref(inner), node, root, &mut |value| {
        visit(rest, value, root, found)
    }) {
        return true;
    }
    match node {
        Value::Array(items) => items
            .iter()
            .any(|child| descend_values(inner, rest, child, root, found)),
        Value::Object(members) => members
            .values()
            .any(|child| descend_values(inner, rest, child, root, found)),
        _ => false,
    }
}

impl Query {
    fn start<'a>(&self, current: &'a Value, root: &'a Value) -> &'a Value {
        if self.absolute {
            root
        } else {
            current
        }
    }

    /// The first node selected (the only one, for a singular query).
    fn first<'a>(&self, current: &'a Value, root: &'a Value) -> Option<&'a Value> {
        let mut first = None;
        visit(&self.steps, self.start(current, root), root, &mut |v| {
            first = Some(v);
            true
        });
        first
    }
}

impl Pred {
    /// Whether `current` passes the filter. Follows `jsonpath-rust` (1.0.x) exactly, so that
    /// both evaluators select the same nodes: numbers compare as `f64` (equal within
    /// `f64::EPSILON`), other values by JSON equality; `<` and friends order two numbers or
    /// two strings and are false otherwise; a query that selects nothing equals only another
    /// such query.
    fn holds(&self, current: &Value, root: &Value) -> bool {
        match self {
            Pred::Or(items) => items.iter().any(|p| p.holds(current, root)),
            Pred::And(items) => items.iter().all(|p| p.holds(current, root)),
            Pred::Not(p) => !p.holds(current, root),
            Pred::Exists(q) => q.first(current, root).is_some(),
            Pred::Compare(op, lhs, rhs) => {
                let l = operand_value(lhs, current, root);
                let r = operand_value(rhs, current, root);
                match op {
                    Op::Eq => equal(l, r),
                    Op::Ne => !equal(l, r),
                    Op::Lt => less(l, r),
                    Op::Le => less(l, r) || equal(l, r),
                    Op::Gt => less(r, l),
                    Op::Ge => less(r, l) || equal(l, r),
                }
            }
        }
    }
}

fn operand_value<'a>(o: &'a Operand, current: &'a Value, root: &'a Value) -> Option<&'a Value> {
    match o {
        Operand::Literal(v) => Some(v),
        Operand::Singular(q) => q.first(current, root),
    }
}

fn equal(l: Option<&Value>, r: Option<&Value>) -> bool {
    match (l, r) {
        (None, None) => true,
        (Some(a), Some(b)) => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => (x - y).abs() < f64::EPSILON,
            _ => a == b,
        },
        _ => false,
    }
}

fn less(l: Option<&Value>, r: Option<&Value>) -> bool {
    let (Some(a), Some(b)) = (l, r) else {
        return false;
    };
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x < y,
        _ => match (a.as_str(), b.as_str()) {
            (Some(x), Some(y)) => x < y,
            _ => false,
        },
    }
}

/// The array position an index selector denotes (negative counts from the end), if in range.
fn resolve_index(index: i64, len: usize) -> Option<usize> {
    let i = if index < 0 {
        i64::try_from(len).ok()?.checked_add(index)?
    } else {
        index
    };
    usize::try_from(i).ok().filter(|&i| i < len)
}

/// Converts an RFC 9535 normalized path (`$['a'][0]['it\'s']`) to an RFC 6901 JSON Pointer
/// (`/a/0/it's`). Returns `None` if `path` is not a normalized path.
///
/// Accepts every escape RFC 9535 allows in string literals (`\b \f \n \r \t \/ \\ \' \"` and
/// `\uXXXX`, surrogate pairs included), a superset of those normalized paths use.
fn normalized_path_to_pointer(path: &str) -> Option<String> {
    let mut rest = path.strip_prefix('$')?;
    let mut out = String::with_capacity(path.len());
    while !rest.is_empty() {
        rest = rest.strip_prefix('[')?;
        if let Some(quoted) = rest.strip_prefix('\'') {
            let (name, after) = normal_name(quoted)?;
            rest = after.strip_prefix(']')?;
            out.push('/');
            out.push_str(&pointer::escape(&name));
        } else {
            let end = rest.find(']')?;
            let digits = &rest[..end];
            let canonical = digits == "0"
                || (!digits.starts_with('0')
                    && !digits.is_empty()
                    && digits.bytes().all(|b| b.is_ascii_digit()));
            if !canonical {
                return None;
            }
            out.push('/');
            out.push_str(digits);
            rest = &rest[end + 1..];
        }
    }
    Some(out)
}

/// Reads a single-quoted name (after its opening quote), returning the unescaped name and the
/// text after the closing quote.
fn normal_name(quoted: &str) -> Option<(Cow<'_, str>, &str)> {
    let end = quoted.find(['\'', '\\'])?;
    if quoted[end..].starts_with('\'') {
        return Some((Cow::Borrowed(&quoted[..end]), &quoted[end + 1..]));
    }
    let mut name = String::from(&quoted[..end]);
    let mut chars = quoted[end..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' => return Some((Cow::Owned(name), &quoted[end + i + 1..])),
            '\\' => name.push(match chars.next()?.1 {
                'b' => '\u{8}',
                'f' => '\u{c}',
                'n' => '\n',
                'r' => '\r',
                't' => '\t',
                c @ ('/' | '\\' | '\'' | '"') => c,
                'u' => unicode_escape(&mut chars)?,
                _ => return None,
            }),
            c => name.push(c),
        }
    }
    None
}

/// Reads the `XXXX` of a `\uXXXX` escape (after the `u`), joining a surrogate pair.
fn unicode_escape(chars: &mut std::str::CharIndices<'_>) -> Option<char> {
    fn hex4(chars: &mut std::str::CharIndices<'_>) -> Option<u32> {
        let mut code = 0;
        for _ in 0..4 {
            code = code * 16 + chars.next()?.1.to_digit(16)?;
        }
        Some(code)
    }
    match hex4(chars)? {
        high @ 0xD800..=0xDBFF => {
            if chars.next()?.1 != '\\' || chars.next()?.1 != 'u' {
                return None;
            }
            match hex4(chars)? {
                low @ 0xDC00..=0xDFFF => {
                    char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                }
                _ => None,
            }
        }
        code => char::from_u32(code),
    }
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

/// A relative query (`@…`) inside a filter.
///
/// `jsonpath-rust` evaluates a filter selector in the first segment of such a query (`@[?…]`,
/// `@..[?…]`, `@['a', ?…]`) as a boolean test of `@` itself rather than as a selection of its
/// children, so it selects nothing or too little. Such queries are refused rather than
/// silently evaluated wrongly.
fn check_rel_query(segments: &[Segment]) -> Checked {
    fn has_filter(segment: &Segment) -> bool {
        match segment {
            Segment::Descendant(inner) => has_filter(inner),
            Segment::Selector(selector) => matches!(selector, Selector::Filter(_)),
            Segment::Selectors(selectors) => selectors
                .iter()
                .any(|selector| matches!(selector, Selector::Filter(_))),
        }
    }
    if segments.first().is_some_and(has_filter) {
        return Err(
            "a filter selector right after `@` (`@[?…]`) is not supported: \
             jsonpath-rust evaluates it incorrectly"
                .to_string(),
        );
    }
    check_segments(segments)
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
            Test::RelQuery(segments) => check_rel_query(segments),
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
            Test::RelQuery(segments) => check_rel_query(segments),
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
    use serde_json::json;

    fn pointers(path: &str, root: &Value) -> Vec<String> {
        JsonPath::compile(path)
            .unwrap()
            .select(root)
            .into_iter()
            .map(|s| s.pointer)
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
    fn engine_paths_become_pointers() {
        let doc = sample();
        let path = JsonPath::compile("$['a/b'][?@ > 1]").unwrap();
        let got: Vec<_> = path.select(&doc).into_iter().map(|s| s.pointer).collect();
        assert_eq!(
            got,
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

    #[test]
    fn normalized_paths() {
        let cases = [
            ("$", Some("")),
            ("$['a'][0][12]", Some("/a/0/12")),
            ("$['a/b']['c~d']", Some("/a~1b/c~0d")),
            (r"$['it\'s']['back\\slash']", Some("/it's/back\\slash")),
            (
                r"$['\b\f\n\r\t\u001f\u000b']",
                Some("/\u{8}\u{c}\n\r\t\u{1f}\u{b}"),
            ),
            (r"$['\ud83d\ude00']", Some("/😀")),
            ("$['é']", Some("/é")),
            ("$['']", Some("/")),
            ("$[01]", None),
            ("$[-1]", None),
            ("$['a'", None),
            ("$['a]", None),
            (r"$['\ud83d']", None),
            (r"$['\x']", None),
            ("['a']", None),
            ("$.a", None),
        ];
        for (path, want) in cases {
            assert_eq!(normalized_path_to_pointer(path).as_deref(), want, "{path}");
        }
    }

    #[test]
    fn direct_and_engine_agree() {
        let docs = [
            sample(),
            json!([]),
            json!({}),
            json!(null),
            json!("str"),
            json!([[0, 1], {"a": [1]}, {"*": 2, "a": {"b": [3, 4]}}, [[5]]]),
            json!({"a": {"b": [{"c": 1}, {"c": 2}], "c": 3}, "b": [[{"c": 4}]], "0": [7]}),
        ];
        let queries = [
            "$",
            "$.tools",
            "$.tools[*]",
            "$.tools[*].inputSchema",
            "$.tools[*].inputSchema.properties.*",
            "$.tools[*].*",
            "$.tools[0].name",
            "$.tools[-1]",
            "$.tools[-5].name",
            "$.tools[-6]",
            "$.tools[5]",
            "$.*",
            "$.*.*",
            "$.*.*.*",
            "$[*][*][*]",
            "$[0]",
            "$[-1][0]",
            "$['0']",
            "$['0'][0]",
            "$[0]['0']",
            "$['a/b']['c~d']",
            "$['a/b']['it\\'s']",
            "$['a/b'][\"back\\\\slash\"]",
            "$['a/b']['ctl\\u0001']",
            "$['a/b'].*",
            "$['']['']",
            "$.a.b[*].c",
            "$.a.*",
            "$.b[0][0].c",
            "$.missing.x",
            "$.empty.*",
            "$.list[*]",
            "$.nested[*][*][*]",
            "$..k",
            "$..*",
            "$..[0]",
            "$..[-1]",
            "$.nested..k",
            "$..k[*]",
            "$..b..c",
            "$.tools[?@.name]",
            "$.tools[?!@.name]",
            "$.tools[?@.name == 'a']",
            "$.tools[?@.name != 'a'].inputSchema",
            "$.tools[?@.name == 'a' || @.name == 'c'].name",
            "$.tools[?@.name && @.inputSchema.type == 'object']",
            "$.tools[?@[0] == 1]",
            "$.tools[?@[-1] >= 3]",
            "$[?@ > 1]",
            "$[?@ >= 1.0]",
            "$[?@ < 'b']",
            "$[?@ <= 3]",
            "$[?@ == null]",
            "$[?@ == true]",
            "$[?@ == $.a]",
            "$[?@.c == $.a.c]",
            "$[?$.missing]",
            "$[?@.*]",
            "$[?@..c]",
            "$..[?@.c > 1]",
            "$..[?@ == 1]",
            "$[*][?(@.c == 1 || @.c == 2) && !(@.c == 2)]",
            "$['a/b'][?@ > 2]",
            "$['tools','a/b']",
            "$['a/b']['c~d','it\\'s',0]",
            "$.tools[*]['name','inputSchema']",
            "$.tools[0,1,0]",
            "$['a','b'][*]",
            "$.a['b','c'][0]",
        ];
        for query in queries {
            let path = JsonPath::compile(query).unwrap();
            assert!(
                matches!(*path.plan, Plan::Direct { .. }),
                "{query} should be direct"
            );
            for doc in &docs {
                assert_eq!(
                    path.select(doc),
                    select_engine(&path.query, doc),
                    "{query} on {doc}"
                );
            }
        }
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
        let mut got: Vec<Vec<(String, &Value)>> = vec![Vec::new(); paths.len()];
        set.for_each(&doc, &mut |i, ptr, v| got[i].push((ptr.to_owned(), v)));
        for (i, path) in paths.iter().enumerate() {
            let want: Vec<_> = path
                .select(&doc)
                .into_iter()
                .map(|s| (s.pointer, s.value))
                .collect();
            assert_eq!(got[i], want, "{}", texts[i]);
        }
        let subset = PathSet::new(&paths, [2, 6]);
        let mut seen = Vec::new();
        subset.for_each(&doc, &mut |i, _, _| seen.push(i));
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
        assert_eq!(tokens("$['a/b']"), Some(vec!["a/b".to_string()]));
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
            "$[?@[?@>1]]",
            "$[?@..[?@>1]]",
            "$[?@[0, ?@>1]]",
            "$[?count(@[?@>1]) == 1]",
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

        fn step() -> impl Strategy<Value = String> {
            prop_oneof![
                key().prop_map(|k| format!("['{}']", k.replace('\'', "\\'"))),
                Just(".a".to_string()),
                Just(".*".to_string()),
                Just("[*]".to_string()),
                (-3i64..4).prop_map(|i| format!("[{i}]")),
                Just("..a".to_string()),
                Just("..*".to_string()),
                Just("..[0]".to_string()),
                Just("[?@.a]".to_string()),
                Just("[?!@.b]".to_string()),
                Just("[?@ > 0]".to_string()),
                Just("[?@ <= 'b']".to_string()),
                Just("[?@.a == 1 || @[0] != 'a']".to_string()),
                Just("[?@.a == $.b && @.*]".to_string()),
                Just("..[?@ == null]".to_string()),
                Just("[?@..a]".to_string()),
                Just("['a','0']".to_string()),
                Just("[0,'b',-1]".to_string()),
                Just("['a',0,'a']".to_string()),
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
            fn direct_matches_engine(doc in json(), steps in prop::collection::vec(step(), 0..5)) {
                let query = format!("${}", steps.concat());
                let path = JsonPath::compile(&query).unwrap();
                // Multi-selector segments are direct only where the engine keeps RFC order.
                prop_assert!(
                    query.contains(',') || matches!(*path.plan, Plan::Direct { .. }),
                    "direct plan"
                );
                let direct = path.select(&doc);
                prop_assert_eq!(&direct, &select_engine(&path.query, &doc));
                for node in &direct {
                    prop_assert!(std::ptr::eq(doc.pointer(&node.pointer).unwrap(), node.value));
                }
            }

            #[test]
            fn engine_pointers_resolve(
                doc in json(),
                query in prop::sample::select(vec![
                    "$..*", "$..a", "$..[0]", "$..['a','0']", "$[*]['a','b',0]", "$..[?@ > 0]",
                    "$..[1:]", "$..[::-1]", "$.*.*['~1','it\\'s','a/b']", "$..[?@.a]['a', 1]",
                ]),
            ) {
                let path = JsonPath::compile(query).unwrap();
                for node in path.select(&doc) {
                    prop_assert!(std::ptr::eq(doc.pointer(&node.pointer).unwrap(), node.value));
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
                    let _ = path.select(&json!({"a": [1, {"b": "x"}], "b": {"a": 0}}));
                }
            }
        }
    }
}
