//! Paths relative to the node a rule inspects.
//!
//! A relative path is a JSONPath whose first character says where it starts:
//! `$` at the document root, `@` at the node itself, and each leading `^` one level up
//! (`^` is the node's parent, `^^` its grandparent). Anything else is a member name of the
//! node itself, so `mode` means `@['mode']`.

use serde_json::Value;

use crate::document::pointer;
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
    pub value: &'a Value,
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
    pub fn select<'a>(&self, root: &'a Value, node: &str) -> Vec<Hit<'a>> {
        let Some(base) = self.base_pointer(node) else {
            return Vec::new();
        };
        let Some(start) = root.pointer(base) else {
            return Vec::new();
        };
        if let Some(tokens) = self.query.singular_tokens() {
            let mut value = start;
            let mut ptr = base.to_owned();
            for t in tokens {
                let next = match value {
                    Value::Object(m) => m.get(t.as_str()),
                    Value::Array(a) => t.parse::<usize>().ok().and_then(|i| a.get(i)),
                    _ => None,
                };
                match next {
                    Some(v) => {
                        value = v;
                        ptr = pointer::push(&ptr, t);
                    }
                    None => return Vec::new(),
                }
            }
            return vec![Hit {
                pointer: ptr,
                value,
            }];
        }
        self.query
            .select(start)
            .into_iter()
            .map(|s| Hit {
                pointer: format!("{base}{}", s.pointer),
                value: s.value,
            })
            .collect()
    }

    /// The first selected node, if any.
    pub fn first<'a>(&self, root: &'a Value, node: &str) -> Option<Hit<'a>> {
        self.select(root, node).into_iter().next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bases() {
        let doc = json!({"a": {"b": [{"c": 1}, {"c": 2}], "x-y": true}});
        let p = RelPath::compile("^^['x-y']").unwrap();
        let hits = p.select(&doc, "/a/b/1");
        assert_eq!(hits[0].pointer, "/a/x-y");
        let p = RelPath::compile("c").unwrap();
        assert_eq!(p.first(&doc, "/a/b/1").unwrap().value, &json!(2));
        let p = RelPath::compile("$.a.b[*].c").unwrap();
        let ptrs: Vec<_> = p
            .select(&doc, "/a")
            .into_iter()
            .map(|h| h.pointer)
            .collect();
        assert_eq!(ptrs, vec!["/a/b/0/c", "/a/b/1/c"]);
        let p = RelPath::compile("^^^^").unwrap();
        assert!(p.select(&doc, "/a/b/1").is_empty());
        let p = RelPath::compile("@").unwrap();
        assert_eq!(p.first(&doc, "/a/b/0").unwrap().pointer, "/a/b/0");
    }
}
