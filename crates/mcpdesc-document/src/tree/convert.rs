//! Trees of already-decoded values: with no positions, or with the positions of a span tree.

use serde_json::Value;

use super::{Builder, Positions, Tree, NO_POS};
use crate::sink::Sink;
use crate::{Position, SpanTree};

impl Tree<'static> {
    /// The tree of `value`; its positions are unknown.
    pub fn from_value(value: &Value) -> Tree<'static> {
        let mut b = Builder::new("", 0);
        add(&mut b, value);
        b.finish(Positions::Table(Vec::new()))
    }

    /// The tree of `value` with the positions `spans` records for it (node 0 its root, the
    /// i-th child of a node the i-th element or member of its value).
    pub fn from_value_and_spans(value: &Value, spans: &SpanTree) -> Tree<'static> {
        let mut b = Builder::new("", spans.len());
        let mut table: Vec<Position> = Vec::with_capacity(spans.len() * 2);
        add_spanned(
            &mut b,
            value,
            spans,
            (!spans.is_empty()).then_some(0),
            &mut table,
        );
        b.finish(Positions::Table(table))
    }
}

fn add(b: &mut Builder<'_>, value: &Value) {
    // Deep values come from embedders; the explicit stack keeps the call stack flat.
    enum Work<'v> {
        Visit(&'v Value),
        Key(&'v str),
        CloseArray(super::build::Mark),
        CloseObject(super::build::Mark),
    }
    let mut stack = vec![Work::Visit(value)];
    while let Some(work) = stack.pop() {
        match work {
            Work::Key(k) => b.key(k, NO_POS),
            Work::CloseArray(mark) => b.close_array(mark),
            Work::CloseObject(mark) => b.close_object(mark),
            Work::Visit(v) => {
                let at = NO_POS;
                match v {
                    Value::Null => b.null(at),
                    Value::Bool(x) => b.bool(*x, at),
                    Value::Number(n) => b.number(n.clone(), at),
                    Value::String(s) => b.string(s, at),
                    Value::Array(items) => {
                        stack.push(Work::CloseArray(b.open(at, false)));
                        stack.extend(items.iter().rev().map(Work::Visit));
                    }
                    Value::Object(map) => {
                        stack.push(Work::CloseObject(b.open(at, true)));
                        for (k, v) in map.iter().rev() {
                            stack.push(Work::Visit(v));
                            stack.push(Work::Key(k));
                        }
                    }
                }
            }
        }
    }
}

fn add_spanned(
    b: &mut Builder<'_>,
    value: &Value,
    spans: &SpanTree,
    root: Option<u32>,
    table: &mut Vec<Position>,
) {
    // Members added to a value after it was read have no span: they, and everything in
    // them, take the position of the container they were added to.
    enum Work<'v> {
        Visit(&'v Value, Option<u32>, u32),
        Key(&'v str, Option<u32>),
        CloseArray(super::build::Mark),
        CloseObject(super::build::Mark),
    }
    let slot = |table: &mut Vec<Position>, p: Position| {
        if p.line == 0 {
            return NO_POS;
        }
        table.push(p);
        u32::try_from(table.len() - 1).unwrap_or(NO_POS)
    };
    let mut stack = vec![Work::Visit(value, root, NO_POS)];
    while let Some(work) = stack.pop() {
        match work {
            Work::Key(k, span) => {
                let p = span.map_or(Position::UNKNOWN, |s| spans.key_of(s));
                let at = slot(table, p);
                b.key(k, at);
            }
            Work::CloseArray(mark) => b.close_array(mark),
            Work::CloseObject(mark) => b.close_object(mark),
            Work::Visit(v, span, inherited) => {
                let at = match span {
                    Some(s) => slot(table, spans.node_position(s)),
                    None => inherited,
                };
                let child = |i: usize| span.and_then(|s| spans.child_of(s, i));
                match v {
                    Value::Null => b.null(at),
                    Value::Bool(x) => b.bool(*x, at),
                    Value::Number(n) => b.number(n.clone(), at),
                    Value::String(s) => b.string(s, at),
                    Value::Array(items) => {
                        stack.push(Work::CloseArray(b.open(at, false)));
                        for (i, item) in items.iter().enumerate().rev() {
                            stack.push(Work::Visit(item, child(i), at));
                        }
                    }
                    Value::Object(map) => {
                        stack.push(Work::CloseObject(b.open(at, true)));
                        for (i, (k, v)) in map.iter().enumerate().rev() {
                            stack.push(Work::Visit(v, child(i), at));
                            stack.push(Work::Key(k, child(i)));
                        }
                    }
                }
            }
        }
    }
}

impl Tree<'_> {
    /// The value of the tree and the span tree of its positions.
    pub(crate) fn to_value_and_spans(&self) -> (Value, SpanTree) {
        let mut spans = crate::SpanTreeBuilder::with_capacity(self.len());
        let root = self.root();
        let (value, id) = spanned(&mut spans, root, Position::UNKNOWN);
        (value, spans.finish(id))
    }
}

fn spanned(
    spans: &mut crate::SpanTreeBuilder,
    v: super::ValueRef<'_>,
    key: Position,
) -> (Value, crate::spans::NodeId) {
    use super::Kind;
    let id = spans.node(v.position(), key);
    let (value, children) = match v.kind() {
        Kind::Array(a) => {
            let mut ids = Vec::with_capacity(a.len());
            let items = a
                .iter()
                .map(|item| {
                    let (value, child) = spanned(spans, item, Position::UNKNOWN);
                    ids.push(child);
                    value
                })
                .collect();
            (Value::Array(items), ids)
        }
        Kind::Object(o) => {
            let mut ids = Vec::with_capacity(o.len());
            let mut map = serde_json::Map::with_capacity(o.len());
            for i in 0..o.len() {
                if let Some((k, item, key_pos)) = o.member(i) {
                    let (value, child) = spanned(spans, item, key_pos);
                    ids.push(child);
                    map.insert(k.to_owned(), value);
                }
            }
            (Value::Object(map), ids)
        }
        _ => return (v.to_value(), id),
    };
    spans.set_children(id, &children);
    (value, id)
}
