//! Running a description's examples against the server (`--call-examples`): which requests
//! the examples make (the catalogue's `live.calls`), and how a result is compared with the
//! example's. Calls can have side effects, so nothing here runs unless asked.
//!
//! Results are compared by shape, not value: a live server's answer to the same input
//! differs in its text, ids and timestamps, but not in which members it has and what kind of
//! value each holds.

use mcpdesc_core::document::pointer;
use mcpdesc_core::internal::rules::file::LiveDef;
use serde::Serialize;
use serde_json::{Map, Value};

/// One request an example makes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlannedCall {
    /// The example, in the description.
    pub pointer: String,
    /// The JSON-RPC method of the request (the catalogue's `live.calls` names it).
    pub method: String,
    /// The request's parameters, taken from the example.
    pub params: Value,
    /// The example's result.
    pub expected: Value,
}

/// The calls of each version: the examples of the entries in scope for it.
pub fn planner<'a>(
    cat: &'a mcpdesc_core::Catalogue,
    live: &'a LiveDef,
    root: &'a Value,
) -> impl Fn(&str) -> Vec<PlannedCall> + 'a {
    let scopes = cat.scopes(mcpdesc_core::Document::from_value(root).root());
    move |version| match cat.versions.parse(version) {
        Some(v) => plan(live, root, |ptr| scopes.scope_of(ptr).contains(v)),
        None => Vec::new(),
    }
}

/// What the server answered to one planned call.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallOutcome {
    /// The example the call was planned for, in the description.
    pub pointer: String,
    /// The server's result, when it answered with one.
    pub result: Option<Value>,
    /// Why there is no result: the server's error, or what went wrong on the way.
    pub error: Option<String>,
}

/// The calls the examples of `root` (a description, references substituted) make in a
/// version, given which entries are in scope for it.
pub fn plan(live: &LiveDef, root: &Value, in_scope: impl Fn(&str) -> bool) -> Vec<PlannedCall> {
    let mut out = Vec::new();
    for call in &live.calls {
        let Some(list) = live.lists.iter().find(|l| l.collection == call.collection) else {
            continue;
        };
        let Some(entries) = root.get(&call.collection).and_then(Value::as_array) else {
            continue;
        };
        for (i, entry) in entries.iter().enumerate() {
            let entry_ptr = format!("{}/{i}", pointer::push("", &call.collection));
            if !in_scope(&entry_ptr) {
                continue;
            }
            let Some(key) = entry.get(&list.key) else {
                continue;
            };
            let Some(examples) = entry.get(&call.examples).and_then(Value::as_object) else {
                continue;
            };
            for (name, example) in examples {
                let Some(expected) = example.get(&call.result) else {
                    continue;
                };
                let mut params = Map::new();
                for (param, source) in &call.params {
                    let value = if source == "{key}" {
                        Some(key.clone())
                    } else if let Some(member) = source.strip_prefix('@') {
                        example.get(member).cloned()
                    } else {
                        Some(Value::from(source.as_str()))
                    };
                    if let Some(v) = value {
                        params.insert(param.clone(), v);
                    }
                }
                out.push(PlannedCall {
                    pointer: pointer::push(&pointer::push(&entry_ptr, &call.examples), name),
                    method: call.method.clone(),
                    params: Value::Object(params),
                    expected: expected.clone(),
                });
            }
        }
    }
    out
}

/// A finding of a call: which kind, where in the description, and what the server did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallFinding {
    /// `true` when the server answered with an error, `false` when the result's shape
    /// differs from the example's.
    pub failed: bool,
    /// The example, in the description.
    pub pointer: String,
    /// What the server did, in one sentence.
    pub message: String,
}

/// What the outcomes of the planned calls say about the examples.
pub fn findings(planned: &[PlannedCall], outcomes: &[CallOutcome]) -> Vec<CallFinding> {
    let mut out = Vec::new();
    for call in planned {
        let Some(outcome) = outcomes.iter().find(|o| o.pointer == call.pointer) else {
            continue;
        };
        match (&outcome.result, &outcome.error) {
            (_, Some(error)) => out.push(CallFinding {
                failed: true,
                pointer: call.pointer.clone(),
                message: format!(
                    "the server answered `{}` with an error: {error}",
                    call.method
                ),
            }),
            (Some(result), None) => {
                let differences = shape_differences(&call.expected, result);
                if !differences.is_empty() {
                    out.push(CallFinding {
                        failed: false,
                        pointer: call.pointer.clone(),
                        message: format!(
                            "the server's result of `{}` does not have the example's shape: {}",
                            call.method,
                            differences.join("; ")
                        ),
                    });
                }
            }
            (None, None) => {}
        }
    }
    out
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Where `actual` does not have the shape of `expected`: every member the example has must
/// be there with the same kind of value, recursively; array items are compared with the item
/// at the same index, and an array the example fills must not come back empty. Members the
/// server adds are not differences.
pub fn shape_differences(expected: &Value, actual: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk(expected, actual, &mut String::new(), &mut out);
    out
}

fn walk(expected: &Value, actual: &Value, at: &mut String, out: &mut Vec<String>) {
    let here = |at: &str| {
        if at.is_empty() {
            "the result".to_owned()
        } else {
            format!("`{at}`")
        }
    };
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                let len = at.len();
                pointer::push_token(at, k);
                match a.get(k) {
                    Some(av) => walk(ev, av, at, out),
                    None => out.push(format!("{} is missing", here(at))),
                }
                at.truncate(len);
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            if !e.is_empty() && a.is_empty() {
                out.push(format!("{} is empty, the example's is not", here(at)));
            }
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                let len = at.len();
                pointer::push_index(at, i);
                walk(ev, av, at, out);
                at.truncate(len);
            }
        }
        // Integers and decimals are both numbers in JSON.
        (e, a) if kind(e) == kind(a) => {}
        (e, a) => out.push(format!("{} is {}, not {}", here(at), kind(a), kind(e))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn live() -> LiveDef {
        let cat = mcpdesc_core::Engine::embedded().unwrap();
        cat.catalogue()
            .def
            .live
            .clone()
            .expect("the catalogue says how to talk to servers")
    }

    #[test]
    fn examples_become_requests() {
        let root = json!({
            "tools": [{"name": "add", "examples": {"small": {"input": {"a": 1}, "result": {"content": []}}}},
                      {"name": "off", "examples": {"x": {"input": {}, "result": {}}}}],
            "resourceTemplates": [{"uriTemplate": "w://{c}", "examples": {"b": {"uri": "w://b", "result": {"contents": []}}}}],
        });
        let calls = plan(&live(), &root, |p| p != "/tools/1");
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].pointer, "/tools/0/examples/small");
        assert_eq!(
            calls[0].params,
            json!({"name": "add", "arguments": {"a": 1}})
        );
        assert_eq!(calls[1].params, json!({"uri": "w://b"}));
    }

    #[test]
    fn shapes_not_values() {
        let example = json!({"content": [{"type": "text", "text": "3"}], "isError": false});
        let same = json!({"content": [{"type": "text", "text": "4", "extra": 1}], "isError": true});
        assert!(shape_differences(&example, &same).is_empty());
        let other = json!({"content": [{"type": "text", "text": 4}]});
        assert_eq!(
            shape_differences(&example, &other),
            [
                "`/content/0/text` is a number, not a string",
                "`/isError` is missing"
            ]
        );
        assert_eq!(
            shape_differences(&example, &json!({"content": [], "isError": false})),
            ["`/content` is empty, the example's is not"]
        );
    }
}
