//! The JSON Schema of rule files, generated from the serde types and the check registry so
//! that editors can complete rule files and CI can check them.

use schemars::generate::SchemaSettings;
use serde_json::{json, Value};

use super::file::RuleFile;
use super::file_house::HouseRuleFile;
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
    // House-rule files are the other form a rule file takes.
    let house = serde_json::to_value(gen.subschema_for::<HouseRuleFile>()).unwrap_or(Value::Null);
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
    // Point `then` items at the per-check forms. A house rule may also call a check its
    // embedder registers, which no schema knows.
    if let Some(then) = root.pointer_mut("/$defs/RuleDef/properties/then/items") {
        *then = json!({ "oneOf": variants });
    }
    if let Some(then) = root.pointer_mut("/$defs/HouseRuleDef/properties/then/items") {
        *then = json!({
            "type": "object",
            "properties": { "check": { "type": "string" } },
            "required": ["check"],
        });
    }
    either_form(root, house)
}

/// `root` (the schema of a release's rule file) made into one of two forms: that, or a
/// house-rule file (`house`, a reference to its definition).
fn either_form(mut root: Value, house: Value) -> Value {
    let Some(obj) = root.as_object_mut() else {
        return root;
    };
    let keep = ["$schema", "title", "$defs"];
    let mut release = serde_json::Map::new();
    for key in obj.keys().cloned().collect::<Vec<_>>() {
        if !keep.contains(&key.as_str()) {
            if let Some(v) = obj.remove(&key) {
                release.insert(key, v);
            }
        }
    }
    if let Some(defs) = obj.get_mut("$defs").and_then(Value::as_object_mut) {
        defs.insert("RuleFile".into(), Value::Object(release));
    }
    obj.insert(
        "anyOf".into(),
        json!([{ "$ref": "#/$defs/RuleFile" }, house]),
    );
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

/// The check-function reference of `docs/rule-format.md`, generated from the registry so the
/// documentation cannot drift from the code.
pub fn checks_reference_markdown() -> String {
    let mut gen = SchemaSettings::draft2020_12().into_generator();
    let mut out = String::new();
    for spec in REGISTRY {
        out.push_str(&format!("### `{}`\n\n{}\n\n", spec.name, spec.summary));
        let options = serde_json::to_value((spec.schema)(&mut gen)).unwrap_or(Value::Null);
        let options = resolve_local(&options, &gen);
        let required: Vec<&str> = options
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        match options.get("properties").and_then(Value::as_object) {
            Some(props) if !props.is_empty() => {
                out.push_str("| option | required | meaning |\n|---|---|---|\n");
                for (name, p) in props {
                    let doc = p
                        .get("description")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .replace('\n', " ");
                    let req = if required.contains(&name.as_str()) {
                        "yes"
                    } else {
                        "no"
                    };
                    out.push_str(&format!("| `{name}` | {req} | {doc} |\n"));
                }
                out.push('\n');
            }
            _ => out.push_str("No options.\n\n"),
        }
        if !spec.params.is_empty() {
            let params: Vec<String> = spec.params.iter().map(|p| format!("`{{{p}}}`")).collect();
            out.push_str(&format!("Message placeholders: {}.\n\n", params.join(", ")));
        }
    }
    out
}

/// Replaces the text between `<!-- checks:start -->` and `<!-- checks:end -->` in `doc`.
pub fn with_checks_reference(doc: &str) -> Option<String> {
    const START: &str = "<!-- checks:start -->";
    const END: &str = "<!-- checks:end -->";
    let s = doc.find(START)? + START.len();
    let e = doc.find(END)?;
    (s <= e).then(|| {
        format!(
            "{}\n\n{}{}",
            &doc[..s],
            checks_reference_markdown(),
            &doc[e..]
        )
    })
}
