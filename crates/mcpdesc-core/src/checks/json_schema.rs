//! `json-schema`: a value validates against a JSON Schema.
//!
//! The schema is given inline, by a file of the rules directory, or found in the document
//! itself. Schemas never cause network or file access: every external reference fails to
//! resolve, and `pattern` keywords use a linear-time regex engine.

use std::sync::Arc;

use jsonschema::{Draft, PatternOptions, Retrieve, Uri};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::tree_instance::{failures, TreeJson, TreeValidator as Validator};
use super::{options, relpath, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::document::ValueRef;
use crate::eval::context::{Compiled, EvalCtx, Finding, POSITION};
use crate::relpath::RelPath;

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
enum DraftOption {
    /// From the schema's `$schema`, 2020-12 when absent.
    #[default]
    Auto,
    #[serde(rename = "2020-12")]
    Draft2020_12,
    #[serde(rename = "draft-07")]
    Draft07,
}

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// The schema, inline.
    #[serde(default)]
    schema: Option<Value>,
    /// Path of a schema file, relative to the rules directory.
    #[serde(default)]
    schema_file: Option<String>,
    /// Relative path, from the rule's node, of a schema in the document.
    #[serde(default)]
    schema_at: Option<String>,
    #[serde(default)]
    draft: DraftOption,
}

/// Refuses every retrieval: schemas resolve local references only.
struct NoRetrieval;

impl Retrieve for NoRetrieval {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!("external reference `{uri}` is not retrieved").into())
    }
}

/// The draft `option` selects for a schema whose `$schema` is `declared`.
fn draft_of(declared: Option<&str>, option: DraftOption) -> Draft {
    match option {
        DraftOption::Draft2020_12 => Draft::Draft202012,
        DraftOption::Draft07 => Draft::Draft7,
        DraftOption::Auto => declared_draft(declared),
    }
}

/// The draft a schema whose `$schema` is `declared` is read in: draft-07 when it names it,
/// 2020-12 otherwise.
pub(crate) fn declared_draft(declared: Option<&str>) -> Draft {
    match declared {
        Some(s) if s.contains("draft-07") => Draft::Draft7,
        _ => Draft::Draft202012,
    }
}

/// Compiles `schema` with network and file access off, to validate document nodes.
pub(crate) fn build(schema: &Value, draft: Draft) -> Result<Validator, String> {
    jsonschema::options_for::<TreeJson>()
        .with_draft(draft)
        .with_retriever(NoRetrieval)
        .with_pattern_options(PatternOptions::regex())
        .should_validate_formats(false)
        .build(schema)
        .map_err(|e| e.to_string())
}

#[derive(Debug)]
enum SchemaSource {
    Compiled(Arc<Validator>),
    InDocument(RelPath, DraftOption),
}

#[derive(Debug)]
struct JsonSchemaCheck(SchemaSource);

fn compile(m: &Map<String, Value>, cx: &CompileCx<'_>) -> Result<Box<dyn Check>, OptionError> {
    let o = options::<Options>(m)?;
    let given = [
        o.schema.is_some(),
        o.schema_file.is_some(),
        o.schema_at.is_some(),
    ];
    if given.iter().filter(|b| **b).count() != 1 {
        return Err(OptionError::at(
            "",
            "give exactly one of `schema`, `schema-file`, `schema-at`",
        ));
    }
    let fixed = |schema: &Value, field: &str| {
        let declared = schema.get("$schema").and_then(Value::as_str);
        build(schema, draft_of(declared, o.draft))
            .map(|v| JsonSchemaCheck(SchemaSource::Compiled(Arc::new(v))))
            .map_err(|e| OptionError::at(format!("/{field}"), format!("invalid schema: {e}")))
    };
    let check = if let Some(schema) = &o.schema {
        fixed(schema, "schema")?
    } else if let Some(file) = &o.schema_file {
        let text = super::rules_file(cx.files, "/schema-file", file, "schema file")?;
        let schema: Value = serde_json::from_str(text)
            .map_err(|e| OptionError::at("/schema-file", format!("`{file}` is not JSON: {e}")))?;
        fixed(&schema, "schema-file")?
    } else {
        let at = o.schema_at.as_deref().unwrap_or("@");
        JsonSchemaCheck(SchemaSource::InDocument(relpath("schema-at", at)?, o.draft))
    };
    Ok(Box::new(check))
}

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "json-schema",
    summary: "The value validates against a JSON Schema given by `schema`, `schema-file` or \
              `schema-at` (a schema in the document; skipped when absent or not compilable); a \
              finding per validation error, at the failing instance location.",
    params: &["error"],
    compile,
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

impl Check for JsonSchemaCheck {
    fn run(&self, node: Node<'_>, cx: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        let validator = match &self.0 {
            SchemaSource::Compiled(v) => v.clone(),
            SchemaSource::InDocument(path, draft) => {
                let Some(hit) = path.first(cx.root, node.pointer) else {
                    return;
                };
                let declared = hit.value.get("$schema").and_then(ValueRef::as_str);
                let draft = draft_of(declared, *draft);
                match cx
                    .cache
                    .compile_at(&hit.pointer, hit.value, |s| build(s, draft))
                {
                    Compiled::Valid(v) => v,
                    Compiled::Invalid(_) | Compiled::Refused => return,
                }
            }
        };
        for error in failures(&validator, node.value) {
            let suffix = error.instance_path().to_string();
            let mut finding = Finding::new(format!("{}{}", node.pointer, suffix));
            // An alternative none of which matches is explained by the one that got
            // furthest, at the node it fails at; the finding stays the alternative's.
            match super::schema_errors::best_alternative(&error) {
                Some((deeper, words)) => {
                    finding = finding
                        .with("error", shorten(&words))
                        .with(POSITION, format!("{}{deeper}", node.pointer));
                }
                None => finding = finding.with("error", shorten(&error.to_string())),
            }
            out.push(finding);
        }
    }
}

/// A validation message kept readable whatever the instance: messages quote the failing
/// value, which a hostile document can make megabytes long; the middle is elided.
pub(crate) fn shorten(message: &str) -> String {
    const KEEP: usize = 400;
    let chars = message.chars().count();
    if chars <= 2 * KEEP + 50 {
        return message.to_owned();
    }
    let head: String = message.chars().take(KEEP).collect();
    let tail: String = message.chars().skip(chars - KEEP).collect();
    format!("{head}… ({} characters elided) …{tail}", chars - 2 * KEEP)
}

#[cfg(test)]
mod tests {
    use crate::checks::tests_support::run_on;
    use serde_json::json;

    #[test]
    fn inline_and_in_document_schemas() {
        let doc = json!({"t": {"schema": {"type": "object", "required": ["a"],
                                          "properties": {"a": {"type": "string"}}},
                               "value": {"a": 5}},
                         "u": {"value": {"a": "x"}}});
        let inline = json!({"check": "json-schema",
                            "schema": {"type": "object", "properties": {"a": {"type": "string"}}}});
        let found = run_on(&inline, &doc, "/t/value");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pointer, "/t/value/a");
        assert!(run_on(&inline, &doc, "/u/value").is_empty());
        let at = json!({"check": "json-schema", "schema-at": "^.schema"});
        let found = run_on(&at, &doc, "/t/value");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pointer, "/t/value/a");
        assert!(run_on(&at, &doc, "/u/value").is_empty());
    }

    #[test]
    fn long_messages_are_shortened() {
        let long = "x".repeat(2000);
        let short = super::shorten(&long);
        assert!(short.len() < 1000);
        assert!(short.contains("characters elided"));
        assert_eq!(super::shorten("short"), "short");
    }
}
