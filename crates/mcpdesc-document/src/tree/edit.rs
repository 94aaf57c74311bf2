//! Members added to the objects of a tree after it was read (a capture's annotations).

use super::build::LINEAR_MEMBERS;
use super::{to_u32, Member, NodeData, StrRef, Tag, Tree, DECODED_BIT, NO_POS};

/// A value to add to an object of a tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Added {
    /// A string.
    Str(String),
    /// A text known when the program was built (no allocation per use).
    Static(&'static str),
    /// `true` or `false`.
    Bool(bool),
    /// An array of the values.
    Array(Vec<Added>),
    /// A copy of node `id` of the same tree: a string is shared, not copied.
    Copy(u32),
}

/// Texts one batch of edits has stored: the keys and fixed texts that every edited object is
/// given are stored once, not once per object.
#[derive(Default)]
struct Stored<'k> {
    texts: Vec<(&'k str, StrRef)>,
}

impl Stored<'_> {
    /// Few distinct keys are added in a batch; past this many the rest are stored each time
    /// rather than searched for.
    const MAX: usize = 32;
}

impl Tree<'_> {
    /// Sets `members` of object `object` (a key it has is given the new value in place, the
    /// others follow its members in order). What is added has no position of its own: it
    /// takes the object's, and its keys have none, as members added to a value before it
    /// became a tree.
    pub(crate) fn add_members(&mut self, object: u32, members: Vec<(&str, Added)>) {
        self.add_members_each(vec![(object, members)]);
    }

    /// [`Tree::add_members`] for each object of `edits`, in order.
    pub(crate) fn add_members_each<'k>(
        &mut self,
        edits: impl IntoIterator<Item = (u32, Vec<(&'k str, Added)>)>,
    ) {
        self.generation = super::new_generation();
        let mut stored = Stored::default();
        for (object, new) in edits {
            self.set_members(object, new, &mut stored);
        }
    }

    fn set_members<'k>(
        &mut self,
        object: u32,
        members: Vec<(&'k str, Added)>,
        stored: &mut Stored<'k>,
    ) {
        let Some(node) = self.nodes.get(object as usize).copied() else {
            return;
        };
        if node.tag != Tag::Object {
            return;
        }
        let start = node.a as usize;
        let existing = self
            .members
            .get(start..start + node.b as usize)
            .unwrap_or(&[]);
        let mut all: Vec<Member> = Vec::with_capacity(existing.len() + members.len());
        all.extend_from_slice(existing);
        for (key, value) in members {
            let value = self.add_value(value, node.pos, stored);
            match all.iter_mut().find(|m| self.str_of(m.key) == key) {
                Some(m) => m.value = value,
                None => {
                    let key = self.store_str(key, stored);
                    all.push(Member {
                        key,
                        key_pos: NO_POS,
                        value,
                    });
                }
            }
        }
        let first = to_u32(self.members.len());
        let len = to_u32(all.len());
        if all.len() > LINEAR_MEMBERS {
            let mut sorted = all.clone();
            sorted.sort_by(|a, b| self.str_of(a.key).cmp(self.str_of(b.key)));
            all.extend(sorted);
        }
        self.members.extend(all);
        if let Some(n) = self.nodes.get_mut(object as usize) {
            n.a = first;
            n.b = len;
        }
    }

    /// `s`, stored once per batch.
    fn store_str<'k>(&mut self, s: &'k str, stored: &mut Stored<'k>) -> StrRef {
        if let Some((_, r)) = stored.texts.iter().find(|(t, _)| *t == s) {
            return *r;
        }
        let r = self.add_str(s);
        if stored.texts.len() < Stored::MAX {
            stored.texts.push((s, r));
        }
        r
    }

    fn add_str(&mut self, s: &str) -> StrRef {
        let start = to_u32(self.decoded.len());
        self.decoded.push_str(s);
        StrRef {
            start,
            len: to_u32(s.len()) | DECODED_BIT,
        }
    }

    fn add_node(&mut self, tag: Tag, a: u32, b: u32, pos: u32) -> u32 {
        self.nodes.push(NodeData { tag, pos, a, b });
        to_u32(self.nodes.len() - 1)
    }

    fn add_value(&mut self, value: Added, pos: u32, stored: &mut Stored<'_>) -> u32 {
        match value {
            Added::Str(s) => {
                let r = self.add_str(&s);
                self.add_string(r, pos)
            }
            Added::Static(s) => {
                let r = self.store_str(s, stored);
                self.add_string(r, pos)
            }
            Added::Bool(b) => self.add_node(if b { Tag::True } else { Tag::False }, 0, 0, pos),
            Added::Array(items) => {
                let ids: Vec<u32> = items
                    .into_iter()
                    .map(|item| self.add_value(item, pos, stored))
                    .collect();
                let first = to_u32(self.elements.len());
                self.elements.extend(&ids);
                self.add_node(Tag::Array, first, to_u32(ids.len()), pos)
            }
            Added::Copy(id) => self.copy(id, pos),
        }
    }

    fn add_string(&mut self, r: StrRef, pos: u32) -> u32 {
        self.add_node(Tag::DecodedStr, r.start, r.byte_len() as u32, pos)
    }

    /// A copy of node `id` and everything in it, placed at `pos`. Strings and numbers are
    /// shared with the original.
    fn copy(&mut self, id: u32, pos: u32) -> u32 {
        let Some(node) = self.nodes.get(id as usize).copied() else {
            return self.add_node(Tag::Null, 0, 0, pos);
        };
        match node.tag {
            Tag::Array => {
                let start = node.a as usize;
                let items: Vec<u32> = self
                    .elements
                    .get(start..start + node.b as usize)
                    .unwrap_or(&[])
                    .to_vec();
                let ids: Vec<u32> = items.into_iter().map(|i| self.copy(i, pos)).collect();
                let first = to_u32(self.elements.len());
                self.elements.extend(&ids);
                self.add_node(Tag::Array, first, to_u32(ids.len()), pos)
            }
            Tag::Object => {
                let start = node.a as usize;
                let len = node.b as usize;
                // Large objects keep a sorted copy of their members after them.
                let stored = if len > LINEAR_MEMBERS { 2 * len } else { len };
                let members: Vec<Member> = self
                    .members
                    .get(start..start + stored)
                    .unwrap_or(&[])
                    .to_vec();
                let mut copied: Vec<Member> = Vec::with_capacity(members.len());
                for m in members.iter().take(len) {
                    let value = self.copy(m.value, pos);
                    copied.push(Member {
                        key: m.key,
                        key_pos: NO_POS,
                        value,
                    });
                }
                if stored > len {
                    let to: std::collections::HashMap<u32, u32> = members
                        .iter()
                        .zip(&copied)
                        .map(|(from, to)| (from.value, to.value))
                        .collect();
                    for m in members.iter().skip(len) {
                        copied.push(Member {
                            key: m.key,
                            key_pos: NO_POS,
                            value: to.get(&m.value).copied().unwrap_or(m.value),
                        });
                    }
                }
                let first = to_u32(self.members.len());
                self.members.extend(copied);
                self.add_node(Tag::Object, first, to_u32(len), pos)
            }
            tag => self.add_node(tag, node.a, node.b, pos),
        }
    }
}
