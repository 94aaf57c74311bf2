//! The function extensions of RFC 9535 (section 2.4): `length`, `count`, `value`, `match` and
//! `search`.

use regex::Regex;

use crate::document::ValueRef;

use super::filter::{Asked, Scope, Val, View};
use super::iregexp;
use super::select::{walk, NoTrail};
use super::steps::{Operand, Query};

/// `length()`: the characters of a string, the elements of an array, the members of an
/// object; Nothing for anything else.
pub(crate) fn length(value: Val<'_>) -> Option<usize> {
    match value.view() {
        View::Str(s) => Some(s.chars().count()),
        View::Array(items) => Some(items.len()),
        View::Object(members) => Some(members.len()),
        View::Null | View::Bool(_) | View::Num(_) => None,
    }
}

/// `count()`: how many nodes the query selects.
pub(crate) fn count<'d>(query: &Query, current: ValueRef<'d>, scope: &Scope<'d>) -> usize {
    scope.count(query, || count_from(query, current, scope))
}

fn count_from<'d>(query: &Query, current: ValueRef<'d>, scope: &Scope<'d>) -> usize {
    let mut count = 0;
    walk(
        &query.steps,
        query.start(current, scope),
        scope,
        &mut NoTrail,
        &mut |_, _| {
            count += 1;
            false
        },
    );
    count
}

/// `value()`: the node when the query selects exactly one, else Nothing.
pub(crate) fn value<'d>(
    query: &Query,
    current: ValueRef<'d>,
    scope: &Scope<'d>,
) -> Option<ValueRef<'d>> {
    scope.node(query, Asked::Value, || value_from(query, current, scope))
}

fn value_from<'d>(query: &Query, current: ValueRef<'d>, scope: &Scope<'d>) -> Option<ValueRef<'d>> {
    let mut only = None;
    let mut count = 0;
    walk(
        &query.steps,
        query.start(current, scope),
        scope,
        &mut NoTrail,
        &mut |_, node| {
            only = Some(node);
            count += 1;
            count > 1
        },
    );
    only.filter(|_| count == 1)
}

/// The pattern of `match()` or `search()`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Pattern {
    /// A string literal, compiled with the query.
    Fixed(FixedRegex),
    /// A literal that is not a string: the function is false whatever its subject.
    Never,
    /// A pattern read from the document, compiled when the filter runs.
    Dynamic(Box<Operand>),
}

/// A literal pattern and its compiled form, `None` when it is not a valid I-Regexp.
#[derive(Debug, Clone)]
pub(crate) struct FixedRegex {
    source: Box<str>,
    regex: Option<Regex>,
}

/// Patterns are equal when their text is; the compiled form follows from it.
impl PartialEq for FixedRegex {
    fn eq(&self, other: &FixedRegex) -> bool {
        self.source == other.source
    }
}

impl Pattern {
    pub(crate) fn fixed(source: &str, whole: bool) -> Pattern {
        Pattern::Fixed(FixedRegex {
            source: source.into(),
            regex: iregexp::compile(source, whole),
        })
    }

    /// Whether `text` matches (entirely when `whole`, as `match()`; anywhere otherwise, as
    /// `search()`). A pattern that is not a string or not a valid I-Regexp matches nothing.
    pub(crate) fn matches<'d>(
        &self,
        text: &str,
        whole: bool,
        current: ValueRef<'d>,
        scope: &Scope<'d>,
    ) -> bool {
        match self {
            Pattern::Fixed(fixed) => fixed.regex.as_ref().is_some_and(|re| re.is_match(text)),
            Pattern::Never => false,
            Pattern::Dynamic(operand) => {
                let compile = || {
                    operand
                        .eval(current, scope)
                        .and_then(Val::as_str)
                        .and_then(|source| iregexp::compile(source, whole))
                };
                // A pattern the document holds once (`$.pattern`) is compiled once.
                scope
                    .pattern(operand, whole, compile)
                    .is_some_and(|re| re.is_match(text))
            }
        }
    }
}
