//! Runs the RFC 9535 JSONPath compliance test suite through `mcpdesc_core::internal::path`, evaluating
//! each query over the document tree of the case's document.
//!
//! The suite is read from `$MCPDESC_JSONPATH_CTS` if set, else from
//! `<CARGO_MANIFEST_DIR>/../../../shared/conformance/jsonpath-rfc9535/cts.json`; when it is absent
//! the test prints that it was skipped and passes.
//!
//! Cases that are known to fail are listed, each with a one-line reason, in
//! `tests/jsonpath_known_failures.txt` (`<case name> :: <reason>`). The test fails when a case
//! not on that list fails, and when a listed case passes or does not exist, so the list stays
//! exact.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use mcpdesc_core::document::{pointer, Tree};
use mcpdesc_core::internal::path::JsonPath;
use serde_json::Value;

const KNOWN_FAILURES: &str = include_str!("jsonpath_known_failures.txt");

fn cts_location() -> PathBuf {
    match std::env::var_os("MCPDESC_JSONPATH_CTS") {
        Some(path) => PathBuf::from(path),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/conformance/jsonpath-rfc9535/cts.json"),
    }
}

/// `<case name> :: <reason>` lines; blank lines and lines starting with `#` are ignored.
fn known_failures() -> BTreeMap<String, String> {
    let mut known = BTreeMap::new();
    for (n, line) in KNOWN_FAILURES.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((name, reason)) = line.split_once(" :: ") else {
            panic!(
                "jsonpath_known_failures.txt:{}: expected `<case name> :: <reason>`",
                n + 1
            );
        };
        let (name, reason) = (name.trim(), reason.trim());
        assert!(
            !reason.is_empty(),
            "jsonpath_known_failures.txt:{}: `{name}` needs a reason",
            n + 1
        );
        assert!(
            known.insert(name.to_string(), reason.to_string()).is_none(),
            "jsonpath_known_failures.txt:{}: `{name}` is listed twice",
            n + 1
        );
    }
    known
}

/// Renders a member name as an RFC 9535 normalized-path name selector (section 2.7).
fn normal_name(name: &str) -> String {
    let mut out = String::from("['");
    for c in name.chars() {
        match c {
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            c if c < ' ' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push_str("']");
    out
}

/// Converts one of our JSON Pointers back to a normalized path, using the document to tell
/// array indices from member names.
fn normalized_path(root: &Value, at: &str) -> Result<String, String> {
    let mut out = String::from("$");
    let mut node = root;
    for token in pointer::tokens(at) {
        node = match node {
            Value::Array(items) => {
                let i: usize = token
                    .parse()
                    .map_err(|_| format!("pointer `{at}`: `{token}` is not an array index"))?;
                out.push_str(&format!("[{i}]"));
                items.get(i)
            }
            Value::Object(members) => {
                out.push_str(&normal_name(&token));
                members.get(token.as_ref())
            }
            _ => None,
        }
        .ok_or_else(|| format!("pointer `{at}` does not resolve in the document"))?;
    }
    Ok(out)
}

fn strings(value: Option<&Value>) -> Option<Vec<String>> {
    value?
        .as_array()?
        .iter()
        .map(|p| p.as_str().map(str::to_string))
        .collect()
}

fn short(value: &impl std::fmt::Debug) -> String {
    let text = format!("{value:?}");
    match text.char_indices().nth(300) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// Runs one case; `Err` says how it failed.
fn run_case(case: &Value) -> Result<(), String> {
    let selector = case["selector"]
        .as_str()
        .ok_or("case has no string `selector`")?;
    let compiled = JsonPath::compile(selector);
    if case["invalid_selector"].as_bool() == Some(true) {
        return match compiled {
            Ok(_) => Err("invalid selector was accepted".to_string()),
            Err(_) => Ok(()),
        };
    }
    let path = compiled.map_err(|err| format!("valid selector was rejected: {err}"))?;
    let document = case.get("document").ok_or("case has no `document`")?;
    let tree = Tree::from_value(document);
    let selected = path.select(tree.root());
    let values: Vec<Value> = selected.iter().map(|s| s.value.to_value()).collect();
    let paths = selected
        .iter()
        .map(|s| normalized_path(document, &s.pointer))
        .collect::<Result<Vec<_>, _>>()?;

    // (expected values, expected normalized paths if given), one per acceptable outcome.
    let outcomes: Vec<(Vec<Value>, Option<Vec<String>>)> = if let Some(result) = case.get("result")
    {
        let values = result.as_array().ok_or("`result` is not an array")?.clone();
        vec![(values, strings(case.get("result_paths")))]
    } else if let Some(results) = case.get("results") {
        let alternatives = results.as_array().ok_or("`results` is not an array")?;
        let all_paths = case.get("results_paths").and_then(Value::as_array);
        alternatives
            .iter()
            .enumerate()
            .map(|(i, values)| {
                let values = values.as_array().cloned().unwrap_or_default();
                (values, all_paths.and_then(|p| strings(p.get(i))))
            })
            .collect()
    } else {
        return Err("case has neither `result` nor `results`".to_string());
    };

    let matches = |(want_values, want_paths): &(Vec<Value>, Option<Vec<String>>)| {
        *want_values == values && want_paths.as_ref().is_none_or(|want| *want == paths)
    };
    if outcomes.iter().any(matches) {
        Ok(())
    } else {
        Err(format!(
            "got values {} at {}; expected {}",
            short(&values),
            short(&paths),
            short(&outcomes)
        ))
    }
}

#[test]
fn rfc9535_compliance_suite() {
    let location = cts_location();
    let text = match std::fs::read_to_string(&location) {
        Ok(text) => text,
        Err(err) => {
            println!(
                "SKIPPED: JSONPath compliance suite not found at {} ({err}); set MCPDESC_JSONPATH_CTS to run it",
                location.display()
            );
            return;
        }
    };
    let suite: Value = serde_json::from_str(&text).expect("cts.json is not valid JSON");
    let cases = suite["tests"]
        .as_array()
        .expect("cts.json has no `tests` array");
    let known = known_failures();

    let mut seen = BTreeSet::new();
    let mut passed = 0;
    let mut known_failed = 0;
    let mut unexpected = Vec::new();
    let mut stale = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap_or("<unnamed>").to_string();
        let outcome = catch_unwind(AssertUnwindSafe(|| run_case(case)))
            .unwrap_or_else(|_| Err("panicked".to_string()));
        seen.insert(name.clone());
        match (outcome, known.contains_key(&name)) {
            (Ok(()), false) => passed += 1,
            (Ok(()), true) => stale.push(name),
            (Err(_), true) => known_failed += 1,
            (Err(why), false) => unexpected.push(format!(
                "{name} (selector {}): {why}",
                short(&case["selector"])
            )),
        }
    }
    let missing: Vec<_> = known.keys().filter(|name| !seen.contains(*name)).collect();

    println!(
        "JSONPath CTS ({}): {passed} of {} passed, {known_failed} known failures",
        location.display(),
        cases.len()
    );
    let mut problems = String::new();
    if !unexpected.is_empty() {
        problems += &format!(
            "\n{} case(s) failed that are not in jsonpath_known_failures.txt:\n  {}\n",
            unexpected.len(),
            unexpected.join("\n  ")
        );
    }
    if !stale.is_empty() {
        problems += &format!(
            "\n{} case(s) in jsonpath_known_failures.txt now pass; remove them:\n  {}\n",
            stale.len(),
            stale.join("\n  ")
        );
    }
    if !missing.is_empty() {
        problems += &format!(
            "\n{} case(s) in jsonpath_known_failures.txt are not in the suite:\n  {}\n",
            missing.len(),
            missing
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n  ")
        );
    }
    assert!(problems.is_empty(), "{problems}");
}
