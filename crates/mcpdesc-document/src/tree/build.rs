//! Building a [`Tree`] bottom-up, as a loader reads its input.
//!
//! A loader reports each scalar when read and each container when it closes; completed
//! children wait on shared stacks until their container closes and are then stored once, at
//! their final place, so no container is ever grown by doubling.

use std::borrow::Cow;

use serde_json::Number;

use super::{to_u32, Member, NodeData, Positions, StrRef, Tag, Tree, DECODED_BIT};
use crate::sink::Sink;

/// Objects with more members than this also store their members sorted by key, for lookups
/// by binary search.
pub(crate) const LINEAR_MEMBERS: usize = 16;

pub(crate) struct Builder<'t> {
    text: &'t str,
    decoded: String,
    nodes: Vec<NodeData>,
    members: Vec<Member>,
    elements: Vec<u32>,
    numbers: Vec<Number>,
    /// Completed children of the open containers, innermost last.
    pending: Vec<u32>,
    /// Keys (with their positions) of the open objects' members, innermost last.
    keys: Vec<(StrRef, u32)>,
}

/// Where an open container's children start on the builder's stacks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mark {
    pending: usize,
    keys: usize,
    pos: u32,
}

/// The sizes of a builder's arrays at one moment (see [`Builder::checkpoint`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Checkpoint {
    nodes: usize,
    members: usize,
    elements: usize,
    numbers: usize,
    decoded: usize,
    pending: usize,
    keys: usize,
}

impl<'t> Builder<'t> {
    /// A builder borrowing strings from `text`; `nodes_hint` sizes the node and member arrays.
    ///
    /// Every member has a node of its own, so a hint large enough for the nodes is large enough
    /// for the members. Reserving the same for both costs address space until the pages are
    /// written, where a smaller guess had the member array copied into one twice its size when
    /// it was outgrown, both held at the document's peak.
    pub(crate) fn new(text: &'t str, nodes_hint: usize) -> Builder<'t> {
        Builder {
            text,
            decoded: String::new(),
            nodes: Vec::with_capacity(nodes_hint),
            members: Vec::with_capacity(nodes_hint),
            elements: Vec::new(),
            numbers: Vec::new(),
            pending: Vec::new(),
            keys: Vec::new(),
        }
    }

    /// A reference to `s`: into the source when `s` is a slice of it, else a decoded copy.
    pub(crate) fn str_ref(&mut self, s: &str) -> StrRef {
        let base = self.text.as_ptr() as usize;
        let at = s.as_ptr() as usize;
        if !s.is_empty() && at >= base && at + s.len() <= base + self.text.len() {
            return StrRef {
                start: to_u32(at - base),
                len: to_u32(s.len()),
            };
        }
        let start = to_u32(self.decoded.len());
        self.decoded.push_str(s);
        StrRef {
            start,
            len: to_u32(s.len()) | DECODED_BIT,
        }
    }

    fn push(&mut self, tag: Tag, a: u32, b: u32, pos: u32) {
        let id = to_u32(self.nodes.len());
        self.nodes.push(NodeData { tag, pos, a, b });
        self.pending.push(id);
    }

    fn str_of(&self, s: StrRef) -> &str {
        super::str_in(self.text, &self.decoded, s)
    }

    /// Completes an existing node again, as a child of the open container: a loader that
    /// reshapes what it read (a capture's records) reuses the nodes instead of copying them.
    pub(crate) fn adopt(&mut self, id: u32) {
        self.pending.push(id);
    }

    /// Takes back the last value completed.
    pub(crate) fn take_last(&mut self) -> Option<u32> {
        self.pending.pop()
    }

    /// The nodes built so far.
    pub(crate) fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Where everything built so far ends, to undo what a failed read added.
    pub(crate) fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            nodes: self.nodes.len(),
            members: self.members.len(),
            elements: self.elements.len(),
            numbers: self.numbers.len(),
            decoded: self.decoded.len(),
            pending: self.pending.len(),
            keys: self.keys.len(),
        }
    }

    pub(crate) fn rollback(&mut self, at: Checkpoint) {
        self.nodes.truncate(at.nodes);
        self.members.truncate(at.members);
        self.elements.truncate(at.elements);
        self.numbers.truncate(at.numbers);
        self.decoded.truncate(at.decoded);
        self.pending.truncate(at.pending);
        self.keys.truncate(at.keys);
    }

    /// The members (key, key position and value node) of node `id` when it is a completed
    /// object.
    pub(crate) fn object_members(&self, id: u32) -> Option<impl Iterator<Item = (&str, u32, u32)>> {
        let node = self.nodes.get(id as usize)?;
        if node.tag != Tag::Object {
            return None;
        }
        let start = node.a as usize;
        let members = self.members.get(start..start + node.b as usize)?;
        Some(
            members
                .iter()
                .map(|m| (self.str_of(m.key), m.key_pos, m.value)),
        )
    }

    /// The elements of node `id` when it is a completed array.
    pub(crate) fn array_elements(&self, id: u32) -> Option<&[u32]> {
        let node = self.nodes.get(id as usize)?;
        if node.tag != Tag::Array {
            return None;
        }
        let start = node.a as usize;
        self.elements.get(start..start + node.b as usize)
    }

    pub(crate) fn is_object(&self, id: u32) -> bool {
        self.nodes
            .get(id as usize)
            .is_some_and(|n| n.tag == Tag::Object)
    }

    /// The string of node `id`, when it is one.
    pub(crate) fn string_of(&self, id: u32) -> Option<&str> {
        let node = self.nodes.get(id as usize)?;
        match node.tag {
            Tag::TextStr => Some(self.str_of(StrRef {
                start: node.a,
                len: node.b,
            })),
            Tag::DecodedStr => Some(self.str_of(StrRef {
                start: node.a,
                len: node.b | DECODED_BIT,
            })),
            _ => None,
        }
    }

    /// Where node `id` starts.
    pub(crate) fn pos_of(&self, id: u32) -> u32 {
        self.nodes.get(id as usize).map_or(super::NO_POS, |n| n.pos)
    }

    /// The tree, its root the last value completed.
    pub(crate) fn finish(mut self, positions: Positions) -> Tree<'t> {
        self.nodes.shrink_to_fit();
        self.members.shrink_to_fit();
        self.elements.shrink_to_fit();
        self.numbers.shrink_to_fit();
        self.decoded.shrink_to_fit();
        self.finish_as_reserved(positions)
    }

    /// [`Builder::finish`] keeping the arrays' capacity, for a tree that members are added
    /// to next (a capture, annotated): they are appended in place instead of the arrays
    /// being copied to larger ones, and capacity never written to costs no resident memory.
    pub(crate) fn finish_as_reserved(mut self, positions: Positions) -> Tree<'t> {
        let root = self.pending.pop().unwrap_or_else(|| {
            self.nodes.push(NodeData {
                tag: Tag::Null,
                pos: super::NO_POS,
                a: 0,
                b: 0,
            });
            to_u32(self.nodes.len() - 1)
        });
        Tree {
            text: Cow::Borrowed(self.text),
            decoded: self.decoded,
            nodes: self.nodes,
            members: self.members,
            elements: self.elements,
            numbers: self.numbers,
            positions,
            root,
            generation: super::new_generation(),
        }
    }
}

impl Sink for Builder<'_> {
    type Mark = Mark;

    fn null(&mut self, pos: u32) {
        self.push(Tag::Null, 0, 0, pos);
    }

    fn bool(&mut self, value: bool, pos: u32) {
        self.push(if value { Tag::True } else { Tag::False }, 0, 0, pos);
    }

    fn number(&mut self, value: Number, pos: u32) {
        let index = to_u32(self.numbers.len());
        self.numbers.push(value);
        self.push(Tag::Number, index, 0, pos);
    }

    fn string(&mut self, value: &str, pos: u32) {
        let r = self.str_ref(value);
        if r.len & DECODED_BIT != 0 {
            self.push(Tag::DecodedStr, r.start, r.byte_len() as u32, pos);
        } else {
            self.push(Tag::TextStr, r.start, r.len, pos);
        }
    }

    fn key(&mut self, key: &str, pos: u32) {
        let r = self.str_ref(key);
        self.keys.push((r, pos));
    }

    fn open(&mut self, pos: u32, _object: bool) -> Mark {
        Mark {
            pending: self.pending.len(),
            keys: self.keys.len(),
            pos,
        }
    }

    fn close_array(&mut self, mark: Mark) {
        let start = to_u32(self.elements.len());
        let children = self.pending.get(mark.pending..).unwrap_or(&[]);
        self.elements.extend_from_slice(children);
        let len = to_u32(children.len());
        self.pending.truncate(mark.pending);
        self.push(Tag::Array, start, len, mark.pos);
    }

    fn close_object(&mut self, mark: Mark) {
        let start = self.members.len();
        let values = self.pending.get(mark.pending..).unwrap_or(&[]);
        let keys = self.keys.get(mark.keys..).unwrap_or(&[]);
        self.members.extend(
            keys.iter()
                .zip(values)
                .map(|(&(key, key_pos), &value)| Member {
                    key,
                    key_pos,
                    value,
                }),
        );
        let len = self.members.len() - start;
        if len > LINEAR_MEMBERS {
            let mut sorted: Vec<Member> = self.members[start..].to_vec();
            sorted.sort_by(|a, b| self.str_of(a.key).cmp(self.str_of(b.key)));
            self.members.extend(sorted);
        }
        self.pending.truncate(mark.pending);
        self.keys.truncate(mark.keys);
        self.push(Tag::Object, to_u32(start), to_u32(len), mark.pos);
    }

    fn entries(&self, mark: Mark) -> usize {
        self.pending.len().saturating_sub(mark.pending)
    }

    fn keys(&self, mark: Mark) -> impl Iterator<Item = &str> {
        self.keys
            .get(mark.keys..)
            .unwrap_or(&[])
            .iter()
            .map(|(k, _)| self.str_of(*k))
    }
}
