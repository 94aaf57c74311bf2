//! `unique`: no two items of a collection share a value (or a key within each item).

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Map;

use super::{options, relpath, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::eval::context::{excerpt, EvalCtx, Finding};
use crate::relpath::RelPath;

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// Relative path of the items, from the node (default `@[*]`, every element or member).
    #[serde(default)]
    items: Option<String>,
    /// Relative path, from each item, of the value compared (default: the item itself).
    #[serde(default)]
    key: Option<String>,
    /// Compare strings without regard to ASCII case.
    #[serde(default)]
    case_insensitive: bool,
}

#[derive(Debug)]
struct Unique {
    items: RelPath,
    key: Option<RelPath>,
    case_insensitive: bool,
}

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "unique",
    summary: "The values selected by `key` in each of `items` are pairwise distinct; a finding \
              at every repeat, naming the first occurrence.",
    params: &["duplicate", "first"],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        let o = options::<Options>(m)?;
        Ok(Box::new(Unique {
            items: relpath("items", o.items.as_deref().unwrap_or("@[*]"))?,
            key: o.key.as_deref().map(|k| relpath("key", k)).transpose()?,
            case_insensitive: o.case_insensitive,
        }))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

impl Check for Unique {
    fn run(&self, node: Node<'_>, cx: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        let mut seen: HashMap<Cow<'_, str>, String> = HashMap::new();
        for item in self.items.select_from(cx.root, node.pointer, node.value) {
            let keys = match &self.key {
                Some(k) => k.select_from(cx.root, &item.pointer, item.value),
                None => vec![item],
            };
            for k in keys {
                let mut text = match k.value.as_str() {
                    Some(s) => Cow::Borrowed(s),
                    None => Cow::Owned(k.value.to_string()),
                };
                if self.case_insensitive && text.bytes().any(|b| b.is_ascii_uppercase()) {
                    text.to_mut().make_ascii_lowercase();
                }
                match seen.get(&text) {
                    Some(first) => out.push(
                        Finding::new(k.pointer.clone())
                            .with("duplicate", excerpt(k.value))
                            .with("first", first.clone()),
                    ),
                    None => {
                        seen.insert(text, k.pointer);
                    }
                }
            }
        }
    }
}
