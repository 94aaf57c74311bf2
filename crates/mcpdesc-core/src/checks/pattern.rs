//! `pattern`: strings (or object keys) match a regular expression.
//!
//! Regular expressions use the `regex` crate: linear time whatever the input.

use regex::Regex;
use serde::Deserialize;
use serde_json::Map;

use super::{options, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::document::pointer;
use crate::eval::context::{EvalCtx, Finding};

#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
enum Target {
    /// The string value itself.
    #[default]
    Value,
    /// Every key of the object.
    Keys,
}

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// Regular expression (Rust `regex` syntax); anchor it with `^…$` to match whole strings.
    regex: String,
    #[serde(default)]
    target: Target,
}

#[derive(Debug)]
struct Pattern {
    regex: Regex,
    target: Target,
}

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "pattern",
    summary: "A string value, or each key of an object with `target: keys`, matches `regex`; \
              other types are left to `type`.",
    params: &["pattern"],
    compile: |m: &Map<_, _>, cx: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        let o = options::<Options>(m)?;
        let regex = cx
            .regexes
            .get(&o.regex)
            .map_err(|e| OptionError::at("/regex", e.to_string()))?;
        Ok(Box::new(Pattern {
            regex,
            target: o.target,
        }))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

impl Check for Pattern {
    fn run(&self, node: Node<'_>, _: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        let finding = |ptr: String| Finding::new(ptr).with("pattern", self.regex.as_str());
        match self.target {
            Target::Value => {
                if let Some(s) = node.value.as_str() {
                    if !self.regex.is_match(s) {
                        out.push(finding(node.pointer.to_owned()));
                    }
                }
            }
            Target::Keys => {
                if let Some(obj) = node.value.as_object() {
                    for k in obj.keys().filter(|k| !self.regex.is_match(k)) {
                        out.push(finding(pointer::push(node.pointer, k)));
                    }
                }
            }
        }
    }
}
