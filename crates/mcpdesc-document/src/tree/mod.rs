//! The compact document tree: every node of a document in a few flat arrays.
//!
//! Keys and strings are borrowed from the source text where they are written there as they
//! read (no escapes); the others are decoded once into one buffer of the tree. A node takes
//! 16 bytes, an object member 16 and an array element 4; positions are byte offsets into the
//! source, turned into lines and columns only when asked (see `lines.rs`). A tree built from
//! an already-decoded value keeps its positions in a table instead (or has none).
//!
//! Containers are stored after their children (the loaders close a container once all its
//! children are complete), so the root is the last node.

mod build;
mod convert;
mod edit;
pub(crate) mod lines;
mod locate;
mod value_ref;

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Number;

pub(crate) use build::Builder;
pub use edit::Added;
pub use value_ref::{ArrayRef, Elements, Kind, Members, ObjectRef, ValueRef};

use crate::Position;

/// A position that is not known (documents built from a value, members added later).
pub(crate) const NO_POS: u32 = u32::MAX;

/// A generation no tree of this process had before (see [`ValueRef::generation`]).
pub(crate) fn new_generation() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Tag {
    Null,
    False,
    True,
    /// `a` indexes [`Tree::numbers`].
    Number,
    /// `a`, `b`: start and length in the source text.
    TextStr,
    /// `a`, `b`: start and length in [`Tree::decoded`].
    DecodedStr,
    /// `a`, `b`: first element in [`Tree::elements`] and count.
    Array,
    /// `a`, `b`: first member in [`Tree::members`] and count.
    Object,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct NodeData {
    pub(crate) tag: Tag,
    /// Where the node starts (see [`Positions`]).
    pub(crate) pos: u32,
    pub(crate) a: u32,
    pub(crate) b: u32,
}

/// A string of the tree: in the source text, or in the decoded buffer when the top bit of
/// `len` is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StrRef {
    pub(crate) start: u32,
    pub(crate) len: u32,
}

pub(crate) const DECODED_BIT: u32 = 1 << 31;

/// A length, index or offset as the tree stores it (32 bits, saturating).
pub(crate) fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl StrRef {
    /// The string's length in bytes, known without reading it.
    pub(crate) fn byte_len(self) -> usize {
        (self.len & !DECODED_BIT) as usize
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Member {
    pub(crate) key: StrRef,
    pub(crate) key_pos: u32,
    pub(crate) value: u32,
}

/// How node positions are stored.
#[derive(Debug, Clone)]
pub(crate) enum Positions {
    /// Byte offsets into the source text.
    Offsets(lines::LineIndex),
    /// Indices into a table (documents assembled from decoded values).
    Table(Vec<Position>),
}

/// The string `s` refers to, in the source `text` or the `decoded` buffer.
pub(crate) fn str_in<'a>(text: &'a str, decoded: &'a str, s: StrRef) -> &'a str {
    let (buf, len) = if s.len & DECODED_BIT != 0 {
        (decoded, s.len & !DECODED_BIT)
    } else {
        (text, s.len)
    };
    let start = s.start as usize;
    buf.get(start..start + len as usize).unwrap_or("")
}

/// A document's nodes (see the module documentation).
#[derive(Debug, Clone)]
pub struct Tree<'t> {
    pub(crate) text: Cow<'t, str>,
    pub(crate) decoded: String,
    pub(crate) nodes: Vec<NodeData>,
    pub(crate) members: Vec<Member>,
    pub(crate) elements: Vec<u32>,
    pub(crate) numbers: Vec<Number>,
    pub(crate) positions: Positions,
    pub(crate) root: u32,
    /// Unique to this tree's content among the trees of the process; an edit changes it.
    pub(crate) generation: u64,
}

impl<'t> Tree<'t> {
    /// The root value.
    pub fn root(&self) -> ValueRef<'_> {
        ValueRef::new(self, self.root)
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree has no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The same tree owning its source text.
    pub fn into_owned(self) -> Tree<'static> {
        Tree {
            text: Cow::Owned(self.text.into_owned()),
            decoded: self.decoded,
            nodes: self.nodes,
            members: self.members,
            elements: self.elements,
            numbers: self.numbers,
            positions: self.positions,
            root: self.root,
            generation: self.generation,
        }
    }

    pub(crate) fn str_of(&self, s: StrRef) -> &str {
        str_in(&self.text, &self.decoded, s)
    }

    /// Whether the key of member `m` is `key`. Lengths are compared from the reference, and
    /// the first bytes before the rest, so most other keys are passed over after reading one
    /// byte of them, and none is sliced as a `str` (each slice checks character boundaries).
    #[inline]
    pub(crate) fn is_key(&self, m: &Member, key: &[u8]) -> bool {
        if m.key.byte_len() != key.len() {
            return false;
        }
        let (buf, start) = if m.key.len & DECODED_BIT != 0 {
            (self.decoded.as_bytes(), m.key.start as usize)
        } else {
            (self.text.as_bytes(), m.key.start as usize)
        };
        match buf.get(start..start + key.len()) {
            Some(stored) => same_bytes(stored, key),
            None => false,
        }
    }

    /// The line and column of stored position `pos`.
    pub(crate) fn position(&self, pos: u32) -> Position {
        if pos == NO_POS {
            return Position::UNKNOWN;
        }
        match &self.positions {
            Positions::Offsets(index) => index.position(&self.text, pos),
            Positions::Table(table) => table
                .get(pos as usize)
                .copied()
                .unwrap_or(Position::UNKNOWN),
        }
    }

    /// Whether any node has a known position.
    pub(crate) fn has_positions(&self) -> bool {
        !matches!(&self.positions, Positions::Table(t) if t.is_empty())
    }

    /// Heap bytes held by the tree besides the source text.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.decoded.capacity()
            + self.nodes.capacity() * size_of::<NodeData>()
            + self.members.capacity() * size_of::<Member>()
            + self.elements.capacity() * size_of::<u32>()
            + self.numbers.capacity() * size_of::<Number>()
            + match &self.positions {
                Positions::Offsets(index) => index.heap_bytes(),
                Positions::Table(t) => t.capacity() * size_of::<Position>(),
            }
    }
}

/// Whether two byte strings of the same length are equal. Member keys are short: up to 16
/// bytes they are compared as two overlapping words each, in registers, where a call to
/// `memcmp` cost more than the rest of a member lookup.
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    fn word<const N: usize>(s: &[u8], at: usize) -> Option<[u8; N]> {
        s.get(at..at + N)?.try_into().ok()
    }
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        0 => true,
        1..=3 => a.iter().zip(b).all(|(x, y)| x == y),
        4..=7 => word::<4>(a, 0) == word::<4>(b, 0) && word::<4>(a, n - 4) == word::<4>(b, n - 4),
        8..=16 => word::<8>(a, 0) == word::<8>(b, 0) && word::<8>(a, n - 8) == word::<8>(b, n - 8),
        _ => a == b,
    }
}

#[cfg(test)]
mod same_bytes_tests {
    use super::same_bytes;

    #[test]
    fn agrees_with_slice_equality_at_every_length_and_difference() {
        for n in 0..40usize {
            let a: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(same_bytes(&a, &a.clone()), "length {n}");
            for at in 0..n {
                let mut b = a.clone();
                b[at] ^= 0x20;
                assert!(!same_bytes(&a, &b), "length {n}, difference at {at}");
            }
        }
        assert!(!same_bytes(b"abc", b"abcd"));
    }
}
