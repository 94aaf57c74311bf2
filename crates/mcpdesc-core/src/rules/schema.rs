//! The JSON Schema of rule files, generated from the serde types and the check registry so
//! that editors can complete rule files and CI can check them.

use schemars::generate::SchemaSettings;
use serde_json::{json, Value};

use super::file::RuleFile;
use crate::checks::REGISTRY;

/// The rule-file schema (draft 2020-12), with one `then` item form per check function.
pub fn rule_file_schema() -> Value {
    let mut gen = SchemaSettings::draft2020_12().into_generator();
    let mut root = serde_json::to_value(gen.root_schema_for::<RuleFile>()).unwrap_or(Value::Null);
    let mut variants = Vec::new();
    for spec in REGISTRY {
        let options = serde_json::to_value((spec.schema)(&mut gen)).unwrap_or(Value::Null);
        let options = resolve_local(&options, &gen);
        let mut properties = options
            .get("properties")
            .cloned()
            .unwrap_or_else(|| json!({}));
        if let Some(map) = properties.as_object_mut() {
            map.insert(
                "check".into(),
                json!({ "const": spec.name, "description": spec.summary }),
            );
            map.insert("at".into(), json!({ "type": "string", "description": "Relative path of the check's subjects (default: the selected node)." }));
            map.insert("when".into(), json!({ "$ref": "#/$defs/ConditionDef" }));
            map.insert("message".into(), json!({ "type": "string", "description": "Message template overriding the rule's." }));
        }
        let mut required = vec![json!("check")];
        if let Some(r) = options.get("required").and_then(Value::as_array) {
            required.extend(r.iter().cloned());
        }
        variants.push(json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        }));
    }
    let defs = gen.take_definitions(true);
    if let Some(obj) = root.as_object_mut() {
        let all_defs = obj.entry("$defs").or_insert_with(|| json!({}));
        if let Some(d) = all_defs.as_object_mut() {
            for (k, v) in defs {
                d.entry(k).or_insert(v);
            }
        }
        obj.insert("title".into(), json!("mcpdesc rule file"));
    }
    // Point `then` items at the per-check forms.
    if let Some(then) = root.pointer_mut("/$defs/RuleDef/properties/then/items") {
        *then = json!({ "oneOf": variants });
    }
    root
}

/// Inlines a `$ref` to a generated definition at the top of an options schema.
fn resolve_local(schema: &Value, gen: &schemars::SchemaGenerator) -> Value {
    let Some(r) = schema.get("$ref").and_then(Value::as_str) else {
        return schema.clone();
    };
    let name = r.rsplit('/').next().unwrap_or_default();
    gen.definitions()
        .get(name)
        .cloned()
        .unwrap_or_else(|| schema.clone())
}
