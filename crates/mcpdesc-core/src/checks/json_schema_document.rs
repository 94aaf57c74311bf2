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
use serde::Deserialize;
use serde_json::{Map, Value};

use super::json_schema::build;
use super::{options, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::document::{pointer, Kind, Tree, ValueRef};
use crate::eval::context::{EvalCtx, Finding, POSITION};

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
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

/// Whether `schema` is valid without compiling it: it passes the meta-schema of `draft` (the
/// one `build` checks it against, whatever its `$schema` says; a `$schema` naming another
/// dialect is left to `build`), and it holds only keywords whose compilation cannot fail on a
/// value that meta-schema accepts. That leaves out references and identifiers (which must
/// resolve), regular expressions (which must parse), embedded dialects, and counts beyond 64
/// bits. Compiling costs several times what checking the meta-schema does, and most schemas
/// are never used to validate an instance; any schema this does not answer for is compiled,
/// as every one was before, so reports are the same.
fn valid_without_compiling(schema: ValueRef<'_>, draft: Draft) -> bool {
    let named_elsewhere = schema
        .get("$schema")
        .is_some_and(|uri| uri.as_str().map(Draft::from_schema_uri) != Some(draft));
    !named_elsewhere
        && matches!(draft, Draft::Draft202012 | Draft::Draft7)
        && plain(schema, draft, true)
        && meets_meta_schema(schema, draft)
}

/// Whether `schema`, made of the keywords [`plain`] admits, passes the meta-schema of `draft`
/// (2020-12 or draft-07). These are the constraints the two meta-schemas put on those
/// keywords, checked on the tree in place: `jsonschema`'s meta-schema validators read
/// `serde_json` values, and copying each schema into one cost more than checking it. The
/// tests compare the answer with `build` (which runs those validators) on fixed and random
/// schemas of both dialects.
fn meets_meta_schema(schema: ValueRef<'_>, draft: Draft) -> bool {
    let Some(members) = schema.as_object() else {
        return schema.is_boolean();
    };
    let draft_2020 = draft == Draft::Draft202012;
    let subschema = |v: ValueRef<'_>| meets_meta_schema(v, draft);
    let schema_array = |v: ValueRef<'_>| {
        v.as_array()
            .is_some_and(|a| !a.is_empty() && a.iter().all(subschema))
    };
    let named_schemas = |v: ValueRef<'_>| v.as_object().is_some_and(|m| m.values().all(subschema));
    members.iter().all(|(key, value)| match key {
        "$schema" | "title" | "description" | "$comment" | "format" => value.is_string(),
        "default" | "const" => true,
        "examples" | "enum" => value.is_array(),
        // Not a keyword of draft-07: any value.
        "deprecated" => !draft_2020 || value.is_boolean(),
        "readOnly" | "writeOnly" | "uniqueItems" => value.is_boolean(),
        "required" => string_set(value),
        "type" => {
            simple_type(value)
                || value.as_array().is_some_and(|a| {
                    !a.is_empty() && a.iter().all(simple_type) && string_set(value)
                })
        }
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => value.is_number(),
        "multipleOf" => value.as_f64().is_some_and(|n| n > 0.0),
        "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties"
        | "minContains" | "maxContains" => value.as_u64().is_some(),
        "not"
        | "if"
        | "then"
        | "else"
        | "contains"
        | "propertyNames"
        | "additionalProperties"
        | "additionalItems" => subschema(value),
        // A list of schemas is an `items` of draft-07 only.
        "items" if !draft_2020 && value.is_array() => schema_array(value),
        "items" => subschema(value),
        "allOf" | "anyOf" | "oneOf" | "prefixItems" => schema_array(value),
        "properties" | "$defs" | "dependentSchemas" | "definitions" => named_schemas(value),
        "dependentRequired" => value
            .as_object()
            .is_some_and(|m| m.values().all(string_set)),
        // Annotations (`x-` members, the only others `plain` admits) are unconstrained.
        _ => true,
    })
}

/// One of the meta-schemas' `simpleTypes`.
fn simple_type(v: ValueRef<'_>) -> bool {
    matches!(
        v.as_str(),
        Some("array" | "boolean" | "integer" | "null" | "number" | "object" | "string")
    )
}

/// The meta-schemas' `stringArray`: an array of distinct strings.
fn string_set(v: ValueRef<'_>) -> bool {
    let Some(items) = v.as_array() else {
        return false;
    };
    let mut seen = std::collections::HashSet::with_capacity(items.len());
    items
        .iter()
        .all(|item| item.as_str().is_some_and(|s| seen.insert(s)))
}

/// Whether every keyword of `schema` and of its subschemas compiles whenever the schema passes
/// its meta-schema (see [`valid_without_compiling`]).
fn plain(schema: ValueRef<'_>, draft: Draft, root: bool) -> bool {
    let Some(members) = schema.as_object() else {
        return schema.is_boolean();
    };
    let each = |v: ValueRef<'_>| {
        v.as_array()
            .is_some_and(|a| a.iter().all(|s| plain(s, draft, false)))
    };
    let named = |v: ValueRef<'_>| {
        v.as_object()
            .is_some_and(|m| m.values().all(|s| plain(s, draft, false)))
    };
    let draft_2020 = draft == Draft::Draft202012;
    members.iter().all(|(key, value)| match key {
        "$schema" => root,
        "title" | "description" | "default" | "examples" | "$comment" | "deprecated"
        | "readOnly" | "writeOnly" | "enum" | "const" | "required" | "type" | "uniqueItems"
        | "format" | "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum"
        | "multipleOf" => true,
        "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties" => {
            value.as_u64().is_some()
        }
        "not" | "if" | "then" | "else" | "contains" | "propertyNames" | "additionalProperties" => {
            plain(value, draft, false)
        }
        "allOf" | "anyOf" | "oneOf" => each(value),
        "properties" => named(value),
        "items" if draft_2020 => plain(value, draft, false),
        "prefixItems" if draft_2020 => each(value),
        "$defs" | "dependentSchemas" if draft_2020 => named(value),
        "minContains" | "maxContains" if draft_2020 => value.as_u64().is_some(),
        "dependentRequired" if draft_2020 => true,
        "items" => plain(value, draft, false) || each(value),
        "additionalItems" if !draft_2020 => plain(value, draft, false),
        "definitions" if !draft_2020 => named(value),
        // Extension keywords are annotations to every dialect.
        _ => key.starts_with("x-"),
    })
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
        // Checked once per distinct schema, within the evaluation's schema limits.
        let error = cx.cache.schema_problem_at(
            node.pointer,
            schema,
            |s| valid_without_compiling(s, draft),
            |s| build(s, draft),
        );
        if let Some(e) = error {
            // Failing the meta-schema is said in our words, at the keyword at fault; what
            // fails only to compile (a reference, a regular expression) in the library's.
            let finding = match super::schema_errors::explain(&schema.to_value(), draft) {
                Some((at, words)) => Finding::new(node.pointer)
                    .with("error", words)
                    .with(POSITION, format!("{}{at}", node.pointer)),
                None => Finding::new(node.pointer).with("error", e),
            };
            out.push(finding);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{build, has_external_ref, plain, strip_external_refs, valid_without_compiling};
    use crate::checks::tests_support::run_on;
    use crate::document::Tree;
    use jsonschema::Draft;
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

    /// `valid_without_compiling` answers only for schemas that compile, and for every schema
    /// of the keywords it knows, it answers as compiling does.
    fn agrees_with_compiling(schema: &serde_json::Value, draft: Draft) -> Result<(), String> {
        let tree = Tree::from_value(schema);
        let vouched = valid_without_compiling(tree.root(), draft);
        let compiled = build(schema, draft);
        if vouched && compiled.is_err() {
            return Err(format!(
                "vouched for {schema}, which fails: {:?}",
                compiled.err()
            ));
        }
        let known = plain(tree.root(), draft, true)
            && schema.get("$schema").is_none_or(|s| {
                s.as_str()
                    .is_some_and(|uri| Draft::from_schema_uri(uri) == draft)
            });
        if known && vouched != compiled.is_ok() {
            return Err(format!(
                "{schema} ({draft:?}): vouched {vouched}, compiled {:?}",
                compiled.err()
            ));
        }
        Ok(())
    }

    #[test]
    fn schemas_vouched_for_are_those_that_compile() {
        let cases = [
            json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 1}},
                   "required": ["a"], "additionalProperties": false, "x-mcp-header": "A"}),
            json!({"type": "object", "properties": {"a": {"type": 5}}}),
            json!({"type": "strin"}),
            json!({"minLength": 1.0}),
            json!({"minLength": 1.5}),
            json!({"minLength": -1}),
            json!({"maxItems": 1e30}),
            json!({"maxItems": 18446744073709551615u64}),
            json!({"multipleOf": 0}),
            json!({"required": ["a", "a"]}),
            json!({"enum": []}),
            json!({"allOf": []}),
            json!({"items": [{"type": "string"}]}),
            json!({"items": {"type": "string"}, "additionalItems": false}),
            json!({"$defs": {"a": {"type": "string"}}, "definitions": {"b": 1}}),
            json!({"pattern": "("}),
            json!({"pattern": "^a$"}),
            json!({"$ref": "#/$defs/missing"}),
            json!({"properties": {"a": {"$schema": "http://json-schema.org/draft-07/schema#"}}}),
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "items": [true]}),
            json!({"$schema": 5}),
            json!({"dependentRequired": {"a": ["b"]}, "dependentSchemas": {"a": {"minProperties": 2}}}),
            json!({"minContains": 2, "contains": {"const": 1}}),
            json!({"if": {"required": ["a"]}, "then": false, "else": true}),
            json!({"format": "date-time", "examples": [1], "default": null}),
            json!({"format": 5}),
            json!({"type": []}),
            json!({"type": ["string", "null"]}),
            json!({"type": ["string", "string"]}),
            json!({"type": "integer", "multipleOf": 0.5, "exclusiveMaximum": 3}),
            json!({"multipleOf": -1}),
            json!({"deprecated": 1, "readOnly": true, "examples": {}}),
            json!({"dependentRequired": {"a": ["b", "b"]}}),
            json!({"dependentRequired": ["a"]}),
            json!({"oneOf": [true, {"not": {"title": 5}}]}),
            json!({"properties": {"a": {"uniqueItems": "yes"}}}),
            json!(true),
            json!({}),
        ];
        for draft in [Draft::Draft202012, Draft::Draft7] {
            for case in &cases {
                agrees_with_compiling(case, draft).unwrap();
            }
        }
    }

    mod random {
        use super::agrees_with_compiling;
        use jsonschema::Draft;
        use proptest::prelude::*;
        use serde_json::{json, Value};

        /// Keyword values of every shape, right and wrong.
        fn value() -> impl Strategy<Value = Value> {
            prop_oneof![
                Just(json!(null)),
                any::<bool>().prop_map(Value::from),
                (-3i64..5).prop_map(Value::from),
                Just(json!(1.5)),
                Just(json!(2.0)),
                Just(json!(1e300)),
                "[a-z]{0,3}".prop_map(Value::from),
                Just(json!("string")),
                Just(json!("integer")),
                Just(json!(["string", "null"])),
                Just(json!(["string", "string"])),
                Just(json!(["a", 1])),
                Just(json!(0.0)),
                Just(json!(-0.5)),
                Just(json!({"a": ["b"]})),
                Just(json!({"a": "b"})),
                Just(json!(["a", "b"])),
                Just(json!(["a", "a"])),
                Just(json!([])),
                Just(json!({})),
            ]
        }

        fn schema() -> impl Strategy<Value = Value> {
            let keyword = prop_oneof![
                Just("type"),
                Just("minLength"),
                Just("maxItems"),
                Just("minimum"),
                Just("multipleOf"),
                Just("required"),
                Just("enum"),
                Just("const"),
                Just("format"),
                Just("title"),
                Just("uniqueItems"),
                Just("minContains"),
                Just("dependentRequired"),
                Just("x-note"),
                Just("exclusiveMinimum"),
                Just("maximum"),
                Just("exclusiveMaximum"),
                Just("description"),
                Just("$comment"),
                Just("default"),
                Just("examples"),
                Just("deprecated"),
                Just("readOnly"),
                Just("writeOnly"),
                Just("minProperties"),
                Just("maxContains"),
            ];
            let leaf = prop::collection::btree_map(keyword, value(), 0..4).prop_map(|m| {
                Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            });
            prop_oneof![leaf, any::<bool>().prop_map(Value::from), value()].prop_recursive(
                3,
                24,
                4,
                |inner| {
                    let nested = prop_oneof![
                        Just("items"),
                        Just("not"),
                        Just("additionalProperties"),
                        Just("if"),
                        Just("then"),
                        Just("else"),
                        Just("contains"),
                        Just("propertyNames"),
                        Just("additionalItems"),
                    ];
                    let listed = prop_oneof![
                        Just("allOf"),
                        Just("anyOf"),
                        Just("oneOf"),
                        Just("prefixItems"),
                        Just("items")
                    ];
                    let named = prop_oneof![
                        Just("properties"),
                        Just("$defs"),
                        Just("definitions"),
                        Just("dependentSchemas")
                    ];
                    prop_oneof![
                        (nested, inner.clone()).prop_map(|(k, v)| json!({ k: v })),
                        (listed, prop::collection::vec(inner.clone(), 0..3))
                            .prop_map(|(k, v)| json!({ k: v })),
                        (named, prop::collection::btree_map("[ab]", inner, 0..3))
                            .prop_map(|(k, v)| json!({ k: v })),
                    ]
                },
            )
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(512))]
            #[test]
            fn vouching_agrees_with_compiling(schema in schema(), draft_7 in any::<bool>()) {
                let draft = if draft_7 { Draft::Draft7 } else { Draft::Draft202012 };
                if let Err(e) = agrees_with_compiling(&schema, draft) {
                    prop_assert!(false, "{}", e);
                }
            }
        }
    }
}
