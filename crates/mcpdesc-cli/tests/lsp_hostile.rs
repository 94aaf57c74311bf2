//! `mcpdesc server` against an editor that misbehaves: lengths it never sends, bodies that are
//! not messages, messages after `shutdown`, options of the wrong type. The server must neither
//! abort nor end the session, nor grow with what it is told, and must answer as the Language
//! Server Protocol says.

mod support;

use std::time::Duration;

use serde_json::{json, Value};
use support::lsp::{file_uri, Client};

/// Peak resident memory of a process, in bytes (`VmHWM`).
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap();
    kb * 1024
}

fn show_message(client: &mut Client, needle: &str) -> Value {
    client.wait_for(|m| {
        m["method"] == "window/showMessage"
            && m["params"]["message"]
                .as_str()
                .is_some_and(|t| t.contains(needle))
    })
}

#[test]
fn an_announced_length_is_not_allocated() {
    for length in [
        "9223372036854775807",
        "1000000000000",
        "18446744073709551616",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (mut client, _) = Client::start(dir.path(), &[], json!({}));
        let before = peak_rss(client.pid());
        if length.len() > 19 {
            client.send_raw(format!("Content-Length: {length}\r\n\r\n").as_bytes());
            // Longer than any length: the frame is refused and the session goes on.
            show_message(&mut client, "is not a length");
            let r = client.request_raw("textDocument/hover", json!({}));
            assert!(r.get("error").is_some(), "{r}");
            client.shutdown();
            continue;
        }
        client.send_raw(format!("Content-Length: {length}\r\n\r\n{{").as_bytes());
        let m = show_message(&mut client, "messages are limited to 67108864 bytes");
        assert_eq!(m["params"]["type"], 1, "{m}");
        std::thread::sleep(Duration::from_millis(200));
        let after = peak_rss(client.pid());
        assert!(
            after < before + 16 * 1024 * 1024,
            "Content-Length {length}: peak {before} → {after} bytes"
        );
        // The announced body never comes: the input ends, and the server with it (no
        // `shutdown`, so exit code 1, not an abort).
        client.close_input();
        assert_eq!(client.exit_code(), Some(1), "Content-Length {length}");
    }
}

#[test]
fn a_message_larger_than_the_limit_is_skipped_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let (mut client, _) = Client::start(dir.path(), &["--max-input-bytes", "1000"], json!({}));
    let path = dir.path().join("big.mcpdesc.json");
    let uri = file_uri(&path);
    let text = format!(
        r#"{{"mcpdesc": "0.8.0", "info": {{"name": "w", "version": "1.0.0", "description": "{}"}}, "protocolVersions": ["2025-06-18"]}}"#,
        "x".repeat(2000)
    );
    client.open(&uri, "json", &text);
    show_message(&mut client, "messages are limited to 1000 bytes");
    // The frames after it are read as usual.
    let small = r#"{"mcpdesc": "0.8.0", "info": {"name": "w", "version": "1.0.0"}, "protocolVersions": ["2025-06-18"]}"#;
    let uri2 = file_uri(&dir.path().join("small.mcpdesc.json"));
    client.open(&uri2, "json", small);
    assert_eq!(client.diagnostics(&uri2, 1), Vec::<Value>::new());
    client.shutdown();
}

#[test]
fn malformed_bodies_and_headers_get_answers_not_an_exit() {
    let dir = tempfile::tempdir().unwrap();
    let (mut client, _) = Client::start(dir.path(), &[], json!({}));

    client.send_raw(b"Content-Length: 9\r\n\r\n{not json");
    let r = client.wait_for(|m| m.get("error").is_some() && m["id"].is_null());
    assert_eq!(r["error"]["code"], -32700, "{r}");
    assert_eq!(r["jsonrpc"], "2.0", "{r}");

    client.send_raw(b"Content-Length: 35\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":3}");
    let r = client.wait_for(|m| m["id"] == 7);
    assert_eq!(r["error"]["code"], -32600, "{r}");

    client.send_raw(b"Content-Type: text/plain\r\n\r\n");
    show_message(&mut client, "no `Content-Length` header");
    client.send_raw(format!("X-{}: y\r\n\r\n", "a".repeat(100_000)).as_bytes());
    show_message(&mut client, "a header line is longer than");

    // Still answering.
    let r = client.request_raw("mcpdesc/unknown", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    client.shutdown();
}

#[test]
fn after_shutdown_requests_are_refused_and_notifications_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let (mut client, _) = Client::start(dir.path(), &[], json!({}));
    assert_eq!(client.request("shutdown", Value::Null), Value::Null);
    let r = client.request_raw("textDocument/hover", json!({}));
    assert_eq!(r["error"]["code"], -32600, "{r}");
    let uri = file_uri(&dir.path().join("a.mcpdesc.json"));
    client.open(&uri, "json", "{}");
    let r = client.request_raw("shutdown", Value::Null);
    assert_eq!(r["error"]["code"], -32600, "{r}");
    client.notify("exit", Value::Null);
    assert_eq!(client.exit_code(), Some(0));
    assert!(
        !client
            .seen
            .iter()
            .any(|m| m["method"] == "textDocument/publishDiagnostics"),
        "a document opened after shutdown is not checked: {:#?}",
        client.seen
    );
}

#[test]
fn exit_without_shutdown_exits_with_1() {
    let dir = tempfile::tempdir().unwrap();
    let (mut client, _) = Client::start(dir.path(), &[], json!({}));
    client.notify("exit", Value::Null);
    assert_eq!(client.exit_code(), Some(1));
}

#[test]
fn a_wrong_option_is_named_and_the_others_still_hold() {
    let dir = tempfile::tempdir().unwrap();
    let (mut client, _) = Client::start(
        dir.path(),
        &[],
        json!({"strict": "yes", "ignore": ["mcpdesc.conformance"], "debounceMs": "soon"}),
    );
    let m = show_message(&mut client, "initialization options ignored");
    let text = m["params"]["message"].as_str().unwrap();
    assert!(
        text.contains("`strict`") && text.contains("`debounceMs`"),
        "{text}"
    );
    assert!(!text.contains("`ignore`"), "{text}");
    // `ignore` still applies: a legacy revision's note is not reported.
    let uri = file_uri(&dir.path().join("a.mcpdesc.json"));
    client.open(
        &uri,
        "json",
        r#"{"mcpdesc": "0.8.0", "info": {"name": "w", "version": "1.0.0"}, "protocolVersions": ["2025-03-26"]}"#,
    );
    let diags = client.diagnostics(&uri, 1);
    assert!(
        diags.iter().all(|d| !d["code"]
            .as_str()
            .unwrap_or("")
            .starts_with("mcpdesc.conformance")),
        "{diags:#?}"
    );
    client.shutdown();
}

#[test]
fn a_capture_is_offered_no_edit() {
    let dir = tempfile::tempdir().unwrap();
    let path = support::lsp::fixture_copy(
        dir.path(),
        "traffic/expected-invalid/elicitation-before-2025-06-18.ndjson",
    );
    let uri = file_uri(&path);
    let text = std::fs::read_to_string(&path).unwrap();
    let (mut client, _) = Client::start(dir.path(), &[], json!({}));
    client.open(&uri, "plaintext", &text);
    let diags = client.diagnostics(&uri, 1);
    assert!(!diags.is_empty());
    for d in &diags {
        let r = client.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": d["range"],
                   "context": {"diagnostics": [d]}}),
        );
        assert_eq!(r, json!([]), "no suppression or fix in a capture: {d}");
    }
    client.shutdown();
}

#[test]
fn a_select_that_matches_no_rule_is_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let (mut client, _) =
        Client::start(dir.path(), &[], json!({"select": ["mcpdesc.tol.required"]}));
    for (i, name) in ["a.mcpdesc.json", "b.mcpdesc.json"].iter().enumerate() {
        let uri = file_uri(&dir.path().join(name));
        client.open(
            &uri,
            "json",
            r#"{"mcpdesc": "0.8.0", "info": {"name": "w", "version": "1.0.0"}, "protocolVersions": ["2025-06-18"]}"#,
        );
        client.diagnostics(&uri, 1);
        if i == 0 {
            let m = show_message(
                &mut client,
                "`mcpdesc.tol.required` (select or ignore) matches no rule",
            );
            assert_eq!(m["params"]["type"], 2, "a warning: {m}");
        }
    }
    let again = client
        .seen
        .iter()
        .filter(|m| m["method"] == "window/showMessage")
        .count();
    assert_eq!(again, 0, "said once: {:#?}", client.seen);
    client.shutdown();
}

#[test]
fn references_of_a_component_that_aliases_another_are_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let text = r##"{
  "mcpdesc": "0.8.0",
  "info": {"name": "w", "version": "1.0.0"},
  "protocolVersions": ["2025-06-18"],
  "components": {"schemas": {
    "Alias": {"$componentRef": "#/components/schemas/Base"},
    "Base": {"type": "object"}
  }},
  "tools": [
    {"name": "t", "description": "d", "inputSchema": {"$componentRef": "#/components/schemas/Alias"}},
    {"name": "u", "description": "d", "inputSchema": {"$componentRef": "#/components/schemas/Base"}}
  ]
}
"##;
    let uri = file_uri(&dir.path().join("a.mcpdesc.json"));
    let (mut client, _) = Client::start(dir.path(), &[], json!({}));
    client.open(&uri, "json", text);
    client.diagnostics(&uri, 1);
    let refs = |client: &mut Client, line: u64, character: u64| -> Vec<u64> {
        let r = client.request(
            "textDocument/references",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character},
                   "context": {"includeDeclaration": false}}),
        );
        let mut lines: Vec<u64> = r
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["range"]["start"]["line"].as_u64().unwrap())
            .collect();
        lines.sort_unstable();
        lines
    };
    // On the key `Alias`: the tool that uses it, not those of `Base`.
    assert_eq!(refs(&mut client, 5, 5), [9]);
    // On the reference inside `Alias`: the uses of `Base`, the alias among them.
    assert_eq!(refs(&mut client, 5, 30), [5, 10]);
    client.shutdown();
}

#[test]
fn a_lone_carriage_return_ends_a_line_as_the_editor_counts() {
    let dir = tempfile::tempdir().unwrap();
    let (mut client, _) = Client::start(dir.path(), &[], json!({}));
    // JSON: the engine reads a lone CR as whitespace; the editor shows a new line. YAML: the
    // engine counts it too.
    let documents = [
        (
            "a.mcpdesc.json",
            "json",
            "{\"mcpdesc\": \"0.8.0\",\r\"info\": {\"name\": \"w\", \"version\": \"1.0.0\"},\r\"protocolVersions\": [\"2025-06-18\"],\r\"bogus\": 1}\n",
        ),
        (
            "b.mcpdesc.yaml",
            "yaml",
            "mcpdesc: 0.8.0\rinfo: {name: w, version: 1.0.0}\rprotocolVersions: [2025-06-18]\rbogus: 1\n",
        ),
    ];
    for (name, language, text) in documents {
        let uri = file_uri(&dir.path().join(name));
        client.open(&uri, language, text);
        let diags = client.diagnostics(&uri, 1);
        let d = diags
            .iter()
            .find(|d| d["data"]["pointer"] == "/bogus")
            .unwrap_or_else(|| panic!("{name}: {diags:#?}"));
        assert_eq!(
            d["range"]["start"],
            json!({"line": 3, "character": 0}),
            "{name}: {d}"
        );
    }
    client.shutdown();
}

#[test]
fn an_edit_that_cannot_be_applied_withdraws_the_findings() {
    let dir = tempfile::tempdir().unwrap();
    let (mut client, _) = Client::start(dir.path(), &[], json!({}));
    let uri = file_uri(&dir.path().join("a.mcpdesc.json"));
    client.open(
        &uri,
        "json",
        r#"{"mcpdesc": "0.8.0", "info": {"name": "w", "version": "1.0.0"}, "protocolVersions": ["2025-06-18"], "bogus": 1}"#,
    );
    assert!(!client.diagnostics(&uri, 1).is_empty());
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 0, "character": -3},
                                             "end": {"line": 0, "character": 1}}, "text": ""}]}),
    );
    let m = show_message(&mut client, "could not be applied");
    assert_eq!(m["params"]["type"], 1, "{m}");
    let withdrawn = client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
    });
    assert_eq!(withdrawn["params"]["diagnostics"], json!([]), "{withdrawn}");
    // Opened again, it is checked again.
    client.open(&uri, "json", "{}");
    assert!(!client.diagnostics(&uri, 1).is_empty());
    client.shutdown();
}
