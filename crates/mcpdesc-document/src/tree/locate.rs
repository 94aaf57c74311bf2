//! From pointers to positions, and from positions to pointers.

use super::{Kind, Tree, ValueRef, NO_POS};
use crate::{pointer, Position};

impl Tree<'_> {
    /// The value and key positions of the node at `ptr`, and whether it resolves; when it does
    /// not, those of the deepest node that does.
    pub(crate) fn locate(&self, ptr: &str) -> (Position, Position, bool) {
        let mut current = self.root();
        let mut key_pos = NO_POS;
        if !self.has_positions() {
            return (Position::UNKNOWN, Position::UNKNOWN, false);
        }
        for token in pointer::tokens(ptr) {
            let next = match current.kind() {
                Kind::Object(o) => o.index_of(&token).and_then(|i| o.member_raw(i)),
                // Read as positions always were: any decimal the integer parser takes.
                Kind::Array(a) => token
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| a.get(i))
                    .map(|v| (v, NO_POS)),
                _ => None,
            };
            let Some((value, key)) = next else {
                return (current.position(), self.position(key_pos), false);
            };
            current = value;
            key_pos = key;
        }
        (current.position(), self.position(key_pos), true)
    }

    /// See [`crate::Document::pointer_at`].
    pub(crate) fn pointer_at(&self, pos: Position) -> String {
        let mut out = String::new();
        if !self.has_positions() {
            return out;
        }
        let mut value: ValueRef<'_> = self.root();
        loop {
            let mut chosen = None;
            match value.kind() {
                Kind::Object(o) => {
                    for i in 0..o.len() {
                        let Some((v, key)) = o.member_raw(i) else {
                            break;
                        };
                        let start = if key != NO_POS {
                            self.position(key)
                        } else {
                            v.position()
                        };
                        if start <= pos {
                            chosen = Some((i, v));
                        } else {
                            break;
                        }
                    }
                    let Some((i, v)) = chosen else { return out };
                    if let Some((k, _, _)) = o.member(i) {
                        pointer::push_token(&mut out, k);
                    }
                    value = v;
                }
                Kind::Array(a) => {
                    for (i, v) in a.iter().enumerate() {
                        let start = v.position();
                        if start <= pos {
                            chosen = Some((i, v));
                        } else {
                            break;
                        }
                    }
                    let Some((i, v)) = chosen else { return out };
                    pointer::push_index(&mut out, i);
                    value = v;
                }
                _ => return out,
            }
        }
    }
}
