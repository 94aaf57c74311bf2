//! Why a schema fails its dialect's meta-schema, in a finding's words and at the keyword at
//! fault. The schema library reports a misspelt `type: strin` as the `anyOf` of the meta-schema
//! failing at the whole `type` member; the reason is in one of its branches. Like
//! `best_match` of Python's `jsonschema` and ajv's better-errors, the branch that got furthest
//! is followed: the one whose errors lie deepest in the schema, then the one the value at
//! least has the type of, then the one with fewest errors.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{Draft, ValidationError};
use serde_json::Value;

use crate::rules::suggest::closest;

/// Where in `schema` (a JSON Pointer relative to it) and why it fails the meta-schema of
/// `draft`; `None` when it passes (what fails then is compiling it: a reference, a regular
/// expression), or for a dialect with no meta-schema here.
pub(crate) fn explain(schema: &Value, draft: Draft) -> Option<(String, String)> {
    let validator = match draft {
        Draft::Draft202012 => jsonschema::draft202012::meta::validator(),
        Draft::Draft7 => jsonschema::draft7::meta::validator(),
        _ => return None,
    };
    let errors: Vec<ValidationError<'_>> = validator.iter_errors(schema).collect();
    let error = most_relevant(&errors)?;
    Some((error.instance_path().as_str().to_owned(), in_words(error)))
}

/// The error that says most about what is wrong: of `errors`, the deepest, a type mismatch
/// only if nothing else is as deep; into an `anyOf` or `oneOf`, the most relevant error of
/// its best branch.
fn most_relevant<'e>(errors: &'e [ValidationError<'e>]) -> Option<&'e ValidationError<'e>> {
    let best = errors.iter().max_by_key(|e| {
        (
            depth(e),
            !matches!(e.kind(), ValidationErrorKind::Type { .. }),
        )
    })?;
    match best.kind() {
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            let branch = context.iter().filter(|b| !b.is_empty()).max_by_key(|b| {
                let deepest = b.iter().map(depth).max().unwrap_or(0);
                let typed = !b.iter().any(|e| {
                    matches!(e.kind(), ValidationErrorKind::Type { .. }) && depth(e) == depth(best)
                });
                (deepest, typed, std::cmp::Reverse(b.len()))
            });
            branch.and_then(|b| most_relevant(b)).or(Some(best))
        }
        _ => Some(best),
    }
}

fn depth(e: &ValidationError<'_>) -> usize {
    e.instance_path().segments().count()
}

/// The error in a finding's words: the value and where it is in the schema (the finding's
/// pointer is the schema's), what was expected of it, and the allowed value it is closest to.
fn in_words(e: &ValidationError<'_>) -> String {
    let value = e.instance().as_ref();
    let path = e.instance_path();
    let keyword = path.as_str().rsplit('/').next().unwrap_or_default();
    let at = path.as_str();
    match e.kind() {
        ValidationErrorKind::Enum { options } => {
            let allowed: Vec<&str> = options
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let what = if keyword == "type" || path.as_str().contains("/type/") {
                "a JSON Schema type".to_owned()
            } else {
                format!("one of {}", quoted(&allowed))
            };
            let meant = value
                .as_str()
                .and_then(|v| closest(v, allowed.iter().copied()))
                .map(|m| format!("; did you mean `{m}`?"))
                .unwrap_or_default();
            format!("{} at `{at}` is not {what}{meant}", show(value))
        }
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(t) => t.to_string(),
                TypeKind::Multiple(set) => set
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            let named = if at.is_empty() {
                "the schema".to_owned()
            } else {
                format!("`{at}`")
            };
            format!(
                "{named} must be {} {expected}, not {}",
                article(&expected),
                kind_of(value)
            )
        }
        _ => {
            let words = e.to_string();
            if at.is_empty() {
                words
            } else {
                format!("at `{at}`: {words}")
            }
        }
    }
}

fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A value as a finding quotes it: short, in backticks.
fn show(value: &Value) -> String {
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let short: String = text.chars().take(40).collect();
    if short.len() < text.len() {
        format!("`{short}…`")
    } else {
        format!("`{short}`")
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn explained(schema: Value) -> Option<(String, String)> {
        explain(&schema, Draft::Draft202012)
    }

    #[test]
    fn a_misspelt_type_is_named_where_it_is_with_the_type_meant() {
        assert_eq!(
            explained(json!({"type": "object", "properties": {"x": {"type": "strin"}}})),
            Some((
                "/properties/x/type".to_owned(),
                "`strin` at `/properties/x/type` is not a JSON Schema type; did you mean `string`?"
                    .to_owned()
            ))
        );
        // In a list of types too.
        assert_eq!(
            explained(json!({"type": ["string", "nul"]})),
            Some((
                "/type/1".to_owned(),
                "`nul` at `/type/1` is not a JSON Schema type; did you mean `null`?".to_owned()
            ))
        );
        // Too far from every type to guess.
        assert_eq!(
            explained(json!({"type": "zzzzzz"})),
            Some((
                "/type".to_owned(),
                "`zzzzzz` at `/type` is not a JSON Schema type".to_owned()
            ))
        );
    }

    #[test]
    fn a_keyword_of_the_wrong_type_says_what_it_takes() {
        assert_eq!(
            explained(json!({"type": "object", "required": "query"})),
            Some((
                "/required".to_owned(),
                "`/required` must be an array, not a string".to_owned()
            ))
        );
        assert_eq!(
            explained(json!({"properties": {"a": {"minLength": "3"}}})),
            Some((
                "/properties/a/minLength".to_owned(),
                "`/properties/a/minLength` must be an integer, not a string".to_owned()
            ))
        );
    }

    #[test]
    fn a_valid_schema_or_an_unknown_dialect_has_nothing_to_explain() {
        assert_eq!(explained(json!({"type": "string"})), None);
        assert_eq!(explain(&json!({"type": "strin"}), Draft::Draft4), None);
    }
}
