//! `check-server --call-examples` against the official `server-everything`: the examples
//! of a description written by `init` (a tool's, a resource's, a resource
//! template's and a prompt's, added here) are run against the server and their results
//! compared by shape, not value; without the flag no example is run. And the round trip of
//! `live_roundtrip.rs` over Streamable HTTP.
//!
//! What server-everything answers (2025-06-18 shown; every version alike):
//! - `tools/call echo {message: "hi"}`: `{content: [{type: "text", text: "Echo: hi"}]}`;
//!   arguments it rejects, or an unknown tool, give a normal result with `isError: true` and
//!   the error as text, never a JSON-RPC error.
//! - `resources/read` of a static document:
//!   `{contents: [{uri, mimeType: "text/markdown", text}]}`; of
//!   `demo://resource/dynamic/text/1`: `{contents: [{uri, mimeType: "text/plain", text}]}`;
//!   of `demo://resource/dynamic/text/abc`: JSON-RPC error -32603 `Unknown resource: …`.
//! - `prompts/get simple-prompt`:
//!   `{messages: [{role: "user", content: {type: "text", text}}]}`.
//!
//! The tests skip, with the reason printed, only when the install of the servers fails
//! because a package registry cannot be reached.

mod support;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{json, Value};
use support::live_check::{assert_round_trip, check, init_json, read_json, Checked, Server};
use support::live_servers::{everything_http, everything_stdio, real_servers_installed};

/// The one warning a description covering the legacy versions always has.
const LEGACY_WARNING: &str = "mcpdesc.conformance.legacy-incomplete";
/// Before 2025-11-25 a tool's schemas are shapes only, so the rules say a tool example's
/// input is validated incompletely there: a warning at each such example, whatever it is.
const INCOMPLETE_EXAMPLE: &str = "mcpdesc.tool.examples.incomplete-validation";

const STATIC_DOCUMENT: &str = "demo://resource/static/document/features.md";
const TEXT_TEMPLATE: &str = "demo://resource/dynamic/text/{resourceId}";

/// The indexes of the entries of `collection` whose `key` is `value`.
fn declarations(d: &Value, collection: &str, key: &str, value: &str) -> Vec<usize> {
    let found: Vec<usize> = d[collection]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, e)| e[key] == value)
        .map(|(i, _)| i)
        .collect();
    assert!(
        !found.is_empty(),
        "no {collection} entry with {key} {value}"
    );
    found
}

/// An echo result in the server's shape, with another text: values are not compared.
fn echo_result() -> Value {
    json!({"content": [{"type": "text", "text": "Echo: something else"}]})
}

/// Adds an example to the entries of `collection` whose `key` is `value`; their indexes.
fn add_example(
    d: &mut Value,
    (collection, key, value): (&str, &str, &str),
    name: &str,
    example: &Value,
) -> Vec<usize> {
    let found = declarations(d, collection, key, value);
    for &i in &found {
        d[collection][i]["examples"][name] = example.clone();
    }
    found
}

/// Examples of the shapes server-everything answers with, on every declaration of `echo`,
/// of one static document, of the text template and of `simple-prompt`.
fn add_faithful_examples(d: &mut Value) {
    add_example(
        d,
        ("tools", "name", "echo"),
        "hello",
        &json!({"input": {"message": "hi"}, "result": echo_result()}),
    );
    add_example(
        d,
        ("resources", "uri", STATIC_DOCUMENT),
        "whole",
        &json!({"result": {"contents": [
            {"uri": STATIC_DOCUMENT, "mimeType": "text/markdown", "text": "# Features"}
        ]}}),
    );
    add_example(
        d,
        ("resourceTemplates", "uriTemplate", TEXT_TEMPLATE),
        "first",
        &json!({"uri": "demo://resource/dynamic/text/1", "result": {"contents": [
            {"uri": "demo://resource/dynamic/text/1", "mimeType": "text/plain", "text": "one"}
        ]}}),
    );
    add_example(
        d,
        ("prompts", "name", "simple-prompt"),
        "plain",
        &json!({"result": {"messages": [
            {"role": "user", "content": {"type": "text", "text": "x"}}
        ]}}),
    );
}

fn write(dir: &Path, name: &str, d: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(d).unwrap()).unwrap();
    path
}

/// The answers in `capture` to the requests of `method` the client sent, in order.
fn answers(capture: &Path, method: &str) -> Vec<Value> {
    let mut pending = Vec::new();
    let mut out = Vec::new();
    for line in std::fs::read_to_string(capture).unwrap().lines() {
        let entry: Value = serde_json::from_str(line).unwrap();
        let msg = &entry["msg"];
        if entry["dir"] == "c2s" && msg["method"] == method {
            pending.push(msg["id"].clone());
        } else if entry["dir"] == "s2c" && msg.get("method").is_none() {
            if let Some(at) = pending.iter().position(|id| *id == msg["id"]) {
                pending.remove(at);
                out.push(msg.clone());
            }
        }
    }
    assert!(pending.is_empty(), "{method}: unanswered {pending:?}");
    out
}

fn requests(capture: &Path, method: &str) -> usize {
    std::fs::read_to_string(capture)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["dir"] == "c2s" && e["msg"]["method"] == method)
        .count()
}

/// The findings on the description besides the live ones are the warnings every such
/// description has.
fn assert_only_expected_warnings(c: &Checked) {
    for rule in c.other_rules() {
        assert!(
            [LEGACY_WARNING, INCOMPLETE_EXAMPLE].contains(&rule),
            "{rule}: {}",
            c.run.output()
        );
    }
}

fn check_timed(what: &str, description: &Path, flags: &[&OsStr], server: &Server) -> Checked {
    let started = Instant::now();
    let c = check(description, flags, server);
    eprintln!("{what} took {:.2?}", started.elapsed());
    c
}

#[test]
fn examples_of_the_servers_shapes_give_no_live_findings() {
    if !real_servers_installed() {
        return;
    }
    let server = Server::Stdio(everything_stdio());
    let dir = tempfile::tempdir().unwrap();
    let mut d = read_json(&init_json(dir.path(), &server));
    add_faithful_examples(&mut d);
    let path = write(dir.path(), "examples.json", &d);

    let capture = dir.path().join("calls.ndjson");
    let c = check_timed(
        "check-server --call-examples (stdio)",
        &path,
        &[
            "--call-examples".as_ref(),
            "--record".as_ref(),
            capture.as_os_str(),
        ],
        &server,
    );
    assert!(c.live().is_empty(), "{:#?}\n{}", c.live(), c.run.output());
    assert_eq!(c.run.code, Some(0), "{}", c.run.output());
    assert_only_expected_warnings(&c);
    // Each version calls the echo declared for it: one call per declaration.
    let echoes = answers(&capture, "tools/call");
    assert_eq!(
        echoes.len(),
        declarations(&d, "tools", "name", "echo").len(),
        "{echoes:#?}"
    );
    for answer in &echoes {
        assert_eq!(
            answer["result"]["content"],
            json!([{"type": "text", "text": "Echo: hi"}]),
            "{answer}"
        );
    }
    // The document and the template are in scope for every version, the prompt once per
    // version too.
    let versions = d["protocolVersions"].as_array().unwrap().len();
    assert_eq!(requests(&capture, "resources/read"), 2 * versions);
    assert_eq!(requests(&capture, "prompts/get"), versions);

    // Without the flag nothing is called.
    let capture = dir.path().join("lists.ndjson");
    let c = check(&path, &["--record".as_ref(), capture.as_os_str()], &server);
    assert!(c.live().is_empty(), "{:#?}\n{}", c.live(), c.run.output());
    assert_eq!(c.run.code, Some(0), "{}", c.run.output());
    assert!(requests(&capture, "tools/list") > 0);
    for method in ["tools/call", "resources/read", "prompts/get"] {
        assert_eq!(requests(&capture, method), 0, "{method}");
    }
}

#[test]
fn a_member_the_server_does_not_return_differs_at_each_example() {
    if !real_servers_installed() {
        return;
    }
    let server = Server::Stdio(everything_stdio());
    let dir = tempfile::tempdir().unwrap();
    let mut d = read_json(&init_json(dir.path(), &server));
    add_faithful_examples(&mut d);
    // Content annotations exist in every version the server serves; echo returns none.
    let mut result = echo_result();
    result["content"][0]["annotations"] = json!({"audience": ["user"]});
    let echoes = add_example(
        &mut d,
        ("tools", "name", "echo"),
        "hello",
        &json!({"input": {"message": "hi"}, "result": result}),
    );
    let path = write(dir.path(), "annotated.json", &d);

    let c = check_timed(
        "check-server --call-examples, one member missing (stdio)",
        &path,
        &["--call-examples".as_ref()],
        &server,
    );
    // A warning: the run passes.
    assert_eq!(c.run.code, Some(0), "{}", c.run.output());
    assert_only_expected_warnings(&c);
    let live = c.live();
    let pointers: Vec<&str> = live.iter().map(|f| f.pointer.as_str()).collect();
    let expected: Vec<String> = echoes
        .iter()
        .map(|i| format!("/tools/{i}/examples/hello"))
        .collect();
    assert_eq!(pointers, expected, "{live:#?}");
    for f in live {
        assert_eq!(f.rule, "mcpdesc-live.example-differs");
        assert_eq!(f.versions.len(), 1, "{f:?}");
        assert_eq!(
            f.message,
            "the server's result of `tools/call` does not have the example's shape: \
             `/content/0/annotations` is missing"
        );
    }
}

#[test]
fn an_example_the_server_refuses_fails() {
    if !real_servers_installed() {
        return;
    }
    let server = Server::Stdio(everything_stdio());
    let dir = tempfile::tempdir().unwrap();
    let mut d = read_json(&init_json(dir.path(), &server));
    add_faithful_examples(&mut d);
    // The URI matches the template, but the server knows no such resource: a JSON-RPC error.
    let templates = add_example(
        &mut d,
        ("resourceTemplates", "uriTemplate", TEXT_TEMPLATE),
        "unknown",
        &json!({"uri": "demo://resource/dynamic/text/abc", "result": {"contents": [
            {"uri": "demo://resource/dynamic/text/abc", "text": "?"}
        ]}}),
    );
    // A tool refuses arguments with a normal result (`isError: true`), not a JSON-RPC
    // error: the example does not fail, and its result is compared by shape like any
    // other. `message` must be a string; where the schema is only a shape (2024-11-05)
    // the rules cannot tell, so the description is valid.
    let echo = declarations(&d, "tools", "name", "echo")[0];
    assert_eq!(d["tools"][echo]["protocolVersions"], json!(["2024-11-05"]));
    d["tools"][echo]["examples"]["refused"] = json!({
        "input": {"message": 5},
        "result": {"content": [{"type": "text", "text": "refused"}], "isError": true}
    });
    let path = write(dir.path(), "refused.json", &d);

    let capture = dir.path().join("calls.ndjson");
    let c = check_timed(
        "check-server --call-examples, one refused (stdio)",
        &path,
        &[
            "--call-examples".as_ref(),
            "--record".as_ref(),
            capture.as_os_str(),
        ],
        &server,
    );
    assert_eq!(c.run.code, Some(1), "{}", c.run.output());
    assert_only_expected_warnings(&c);
    let live = c.live();
    assert_eq!(live.len(), templates.len(), "{live:#?}");
    for (f, i) in live.iter().zip(&templates) {
        assert_eq!(f.rule, "mcpdesc-live.example-failed", "{f:?}");
        assert_eq!(
            f.pointer,
            format!("/resourceTemplates/{i}/examples/unknown")
        );
        assert_eq!(
            f.message,
            "the server answered `resources/read` with an error: \
             error -32603 Unknown resource: demo://resource/dynamic/text/abc"
        );
        // One finding for the versions it holds in.
        assert_eq!(
            f.versions.len(),
            d["protocolVersions"].as_array().unwrap().len()
        );
    }
    let refused: Vec<Value> = answers(&capture, "tools/call")
        .into_iter()
        .filter(|a| a["result"]["isError"] == true)
        .collect();
    assert_eq!(refused.len(), 1, "{refused:#?}");
    assert!(
        refused[0]["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Invalid arguments for tool echo"),
        "{refused:#?}"
    );
}

#[test]
fn streamable_http_round_trip_and_examples() {
    if !real_servers_installed() {
        return;
    }
    let http = everything_http();
    let server = Server::Http(http.url.clone());
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    assert_round_trip(dir.path(), &server);

    let dir = tempfile::tempdir().unwrap();
    let mut d = read_json(&init_json(dir.path(), &server));
    add_faithful_examples(&mut d);
    let path = write(dir.path(), "examples.json", &d);
    let capture = dir.path().join("calls.ndjson");
    let c = check(
        &path,
        &[
            "--call-examples".as_ref(),
            "--record".as_ref(),
            capture.as_os_str(),
        ],
        &server,
    );
    assert!(c.live().is_empty(), "{:#?}\n{}", c.live(), c.run.output());
    assert_eq!(c.run.code, Some(0), "{}", c.run.output());
    assert_eq!(
        answers(&capture, "tools/call").len(),
        declarations(&d, "tools", "name", "echo").len()
    );
    eprintln!(
        "server-everything over Streamable HTTP: round trip and examples took {:.2?}",
        started.elapsed()
    );
}
