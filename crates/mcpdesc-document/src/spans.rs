use serde::Serialize;
use serde_json::Value;

use super::pointer;

/// A 1-based line and column (columns count Unicode scalar values).
///
/// Line 0 means "unknown", as for documents built from an already-decoded value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
pub struct Position {
    /// Line number, from 1 (0 when the position is unknown).
    pub line: u32,
    /// Column number, from 1, in Unicode scalar values (0 when the position is unknown).
    pub column: u32,
}

impl Position {
    /// The first character of a document: line 1, column 1.
    pub const START: Position = Position { line: 1, column: 1 };
    /// No position: line 0, column 0, as reported for nodes of an already-decoded value.
    pub const UNKNOWN: Position = Position { line: 0, column: 0 };

    /// The position at `line` and `column`, both 1-based (0 for unknown).
    pub fn new(line: u32, column: u32) -> Position {
        Position { line, column }
    }

    /// The position of byte `offset` in `bytes` (which may hold invalid UTF-8 past `offset`).
    pub fn of_byte_offset(bytes: &[u8], offset: usize) -> Position {
        let before = &bytes[..offset.min(bytes.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count() as u32
            + 1;
        Position { line, column }
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct SpanNode {
    pub(crate) value: Position,
    /// Position of the member's key when the node is an object member.
    pub(crate) key: Position,
    pub(crate) first_child: u32,
    pub(crate) child_count: u32,
}

/// Source positions of every node of a value, in a flat array parallel to the value tree.
///
/// Children are stored in the order of the value's arrays and objects (objects keep source
/// order, and duplicate keys are refused on load), so the i-th member of an object has the
/// i-th child span.
#[derive(Debug, Clone, Default)]
pub struct SpanTree {
    pub(crate) nodes: Vec<SpanNode>,
    pub(crate) children: Vec<u32>,
}

/// Identifies a node while a [`SpanTree`] is being built.
pub(crate) type NodeId = u32;

/// Builds a [`SpanTree`] bottom-up while a parser descends.
#[derive(Debug, Default)]
pub struct SpanTreeBuilder {
    tree: SpanTree,
}

impl SpanTreeBuilder {
    /// A builder holding no node yet.
    pub fn new() -> SpanTreeBuilder {
        SpanTreeBuilder::default()
    }

    /// Records a node starting at `value`; `key` is its member key's position, or
    /// [`Position::UNKNOWN`] for array elements and the root.
    pub fn node(&mut self, value: Position, key: Position) -> NodeId {
        let id = self.tree.nodes.len() as u32;
        self.tree.nodes.push(SpanNode {
            value,
            key,
            first_child: 0,
            child_count: 0,
        });
        id
    }

    /// Sets the children of container `id`, in value order.
    pub fn set_children(&mut self, id: NodeId, children: &[NodeId]) {
        let first = self.tree.children.len() as u32;
        self.tree.children.extend_from_slice(children);
        let node = &mut self.tree.nodes[id as usize];
        node.first_child = first;
        node.child_count = children.len() as u32;
    }

    /// A builder with room for `nodes` nodes, for callers that know about how many to expect.
    pub fn with_capacity(nodes: usize) -> SpanTreeBuilder {
        SpanTreeBuilder {
            tree: SpanTree {
                nodes: Vec::with_capacity(nodes),
                children: Vec::with_capacity(nodes),
            },
        }
    }

    /// Copies node `node` of `tree` and everything below it into this tree, `line_offset`
    /// lines further down, and returns the id of the copy of `node`. Its key position is `key`
    /// unless `tree` knows one.
    pub fn graft(
        &mut self,
        tree: &SpanTree,
        node: NodeId,
        line_offset: u32,
        key: Position,
    ) -> NodeId {
        let shift = |p: Position| {
            if p.line == 0 {
                p
            } else {
                Position::new(p.line + line_offset, p.column)
            }
        };
        let copy = |n: &SpanNode| SpanNode {
            value: shift(n.value),
            key: shift(n.key),
            first_child: 0,
            child_count: 0,
        };
        let Some(source) = tree.nodes.get(node as usize) else {
            return self.node(key, key);
        };
        let root = self.tree.nodes.len() as NodeId;
        let mut first = copy(source);
        if first.key.line == 0 {
            first.key = key;
        }
        self.tree.nodes.push(first);
        // Breadth-first, so the children of each node are contiguous in the copy.
        let mut queue = std::collections::VecDeque::from([(node, root)]);
        while let Some((old, new)) = queue.pop_front() {
            let count = tree.nodes[old as usize].child_count;
            let start = self.tree.children.len() as u32;
            for i in 0..count as usize {
                let Some(child) = tree.child(old, i) else {
                    continue;
                };
                let id = self.tree.nodes.len() as NodeId;
                self.tree.nodes.push(copy(&tree.nodes[child as usize]));
                self.tree.children.push(id);
                queue.push_back((child, id));
            }
            let n = &mut self.tree.nodes[new as usize];
            n.first_child = start;
            n.child_count = self.tree.children.len() as u32 - start;
        }
        root
    }

    /// Finishes the tree; `root` is the id of the root node.
    pub fn finish(mut self, root: NodeId) -> SpanTree {
        // The arrays grew by doubling; a large document's spans are kept as long as it is.
        self.tree.nodes.shrink_to_fit();
        self.tree.children.shrink_to_fit();
        if root != 0 && !self.tree.nodes.is_empty() {
            // The root must be node 0 for lookups; parsers that record it last are swapped.
            self.tree.nodes.swap(0, root as usize);
            for c in &mut self.tree.children {
                if *c == root {
                    *c = 0;
                } else if *c == 0 {
                    *c = root;
                }
            }
        }
        self.tree
    }
}

impl SpanTree {
    /// A tree that knows no positions.
    pub fn unknown() -> SpanTree {
        SpanTree::default()
    }

    /// Number of nodes recorded.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether no node is recorded (as for a tree of unknown positions).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The id of the `index`-th child of node `node` (the root is node 0).
    pub fn child_of(&self, node: u32, index: usize) -> Option<u32> {
        self.child(node, index)
    }

    /// The value position of node `node`.
    pub fn node_position(&self, node: u32) -> Position {
        self.nodes
            .get(node as usize)
            .map_or(Position::UNKNOWN, |n| n.value)
    }

    /// The key position of node `node` ([`Position::UNKNOWN`] unless it is an object member).
    pub fn key_of(&self, node: u32) -> Position {
        self.nodes
            .get(node as usize)
            .map_or(Position::UNKNOWN, |n| n.key)
    }

    fn child(&self, node: u32, index: usize) -> Option<u32> {
        let n = self.nodes.get(node as usize)?;
        if index >= n.child_count as usize {
            return None;
        }
        self.children.get(n.first_child as usize + index).copied()
    }

    /// Position of the node at `pointer` in `value` (see [`super::ValueDocument::position`]).
    pub fn position(&self, value: &Value, ptr: &str) -> Position {
        self.locate(value, ptr).0
    }

    /// Position of the key of the member at `pointer`, or of its value when it has no key.
    pub fn key_position(&self, value: &Value, ptr: &str) -> Position {
        let (value_pos, key_pos, exact) = self.locate(value, ptr);
        if exact && key_pos.line != 0 {
            key_pos
        } else {
            value_pos
        }
    }

    /// The value and key positions of the node at `pointer`, when it resolves (the key is
    /// [`Position::UNKNOWN`] for array elements and the root).
    pub fn node_positions(&self, value: &Value, ptr: &str) -> Option<(Position, Position)> {
        let (value_pos, key_pos, exact) = self.locate(value, ptr);
        (exact && value_pos.line != 0).then_some((value_pos, key_pos))
    }

    /// The pointer of the innermost node whose text starts at or before `pos`: descending
    /// from the root, the last child (by its key, or its value when it has none) that starts
    /// no later than `pos`. Editors ask this of a cursor position.
    pub fn pointer_at(&self, value: &Value, pos: Position) -> String {
        let mut out = String::new();
        let mut node_id = 0u32;
        let mut value = value;
        if self.nodes.is_empty() {
            return out;
        }
        loop {
            let count = match value {
                Value::Object(map) => map.len(),
                Value::Array(items) => items.len(),
                _ => return out,
            };
            let start = |child: u32| {
                let n = &self.nodes[child as usize];
                if n.key.line != 0 {
                    n.key
                } else {
                    n.value
                }
            };
            let mut chosen = None;
            for index in 0..count {
                let Some(child) = self.child(node_id, index) else {
                    break;
                };
                if start(child) <= pos {
                    chosen = Some((index, child));
                } else {
                    break;
                }
            }
            let Some((index, child)) = chosen else {
                return out;
            };
            match value {
                Value::Object(map) => {
                    let Some((k, v)) = map.iter().nth(index) else {
                        return out;
                    };
                    pointer::push_token(&mut out, k);
                    value = v;
                }
                Value::Array(items) => {
                    pointer::push_index(&mut out, index);
                    value = &items[index];
                }
                _ => return out,
            }
            node_id = child;
        }
    }

    fn locate(&self, value: &Value, ptr: &str) -> (Position, Position, bool) {
        let Some(root) = self.nodes.first() else {
            return (Position::UNKNOWN, Position::UNKNOWN, false);
        };
        let mut node_id = 0u32;
        let mut current = root;
        let mut value = value;
        for token in pointer::tokens(ptr) {
            let index = match value {
                Value::Object(map) => map.keys().position(|k| *k == *token),
                Value::Array(items) => token.parse::<usize>().ok().filter(|&i| i < items.len()),
                _ => None,
            };
            let Some(index) = index else {
                return (current.value, current.key, false);
            };
            let Some(child) = self.child(node_id, index) else {
                return (current.value, current.key, false);
            };
            value = match value {
                Value::Object(map) => map.values().nth(index).unwrap_or(value),
                Value::Array(items) => &items[index],
                _ => value,
            };
            node_id = child;
            current = &self.nodes[child as usize];
        }
        (current.value, current.key, true)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Format, Limits, Position, ValueDocument as Document};

    fn doc(src: &str, format: Format) -> Document {
        Document::parse_str(src, format, &Limits::default()).unwrap()
    }

    #[test]
    fn the_node_under_a_cursor() {
        let src = "{\n  \"a\": {\"b\": [10, 20]},\n  \"c\": \"x\"\n}\n";
        let d = doc(src, Format::Json);
        let at = |line, column| d.pointer_at(Position::new(line, column));
        assert_eq!(at(1, 1), "");
        assert_eq!(at(2, 4), "/a");
        assert_eq!(at(2, 11), "/a/b");
        assert_eq!(at(2, 19), "/a/b/1");
        assert_eq!(at(3, 9), "/c");
        let src = "a:\n  b:\n    - 10\n    - 20\nc: x\n";
        let d = doc(src, Format::Yaml);
        let at = |line, column| d.pointer_at(Position::new(line, column));
        assert_eq!(at(2, 3), "/a/b");
        assert_eq!(at(4, 8), "/a/b/1");
        assert_eq!(at(5, 1), "/c");
    }

    #[test]
    fn positions_of_keys_and_values() {
        let d = doc("{\"a\": [1, {\"k\": 2}]}", Format::Json);
        assert_eq!(
            d.node_positions("/a/1/k"),
            Some((Position::new(1, 17), Position::new(1, 12)))
        );
        assert_eq!(
            d.node_positions("/a/0"),
            Some((Position::new(1, 8), Position::UNKNOWN))
        );
        assert_eq!(d.node_positions("/a/2"), None);
    }
}
