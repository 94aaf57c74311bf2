//! `schema-walk`: where an annotation keyword may sit inside an embedded JSON Schema.
//!
//! Design: the node is a JSON Schema. The check walks every subschema position of the
//! 2020-12 and draft-07 vocabularies (`properties`, `patternProperties`, `$defs`,
//! `definitions`, `dependentSchemas`, `allOf`/`anyOf`/`oneOf`, `prefixItems`, `items`,
//! `additionalItems`, `additionalProperties`, `not`, `if`/`then`/`else`, `contains`,
//! `propertyNames`, `unevaluatedItems`, `unevaluatedProperties`), never following `$ref`, and
//! records for each subschema the chain of keywords that led to it. Every occurrence of
//! `keyword` must be reached from the root through one or more of the `through` keywords only
//! (default `properties`); with `holder-types`, the subschema holding it must also declare a
//! `type` among them. Each violation is a finding at the keyword, with a `reason`.

use serde::Deserialize;
use serde_json::Map;

use super::{options, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::document::{pointer, Kind, ValueRef};
use crate::eval::context::{EvalCtx, Finding};

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// The keyword whose placement is checked, e.g. `x-mcp-header`.
    keyword: String,
    /// Map-valued keywords through which the keyword may be reached (default `properties`).
    #[serde(default)]
    through: Option<Vec<String>>,
    /// JSON types the holding subschema's `type` must be one of.
    #[serde(default)]
    holder_types: Vec<String>,
}

#[derive(Debug)]
struct SchemaWalk {
    keyword: String,
    through: Vec<String>,
    holder_types: Vec<String>,
}

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "schema-walk",
    summary: "In the JSON Schema at the node, every occurrence of `keyword` sits on a \
              subschema reached from the root through `through` keywords only (default \
              `properties`) and, with `holder-types`, whose `type` is one of them; `$ref` is \
              never followed.",
    params: &["reason"],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        let o = options::<Options>(m)?;
        Ok(Box::new(SchemaWalk {
            keyword: o.keyword,
            through: o.through.unwrap_or_else(|| vec!["properties".into()]),
            holder_types: o.holder_types,
        }))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

const MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
const LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
const SINGLES: &[&str] = &[
    "items",
    "additionalItems",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
];

impl SchemaWalk {
    /// `bad`: the first keyword on the path that is not an allowed one.
    fn walk(
        &self,
        value: ValueRef<'_>,
        ptr: &str,
        depth: usize,
        bad: Option<&str>,
        out: &mut Vec<Finding>,
    ) {
        let Some(obj) = value.as_object() else {
            return;
        };
        if obj.contains_key(&self.keyword) {
            let at = pointer::push(ptr, &self.keyword);
            let reason = if let Some(k) = bad {
                Some(format!("it is reached through `{k}`"))
            } else if depth == 0 {
                Some("it sits on the schema root, not on a property".to_owned())
            } else if !self.holder_types.is_empty() {
                let ty = obj.get("type").and_then(ValueRef::as_str);
                match ty {
                    Some(t) if self.holder_types.iter().any(|h| h == t) => None,
                    Some(t) => Some(format!("the property has type `{t}`")),
                    None => Some("the property declares no single `type`".to_owned()),
                }
            } else {
                None
            };
            if let Some(reason) = reason {
                out.push(Finding::new(at).with("reason", reason));
            }
        }
        for (k, v) in obj.iter() {
            let next_bad = |kw: &'static str| {
                bad.or_else(|| (!self.through.iter().any(|t| t == kw)).then_some(kw))
            };
            let here = pointer::push(ptr, k);
            if let Some(kw) = MAPS.iter().find(|m| **m == k) {
                if let Some(m) = v.as_object() {
                    for (name, sub) in m.iter() {
                        let p = pointer::push(&here, name);
                        self.walk(sub, &p, depth + 1, next_bad(kw), out);
                    }
                }
            } else if let Some(kw) = LISTS.iter().find(|m| **m == k) {
                if let Some(a) = v.as_array() {
                    for (i, sub) in a.iter().enumerate() {
                        let p = pointer::push(&here, &i.to_string());
                        self.walk(sub, &p, depth + 1, next_bad(kw), out);
                    }
                }
            } else if let Some(kw) = SINGLES.iter().find(|m| **m == k) {
                match v.kind() {
                    Kind::Array(a) => {
                        for (i, sub) in a.iter().enumerate() {
                            let p = pointer::push(&here, &i.to_string());
                            self.walk(sub, &p, depth + 1, next_bad(kw), out);
                        }
                    }
                    _ => self.walk(v, &here, depth + 1, next_bad(kw), out),
                }
            }
        }
    }
}

impl Check for SchemaWalk {
    fn run(&self, node: Node<'_>, _: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        self.walk(node.value, node.pointer, 0, None, out);
    }
}

#[cfg(test)]
mod tests {
    use crate::checks::tests_support::run_on;
    use serde_json::json;

    #[test]
    fn placement() {
        let doc = json!({"s": {
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "nested": {"type": "object", "properties": {
                    "deep": {"type": "integer", "x-mcp-header": "Deep"}}},
                "list": {"type": "array", "x-mcp-header": "List",
                         "items": {"type": "string", "x-mcp-header": "Item"}}
            },
            "allOf": [{"properties": {"r": {"type": "string", "x-mcp-header": "R"}}}],
            "$defs": {"d": {"type": "string", "x-mcp-header": "D"}}
        }});
        let check = json!({"check": "schema-walk", "keyword": "x-mcp-header",
                           "holder-types": ["string", "integer", "boolean"]});
        let found = run_on(&check, &doc, "/s");
        let ptrs: Vec<_> = found.iter().map(|f| f.pointer.as_str()).collect();
        assert_eq!(
            ptrs,
            vec![
                "/s/properties/list/x-mcp-header",
                "/s/properties/list/items/x-mcp-header",
                "/s/allOf/0/properties/r/x-mcp-header",
                "/s/$defs/d/x-mcp-header",
            ]
        );
    }
}
