//! `json-schema-document`: a value embedded in the document is itself a valid JSON Schema.
//!
//! Design: the node is a schema. Its dialect is the `$schema` keyword looked up in `dialects`
//! (URI → `2020-12` or `draft-07`; a trailing `#` is ignored), or `default` when absent. With
//! `check-dialect` (default on) a `$schema` naming no listed dialect is a finding at
//! `$schema`. With `check-schema` (default on) the schema must pass its dialect's meta-schema
//! and compile: every document-local `$ref` must resolve within the schema. External
//! references are never retrieved; they are treated as unconstrained while compiling, so they
//! never make a schema invalid (a separate rule warns that validation is incomplete). A schema
//! in an unlisted dialect is not compiled. Compilation goes through the evaluation's
//! per-document cache, so each distinct schema is compiled once, and `pattern` keywords use
//! the linear-time regex engine.

use std::collections::BTreeMap;

use jsonschema::Draft;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::json_schema::build;
use super::{options, schema_of, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::document::{pointer, Kind, Tree, ValueRef};
use crate::eval::context::{Compiled, EvalCtx, Finding};

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
enum DraftName {
    #[serde(rename = "2020-12")]
    Draft2020_12,
    #[serde(rename = "draft-07")]
    Draft07,
}

impl DraftName {
    fn draft(self) -> Draft {
        match self {
            DraftName::Draft2020_12 => Draft::Draft202012,
            DraftName::Draft07 => Draft::Draft7,
        }
    }
}

fn default_true() -> bool {
    true
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// Accepted `$schema` URIs and the dialect each selects.
    dialects: BTreeMap<String, DraftName>,
    /// Dialect of a schema without `$schema`.
    default: DraftName,
    /// Report a `$schema` that names no listed dialect (default true).
    #[serde(default = "default_true")]
    check_dialect: bool,
    /// Report a schema that fails its meta-schema or does not compile (default true).
    #[serde(default = "default_true")]
    check_schema: bool,
}

#[derive(Debug)]
struct JsonSchemaDocument {
    dialects: BTreeMap<String, Draft>,
    default: Draft,
    check_dialect: bool,
    check_schema: bool,
}

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "json-schema-document",
    summary: "The value is a JSON Schema in an accepted dialect (`dialects`, else `default`): \
              an unlisted `$schema` is reported at `$schema`; a schema failing its \
              meta-schema or with an unresolvable local `$ref` at the schema. External refs \
              are never retrieved and count as unconstrained.",
    params: &["error", "dialect"],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        let o = options::<Options>(m)?;
        Ok(Box::new(JsonSchemaDocument {
            dialects: o
                .dialects
                .into_iter()
                .map(|(k, v)| (k.trim_end_matches('#').to_owned(), v.draft()))
                .collect(),
            default: o.default.draft(),
            check_dialect: o.check_dialect,
            check_schema: o.check_schema,
        }))
    },
    schema: schema_of::<Options>,
};

fn is_external(r: &str) -> bool {
    !r.starts_with('#')
}

fn has_external_ref(v: ValueRef<'_>) -> bool {
    match v.kind() {
        Kind::Object(o) => o.iter().any(|(k, v)| {
            (k == "$ref" && v.as_str().is_some_and(is_external)) || has_external_ref(v)
        }),
        Kind::Array(a) => a.iter().any(has_external_ref),
        _ => false,
    }
}

/// `v` as a value without external `$ref` keywords.
fn strip_external_refs(v: ValueRef<'_>) -> Value {
    match v.kind() {
        Kind::Object(o) => Value::Object(
            o.iter()
                .filter(|(k, v)| !(*k == "$ref" && v.as_str().is_some_and(is_external)))
                .map(|(k, v)| (k.to_owned(), strip_external_refs(v)))
                .collect(),
        ),
        Kind::Array(a) => Value::Array(a.iter().map(strip_external_refs).collect()),
        _ => v.to_value(),
    }
}

impl Check for JsonSchemaDocument {
    fn run(&self, node: Node<'_>, cx: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        if !node.value.is_object() && !node.value.is_boolean() {
            return;
        }
        let declared = node.value.get("$schema");
        let draft = match declared.map(ValueRef::kind) {
            None => self.default,
            Some(Kind::String(uri)) => match self.dialects.get(uri.trim_end_matches('#')) {
                Some(d) => *d,
                None => {
                    if self.check_dialect {
                        out.push(
                            Finding::new(pointer::push(node.pointer, "$schema"))
                                .with("dialect", uri),
                        );
                    }
                    return;
                }
            },
            // A non-string `$schema` fails the meta-schema below.
            Some(_) => self.default,
        };
        if !self.check_schema {
            return;
        }
        // Keyed and measured as compiled: schemas differing only in external references share
        // one validator, and `max-schema-bytes` weighs the schema actually compiled.
        let stripped;
        let schema = if has_external_ref(node.value) {
            stripped = Tree::from_value(&strip_external_refs(node.value));
            stripped.root()
        } else {
            node.value
        };
        // Compiled once per distinct schema, within the evaluation's schema limits.
        let error = match cx
            .cache
            .compile_at(node.pointer, schema, |s| build(s, draft))
        {
            Compiled::Valid(_) | Compiled::Refused => None,
            Compiled::Invalid(e) => Some(e),
        };
        if let Some(e) = error {
            out.push(Finding::new(node.pointer).with("error", e));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{has_external_ref, strip_external_refs};
    use crate::checks::tests_support::run_on;
    use crate::document::Tree;
    use serde_json::json;

    #[test]
    fn only_external_refs_are_stripped() {
        let tree = Tree::from_value(&json!({
            "properties": {"a": {"$ref": "https://example.com/s.json", "type": "string"},
                           "b": {"$ref": "#/$defs/b"}},
            "allOf": [{"$ref": "other.json"}]
        }));
        assert!(has_external_ref(tree.root()));
        let stripped = strip_external_refs(tree.root());
        assert_eq!(
            stripped,
            json!({"properties": {"a": {"type": "string"}, "b": {"$ref": "#/$defs/b"}},
                   "allOf": [{}]})
        );
        assert!(!has_external_ref(Tree::from_value(&stripped).root()));
    }

    fn check() -> serde_json::Value {
        json!({"check": "json-schema-document",
               "dialects": {"https://json-schema.org/draft/2020-12/schema": "2020-12",
                            "http://json-schema.org/draft-07/schema#": "draft-07"},
               "default": "2020-12"})
    }

    #[test]
    fn dialects_meta_schema_and_refs() {
        let doc = json!({
            "ok": {"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}},
                   "$defs": {"a": {"type": "string", "pattern": "^[a-z]+$"}}},
            "d7": {"$schema": "http://json-schema.org/draft-07/schema", "type": "object"},
            "unknown": {"$schema": "https://example.com/my-dialect", "type": "object"},
            "bad": {"type": "object", "properties": {"a": {"type": 5}}},
            "local": {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}},
            "external": {"type": "object", "properties": {"a": {"$ref": "https://example.com/s.json"}}}
        });
        assert!(run_on(&check(), &doc, "/ok").is_empty());
        assert!(run_on(&check(), &doc, "/d7").is_empty());
        let found = run_on(&check(), &doc, "/unknown");
        assert_eq!(found[0].pointer, "/unknown/$schema");
        assert_eq!(run_on(&check(), &doc, "/bad").len(), 1);
        assert_eq!(run_on(&check(), &doc, "/local").len(), 1);
        assert!(run_on(&check(), &doc, "/external").is_empty());
    }
}
