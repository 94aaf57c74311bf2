//! `closed`: an object has no members besides the listed ones.

use regex::Regex;
use serde::Deserialize;
use serde_json::Map;

use super::{options, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::document::pointer;
use crate::eval::context::{EvalCtx, Finding, SUGGESTION};
use crate::rules::suggest::closest;

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// Member names the object may have.
    allowed: Vec<String>,
    /// Regular expressions of further member names it may have (e.g. `^x-` for extensions).
    #[serde(default)]
    patterns: Vec<String>,
}

#[derive(Debug)]
struct Closed {
    allowed: Vec<String>,
    patterns: Vec<Regex>,
}

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "closed",
    summary: "An object has only members named in `allowed` or matching one of `patterns`; a \
              finding at each other member. `{suggestion}` is the allowed member the object \
              lacks that is closest to it (same but for case, then fewest edits), if any; a \
              message that neither places nor names it ends with \"did you mean\" and it.",
    params: &["field", SUGGESTION],
    compile: |m: &Map<_, _>, cx: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        let o = options::<Options>(m)?;
        let patterns = o
            .patterns
            .iter()
            .enumerate()
            .map(|(i, p)| {
                cx.regexes
                    .get(p)
                    .map_err(|e| OptionError::at(format!("/patterns/{i}"), e.to_string()))
            })
            .collect::<Result<_, _>>()?;
        Ok(Box::new(Closed {
            allowed: o.allowed,
            patterns,
        }))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

impl Check for Closed {
    fn run(&self, node: Node<'_>, _: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        let Some(obj) = node.value.as_object() else {
            return;
        };
        for k in obj.keys() {
            if !self.allowed.iter().any(|a| a == k) && !self.patterns.iter().any(|p| p.is_match(k))
            {
                let mut finding = Finding::new(pointer::push(node.pointer, k)).with("field", k);
                // A member the object already has is no rename target: the user would end
                // up with two of it.
                let absent = self
                    .allowed
                    .iter()
                    .map(String::as_str)
                    .filter(|a| !obj.contains_key(a));
                if let Some(meant) = closest(k, absent) {
                    finding = finding.with(SUGGESTION, meant);
                }
                out.push(finding);
            }
        }
    }
}
