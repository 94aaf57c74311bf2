//! Paths relative to the node a rule inspects.
//!
//! A relative path is a JSONPath whose first character says where it starts:
//! `$` at the document root, `@` at the node itself, and each leading `^` one level up
//! (`^` is the node's parent, `^^` its grandparent). Anything else is a member name of the
//! node itself, so `mode` means `@['mode']`.

use std::cell::RefCell;

use crate::document::{pointer, Kind, ValueRef};
use crate::path::{JsonPath, PathError};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    Root,
    Up(u32),
}

/// A compiled relative path.
#[derive(Debug, Clone)]
pub struct RelPath {
    text: String,
    base: Base,
    query: JsonPath,
}

/// One node a relative path selected.
#[derive(Debug, Clone)]
pub struct Hit<'a> {
    /// The node's JSON Pointer in the document.
    pub pointer: String,
    /// The node's value.
    pub value: ValueRef<'a>,
}

impl RelPath {
    /// Compiles a relative path as a rule file writes it: `$…`, `@…`, `^…`, or a member name.
    pub fn compile(text: &str) -> Result<RelPath, PathError> {
        let (base, rest) = if let Some(rest) = text.strip_prefix('$') {
            (Base::Root, rest.to_owned())
        } else if let Some(rest) = text.strip_prefix('@') {
            (Base::Up(0), rest.to_owned())
        } else if text.starts_with('^') {
            let ups = text.chars().take_while(|&c| c == '^').count();
            (Base::Up(ups as u32), text[ups..].to_owned())
        } else {
            let quoted = text.replace('\\', "\\\\").replace('\'', "\\'");
            (Base::Up(0), format!("['{quoted}']"))
        };
        let query = JsonPath::compile(&format!("${rest}")).map_err(|mut e| {
            e.path = text.to_owned();
            e
        })?;
        Ok(RelPath {
            text: text.to_owned(),
            base,
            query,
        })
    }

    /// Whether the path starts at the document root, so that it selects the same nodes from
    /// every node.
    pub fn is_absolute(&self) -> bool {
        matches!(self.base, Base::Root)
    }

    /// The path as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// How many levels up the path starts (its leading `^`s); 0 when it starts at the node
    /// or at the root.
    pub fn climb(&self) -> u32 {
        match self.base {
            Base::Root => 0,
            Base::Up(n) => n,
        }
    }

    /// The depth of the nodes the path selects from a node at depth `node` (the root is at
    /// 0): `None` when the path climbs above the root, or when its nodes are at any depth
    /// (a descendant segment).
    pub fn depth_from(&self, node: usize) -> Option<usize> {
        let start = match self.base {
            Base::Root => 0,
            Base::Up(n) => node.checked_sub(n as usize)?,
        };
        Some(start + self.query.depth()?)
    }

    /// The pointer this path starts from, for the node at `node`; `None` above the root.
    fn base_pointer<'p>(&self, node: &'p str) -> Option<&'p str> {
        match self.base {
            Base::Root => Some(""),
            Base::Up(n) => {
                let mut p = node;
                for _ in 0..n {
                    p = pointer::parent(p)?;
                }
                Some(p)
            }
        }
    }

    /// Every node selected from the node at pointer `node` of document `root`.
    pub fn select<'a>(&self, root: ValueRef<'a>, node: &str) -> Vec<Hit<'a>> {
        self.select_in(root, node, None)
    }

    /// [`RelPath::select`] when the caller has the node's value at hand, which spares
    /// resolving `node` for paths that start at the node itself.
    pub fn select_from<'a>(
        &self,
        root: ValueRef<'a>,
        node: &str,
        value: ValueRef<'a>,
    ) -> Vec<Hit<'a>> {
        self.select_in(root, node, Some(value))
    }

    /// The values [`RelPath::select`] selects, without building their pointers.
    pub fn values<'a>(&self, root: ValueRef<'a>, node: &str) -> Vec<ValueRef<'a>> {
        self.values_in(root, node, None)
    }

    /// [`RelPath::values`] with the node's value at hand (see [`RelPath::select_from`]).
    pub fn values_from<'a>(
        &self,
        root: ValueRef<'a>,
        node: &str,
        value: ValueRef<'a>,
    ) -> Vec<ValueRef<'a>> {
        self.values_in(root, node, Some(value))
    }

    /// The first value [`RelPath::values_from`] would give, without collecting the others.
    pub fn first_value_from<'a>(
        &self,
        root: ValueRef<'a>,
        node: &str,
        value: ValueRef<'a>,
    ) -> Option<ValueRef<'a>> {
        let mut first = None;
        self.test_values(root, node, Some(value), &mut |v| {
            first = Some(v);
            true
        });
        first
    }

    /// Calls `f` with the pointer and value of each node [`RelPath::select_from`] selects, in
    /// order, without collecting them.
    pub fn for_each_from<'a>(
        &self,
        root: ValueRef<'a>,
        node: &str,
        value: ValueRef<'a>,
        f: &mut dyn FnMut(&str, ValueRef<'a>),
    ) {
        let Some((base, start)) = self.start(root, node, Some(value)) else {
            return;
        };
        match self.query.singular_tokens() {
            Some(tokens) => {
                if let Some(value) = singular(start, tokens) {
                    let mut ptr = pointer::buffer(base);
                    for t in tokens {
                        pointer::push_token(&mut ptr, t);
                    }
                    f(&ptr, value);
                }
            }
            None => self.query.for_each_below(start, base, f),
        }
    }

    /// Tests the values the path selects from the node at `node` (whose value is `value`, when
    /// known) with `f`, in order, stopping at the first that passes: `None` when the path
    /// selects nothing, else whether one passed.
    pub fn test_values<'a>(
        &self,
        root: ValueRef<'a>,
        node: &str,
        value: Option<ValueRef<'a>>,
        f: &mut dyn FnMut(ValueRef<'a>) -> bool,
    ) -> Option<bool> {
        let (_, start) = self.start(root, node, value)?;
        match self.query.singular_tokens() {
            Some(tokens) => singular(start, tokens).map(f),
            None => {
                let mut any = false;
                let passed = self.query.any_value(start, &mut |v| {
                    any = true;
                    f(v)
                });
                any.then_some(passed)
            }
        }
    }

    /// Where the path starts for the node at `node`: the base pointer and its value.
    fn start<'a, 'p>(
        &self,
        root: ValueRef<'a>,
        node: &'p str,
        value: Option<ValueRef<'a>>,
    ) -> Option<(&'p str, ValueRef<'a>)> {
        let base = self.base_pointer(node)?;
        let start = match (self.base, value) {
            (Base::Up(0), Some(v)) => v,
            _ => resolve(root, base)?,
        };
        Some((base, start))
    }

    fn select_in<'a>(
        &self,
        root: ValueRef<'a>,
        node: &str,
        value: Option<ValueRef<'a>>,
    ) -> Vec<Hit<'a>> {
        let Some((base, start)) = self.start(root, node, value) else {
            return Vec::new();
        };
        if let Some(tokens) = self.query.singular_tokens() {
            let Some(value) = singular(start, tokens) else {
                return Vec::new();
            };
            let mut ptr = pointer::buffer(base);
            for t in tokens {
                pointer::push_token(&mut ptr, t);
            }
            return vec![Hit {
                pointer: ptr,
                value,
            }];
        }
        self.query
            .select_below(start, base)
            .into_iter()
            .map(|s| Hit {
                pointer: s.pointer,
                value: s.value,
            })
            .collect()
    }

    fn values_in<'a>(
        &self,
        root: ValueRef<'a>,
        node: &str,
        value: Option<ValueRef<'a>>,
    ) -> Vec<ValueRef<'a>> {
        let Some((_, start)) = self.start(root, node, value) else {
            return Vec::new();
        };
        match self.query.singular_tokens() {
            Some(tokens) => singular(start, tokens).into_iter().collect(),
            None => self.query.select_values(start),
        }
    }

    /// The first selected node, if any.
    pub fn first<'a>(&self, root: ValueRef<'a>, node: &str) -> Option<Hit<'a>> {
        self.select(root, node).into_iter().next()
    }
}

/// Follows `tokens` from `start` (a token is an array index when the node is an array).
fn singular<'a>(start: ValueRef<'a>, tokens: &[String]) -> Option<ValueRef<'a>> {
    let mut value = start;
    for t in tokens {
        value = match value.kind() {
            Kind::Object(m) => m.get(t)?,
            Kind::Array(a) => t.parse::<usize>().ok().and_then(|i| a.get(i))?,
            _ => return None,
        };
    }
    Some(value)
}

/// How many resolved start nodes each thread remembers.
const REMEMBERED: usize = 16;

/// Start nodes resolved recently on this thread, all in one tree (by generation) from one
/// root: (pointer, node id). The rules at one node, and at its siblings, start from the same
/// parent or grandparent over and over, and resolving a pointer from the root walks every
/// level of it: remembering them saves 4 % of the instructions of validating a large
/// document.
#[derive(Default)]
struct Resolved {
    tree: (u64, u32),
    entries: Vec<(String, u32)>,
    next: usize,
}

thread_local! {
    static RESOLVED: RefCell<Resolved> = RefCell::new(Resolved::default());
}

/// The node `ptr` names from `root`, remembered by tree generation, so a hit is the node a
/// fresh resolution would find.
fn resolve<'a>(root: ValueRef<'a>, ptr: &str) -> Option<ValueRef<'a>> {
    if ptr.is_empty() {
        return Some(root);
    }
    RESOLVED.with_borrow_mut(|r| {
        let tree = (root.generation(), root.id());
        if r.tree != tree {
            r.tree = tree;
            r.entries.clear();
            r.next = 0;
        }
        // Pointers met together mostly differ in their last token (siblings, consecutive
        // entries), so they are compared from the end.
        let same = |p: &String| {
            p.len() == ptr.len() && p.bytes().rev().zip(ptr.bytes().rev()).all(|(a, b)| a == b)
        };
        if let Some((_, id)) = r.entries.iter().find(|(p, _)| same(p)) {
            return Some(root.node_with_id(*id));
        }
        let node = root.pointer(ptr)?;
        if r.entries.len() < REMEMBERED {
            r.entries.push((ptr.to_owned(), node.id()));
        } else {
            // The oldest entry's buffer takes the new pointer.
            let at = r.next;
            let entry = &mut r.entries[at];
            entry.0.clear();
            entry.0.push_str(ptr);
            entry.1 = node.id();
        }
        r.next = (r.next + 1) % REMEMBERED;
        Some(node)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn remembered_starts_are_those_of_the_tree_as_it_is_now() {
        use crate::document::{Added, Document};
        let r_of_parent = |doc: &Document<'_>| {
            let p = RelPath::compile("^.r").unwrap();
            p.first(doc.root(), "/p/q").map(|h| h.value.to_value())
        };
        let text = br#"{"p": {"q": 1, "r": "A"}, "o": {"q": 1, "r": "B"}}"#;
        let mut doc = Document::parse(text, crate::Format::Json, &Default::default()).unwrap();
        assert_eq!(r_of_parent(&doc), Some(json!("A")));
        assert_eq!(r_of_parent(&doc), Some(json!("A")));
        // `/p` now names another node.
        let other = doc.root().get("o").unwrap().id();
        let root = doc.root().id();
        doc.add_members(root, vec![("p", Added::Copy(other))]);
        assert_eq!(r_of_parent(&doc), Some(json!("B")));
        drop(doc);
        // Each tree its own, whatever its address.
        for letter in ["C", "D"] {
            let text = format!(r#"{{"p": {{"q": 1, "r": "{letter}"}}}}"#);
            let doc =
                Document::parse(text.as_bytes(), crate::Format::Json, &Default::default()).unwrap();
            assert_eq!(r_of_parent(&doc), Some(json!(letter)));
        }
    }

    #[test]
    fn bases() {
        let tree = crate::document::Tree::from_value(
            &json!({"a": {"b": [{"c": 1}, {"c": 2}], "x-y": true}}),
        );
        let doc = tree.root();
        let p = RelPath::compile("^^['x-y']").unwrap();
        let hits = p.select(doc, "/a/b/1");
        assert_eq!(hits[0].pointer, "/a/x-y");
        let p = RelPath::compile("c").unwrap();
        assert_eq!(p.first(doc, "/a/b/1").unwrap().value, json!(2));
        let p = RelPath::compile("$.a.b[*].c").unwrap();
        let ptrs: Vec<_> = p.select(doc, "/a").into_iter().map(|h| h.pointer).collect();
        assert_eq!(ptrs, vec!["/a/b/0/c", "/a/b/1/c"]);
        let p = RelPath::compile("^^^^").unwrap();
        assert!(p.select(doc, "/a/b/1").is_empty());
        let p = RelPath::compile("@").unwrap();
        assert_eq!(p.first(doc, "/a/b/0").unwrap().pointer, "/a/b/0");
        for (path, node) in [
            ("^^['x-y']", "/a/b/1"),
            ("c", "/a/b/1"),
            ("$.a.b[*].c", "/a"),
            ("^[?@.c > 1].c", "/a/b/0"),
            ("^^^^", "/a/b/1"),
            ("@..c", "/a"),
        ] {
            let p = RelPath::compile(path).unwrap();
            let hits = p.select(doc, node);
            let values: Vec<_> = hits.iter().map(|h| h.value).collect();
            assert_eq!(p.values(doc, node), values, "{path}");
            let at = doc.pointer(node).unwrap();
            assert_eq!(p.values_from(doc, node, at), values, "{path}");
            assert_eq!(
                p.first_value_from(doc, node, at),
                values.first().copied(),
                "{path}"
            );
            let from: Vec<_> = p.select_from(doc, node, at);
            assert_eq!(
                from.iter().map(|h| &h.pointer).collect::<Vec<_>>(),
                hits.iter().map(|h| &h.pointer).collect::<Vec<_>>(),
                "{path}"
            );
            let mut each = Vec::new();
            p.for_each_from(doc, node, at, &mut |ptr, v| each.push((ptr.to_owned(), v)));
            assert_eq!(
                each,
                hits.iter()
                    .map(|h| (h.pointer.clone(), h.value))
                    .collect::<Vec<_>>(),
                "{path}"
            );
            let want = if values.is_empty() {
                None
            } else {
                Some(values.iter().any(|v| *v == json!(2)))
            };
            assert_eq!(
                p.test_values(doc, node, Some(at), &mut |v| v == json!(2)),
                want,
                "{path}"
            );
            assert_eq!(
                p.test_values(doc, node, None, &mut |v| v == json!(2)),
                want,
                "{path}"
            );
        }
        let p = RelPath::compile("^[?@.c > 1].c").unwrap();
        assert_eq!(p.first(doc, "/a/b/0").unwrap().pointer, "/a/b/1/c");
    }
}
