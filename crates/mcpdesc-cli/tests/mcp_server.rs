//! `mcpdesc mcp`: the validator as an MCP server. A raw JSON-RPC session calls every tool
//! with good and bad input and reads the rule pages; the official TypeScript and Python SDK
//! clients do the same through their own validation of each result; the server's own
//! description is valid and matches what the server offers.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use serde_json::{json, Value};
use support::live_servers::{real_servers_installed, servers_dir};
use support::{mcpdesc_in, workspace};

const DESCRIPTION: &str = "docs/examples/mcpdesc-mcp-server.yaml";
const TOOLS: [&str; 5] = [
    "check_server",
    "explain_rule",
    "list_rules",
    "validate_capture",
    "validate_description",
];
/// Long enough for `check_server`, which starts a second server.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(120);

/// `mcpdesc mcp` in the workspace, spoken to line by line; ended when dropped.
struct Session {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
}

impl Session {
    fn start(protocol_version: &str) -> Session {
        Session::start_in(&workspace(), protocol_version)
    }

    fn start_in(dir: &Path, protocol_version: &str) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcpdesc"))
            .arg("mcp")
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut session = Session {
            child,
            stdin,
            lines,
            next_id: 0,
        };
        let init = session.request(
            "initialize",
            json!({
                "protocolVersion": protocol_version,
                "capabilities": {},
                "clientInfo": {"name": "raw-test", "version": "1"}
            }),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "mcpdesc", "{init:#}");
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The response to a request (notifications the server sends meanwhile are skipped).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(ANSWER_TIMEOUT)
                .unwrap_or_else(|e| panic!("no answer to {method}: {e}"));
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("not JSON from the server ({e}): {line}"));
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// The result of `tools/call` (never a protocol error).
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        assert!(
            response.get("error").is_none(),
            "{tool} answered with a protocol error: {response:#}"
        );
        response["result"].clone()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The output schema of each tool, by name.
fn output_schemas(session: &mut Session) -> Vec<(String, Value)> {
    let listed = session.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().unwrap().clone();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(names, TOOLS);
    tools
        .iter()
        .map(|t| {
            assert_eq!(t["inputSchema"]["type"], "object", "{t:#}");
            assert_eq!(t["outputSchema"]["type"], "object", "{t:#}");
            (
                t["name"].as_str().unwrap().to_owned(),
                t["outputSchema"].clone(),
            )
        })
        .collect()
}

/// A successful result: not an error, its structured content valid against the tool's
/// output schema, with its JSON and a summary as text.
fn structured(schemas: &[(String, Value)], tool: &str, result: &Value) -> Value {
    assert_eq!(result["isError"], false, "{tool}: {result:#}");
    let content = &result["structuredContent"];
    let schema = &schemas.iter().find(|(n, _)| n == tool).unwrap().1;
    let validator = jsonschema::validator_for(schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(content)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{tool}: {errors:?}\n{content:#}");
    let text = &result["content"][0]["text"];
    let echoed: Value = serde_json::from_str(text.as_str().unwrap()).unwrap();
    assert_eq!(&echoed, content, "{tool}: the JSON text differs");
    assert!(result["content"][1]["text"].is_string(), "{result:#}");
    content.clone()
}

/// An `isError` result whose text contains `expected`.
fn refused(result: &Value, expected: &str) {
    assert_eq!(result["isError"], true, "{result:#}");
    assert!(result.get("structuredContent").is_none_or(Value::is_null));
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains(expected), "{expected:?} not in {text:?}");
}

fn read(path: &str) -> String {
    std::fs::read_to_string(workspace().join(path)).unwrap()
}

#[test]
fn every_tool_over_a_raw_session() {
    let mut s = Session::start("2025-11-25");
    let schemas = output_schemas(&mut s);

    // The findings are those `validate` reports for the same file.
    let weather = "docs/examples/weather-server.yaml";
    let r = s.call("validate_description", json!({"path": weather}));
    let got = structured(&schemas, "validate_description", &r);
    let cli = mcpdesc_in(&workspace(), ["validate", "-f", "json", weather]);
    let cli: Value = serde_json::from_str(&cli.stdout).unwrap();
    assert_eq!(got["findings"], cli["files"][0]["diagnostics"]);
    assert_eq!(got["valid"], true);
    assert_eq!(got["errors"], 0);
    assert_eq!(
        got["warnings"].as_u64().unwrap() as usize,
        got["findings"].as_array().unwrap().len()
    );

    let same = s.call(
        "validate_description",
        json!({"text": read(weather), "format": "yaml"}),
    );
    let same = structured(&schemas, "validate_description", &same);
    assert_eq!(same["findings"], got["findings"]);

    let bad = s.call(
        "validate_description",
        json!({"text": r#"{"mcpdesc": "0.8.0", "tools": [{}]}"#}),
    );
    let bad = structured(&schemas, "validate_description", &bad);
    assert_eq!(bad["valid"], false);
    assert!(bad["errors"].as_u64().unwrap() > 0, "{bad:#}");
    let rules: Vec<&str> = bad["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(
        rules.contains(&"mcpdesc.document.root-required"),
        "{rules:?}"
    );

    // A document that cannot be parsed is one finding: its load error.
    let broken = s.call(
        "validate_description",
        json!({"text": "{\"mcpdesc\": ", "format": "json"}),
    );
    let broken = structured(&schemas, "validate_description", &broken);
    assert_eq!(broken["valid"], false);
    assert_eq!(broken["errors"], 1, "{broken:#}");

    for (args, expected) in [
        (json!({}), "give the document as `text`"),
        (json!({"text": "{}", "path": weather}), "not both"),
        (
            json!({"path": "no/such/file.yaml"}),
            "cannot read no/such/file.yaml",
        ),
        (json!({"path": ""}), "`path` is empty"),
    ] {
        refused(&s.call("validate_description", args), expected);
    }
    // Arguments that do not match the input schema are refused the same way.
    let wrong = s.call(
        "validate_description",
        json!({"text": "{}", "format": "toml"}),
    );
    assert_eq!(wrong["isError"], true, "{wrong:#}");

    let capture = "spec-fixtures/traffic/expected-valid/batch-2025-03-26.ndjson";
    let ok = s.call("validate_capture", json!({"path": capture}));
    let ok = structured(&schemas, "validate_capture", &ok);
    assert_eq!(ok["valid"], true, "{ok:#}");
    let invalid = "spec-fixtures/traffic/expected-invalid/batch-2025-06-18.ndjson";
    let r = s.call("validate_capture", json!({"text": read(invalid)}));
    let r = structured(&schemas, "validate_capture", &r);
    assert_eq!(r["valid"], false, "{r:#}");
    let cli = mcpdesc_in(&workspace(), ["validate", "-f", "json", invalid]);
    let cli: Value = serde_json::from_str(&cli.stdout).unwrap();
    assert_eq!(r["findings"], cli["files"][0]["diagnostics"]);
    let versioned = s.call(
        "validate_capture",
        json!({"path": capture, "protocol_version": "2025-03-26"}),
    );
    structured(&schemas, "validate_capture", &versioned);
    refused(
        &s.call(
            "validate_capture",
            json!({"path": capture, "protocol_version": "1999-01-01"}),
        ),
        "unknown protocol version `1999-01-01`",
    );
    refused(&s.call("validate_capture", json!({})), "give the document");

    let id = "mcpdesc.document.root-required";
    let r = s.call("explain_rule", json!({"id": id}));
    let r = structured(&schemas, "explain_rule", &r);
    assert_eq!(r["id"], id);
    let cli = mcpdesc_in(&workspace(), ["explain", id]);
    assert_eq!(r["text"], cli.stdout);
    refused(
        &s.call(
            "explain_rule",
            json!({"id": "mcpdesc.document.root-requird"}),
        ),
        "`mcpdesc.document.root-required`",
    );
    refused(&s.call("explain_rule", json!({})), "id");

    let all = s.call("list_rules", json!({}));
    let all = structured(&schemas, "list_rules", &all);
    let cli = mcpdesc_in(&workspace(), ["rules", "list", "-f", "json"]);
    let cli: Value = serde_json::from_str(&cli.stdout).unwrap();
    let ids = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(ids(&all["rules"]), ids(&cli["rules"]));
    assert_eq!(all["count"], cli["rules"].as_array().unwrap().len());
    let some = s.call("list_rules", json!({"prefix": "mcpdesc.document."}));
    let some = structured(&schemas, "list_rules", &some);
    assert!(some["count"].as_u64().unwrap() > 0);
    assert!(ids(&some["rules"])
        .iter()
        .all(|id| id.starts_with("mcpdesc.document.")));
    let tools = s.call("list_rules", json!({"surface": "TOOL"}));
    let tools = structured(&schemas, "list_rules", &tools);
    assert!(tools["count"].as_u64().unwrap() > 0);
    let none = s.call("list_rules", json!({"prefix": "no.such."}));
    assert_eq!(structured(&schemas, "list_rules", &none)["count"], 0);

    for (args, expected) in [
        (json!({}), "give the server's `command` or its `url`"),
        (
            json!({"command": ["x"], "url": "http://127.0.0.1:9/"}),
            "not both",
        ),
        (json!({"command": []}), "`command` is empty"),
        (
            json!({"url": "ftp://example.invalid/"}),
            "not an http:// or https:// URL",
        ),
        (
            json!({"command": ["/no/such/program"]}),
            "cannot start `/no/such/program`",
        ),
        (
            json!({"command": ["/no/such/program"], "description_path": "no/such.yaml"}),
            "cannot read no/such.yaml",
        ),
    ] {
        refused(&s.call("check_server", args), expected);
    }
}

#[test]
fn rule_pages_are_resources() {
    let mut s = Session::start("2025-06-18");
    // Reached through the template, not listed one by one (the server's description would
    // then enumerate the catalogue).
    let listed = s.request("resources/list", json!({}));
    assert_eq!(listed["result"]["resources"], json!([]), "{listed:#}");
    let cli = mcpdesc_in(&workspace(), ["rules", "list", "-f", "json"]);
    let cli: Value = serde_json::from_str(&cli.stdout).unwrap();
    let rules = cli["rules"].as_array().unwrap();
    assert!(rules.len() > 100);
    for rule in rules {
        let uri = format!("mcpdesc://rules/{}", rule["id"].as_str().unwrap());
        let read = s.request("resources/read", json!({"uri": uri}));
        let contents = &read["result"]["contents"][0];
        assert_eq!(contents["uri"], uri.as_str(), "{read:#}");
        assert_eq!(contents["mimeType"], "text/markdown", "{read:#}");
    }
    let templates = s.request("resources/templates/list", json!({}));
    assert_eq!(
        templates["result"]["resourceTemplates"][0]["uriTemplate"],
        "mcpdesc://rules/{id}"
    );

    // The page `mcpdesc docs` writes for the rule.
    let id = "mcpdesc.document.root-required";
    let page = s.request(
        "resources/read",
        json!({"uri": format!("mcpdesc://rules/{id}")}),
    );
    let contents = &page["result"]["contents"][0];
    assert_eq!(contents["mimeType"], "text/markdown", "{page:#}");
    let text = contents["text"].as_str().unwrap();
    let owner = id.split('.').next().unwrap();
    let release = cli["release"].as_str().unwrap();
    let written = read(&format!("docs/rules/{release}/{owner}/{id}.md"));
    assert_eq!(text, written);

    for uri in ["mcpdesc://rules/no.such.rule", "file:///etc/passwd"] {
        let missing = s.request("resources/read", json!({"uri": uri}));
        assert!(missing["error"]["message"].is_string(), "{missing:#}");
    }
}

#[test]
fn the_servers_description_is_valid_and_matches_the_server() {
    let valid = mcpdesc_in(&workspace(), ["validate", "--strict", DESCRIPTION]);
    assert_eq!(valid.code, Some(0), "{}", valid.output());
    let checked = mcpdesc_in(
        &workspace(),
        [
            "check-server",
            "-f",
            "json",
            DESCRIPTION,
            "--",
            env!("CARGO_BIN_EXE_mcpdesc"),
            "mcp",
        ],
    );
    let report: Value = serde_json::from_str(&checked.stdout).unwrap_or_default();
    let findings: Vec<&Value> = report["files"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|f| f["diagnostics"].as_array().into_iter().flatten())
        .collect();
    assert!(
        checked.code == Some(0) && findings.is_empty(),
        "{}\nWhen the tools or the rules change, draft the description again as its header \
         says.",
        checked.output()
    );
}

#[test]
fn check_server_tool_checks_a_server_against_its_description() {
    let mut s = Session::start("2025-11-25");
    let schemas = output_schemas(&mut s);
    let r = s.call(
        "check_server",
        json!({
            "command": [env!("CARGO_BIN_EXE_mcpdesc"), "mcp"],
            "description_path": DESCRIPTION,
        }),
    );
    let r = structured(&schemas, "check_server", &r);
    assert_eq!(r["valid"], true, "{r:#}");
    assert_eq!(r["findings"], json!([]), "{r:#}");
    let r = s.call(
        "check_server",
        json!({"command": [env!("CARGO_BIN_EXE_mcpdesc"), "mcp"]}),
    );
    let r = structured(&schemas, "check_server", &r);
    assert_eq!(r["errors"], 0, "{r:#}");
}

/// Runs an SDK client script against the built server and returns its JSON summary.
fn sdk_client(program: &Path, script: &str) -> Value {
    let out = Command::new("timeout")
        .arg("300")
        .arg(program)
        .arg(workspace().join("xtask/mcp-clients").join(script))
        .arg(env!("CARGO_BIN_EXE_mcpdesc"))
        .current_dir(workspace())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{script} failed ({:?}):\n{stdout}\n--- stderr ---\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{script} printed no JSON summary ({e}):\n{stdout}"))
}

fn assert_summary(summary: &Value) {
    let mut tools: Vec<&str> = summary["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    tools.sort_unstable();
    assert_eq!(tools, TOOLS, "{summary:#}");
    assert_eq!(summary["toolsWithOutputSchema"], TOOLS.len(), "{summary:#}");
    let cli = mcpdesc_in(&workspace(), ["rules", "list", "-f", "json"]);
    let cli: Value = serde_json::from_str(&cli.stdout).unwrap();
    assert!(!cli["rules"].as_array().unwrap().is_empty());
    assert_eq!(summary["resources"], 0, "{summary:#}");
    assert_eq!(
        summary["templates"],
        json!(["mcpdesc://rules/{id}"]),
        "{summary:#}"
    );
    assert_eq!(summary["page"]["mimeType"], "text/markdown", "{summary:#}");
    assert_eq!(summary["page"]["hasMarker"], true, "{summary:#}");
    // Every call: its tool, whether the input was good, and what came back.
    let calls = summary["calls"].as_array().unwrap();
    for tool in TOOLS {
        for good in [true, false] {
            assert!(
                calls.iter().any(|c| c["tool"] == tool && c["good"] == good),
                "no {} call of {tool}: {summary:#}",
                if good { "good" } else { "bad" }
            );
        }
    }
    for c in calls {
        let good = c["good"].as_bool().unwrap();
        assert_eq!(c["isError"], !good, "{c:#}");
        assert_eq!(c["structured"], good, "{c:#}");
        if let Some(expected) = c.get("expectValid") {
            assert_eq!(&c["valid"], expected, "{c:#}");
        }
    }
}

fn venv_python() -> PathBuf {
    servers_dir().join(".venv/bin/python")
}

#[test]
fn the_typescript_sdk_client_uses_every_tool() {
    if !real_servers_installed() {
        return;
    }
    assert_summary(&sdk_client(Path::new("node"), "client.mjs"));
}

#[test]
fn the_python_sdk_client_uses_every_tool() {
    if !real_servers_installed() {
        return;
    }
    assert_summary(&sdk_client(&venv_python(), "client.py"));
}

#[test]
fn a_client_that_leaves_at_once_ends_the_server_quietly() {
    let run = support::mcpdesc_stdin(["mcp"], "");
    assert_eq!(run.code, Some(0), "{}", run.output());
    let run = support::mcpdesc_stdin(["mcp", "--rules", "no/such/dir"], "");
    assert_eq!(run.code, Some(2), "{}", run.output());
}

#[test]
fn the_configuration_in_the_working_directory_applies_as_for_validate() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcpdesc.toml"),
        "[validate]\nignore = [\"mcpdesc.document.root-required\"]\n",
    )
    .unwrap();
    let doc = r#"{"mcpdesc": "0.8.0"}"#;
    std::fs::write(dir.path().join("d.json"), doc).unwrap();
    let cli = mcpdesc_in(dir.path(), ["validate", "-f", "json", "d.json"]);
    let cli: Value = serde_json::from_str(&cli.stdout).unwrap();

    let mut s = Session::start_in(dir.path(), "2025-11-25");
    let schemas = output_schemas(&mut s);
    for args in [json!({"path": "d.json"}), json!({"text": doc})] {
        let r = s.call("validate_description", args);
        let r = structured(&schemas, "validate_description", &r);
        assert_eq!(r["findings"], cli["files"][0]["diagnostics"]);
        assert!(!r.to_string().contains("root-required"), "{r:#}");
    }
    drop(s);

    std::fs::write(
        dir.path().join("mcpdesc.toml"),
        "[validate]\nselect = [\"no.such.rule\"]\n",
    )
    .unwrap();
    let run = mcpdesc_in(dir.path(), ["mcp"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert!(run.stderr.contains("no.such.rule"), "{}", run.output());
    let run = mcpdesc_in(dir.path(), ["mcp", "--no-config"]);
    assert_eq!(run.code, Some(0), "{}", run.output());
}
