//! Where the loaders put what they read: a [`Sink`] receives scalars, keys and containers in
//! document order, each with the byte offset where it starts.
//!
//! Two sinks exist: the compact [`Tree`](crate::Tree) of documents and captures, and
//! [`ValueSink`], which builds a `serde_json` value with its span tree for rule files.

use std::collections::HashSet;

use serde_json::{Map, Number, Value};

use crate::spans::NodeId;
use crate::tree::lines::{Breaks, Cursor, LineIndex};
use crate::{Position, SpanTree, SpanTreeBuilder};

pub(crate) trait Sink {
    /// An open container.
    type Mark: Copy;

    fn null(&mut self, pos: u32);
    fn bool(&mut self, value: bool, pos: u32);
    fn number(&mut self, value: Number, pos: u32);
    /// A string; when `value` is a slice of the source text, a sink may keep it by reference.
    fn string(&mut self, value: &str, pos: u32);
    /// The key of the next member of the innermost open object.
    fn key(&mut self, key: &str, pos: u32);
    /// Opens an array or object starting at `pos`: what is reported until it closes is its
    /// content.
    fn open(&mut self, pos: u32, object: bool) -> Self::Mark;
    fn close_array(&mut self, mark: Self::Mark);
    fn close_object(&mut self, mark: Self::Mark);
    /// Elements or members completed so far in the container opened at `mark`.
    fn entries(&self, mark: Self::Mark) -> usize;
    /// The keys of the object opened at `mark`, so far.
    fn keys(&self, mark: Self::Mark) -> impl Iterator<Item = &str>;
}

/// Objects with more members than this look duplicate keys up in a hash set.
pub(crate) const LINEAR_KEYS: usize = 16;

/// Finds a repeated key in one open object: by a scan while it is small, then by a set of
/// its keys built once.
#[derive(Debug, Default)]
pub(crate) struct KeySet {
    index: Option<HashSet<String>>,
}

impl KeySet {
    /// Whether `key` repeats a key of the object opened at `mark`; records it otherwise.
    pub(crate) fn repeats<S: Sink>(&mut self, sink: &S, mark: S::Mark, key: &str) -> bool {
        if self.index.is_none() {
            if sink.entries(mark) < LINEAR_KEYS {
                return sink.keys(mark).any(|k| k == key);
            }
            self.index = Some(sink.keys(mark).map(str::to_owned).collect());
        }
        self.index
            .as_mut()
            .is_some_and(|set| !set.insert(key.to_owned()))
    }
}

/// Builds a `serde_json` value and its [`SpanTree`]; containers are allocated once, at their
/// final size.
pub(crate) struct ValueSink<'t> {
    text: &'t str,
    lines: LineIndex,
    cursor: Cursor,
    spans: SpanTreeBuilder,
    child_ids: Vec<NodeId>,
    items: Vec<Value>,
    members: Vec<(String, Value)>,
    frames: Vec<Frame>,
    root: Option<(Value, NodeId)>,
}

struct Frame {
    object: bool,
    /// The key (and its position) of the member whose value comes next.
    key: Option<(String, Position)>,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct ValueMark {
    id: NodeId,
    children: usize,
    items: usize,
    members: usize,
}

impl<'t> ValueSink<'t> {
    pub(crate) fn new(text: &'t str, breaks: Breaks) -> ValueSink<'t> {
        ValueSink {
            text,
            lines: LineIndex::new(breaks),
            cursor: Cursor::new(),
            spans: SpanTreeBuilder::new(),
            child_ids: Vec::new(),
            items: Vec::new(),
            members: Vec::new(),
            frames: Vec::new(),
            root: None,
        }
    }

    /// The value and its spans; `None` when nothing was reported.
    pub(crate) fn finish(self) -> Option<(Value, SpanTree)> {
        let (value, id) = self.root?;
        Some((value, self.spans.finish(id)))
    }

    fn begin(&mut self, pos: u32) -> NodeId {
        let at = self.cursor.position(&self.lines, self.text, pos);
        let key = match self.frames.last() {
            Some(Frame {
                key: Some((_, key_pos)),
                ..
            }) => *key_pos,
            _ => Position::UNKNOWN,
        };
        self.spans.node(at, key)
    }

    fn attach(&mut self, value: Value, id: NodeId) {
        match self.frames.last_mut() {
            None => self.root = Some((value, id)),
            Some(frame) => {
                self.child_ids.push(id);
                if frame.object {
                    let key = frame.key.take().map(|(k, _)| k).unwrap_or_default();
                    self.members.push((key, value));
                } else {
                    self.items.push(value);
                }
            }
        }
    }

    fn scalar(&mut self, value: Value, pos: u32) {
        let id = self.begin(pos);
        self.attach(value, id);
    }

    fn close(&mut self, mark: ValueMark, value: Value) {
        self.frames.pop();
        self.spans
            .set_children(mark.id, self.child_ids.get(mark.children..).unwrap_or(&[]));
        self.child_ids.truncate(mark.children);
        self.attach(value, mark.id);
    }
}

impl Sink for ValueSink<'_> {
    type Mark = ValueMark;

    fn null(&mut self, pos: u32) {
        self.scalar(Value::Null, pos);
    }
    fn bool(&mut self, value: bool, pos: u32) {
        self.scalar(Value::Bool(value), pos);
    }
    fn number(&mut self, value: Number, pos: u32) {
        self.scalar(Value::Number(value), pos);
    }
    fn string(&mut self, value: &str, pos: u32) {
        self.scalar(Value::String(value.to_owned()), pos);
    }
    fn key(&mut self, key: &str, pos: u32) {
        let at = self.cursor.position(&self.lines, self.text, pos);
        if let Some(frame) = self.frames.last_mut() {
            frame.key = Some((key.to_owned(), at));
        }
    }
    fn open(&mut self, pos: u32, object: bool) -> ValueMark {
        let id = self.begin(pos);
        let mark = ValueMark {
            id,
            children: self.child_ids.len(),
            items: self.items.len(),
            members: self.members.len(),
        };
        self.frames.push(Frame { object, key: None });
        mark
    }
    fn close_array(&mut self, mark: ValueMark) {
        let mut items: Vec<Value> = self.items.drain(mark.items..).collect();
        items.shrink_to_fit();
        self.close(mark, Value::Array(items));
    }
    fn close_object(&mut self, mark: ValueMark) {
        let members: Map<String, Value> = self.members.drain(mark.members..).collect();
        self.close(mark, Value::Object(members));
    }
    fn entries(&self, mark: ValueMark) -> usize {
        (self.items.len() - mark.items) + (self.members.len() - mark.members)
    }
    fn keys(&self, mark: ValueMark) -> impl Iterator<Item = &str> {
        self.members
            .get(mark.members..)
            .unwrap_or(&[])
            .iter()
            .map(|(k, _)| k.as_str())
    }
}
