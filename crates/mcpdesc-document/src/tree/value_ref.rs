//! Read access to the nodes of a [`Tree`], shaped like `serde_json::Value`'s so that code
//! reading values reads the same either way.

use std::fmt;

use serde::ser::{SerializeMap, SerializeSeq};
use serde_json::{Number, Value};

use super::{NodeData, Tag, Tree};
use crate::{pointer, Position};

/// One node of a document.
#[derive(Clone, Copy)]
pub struct ValueRef<'d> {
    tree: &'d Tree<'d>,
    id: u32,
}

/// What a node is, with its content.
#[derive(Debug, Clone, Copy)]
pub enum Kind<'d> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as `serde_json` holds it (integers keep their exact value).
    Number(&'d Number),
    /// A string, unescaped.
    String(&'d str),
    /// An array, with its elements.
    Array(ArrayRef<'d>),
    /// An object, with its members in source order.
    Object(ObjectRef<'d>),
}

/// The elements of an array node.
#[derive(Clone, Copy)]
pub struct ArrayRef<'d> {
    tree: &'d Tree<'d>,
    start: u32,
    len: u32,
}

/// The members of an object node, in source order.
#[derive(Clone, Copy)]
pub struct ObjectRef<'d> {
    tree: &'d Tree<'d>,
    start: u32,
    len: u32,
}

impl<'d> ValueRef<'d> {
    pub(crate) fn new(tree: &'d Tree<'d>, id: u32) -> ValueRef<'d> {
        ValueRef { tree, id }
    }

    fn data(self) -> NodeData {
        self.tree
            .nodes
            .get(self.id as usize)
            .copied()
            .unwrap_or(NodeData {
                tag: Tag::Null,
                pos: super::NO_POS,
                a: 0,
                b: 0,
            })
    }

    /// The node's identity within its tree: equal for the same node, whatever path reached it.
    pub fn id(self) -> u32 {
        self.id
    }

    /// The address of the tree holding the node: with [`ValueRef::id`], it tells apart the
    /// nodes of every tree alive at once.
    pub fn tree_address(self) -> usize {
        self.tree as *const _ as *const u8 as usize
    }

    /// Identifies the tree holding the node and its content: no other tree of the process
    /// has it, and an edit of the tree changes it. With [`ValueRef::id`] it names a node for
    /// as long as the process runs, so a node found once can be remembered by the two.
    pub fn generation(self) -> u64 {
        self.tree.generation
    }

    /// Node `id` of the same tree (`null` when the tree has no such node).
    pub fn node_with_id(self, id: u32) -> ValueRef<'d> {
        ValueRef::new(self.tree, id)
    }

    /// Whether both refer to the same node of the same tree.
    pub fn same_node(self, other: ValueRef<'_>) -> bool {
        self.id == other.id
            && std::ptr::eq(
                self.tree as *const _ as *const u8,
                other.tree as *const _ as *const u8,
            )
    }

    /// What the node is, with its content: the form to `match` on.
    pub fn kind(self) -> Kind<'d> {
        let d = self.data();
        let tree = self.tree;
        match d.tag {
            Tag::Null => Kind::Null,
            Tag::False => Kind::Bool(false),
            Tag::True => Kind::Bool(true),
            Tag::Number => match tree.numbers.get(d.a as usize) {
                Some(n) => Kind::Number(n),
                None => Kind::Null,
            },
            Tag::TextStr => Kind::String(tree.str_of(super::StrRef {
                start: d.a,
                len: d.b,
            })),
            Tag::DecodedStr => Kind::String(tree.str_of(super::StrRef {
                start: d.a,
                len: d.b | super::DECODED_BIT,
            })),
            Tag::Array => Kind::Array(ArrayRef {
                tree,
                start: d.a,
                len: d.b,
            }),
            Tag::Object => Kind::Object(ObjectRef {
                tree,
                start: d.a,
                len: d.b,
            }),
        }
    }

    /// Where the node starts in the source ([`Position::UNKNOWN`] when not known).
    pub fn position(self) -> Position {
        self.tree.position(self.data().pos)
    }

    /// Whether the node is `null`.
    pub fn is_null(self) -> bool {
        self.data().tag == Tag::Null
    }
    /// Whether the node is `true` or `false`.
    pub fn is_boolean(self) -> bool {
        matches!(self.data().tag, Tag::True | Tag::False)
    }
    /// Whether the node is a number.
    pub fn is_number(self) -> bool {
        self.data().tag == Tag::Number
    }
    /// Whether the node is a string.
    pub fn is_string(self) -> bool {
        matches!(self.data().tag, Tag::TextStr | Tag::DecodedStr)
    }
    /// Whether the node is an array.
    pub fn is_array(self) -> bool {
        self.data().tag == Tag::Array
    }
    /// Whether the node is an object.
    pub fn is_object(self) -> bool {
        self.data().tag == Tag::Object
    }
    /// Whether the node is a number that fits a `u64` (a non-negative integer).
    pub fn is_u64(self) -> bool {
        self.as_number().is_some_and(Number::is_u64)
    }
    /// Whether the node is an integer that fits an `i64`.
    pub fn is_i64(self) -> bool {
        self.as_number().is_some_and(Number::is_i64)
    }
    /// Whether the node is a number held as a float rather than an integer (see
    /// [`Number::is_f64`]).
    pub fn is_f64(self) -> bool {
        self.as_number().is_some_and(Number::is_f64)
    }

    /// The node's value if it is `true` or `false`.
    pub fn as_bool(self) -> Option<bool> {
        match self.data().tag {
            Tag::True => Some(true),
            Tag::False => Some(false),
            _ => None,
        }
    }
    /// The node's text if it is a string.
    pub fn as_str(self) -> Option<&'d str> {
        match self.kind() {
            Kind::String(s) => Some(s),
            _ => None,
        }
    }
    /// The node's number if it is one.
    pub fn as_number(self) -> Option<&'d Number> {
        match self.kind() {
            Kind::Number(n) => Some(n),
            _ => None,
        }
    }
    /// The node's number as a float (an integer converted, possibly losing precision).
    pub fn as_f64(self) -> Option<f64> {
        self.as_number().and_then(Number::as_f64)
    }
    /// The node's number if it is an integer that fits a `u64`.
    pub fn as_u64(self) -> Option<u64> {
        self.as_number().and_then(Number::as_u64)
    }
    /// The node's number if it is an integer that fits an `i64`.
    pub fn as_i64(self) -> Option<i64> {
        self.as_number().and_then(Number::as_i64)
    }
    /// The node's elements if it is an array.
    pub fn as_array(self) -> Option<ArrayRef<'d>> {
        match self.kind() {
            Kind::Array(a) => Some(a),
            _ => None,
        }
    }
    /// The node's members if it is an object.
    pub fn as_object(self) -> Option<ObjectRef<'d>> {
        match self.kind() {
            Kind::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The member `key` of an object.
    pub fn get(self, key: &str) -> Option<ValueRef<'d>> {
        self.as_object()?.get(key)
    }

    /// Element `index` of an array.
    pub fn get_index(self, index: usize) -> Option<ValueRef<'d>> {
        self.as_array()?.get(index)
    }

    /// The node an RFC 6901 JSON Pointer names, from this one (as `serde_json::Value::pointer`).
    pub fn pointer(self, ptr: &str) -> Option<ValueRef<'d>> {
        if ptr.is_empty() {
            return Some(self);
        }
        if !ptr.starts_with('/') {
            return None;
        }
        let mut current = self;
        for token in pointer::tokens(ptr) {
            current = match current.kind() {
                Kind::Object(o) => o.get(&token)?,
                Kind::Array(a) => a.get(pointer::array_index(&token)?)?,
                _ => return None,
            };
        }
        Some(current)
    }

    /// The node as a `serde_json` value.
    pub fn to_value(self) -> Value {
        match self.kind() {
            Kind::Null => Value::Null,
            Kind::Bool(b) => Value::Bool(b),
            Kind::Number(n) => Value::Number(n.clone()),
            Kind::String(s) => Value::String(s.to_owned()),
            Kind::Array(a) => Value::Array(a.iter().map(ValueRef::to_value).collect()),
            Kind::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, v)| (k.to_owned(), v.to_value()))
                    .collect(),
            ),
        }
    }

    /// The JSON type name (`null`, `boolean`, `number`, `string`, `array`, `object`).
    pub fn type_name(self) -> &'static str {
        match self.data().tag {
            Tag::Null => "null",
            Tag::False | Tag::True => "boolean",
            Tag::Number => "number",
            Tag::TextStr | Tag::DecodedStr => "string",
            Tag::Array => "array",
            Tag::Object => "object",
        }
    }
}

impl<'d> ArrayRef<'d> {
    /// Number of elements.
    pub fn len(self) -> usize {
        self.len as usize
    }
    /// Whether the array has no element.
    pub fn is_empty(self) -> bool {
        self.len == 0
    }
    /// Element `index` (from 0), if the array has that many.
    pub fn get(self, index: usize) -> Option<ValueRef<'d>> {
        if index >= self.len as usize {
            return None;
        }
        let id = *self.tree.elements.get(self.start as usize + index)?;
        Some(ValueRef::new(self.tree, id))
    }
    /// The first element, unless the array is empty.
    pub fn first(self) -> Option<ValueRef<'d>> {
        self.get(0)
    }
    /// The last element, unless the array is empty.
    pub fn last(self) -> Option<ValueRef<'d>> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }
    fn ids(self) -> &'d [u32] {
        let start = self.start as usize;
        self.tree
            .elements
            .get(start..start + self.len as usize)
            .unwrap_or(&[])
    }
    /// The elements, in order.
    pub fn iter(self) -> Elements<'d> {
        Elements {
            tree: self.tree,
            inner: self.ids().iter(),
        }
    }
}

/// The elements of an array, in order.
#[derive(Clone)]
pub struct Elements<'d> {
    tree: &'d Tree<'d>,
    inner: std::slice::Iter<'d, u32>,
}

impl<'d> Iterator for Elements<'d> {
    type Item = ValueRef<'d>;
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next().map(|&id| ValueRef::new(self.tree, id))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
    fn nth(&mut self, n: usize) -> Option<Self::Item> {
        self.inner.nth(n).map(|&id| ValueRef::new(self.tree, id))
    }
}

impl DoubleEndedIterator for Elements<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.inner
            .next_back()
            .map(|&id| ValueRef::new(self.tree, id))
    }
}

impl ExactSizeIterator for Elements<'_> {}

impl<'d> IntoIterator for ArrayRef<'d> {
    type Item = ValueRef<'d>;
    type IntoIter = Box<dyn DoubleEndedIterator<Item = ValueRef<'d>> + 'd>;
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

/// The members of an object: key, value and the key's position.
#[derive(Clone)]
pub struct Members<'d> {
    tree: &'d Tree<'d>,
    inner: std::slice::Iter<'d, super::Member>,
}

impl<'d> Iterator for Members<'d> {
    type Item = (&'d str, ValueRef<'d>);
    fn next(&mut self) -> Option<Self::Item> {
        let m = self.inner.next()?;
        Some((self.tree.str_of(m.key), ValueRef::new(self.tree, m.value)))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl DoubleEndedIterator for Members<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let m = self.inner.next_back()?;
        Some((self.tree.str_of(m.key), ValueRef::new(self.tree, m.value)))
    }
}

impl ExactSizeIterator for Members<'_> {}

impl<'d> ObjectRef<'d> {
    /// Number of members.
    pub fn len(self) -> usize {
        self.len as usize
    }
    /// Whether the object has no member.
    pub fn is_empty(self) -> bool {
        self.len == 0
    }
    fn slice(self) -> &'d [super::Member] {
        let start = self.start as usize;
        self.tree
            .members
            .get(start..start + self.len as usize)
            .unwrap_or(&[])
    }
    /// The members as key and value, in source order.
    pub fn iter(self) -> Members<'d> {
        Members {
            tree: self.tree,
            inner: self.slice().iter(),
        }
    }
    /// The keys, in source order.
    pub fn keys(self) -> impl DoubleEndedIterator<Item = &'d str> + ExactSizeIterator + Clone + 'd {
        let tree = self.tree;
        self.slice().iter().map(move |m| tree.str_of(m.key))
    }
    /// The member values, in source order.
    pub fn values(
        self,
    ) -> impl DoubleEndedIterator<Item = ValueRef<'d>> + ExactSizeIterator + Clone + 'd {
        let tree = self.tree;
        self.slice()
            .iter()
            .map(move |m| ValueRef::new(tree, m.value))
    }
    /// The index of member `key`.
    pub fn index_of(self, key: &str) -> Option<usize> {
        let tree = self.tree;
        self.slice()
            .iter()
            .position(|m| tree.is_key(m, key.as_bytes()))
    }
    /// The value of member `key` (looked up by binary search in large objects, by scan in small
    /// ones).
    pub fn get(self, key: &str) -> Option<ValueRef<'d>> {
        let tree = self.tree;
        if self.len() > super::build::LINEAR_MEMBERS {
            // Large objects also hold their members sorted by key, right after them.
            let start = self.start as usize + self.len();
            let sorted = tree.members.get(start..start + self.len()).unwrap_or(&[]);
            return sorted
                .binary_search_by(|m| tree.str_of(m.key).cmp(key))
                .ok()
                .map(|i| ValueRef::new(tree, sorted[i].value));
        }
        self.slice()
            .iter()
            .find(|m| tree.is_key(m, key.as_bytes()))
            .map(|m| ValueRef::new(tree, m.value))
    }
    /// Whether the object has a member `key`.
    pub fn contains_key(self, key: &str) -> bool {
        self.index_of(key).is_some()
    }
    /// The `index`-th member's value and stored key position.
    pub(crate) fn member_raw(self, index: usize) -> Option<(ValueRef<'d>, u32)> {
        let m = self.slice().get(index)?;
        Some((ValueRef::new(self.tree, m.value), m.key_pos))
    }

    /// The `index`-th member with its key's position.
    pub fn member(self, index: usize) -> Option<(&'d str, ValueRef<'d>, Position)> {
        let m = self.slice().get(index)?;
        Some((
            self.tree.str_of(m.key),
            ValueRef::new(self.tree, m.value),
            self.tree.position(m.key_pos),
        ))
    }
}

impl<'d> IntoIterator for ObjectRef<'d> {
    type Item = (&'d str, ValueRef<'d>);
    type IntoIter = Members<'d>;
    fn into_iter(self) -> Members<'d> {
        self.iter()
    }
}

// ---------------------------------------------------------------------------------------------
// Equality, as `serde_json::Value`'s: numbers by their representation, objects whatever the
// order of their members.

impl PartialEq for ValueRef<'_> {
    fn eq(&self, other: &ValueRef<'_>) -> bool {
        match (self.kind(), other.kind()) {
            (Kind::Null, Kind::Null) => true,
            (Kind::Bool(a), Kind::Bool(b)) => a == b,
            (Kind::Number(a), Kind::Number(b)) => a == b,
            (Kind::String(a), Kind::String(b)) => a == b,
            (Kind::Array(a), Kind::Array(b)) => {
                a.len == b.len && a.iter().zip(b.iter()).all(|(x, y)| x == y)
            }
            (Kind::Object(a), Kind::Object(b)) => {
                a.len == b.len && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| v == w))
            }
            _ => false,
        }
    }
}

impl PartialEq<Value> for ValueRef<'_> {
    fn eq(&self, other: &Value) -> bool {
        match (self.kind(), other) {
            (Kind::Null, Value::Null) => true,
            (Kind::Bool(a), Value::Bool(b)) => a == *b,
            (Kind::Number(a), Value::Number(b)) => a == b,
            (Kind::String(a), Value::String(b)) => a == b,
            (Kind::Array(a), Value::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == *y)
            }
            (Kind::Object(a), Value::Object(b)) => {
                a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| v == *w))
            }
            _ => false,
        }
    }
}

impl PartialEq<ValueRef<'_>> for Value {
    fn eq(&self, other: &ValueRef<'_>) -> bool {
        other == self
    }
}

impl PartialEq<str> for ValueRef<'_> {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for ValueRef<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

// ---------------------------------------------------------------------------------------------
// Serialization and display, as `serde_json::Value`'s.

impl serde::Serialize for ValueRef<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.kind() {
            Kind::Null => s.serialize_unit(),
            Kind::Bool(b) => s.serialize_bool(b),
            Kind::Number(n) => n.serialize(s),
            Kind::String(v) => s.serialize_str(v),
            Kind::Array(a) => {
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for item in a.iter() {
                    seq.serialize_element(&item)?;
                }
                seq.end()
            }
            Kind::Object(o) => {
                let mut map = s.serialize_map(Some(o.len()))?;
                for (k, v) in o.iter() {
                    map.serialize_entry(k, &v)?;
                }
                map.end()
            }
        }
    }
}

impl fmt::Display for ValueRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = if f.alternate() {
            serde_json::to_string_pretty(self)
        } else {
            serde_json::to_string(self)
        };
        f.write_str(&text.map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for ValueRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Debug for ArrayRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl fmt::Debug for ObjectRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}
