//! `reference`: a value names something found elsewhere in the document.

use std::collections::HashSet;

use serde::Deserialize;
use serde_json::Map;

use super::{options, relpath, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::document::{pointer, Kind, ValueRef};
use crate::eval::context::{excerpt, EvalCtx, Finding, MemoId};
use crate::relpath::RelPath;

#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
enum Subject {
    /// The value itself (a string), or each string of an array.
    #[default]
    Value,
    /// Every key of the object.
    Keys,
}

#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
enum Targets {
    /// The selected values themselves.
    #[default]
    Values,
    /// The keys of the selected objects.
    Keys,
}

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// Relative path of the nodes that define the valid names.
    to: String,
    /// Whether names are the selected values or the keys of the selected objects.
    #[serde(default)]
    targets: Targets,
    /// What of the node is a reference.
    #[serde(default)]
    subject: Subject,
    /// Skip the check when `to` selects nothing (the referenced collection is optional).
    #[serde(default)]
    optional: bool,
}

#[derive(Debug)]
struct Reference {
    to: RelPath,
    targets: Targets,
    subject: Subject,
    optional: bool,
    /// What names the names of an absolute `to` among a document's memos.
    memo: MemoId,
}

/// The names an absolute `to` selects, found once per document: every tag reference of a
/// document reads the same list of tags.
struct Names {
    any: bool,
    names: HashSet<Box<str>>,
}

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "reference",
    summary: "Each name the node holds (its string value, the strings of its array, or its keys \
              with `subject: keys`) is among the values, or keys with `targets: keys`, selected \
              by `to`.",
    params: &["name"],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        let o = options::<Options>(m)?;
        let memo = MemoId::new(format!("reference {} {:?}", o.to, o.targets));
        Ok(Box::new(Reference {
            to: relpath("to", &o.to)?,
            targets: o.targets,
            subject: o.subject,
            optional: o.optional,
            memo,
        }))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

impl Check for Reference {
    fn run(&self, node: Node<'_>, cx: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        if self.to.is_absolute() {
            let shared = cx.cache.memo(&self.memo, u8::MAX, || {
                let (any, names) = self.names(node, cx);
                Names {
                    any,
                    names: names.into_iter().map(Box::from).collect(),
                }
            });
            if shared.any || !self.optional {
                self.judge(node, |s| shared.names.contains(s), out);
            }
            return;
        }
        let (any, names) = self.names(node, cx);
        if !any && self.optional {
            return;
        }
        // A short list is searched directly; a long one is hashed once.
        let hashed: Option<HashSet<&str>> =
            (names.len() > 16).then(|| names.iter().copied().collect());
        let known = |s: &str| match &hashed {
            Some(set) => set.contains(s),
            None => names.contains(&s),
        };
        self.judge(node, known, out);
    }
}

impl Reference {
    /// Whether `to` selects anything from `node`, and the names it selects.
    fn names<'a>(&self, node: Node<'a>, cx: &EvalCtx<'a>) -> (bool, Vec<&'a str>) {
        let mut names: Vec<&str> = Vec::new();
        let mut any = false;
        self.to
            .for_each_from(cx.root, node.pointer, node.value, &mut |_, v| {
                any = true;
                match self.targets {
                    Targets::Values => names.extend(v.as_str()),
                    Targets::Keys => {
                        if let Some(o) = v.as_object() {
                            names.extend(o.keys());
                        }
                    }
                }
            });
        (any, names)
    }

    /// A finding for each name of `node` that is not `known`.
    fn judge(&self, node: Node<'_>, known: impl Fn(&str) -> bool, out: &mut Vec<Finding>) {
        let mut check = |ptr: &dyn Fn() -> String, v: ValueRef<'_>| {
            if let Some(s) = v.as_str() {
                if !known(s) {
                    out.push(Finding::new(ptr()).with("name", excerpt(v)));
                }
            }
        };
        match (self.subject, node.value.kind()) {
            (Subject::Value, Kind::Array(items)) => {
                for (i, v) in items.iter().enumerate() {
                    check(&|| pointer::push(node.pointer, &i.to_string()), v);
                }
            }
            (Subject::Value, _) => check(&|| node.pointer.to_owned(), node.value),
            (Subject::Keys, Kind::Object(o)) => {
                for k in o.keys().filter(|k| !known(k)) {
                    out.push(
                        Finding::new(pointer::push(node.pointer, k)).with("name", key_excerpt(k)),
                    );
                }
            }
            (Subject::Keys, _) => {}
        }
    }
}

/// A key as [`excerpt`] shows a string: a key is no node of the tree, so it is shown through a
/// one-string tree (built only for a finding).
fn key_excerpt(key: &str) -> String {
    crate::eval::context::excerpt_str(key)
}
