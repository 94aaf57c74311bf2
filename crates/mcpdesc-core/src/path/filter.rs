//! Filter expressions over document trees (RFC 9535, section 2.3.5).
//!
//! Comparisons follow section 2.3.5.2.2: numbers compare by numeric value (`1 == 1.0`),
//! strings by code points, arrays and objects by deep equality (their numbers by value too);
//! `<` and its kin order two numbers or two strings and are false for anything else; an
//! operand that is Nothing (an empty singular query, a function without a result) equals only
//! another Nothing, and orders with nothing.

use std::cell::{Cell, RefCell};
use std::cmp::Ordering;
use std::collections::HashMap;

use regex::Regex;

use crate::document::{ArrayRef, Kind, ObjectRef, ValueRef};

use super::functions;
use super::select::{walk, NoTrail};
use super::steps::{Literal, Logical, Op, Operand, Query};

/// What `$` means inside filters during one traversal, and what its absolute queries gave.
///
/// An absolute query (`$…`) inside a filter selects the same nodes whichever node the filter
/// tests, so it is evaluated once per traversal and its result kept: evaluated per node, a
/// filter over an array whose argument is a query over that array was quadratic.
pub(crate) struct Scope<'d> {
    pub(crate) root: ValueRef<'d>,
    /// Keyed by the query's (or pattern operand's) address within the compiled path, which
    /// outlives the traversal, and by what was asked of it.
    memo: RefCell<HashMap<(usize, Asked), Memo<'d>>>,
    /// How many absolute queries and patterns were evaluated.
    computed: Cell<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Asked {
    First,
    Count,
    Value,
    Pattern { whole: bool },
}

#[derive(Clone)]
enum Memo<'d> {
    Node(Option<ValueRef<'d>>),
    Count(usize),
    Pattern(Option<Regex>),
}

impl<'d> Scope<'d> {
    pub(crate) fn new(root: ValueRef<'d>) -> Scope<'d> {
        Scope {
            root,
            memo: RefCell::new(HashMap::new()),
            computed: Cell::new(0),
        }
    }

    #[cfg(test)]
    pub(crate) fn computed(&self) -> usize {
        self.computed.get()
    }

    /// `compute()` for query `of`: from the memo when the query is absolute.
    pub(crate) fn node(
        &self,
        of: &Query,
        asked: Asked,
        compute: impl FnOnce() -> Option<ValueRef<'d>>,
    ) -> Option<ValueRef<'d>> {
        if !of.absolute {
            return compute();
        }
        match self.remember(of, asked, || Memo::Node(compute())) {
            Memo::Node(node) => node,
            _ => None,
        }
    }

    /// `count()` of query `of`, computed by `compute`: from the memo when it is absolute.
    pub(crate) fn count(&self, of: &Query, compute: impl FnOnce() -> usize) -> usize {
        if !of.absolute {
            return compute();
        }
        match self.remember(of, Asked::Count, || Memo::Count(compute())) {
            Memo::Count(n) => n,
            _ => 0,
        }
    }

    /// The pattern `of` compiles to: from the memo when it reads only `$`.
    pub(crate) fn pattern(
        &self,
        of: &Operand,
        whole: bool,
        compute: impl FnOnce() -> Option<Regex>,
    ) -> Option<Regex> {
        if !of.is_absolute() {
            return compute();
        }
        match self.remember(of, Asked::Pattern { whole }, || Memo::Pattern(compute())) {
            Memo::Pattern(regex) => regex,
            _ => None,
        }
    }

    /// `compute()`, or what it gave before for the same `key`. The memo is not borrowed while
    /// `compute` runs: it may evaluate further absolute queries.
    fn remember<T: ?Sized>(
        &self,
        of: &T,
        asked: Asked,
        compute: impl FnOnce() -> Memo<'d>,
    ) -> Memo<'d> {
        let key = (std::ptr::from_ref(of).cast::<()>() as usize, asked);
        if let Some(known) = self.memo.borrow().get(&key) {
            return known.clone();
        }
        let value = compute();
        self.computed.set(self.computed.get() + 1);
        self.memo.borrow_mut().insert(key, value.clone());
        value
    }
}

/// The value of an operand (Nothing is `None` where an operand may have none).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Val<'v> {
    Node(ValueRef<'v>),
    Literal(&'v Literal),
    /// The result of `length()` or `count()`.
    Count(usize),
}

impl Logical {
    /// Whether `current` passes the filter.
    pub(crate) fn holds<'d>(&self, current: ValueRef<'d>, root: &Scope<'d>) -> bool {
        match self {
            Logical::Or(items) => items.iter().any(|item| item.holds(current, root)),
            Logical::And(items) => items.iter().all(|item| item.holds(current, root)),
            Logical::Not(inner) => !inner.holds(current, root),
            Logical::Exists(query) => query.first(current, root).is_some(),
            Logical::Compare(op, left, right) => {
                let left = left.eval(current, root);
                let right = right.eval(current, root);
                match op {
                    Op::Eq => equal(left, right),
                    Op::Ne => !equal(left, right),
                    Op::Lt => less(left, right),
                    Op::Le => less(left, right) || equal(left, right),
                    Op::Gt => less(right, left),
                    Op::Ge => less(right, left) || equal(left, right),
                }
            }
            Logical::Regex {
                whole,
                subject,
                pattern,
            } => {
                let Some(text) = subject.eval(current, root).and_then(Val::as_str) else {
                    return false;
                };
                pattern.matches(text, *whole, current, root)
            }
        }
    }
}

impl Query {
    pub(crate) fn start<'d>(&self, current: ValueRef<'d>, root: &Scope<'d>) -> ValueRef<'d> {
        if self.absolute {
            root.root
        } else {
            current
        }
    }

    /// The first node the query selects: the only one, for a singular query.
    pub(crate) fn first<'d>(
        &self,
        current: ValueRef<'d>,
        root: &Scope<'d>,
    ) -> Option<ValueRef<'d>> {
        root.node(self, Asked::First, || self.first_from(current, root))
    }

    fn first_from<'d>(&self, current: ValueRef<'d>, root: &Scope<'d>) -> Option<ValueRef<'d>> {
        let mut first = None;
        walk(
            &self.steps,
            self.start(current, root),
            root,
            &mut NoTrail,
            &mut |_, node| {
                first = Some(node);
                true
            },
        );
        first
    }
}

impl Operand {
    /// Whether the operand has the same value at every node: it reads only `$`.
    pub(crate) fn is_absolute(&self) -> bool {
        match self {
            Operand::Literal(_) => true,
            Operand::Node(query) | Operand::Count(query) | Operand::Value(query) => query.absolute,
            Operand::Length(inner) => inner.is_absolute(),
        }
    }

    /// The operand's value at `current`, `None` for Nothing.
    pub(crate) fn eval<'v, 'd: 'v>(
        &'v self,
        current: ValueRef<'d>,
        root: &Scope<'d>,
    ) -> Option<Val<'v>> {
        match self {
            Operand::Literal(lit) => Some(Val::Literal(lit)),
            Operand::Node(query) => query.first(current, root).map(Val::Node),
            Operand::Length(arg) => functions::length(arg.eval(current, root)?).map(Val::Count),
            Operand::Count(query) => Some(Val::Count(functions::count(query, current, root))),
            Operand::Value(query) => functions::value(query, current, root).map(Val::Node),
        }
    }
}

impl<'v> Val<'v> {
    pub(crate) fn as_str(self) -> Option<&'v str> {
        match self {
            Val::Node(node) => node.as_str(),
            Val::Literal(Literal::Str(s)) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn view(self) -> View<'v> {
        match self {
            Val::Node(node) => View::of(node),
            Val::Literal(lit) => match lit {
                Literal::Null => View::Null,
                Literal::Bool(b) => View::Bool(*b),
                Literal::Int(i) => View::Num(Num::Int(i128::from(*i))),
                Literal::Float(f) => View::Num(Num::Float(*f)),
                Literal::Str(s) => View::Str(s),
            },
            Val::Count(n) => View::Num(Num::Int(n as i128)),
        }
    }
}

/// A value as comparisons and functions see it.
#[derive(Clone, Copy)]
pub(crate) enum View<'v> {
    Null,
    Bool(bool),
    Num(Num),
    Str(&'v str),
    Array(ArrayRef<'v>),
    Object(ObjectRef<'v>),
}

/// A number: integers compare exactly, with one another and with floats, whatever their
/// magnitude (an `f64` cannot tell 2^53 from 2^53 + 1).
#[derive(Clone, Copy)]
pub(crate) enum Num {
    Int(i128),
    Float(f64),
}

impl<'v> View<'v> {
    fn of(node: ValueRef<'v>) -> View<'v> {
        match node.kind() {
            Kind::Null => View::Null,
            Kind::Bool(b) => View::Bool(b),
            Kind::Number(n) => View::Num(if let Some(i) = n.as_i64() {
                Num::Int(i128::from(i))
            } else if let Some(u) = n.as_u64() {
                Num::Int(i128::from(u))
            } else {
                Num::Float(n.as_f64().unwrap_or(f64::NAN))
            }),
            Kind::String(s) => View::Str(s),
            Kind::Array(items) => View::Array(items),
            Kind::Object(members) => View::Object(members),
        }
    }
}

impl Num {
    fn cmp(self, other: Num) -> Option<Ordering> {
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => Some(a.cmp(&b)),
            (Num::Float(a), Num::Float(b)) => a.partial_cmp(&b),
            (Num::Int(a), Num::Float(b)) => int_cmp_float(a, b),
            (Num::Float(a), Num::Int(b)) => int_cmp_float(b, a).map(Ordering::reverse),
        }
    }
}

fn int_cmp_float(int: i128, float: f64) -> Option<Ordering> {
    // Rounding to `f64` keeps order, so it decides unless it makes them equal; then `float`
    // is an integer within reach of `int` and converts exactly.
    match (int as f64).partial_cmp(&float)? {
        Ordering::Equal => Some(int.cmp(&(float as i128))),
        unequal => Some(unequal),
    }
}

fn equal(left: Option<Val<'_>>, right: Option<Val<'_>>) -> bool {
    match (left, right) {
        (None, None) => true,
        (Some(a), Some(b)) => same(a.view(), b.view()),
        _ => false,
    }
}

fn less(left: Option<Val<'_>>, right: Option<Val<'_>>) -> bool {
    let (Some(a), Some(b)) = (left, right) else {
        return false;
    };
    match (a.view(), b.view()) {
        (View::Num(a), View::Num(b)) => a.cmp(b) == Some(Ordering::Less),
        // UTF-8 order is code point order.
        (View::Str(a), View::Str(b)) => a < b,
        _ => false,
    }
}

fn same(a: View<'_>, b: View<'_>) -> bool {
    match (a, b) {
        (View::Null, View::Null) => true,
        (View::Bool(a), View::Bool(b)) => a == b,
        (View::Num(a), View::Num(b)) => a.cmp(b) == Some(Ordering::Equal),
        (View::Str(a), View::Str(b)) => a == b,
        (View::Array(a), View::Array(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b.iter())
                    .all(|(x, y)| same(View::of(x), View::of(y)))
        }
        (View::Object(a), View::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, x)| b.get(key).is_some_and(|y| same(View::of(x), View::of(y))))
        }
        _ => false,
    }
}
