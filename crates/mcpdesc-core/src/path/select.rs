//! Evaluation of compiled steps over a document tree, depth first.
//!
//! Each selected node is handed on as soon as it is reached, together with its location in a
//! single buffer that every step extends and then truncates back, so a traversal allocates
//! nothing per node. Applying the steps depth first (the rest of the query on each node a
//! step selects, before the step's next node) yields exactly RFC 9535's nodelist order.
//!
//! Callbacks return `true` to stop the traversal; so do the functions here, when stopped.

use crate::document::{pointer, Kind, ValueRef};

use super::filter::Scope;
use super::steps::{Selector, Slice, Step};

/// Where the traversal is: an RFC 6901 JSON Pointer, or nothing when no one reads it.
pub(crate) trait Trail {
    fn mark(&self) -> usize;
    fn push_name(&mut self, name: &str);
    fn push_index(&mut self, index: usize);
    fn reset(&mut self, mark: usize);
}

impl Trail for String {
    #[inline]
    fn mark(&self) -> usize {
        self.len()
    }
    #[inline]
    fn push_name(&mut self, name: &str) {
        pointer::push_token(self, name);
    }
    #[inline]
    fn push_index(&mut self, index: usize) {
        pointer::push_index(self, index);
    }
    #[inline]
    fn reset(&mut self, mark: usize) {
        self.truncate(mark);
    }
}

/// No location: for filters, existence tests and callers that want values only.
pub(crate) struct NoTrail;

impl Trail for NoTrail {
    #[inline]
    fn mark(&self) -> usize {
        0
    }
    #[inline]
    fn push_name(&mut self, _: &str) {}
    #[inline]
    fn push_index(&mut self, _: usize) {}
    #[inline]
    fn reset(&mut self, _: usize) {}
}

/// Called with each selected node; returns `true` to stop.
pub(crate) type Found<'f, 'd, T> = dyn FnMut(&mut T, ValueRef<'d>) -> bool + 'f;

/// Applies `steps` to `node`, calling `found` with each selected node in RFC 9535 order.
/// `scope` holds what `$` means inside filters.
pub(crate) fn walk<'d, T: Trail>(
    steps: &[Step],
    node: ValueRef<'d>,
    scope: &Scope<'d>,
    at: &mut T,
    found: &mut Found<'_, 'd, T>,
) -> bool {
    let Some((step, rest)) = steps.split_first() else {
        return found(at, node);
    };
    if rest.is_empty() {
        return apply(step, node, scope, at, found);
    }
    // Names and indices select at most one node: followed without a callback in between.
    match step {
        Step::Child(Selector::Name(name)) => {
            let Some(child) = node.get(name) else {
                return false;
            };
            let mark = at.mark();
            at.push_name(name);
            let stopped = walk(rest, child, scope, at, found);
            at.reset(mark);
            stopped
        }
        Step::Child(Selector::Index(index)) => {
            let Some((i, child)) = element(node, *index) else {
                return false;
            };
            let mark = at.mark();
            at.push_index(i);
            let stopped = walk(rest, child, scope, at, found);
            at.reset(mark);
            stopped
        }
        _ => apply(step, node, scope, at, &mut |at, child| {
            walk(rest, child, scope, at, found)
        }),
    }
}

/// Applies one step to `node`.
pub(crate) fn apply<'d, T: Trail>(
    step: &Step,
    node: ValueRef<'d>,
    scope: &Scope<'d>,
    at: &mut T,
    found: &mut Found<'_, 'd, T>,
) -> bool {
    match step {
        Step::Child(selector) => select(selector, node, scope, at, found),
        Step::Children(selectors) => selectors
            .iter()
            .any(|selector| select(selector, node, scope, at, found)),
        Step::Descendant(selectors) => descend(selectors, node, scope, at, found),
    }
}

/// The selectors of a descendant segment on `node`, then on each of its descendants.
fn descend<'d, T: Trail>(
    selectors: &[Selector],
    node: ValueRef<'d>,
    scope: &Scope<'d>,
    at: &mut T,
    found: &mut Found<'_, 'd, T>,
) -> bool {
    if selectors
        .iter()
        .any(|selector| select(selector, node, scope, at, found))
    {
        return true;
    }
    let mark = at.mark();
    match node.kind() {
        Kind::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                at.push_index(i);
                let stopped = descend(selectors, child, scope, at, found);
                at.reset(mark);
                if stopped {
                    return true;
                }
            }
        }
        Kind::Object(members) => {
            for (key, child) in members.iter() {
                at.push_name(key);
                let stopped = descend(selectors, child, scope, at, found);
                at.reset(mark);
                if stopped {
                    return true;
                }
            }
        }
        _ => {}
    }
    false
}

/// The children of `node` one selector selects.
fn select<'d, T: Trail>(
    selector: &Selector,
    node: ValueRef<'d>,
    scope: &Scope<'d>,
    at: &mut T,
    found: &mut Found<'_, 'd, T>,
) -> bool {
    let mark = at.mark();
    match selector {
        Selector::Name(name) => {
            let Some(child) = node.get(name) else {
                return false;
            };
            at.push_name(name);
            let stopped = found(at, child);
            at.reset(mark);
            stopped
        }
        Selector::Index(index) => {
            let Some((i, child)) = element(node, *index) else {
                return false;
            };
            at.push_index(i);
            let stopped = found(at, child);
            at.reset(mark);
            stopped
        }
        Selector::Slice(slice) => {
            let Some(items) = node.as_array() else {
                return false;
            };
            for i in slice.indices(items.len()) {
                let Some(child) = items.get(i) else {
                    continue;
                };
                at.push_index(i);
                let stopped = found(at, child);
                at.reset(mark);
                if stopped {
                    return true;
                }
            }
            false
        }
        Selector::Wildcard | Selector::Filter(_) => {
            let keep = |child: ValueRef<'d>| match selector {
                Selector::Filter(filter) => filter.holds(child, scope),
                _ => true,
            };
            match node.kind() {
                Kind::Array(items) => {
                    for (i, child) in items.iter().enumerate() {
                        if keep(child) {
                            at.push_index(i);
                            let stopped = found(at, child);
                            at.reset(mark);
                            if stopped {
                                return true;
                            }
                        }
                    }
                }
                Kind::Object(members) => {
                    for (key, child) in members.iter() {
                        if keep(child) {
                            at.push_name(key);
                            let stopped = found(at, child);
                            at.reset(mark);
                            if stopped {
                                return true;
                            }
                        }
                    }
                }
                _ => {}
            }
            false
        }
    }
}

/// The element an index selector denotes (negative counts from the end), with its position.
fn element(node: ValueRef<'_>, index: i64) -> Option<(usize, ValueRef<'_>)> {
    let items = node.as_array()?;
    let len = items.len();
    let i = if index < 0 {
        len.checked_sub(usize::try_from(index.unsigned_abs()).ok()?)?
    } else {
        usize::try_from(index).ok()?
    };
    Some((i, items.get(i)?))
}

impl Slice {
    /// The positions the slice selects in an array of `len` elements, in order (RFC 9535,
    /// section 2.3.4.2.2).
    pub(crate) fn indices(self, len: usize) -> impl Iterator<Item = usize> {
        // i128: bounds are within ±(2^53 - 1) and lengths within usize, so nothing overflows.
        let len = len as i128;
        let step = i128::from(self.step);
        let normalize = |i: i64| {
            let i = i128::from(i);
            if i >= 0 {
                i
            } else {
                len + i
            }
        };
        let (mut i, stop) = if step >= 0 {
            let start = self.start.map_or(0, normalize).clamp(0, len);
            let end = self.end.map_or(len, normalize).clamp(0, len);
            (start, end)
        } else {
            let start = self.start.map_or(len - 1, normalize).clamp(-1, len - 1);
            let end = self.end.map_or(-1, normalize).clamp(-1, len - 1);
            (start, end)
        };
        std::iter::from_fn(move || {
            let next = match step {
                0 => return None,
                s if s > 0 && i < stop => i,
                s if s < 0 && i > stop => i,
                _ => return None,
            };
            i += step;
            usize::try_from(next).ok()
        })
    }
}
