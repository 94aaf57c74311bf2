//! `mcpdesc tap` between the official SDK clients and real servers, set up as people use it:
//! the client launches `mcpdesc tap -- SERVER…` instead of `SERVER…`. Each session runs once
//! straight and once through the tap (`xtask/tap-sessions/`), and the two must look the same
//! to the client; the tap must report exactly the non-conformance `docs/traffic.md` documents
//! for that implementation, the same as `mcpdesc validate` finds in its recording, and count
//! every message.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::Value;
use support::live_servers::{everything_stdio, python_sdk_server, real_servers_installed};
use support::workspace;

#[derive(Clone, Copy, Debug)]
enum Client {
    TypeScript,
    Python,
}

impl Client {
    /// The command line that runs `xtask/tap-sessions/session.*` up to its options.
    fn command(self) -> Command {
        let root = workspace();
        match self {
            Client::TypeScript => {
                let mut c = Command::new("node");
                c.arg(root.join("xtask/tap-sessions/session.mjs"));
                c
            }
            Client::Python => {
                let mut c = Command::new(root.join("xtask/live-servers/.venv/bin/python"));
                c.arg(root.join("xtask/tap-sessions/session.py"));
                c
            }
        }
    }
}

/// What the client exchanged in one session, as `session.*` writes it.
struct Session {
    protocol_version: Value,
    sent: Vec<Value>,
    received: Vec<Value>,
}

/// Runs one session of `client` against `server` (a command line), offering `version` if
/// given, and returns what the client sent and received; `out` keeps the session's file.
fn session(client: Client, version: Option<&str>, server: &[PathBuf], out: &Path) -> Session {
    let mut command = client.command();
    command.arg("--out").arg(out);
    if let Some(version) = version {
        command.arg("--protocol-version").arg(version);
    }
    let run = command.arg("--").args(server).output().unwrap();
    assert!(
        run.status.success(),
        "{client:?} session against {server:?} failed:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let written: Value = serde_json::from_slice(&std::fs::read(out).unwrap()).unwrap();
    let list = |key: &str| written[key].as_array().unwrap().clone();
    Session {
        protocol_version: written["protocolVersion"].clone(),
        sent: list("sent"),
        received: list("received"),
    }
}

/// One finding as the concise format prints it, less the file name: `line:col: severity
/// rule message`.
fn findings(report: &str, path: &Path) -> Vec<String> {
    let prefix = format!("{}:", path.display());
    report
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .map(str::to_owned)
        .collect()
}

/// The `N` before `word` in the tap's summary line.
fn count_before(summary: &str, word: &str) -> usize {
    let words: Vec<&str> = summary.split([' ', ',', ';']).collect();
    let at = words.iter().position(|w| *w == word).unwrap();
    words[at - 1].parse().unwrap()
}

/// Findings the documentation lists for a session: one for each of `at`, in that order.
struct Expected {
    rule: &'static str,
    severity: &'static str,
    /// The tool of the `tools/call` whose result carries them.
    tool: &'static str,
    /// Where in that result, as the finding's message names it.
    at: &'static [&'static str],
}

/// The capture's line (1-based) of the response to the `tools/call` of `tool`.
fn line_of_tool_result(capture: &str, tool: &str) -> usize {
    let records: Vec<Value> = capture
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let id = records
        .iter()
        .find(|r| r["msg"]["method"] == "tools/call" && r["msg"]["params"]["name"] == tool)
        .map(|r| r["msg"]["id"].clone())
        .unwrap_or_else(|| panic!("no tools/call of {tool} in the capture"));
    1 + records
        .iter()
        .position(|r| r["dir"] == "s2c" && r["msg"]["id"] == id && r["msg"].get("method").is_none())
        .unwrap_or_else(|| panic!("no response to the tools/call of {tool} in the capture"))
}

fn check(client: Client, server: &[PathBuf], version: Option<&str>, expected: &[Expected]) {
    if !real_servers_installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let direct = session(client, version, server, &dir.path().join("straight.json"));
    let direct_time = started.elapsed();

    let log = dir.path().join("tap.log");
    let capture = dir.path().join("session.ndjson");
    let mut tapped_server: Vec<PathBuf> = vec![
        env!("CARGO_BIN_EXE_mcpdesc").into(),
        "tap".into(),
        "--log".into(),
        log.clone(),
        "--record".into(),
        capture.clone(),
        "--".into(),
    ];
    tapped_server.extend_from_slice(server);
    let started = Instant::now();
    let tapped = session(
        client,
        version,
        &tapped_server,
        &dir.path().join("tapped.json"),
    );
    let tapped_time = started.elapsed();
    eprintln!(
        "{client:?} client, {:?}: protocol {}, {} sent, {} received; {direct_time:.2?} straight, \
         {tapped_time:.2?} through the tap",
        server.last().unwrap(),
        tapped.protocol_version,
        tapped.sent.len(),
        tapped.received.len(),
    );

    // (1) The proxy is invisible to the client.
    assert_eq!(tapped.protocol_version, direct.protocol_version);
    assert_eq!(tapped.received, direct.received);
    assert_eq!(tapped.sent, direct.sent);

    // (2) Exactly the documented findings, at the documented message.
    let log_text = std::fs::read_to_string(&log).unwrap();
    let capture_text = std::fs::read_to_string(&capture).unwrap();
    let live = findings(&log_text, &capture);
    eprintln!("tap log:\n{log_text}");
    let mut want = Vec::new();
    for e in expected {
        let line = line_of_tool_result(&capture_text, e.tool);
        for at in e.at {
            want.push(format!("{line}: {} {} {at}", e.severity, e.rule));
        }
    }
    let got: Vec<String> = live
        .iter()
        .zip(
            expected
                .iter()
                .flat_map(|e| e.at.iter())
                .chain(std::iter::repeat(&"")),
        )
        .map(|(f, at)| {
            // `line:col: severity rule message…` → `line: severity rule AT` when the message
            // names AT.
            let (position, rest) = f.split_once(": ").unwrap();
            let line = position.split(':').next().unwrap();
            let mut words = rest.splitn(3, ' ');
            let (severity, rule) = (words.next().unwrap(), words.next().unwrap());
            let message = words.next().unwrap_or("");
            let at = if !at.is_empty() && message.contains(*at) {
                *at
            } else {
                ""
            };
            format!("{line}: {severity} {rule} {at}")
        })
        .collect();
    assert_eq!(got, want, "{log_text}");

    // (3) The recording validated afterwards gives what the tap reported live.
    let validated = Command::new(env!("CARGO_BIN_EXE_mcpdesc"))
        .args(["validate", "--format", "concise"])
        .arg(&capture)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&validated.stdout);
    assert_eq!(findings(&report, &capture), live, "{report}\n{log_text}");

    // (4) Every message was checked, and the recording holds each one in its direction.
    let summary = log_text
        .lines()
        .find(|l| l.starts_with("mcpdesc tap:"))
        .unwrap_or_else(|| panic!("no summary in the log:\n{log_text}"));
    let total = direct.sent.len() + direct.received.len();
    assert_eq!(count_before(summary, "messages"), total, "{summary}");
    assert_eq!(count_before(summary, "too"), 0, "{summary}");
    assert_eq!(count_before(summary, "not"), 0, "{summary}");
    let directions: Vec<Value> = capture_text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["dir"].clone())
        .collect();
    let c2s = directions.iter().filter(|d| *d == "c2s").count();
    let s2c = directions.iter().filter(|d| *d == "s2c").count();
    assert_eq!((c2s, s2c), (direct.sent.len(), direct.received.len()));
}

/// `docs/traffic.md`: server-everything sends `resource_link` content, which exists only from
/// MCP 2025-06-18, in every version; the `get-resource-links` result with two links has it at
/// `content/1` and `content/2`.
#[test]
fn typescript_client_and_server_everything_at_2024_11_05() {
    check(
        Client::TypeScript,
        &everything_stdio(),
        Some("2024-11-05"),
        &[Expected {
            rule: "mcp.wire.result-schema",
            severity: "error",
            tool: "get-resource-links",
            at: &["`/content/1/type`", "`/content/2/type`"],
        }],
    );
}

#[test]
fn typescript_client_and_python_sdk_server() {
    check(Client::TypeScript, &python_sdk_server(), None, &[]);
}

#[test]
fn python_client_and_server_everything() {
    check(Client::Python, &everything_stdio(), None, &[]);
}

#[test]
fn python_client_and_python_sdk_server() {
    check(Client::Python, &python_sdk_server(), None, &[]);
}
