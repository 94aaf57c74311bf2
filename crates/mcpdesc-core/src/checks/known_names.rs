//! `known-names`: names inside a reserved namespace are ones a catalogue lists.
//!
//! Design: some names are free-form except within a namespace somebody reserves (a prefix
//! owned by a standards body, say). The check takes the names of the node — its keys with
//! `target: keys` (the default), or its string value with `target: value` — keeps those that
//! match `reserved` (a regular expression describing the reserved namespace) and reports each
//! one missing from `known`, at that name. Names outside the namespace are never judged, so
//! the catalogue only ever lists reserved names. Pairing it with `when: {version: …}` gives a
//! per-version catalogue; giving the rule a warning severity gives warn-and-preserve.

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
    /// Every key of the object.
    #[default]
    Keys,
    /// The string value itself.
    Value,
}

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// Regular expression of the reserved names (anchor it with `^…$`).
    reserved: String,
    /// The reserved names that are known.
    #[serde(default)]
    known: Vec<String>,
    #[serde(default)]
    target: Target,
}

#[derive(Debug)]
struct KnownNames {
    reserved: Regex,
    known: Vec<String>,
    target: Target,
}

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "known-names",
    summary: "Each key of the object (or the string value, with `target: value`) that matches \
              `reserved` is one of `known`; a finding at each other reserved name.",
    params: &["name"],
    compile: |m: &Map<_, _>, cx: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        let o = options::<Options>(m)?;
        let reserved = cx
            .regexes
            .get(&o.reserved)
            .map_err(|e| OptionError::at("/reserved", e.to_string()))?;
        Ok(Box::new(KnownNames {
            reserved,
            known: o.known,
            target: o.target,
        }))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

impl KnownNames {
    fn unknown(&self, name: &str) -> bool {
        self.reserved.is_match(name) && !self.known.iter().any(|k| k == name)
    }
}

impl Check for KnownNames {
    fn run(&self, node: Node<'_>, _: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        match self.target {
            Target::Keys => {
                if let Some(obj) = node.value.as_object() {
                    for k in obj.keys().filter(|k| self.unknown(k)) {
                        out.push(Finding::new(pointer::push(node.pointer, k)).with("name", k));
                    }
                }
            }
            Target::Value => {
                if let Some(s) = node.value.as_str().filter(|s| self.unknown(s)) {
                    out.push(Finding::new(node.pointer).with("name", s.to_owned()));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::checks::tests_support::run_on;
    use serde_json::json;

    #[test]
    fn only_reserved_names_are_judged() {
        let doc = json!({"m": {"org.example/x": 1, "io.acme/known": 2, "io.acme/new": 3}});
        let check = json!({
            "check": "known-names",
            "reserved": "^io\\.acme/",
            "known": ["io.acme/known"]
        });
        let found = run_on(&check, &doc, "/m");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pointer, "/m/io.acme~1new");
        assert_eq!(found[0].param("name"), Some("io.acme/new"));
    }

    #[test]
    fn string_values() {
        let doc = json!({"v": "io.acme/new"});
        let check = json!({"check": "known-names", "reserved": "^io\\.", "target": "value"});
        assert_eq!(run_on(&check, &doc, "/v").len(), 1);
    }
}
