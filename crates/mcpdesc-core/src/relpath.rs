//! Paths relative to the node a rule inspects.
//!
//! A relative path is a JSONPath whose first character says where it starts:
//! `$` at the document root, `@` at the node itself, and each leading `^` one level up
//! (`^` is the node's parent, `^^` its grandparent). Anything else is a member name of the
//! node itself, so `mode` means `@['mode']`.

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
    pub pointer: String,
    pub value: ValueRef<'a>,
}

impl RelPath {
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

    pub fn as_str(&self) -> &str {
        &self.text
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
                    let mut ptr = String::with_capacity(base.len() + 16);
                    ptr.push_str(base);
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
            _ => root.pointer(base)?,
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
            let mut ptr = String::with_capacity(base.len() + 16);
            ptr.push_str(base);
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
