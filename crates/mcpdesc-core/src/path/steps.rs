//! The compiled form of a query, as the evaluator over document trees runs it, and its
//! construction from the parsed query.
//!
//! A query is a list of [`Step`]s, one per segment. Everything that can be settled once is
//! settled here: the selectors of each segment, the operands and functions of each filter,
//! and the regular expressions of `match()` / `search()` whose pattern is a literal.
//! Steps compare equal when they select the same nodes the same way, which is what lets
//! [`super::PathSet`] share the traversal of the leading steps queries have in common.

use jsonpath_rust::parser::model::{
    Comparable, Comparison, Filter as FilterExpr, FilterAtom, FnArg, Literal as JpLiteral, Segment,
    Selector as JpSelector, SingularQuery, SingularQuerySegment, Test, TestFunction,
};

use super::functions::Pattern;

/// One segment of a query.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    /// A child segment of one selector.
    Child(Selector),
    /// A child segment of several selectors: for each input node, each selector in turn.
    Children(Vec<Selector>),
    /// A descendant segment: its selectors applied to the input node, then to each of its
    /// descendants in document order (a node before its children).
    Descendant(Vec<Selector>),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Selector {
    Name(Box<str>),
    /// Negative indices count from the end of the array.
    Index(i64),
    Wildcard,
    Slice(Slice),
    Filter(Box<Logical>),
}

/// An array slice, `start:end:step` (RFC 9535, section 2.3.4).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Slice {
    pub(crate) start: Option<i64>,
    pub(crate) end: Option<i64>,
    pub(crate) step: i64,
}

/// A filter expression (RFC 9535, section 2.3.5).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Logical {
    Or(Vec<Logical>),
    And(Vec<Logical>),
    Not(Box<Logical>),
    /// The query selects at least one node.
    Exists(Query),
    Compare(Op, Operand, Operand),
    /// `match()` (`whole`) or `search()`.
    Regex {
        whole: bool,
        subject: Operand,
        pattern: Pattern,
    },
}

/// A query inside a filter: from the current node (`@`) or from the root (`$`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Query {
    pub(crate) absolute: bool,
    pub(crate) steps: Vec<Step>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Something with a value, or with Nothing: a comparison operand or a function argument of
/// ValueType (RFC 9535, section 2.4.1).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Operand {
    Literal(Literal),
    /// A singular query: its node's value, Nothing when it selects none.
    Node(Query),
    Length(Box<Operand>),
    Count(Query),
    /// `value()`: the value of the only node the query selects, else Nothing.
    Value(Query),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Literal {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Box<str>),
}

/// The steps of a query's segments. Errors name constructs the conformance checks of
/// `path.rs` let through but no RFC 9535 query has; none are expected.
pub(crate) fn steps(segments: &[Segment]) -> Result<Vec<Step>, String> {
    segments.iter().map(step).collect()
}

fn step(segment: &Segment) -> Result<Step, String> {
    Ok(match segment {
        Segment::Selector(selector) => Step::Child(self::selector(selector)?),
        Segment::Selectors(selectors) => match selectors.as_slice() {
            [one] => Step::Child(selector(one)?),
            _ => Step::Children(selectors.iter().map(selector).collect::<Result<_, _>>()?),
        },
        Segment::Descendant(inner) => match inner.as_ref() {
            Segment::Selector(one) => Step::Descendant(vec![selector(one)?]),
            Segment::Selectors(selectors) => {
                Step::Descendant(selectors.iter().map(selector).collect::<Result<_, _>>()?)
            }
            Segment::Descendant(_) => {
                return Err("a descendant segment of a descendant segment".into())
            }
        },
    })
}

fn selector(selector: &JpSelector) -> Result<Selector, String> {
    Ok(match selector {
        JpSelector::Name(name) => Selector::Name(name.as_str().into()),
        JpSelector::Index(index) => Selector::Index(*index),
        JpSelector::Wildcard => Selector::Wildcard,
        JpSelector::Slice(start, end, step) => Selector::Slice(Slice {
            start: *start,
            end: *end,
            step: step.unwrap_or(1),
        }),
        JpSelector::Filter(filter) => Selector::Filter(Box::new(logical(filter)?)),
    })
}

fn logical(filter: &FilterExpr) -> Result<Logical, String> {
    let (inner, not) = match filter {
        FilterExpr::Or(items) => {
            return Ok(Logical::Or(
                items.iter().map(logical).collect::<Result<_, _>>()?,
            ))
        }
        FilterExpr::And(items) => {
            return Ok(Logical::And(
                items.iter().map(logical).collect::<Result<_, _>>()?,
            ))
        }
        FilterExpr::Atom(FilterAtom::Filter { expr, not }) => (logical(expr)?, *not),
        FilterExpr::Atom(FilterAtom::Test { expr, not }) => (test(expr)?, *not),
        FilterExpr::Atom(FilterAtom::Comparison(comparison)) => {
            let op = match comparison.as_ref() {
                Comparison::Eq(..) => Op::Eq,
                Comparison::Ne(..) => Op::Ne,
                Comparison::Lt(..) => Op::Lt,
                Comparison::Lte(..) => Op::Le,
                Comparison::Gt(..) => Op::Gt,
                Comparison::Gte(..) => Op::Ge,
            };
            let (left, right) = comparison.vals();
            (
                Logical::Compare(op, comparable(left)?, comparable(right)?),
                false,
            )
        }
    };
    Ok(if not {
        Logical::Not(Box::new(inner))
    } else {
        inner
    })
}

fn test(test: &Test) -> Result<Logical, String> {
    match test {
        Test::RelQuery(segments) => Ok(Logical::Exists(Query {
            absolute: false,
            steps: steps(segments)?,
        })),
        Test::AbsQuery(query) => Ok(Logical::Exists(Query {
            absolute: true,
            steps: steps(&query.segments)?,
        })),
        Test::Function(function) => match function.as_ref() {
            TestFunction::Match(subject, pattern) => regex(true, subject, pattern),
            TestFunction::Search(subject, pattern) => regex(false, subject, pattern),
            other => Err(format!("`{other}` used as a test")),
        },
    }
}

fn regex(whole: bool, subject: &FnArg, pattern: &FnArg) -> Result<Logical, String> {
    let pattern = match value_arg(pattern)? {
        Operand::Literal(Literal::Str(text)) => Pattern::fixed(&text, whole),
        // Not a string: the function's result is LogicalFalse whatever the subject.
        Operand::Literal(_) => Pattern::Never,
        operand => Pattern::Dynamic(Box::new(operand)),
    };
    Ok(Logical::Regex {
        whole,
        subject: value_arg(subject)?,
        pattern,
    })
}

fn comparable(comparable: &Comparable) -> Result<Operand, String> {
    match comparable {
        Comparable::Literal(lit) => Ok(Operand::Literal(literal(lit))),
        Comparable::SingularQuery(query) => {
            let (absolute, segments) = match query {
                SingularQuery::Current(segments) => (false, segments),
                SingularQuery::Root(segments) => (true, segments),
            };
            let steps = segments
                .iter()
                .map(|segment| {
                    Step::Child(match segment {
                        SingularQuerySegment::Name(name) => Selector::Name(name.as_str().into()),
                        SingularQuerySegment::Index(index) => Selector::Index(*index),
                    })
                })
                .collect();
            Ok(Operand::Node(Query { absolute, steps }))
        }
        Comparable::Function(function) => value_function(function),
    }
}

/// A function whose result is a ValueType.
fn value_function(function: &TestFunction) -> Result<Operand, String> {
    match function {
        TestFunction::Length(arg) => Ok(Operand::Length(Box::new(value_arg(arg)?))),
        TestFunction::Count(arg) => Ok(Operand::Count(nodes_arg(arg)?)),
        TestFunction::Value(arg) => Ok(Operand::Value(nodes_arg(arg)?)),
        other => Err(format!("`{other}` used as a value")),
    }
}

/// A ValueType argument: a literal, a singular query or a ValueType function.
fn value_arg(arg: &FnArg) -> Result<Operand, String> {
    match arg {
        FnArg::Literal(lit) => Ok(Operand::Literal(literal(lit))),
        FnArg::Test(test) => match test.as_ref() {
            Test::RelQuery(segments) => Ok(Operand::Node(Query {
                absolute: false,
                steps: steps(segments)?,
            })),
            Test::AbsQuery(query) => Ok(Operand::Node(Query {
                absolute: true,
                steps: steps(&query.segments)?,
            })),
            Test::Function(function) => value_function(function),
        },
        FnArg::Filter(filter) => Err(format!("`{filter}` passed as a value")),
    }
}

/// A NodesType argument: a query.
fn nodes_arg(arg: &FnArg) -> Result<Query, String> {
    match arg {
        FnArg::Test(test) => match test.as_ref() {
            Test::RelQuery(segments) => Ok(Query {
                absolute: false,
                steps: steps(segments)?,
            }),
            Test::AbsQuery(query) => Ok(Query {
                absolute: true,
                steps: steps(&query.segments)?,
            }),
            Test::Function(function) => Err(format!("`{function}` passed as nodes")),
        },
        other => Err(format!("`{other}` passed as nodes")),
    }
}

fn literal(lit: &JpLiteral) -> Literal {
    match lit {
        JpLiteral::Null => Literal::Null,
        JpLiteral::Bool(b) => Literal::Bool(*b),
        JpLiteral::Int(i) => Literal::Int(*i),
        JpLiteral::Float(f) => Literal::Float(*f),
        JpLiteral::String(s) => Literal::Str(s.as_str().into()),
    }
}
