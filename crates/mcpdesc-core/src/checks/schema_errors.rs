//! Why a value fails a JSON Schema, in a finding's words and at the node at fault. The
//! schema library reports a misspelt `type: strin` in a schema as the `anyOf` of the
//! meta-schema failing at the whole `type` member, and a content block whose `type` is
//! misspelt as the `anyOf` of the block kinds failing at the whole block; the reason is in
//! one of the branches. Like `best_match` of Python's `jsonschema` and ajv's better-errors,
//! the branch that got furthest is followed: the one whose errors lie deepest, then the one
//! the value at least has the type of, then the one with fewest errors.

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
    Some((
        error.instance_path().as_str().to_owned(),
        in_words(error, Vocabulary::Schema),
    ))
}

/// For an `anyOf` or `oneOf` that no alternative of matches: where (a JSON Pointer from the
/// validated value's root) and why the alternative that got furthest fails; `None` for any
/// other error, or when no alternative says more than the error itself.
pub(crate) fn best_alternative(error: &ValidationError<'_>) -> Option<(String, String)> {
    if !matches!(
        error.kind(),
        ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. }
    ) {
        return None;
    }
    let best = most_relevant(std::slice::from_ref(error))?;
    if std::ptr::eq(best, error) {
        return None;
    }
    let at = best.instance_path().as_str().to_owned();
    // Alternatives told apart by one member's constant or enum (`"method": "roots/list"`)
    // are all as near: the member may be any of their values, not only the winner's.
    if matches!(
        best.kind(),
        ValidationErrorKind::Constant { .. } | ValidationErrorKind::Enum { .. }
    ) {
        let mut allowed: Vec<&str> = Vec::new();
        for e in alternatives(error).flatten() {
            if e.instance_path().as_str() != at {
                continue;
            }
            let values: Vec<&Value> = match e.kind() {
                ValidationErrorKind::Constant { expected_value } => vec![expected_value],
                ValidationErrorKind::Enum { options } => options
                    .as_array()
                    .map(|a| a.iter().collect())
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            for v in values.into_iter().filter_map(Value::as_str) {
                if !allowed.contains(&v) {
                    allowed.push(v);
                }
            }
        }
        if allowed.len() > 1 {
            let value = best.instance().as_ref();
            let meant = value
                .as_str()
                .and_then(|v| closest(v, allowed.iter().copied()))
                .map(|m| format!("; did you mean `{m}`?"))
                .unwrap_or_default();
            let words = format!(
                "`{at}` must be one of {}, not {}{meant}",
                quoted(&allowed),
                show(value)
            );
            return Some((at, words));
        }
    }
    Some((at, in_words(best, Vocabulary::Instance)))
}

/// The errors of each alternative of an `anyOf` or `oneOf` error.
fn alternatives<'e>(
    error: &'e ValidationError<'_>,
) -> impl Iterator<Item = &'e Vec<ValidationError<'static>>> {
    match error.kind() {
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            Some(context.iter())
        }
        _ => None,
    }
    .into_iter()
    .flatten()
}

/// What the validated value is: a JSON Schema (checked against its meta-schema, whose enums
/// of strings name types) or any instance.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Vocabulary {
    Schema,
    Instance,
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
fn in_words(e: &ValidationError<'_>, vocabulary: Vocabulary) -> String {
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
            let names_types = keyword == "type" || path.as_str().contains("/type/");
            let what = if vocabulary == Vocabulary::Schema && names_types {
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
        ValidationErrorKind::Constant { expected_value } => {
            let named = if at.is_empty() {
                "the value".to_owned()
            } else {
                format!("`{at}`")
            };
            format!(
                "{named} must be {}, not {}",
                show(expected_value),
                show(value)
            )
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
            let named = match (at.is_empty(), vocabulary) {
                (true, Vocabulary::Schema) => "the schema".to_owned(),
                (true, Vocabulary::Instance) => "the value".to_owned(),
                (false, _) => format!("`{at}`"),
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
    fn an_alternative_that_got_furthest_is_explained_for_an_instance() {
        let schema = json!({"type": "array", "items": {"anyOf": [
            {"type": "object", "required": ["type", "text"],
             "properties": {"type": {"const": "text"}, "text": {"type": "string"}}},
            {"type": "object", "required": ["type", "data", "mimeType"],
             "properties": {"type": {"const": "image"}, "data": {"type": "string"}}}
        ]}});
        let validator = jsonschema::validator_for(&schema).unwrap();
        let instance = json!([{"type": "tetx", "text": "hi"}]);
        let errors: Vec<_> = validator.iter_errors(&instance).collect();
        assert_eq!(errors.len(), 1);
        assert_eq!(
            best_alternative(&errors[0]),
            Some((
                "/0/type".to_owned(),
                "`/0/type` must be one of `text`, `image`, not `tetx`; did you mean `text`?"
                    .to_owned()
            ))
        );
        // Alternatives told apart by a constant: any of them.
        let schema = json!({"anyOf": [
            {"properties": {"method": {"const": "roots/list"}}},
            {"properties": {"method": {"const": "sampling/createMessage"}}, "required": ["params"]}
        ]});
        let validator = jsonschema::validator_for(&schema).unwrap();
        let instance = json!({"method": "roots/lists"});
        let error = validator.iter_errors(&instance).next().unwrap();
        assert_eq!(
            best_alternative(&error),
            Some((
                "/method".to_owned(),
                "`/method` must be one of `roots/list`, `sampling/createMessage`, not \
                 `roots/lists`; did you mean `roots/list`?"
                    .to_owned()
            ))
        );
        // Not an alternative: the error says it all.
        let validator = jsonschema::validator_for(&json!({"type": "array"})).unwrap();
        let not_an_array = json!({});
        let errors: Vec<_> = validator.iter_errors(&not_an_array).collect();
        assert_eq!(best_alternative(&errors[0]), None);
        // An instance's `type` member is not a JSON Schema type.
        let validator = jsonschema::validator_for(
            &json!({"properties": {"type": {"enum": ["text", "image"]}}}),
        )
        .unwrap();
        let instance = json!({"type": "tetx"});
        let error = validator.iter_errors(&instance).next().unwrap();
        assert_eq!(
            in_words(&error, Vocabulary::Instance),
            "`tetx` at `/type` is not one of `text`, `image`; did you mean `text`?"
        );
    }

    #[test]
    fn a_valid_schema_or_an_unknown_dialect_has_nothing_to_explain() {
        assert_eq!(explained(json!({"type": "string"})), None);
        assert_eq!(explain(&json!({"type": "strin"}), Draft::Draft4), None);
    }
}
