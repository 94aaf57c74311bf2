//! `mcpdesc probe-server` against live servers: the official `server-everything` (stdio and
//! Streamable HTTP) and a server built with the official Python SDK, installed at pinned
//! versions by `xtask/live-servers/install.sh`; and small misbehaving servers
//! (`tests/data/fake-mcp-server.py`), each of which must give a clear report or error and
//! never a hang.
//!
//! The tests of real servers skip, with the reason printed, only when the install fails
//! because a package registry cannot be reached.

mod support;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::live_servers::{
    everything_http, everything_stdio, python_sdk_server, real_servers_installed,
};
use support::{mcpdesc, mcpdesc_in, Run};

const LEGACY: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const MODERN: &str = "2026-07-28";

/// `probe-server FLAGS -- COMMAND`, with the capture written to `capture`; the parsed reports
/// when it printed any.
fn probe(flags: &[&str], capture: &Path, command: &[&Path]) -> (Run, Option<Vec<Value>>) {
    let mut args: Vec<&std::ffi::OsStr> = vec!["probe-server".as_ref()];
    args.extend(flags.iter().map(std::ffi::OsStr::new));
    args.extend(["--record".as_ref(), capture.as_os_str()]);
    if !command.is_empty() {
        args.push("--".as_ref());
        args.extend(command.iter().map(|c| c.as_os_str()));
    }
    let run = mcpdesc(args);
    let reports = serde_json::from_str::<Vec<Value>>(&run.stdout).ok();
    (run, reports)
}

/// The rule ids (with the line) that the traffic rules report on a capture.
fn capture_findings(capture: &Path) -> Vec<String> {
    let run = mcpdesc([
        "validate".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        capture.as_os_str(),
    ]);
    let v: Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.output()));
    v["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            format!(
                "{}:{} {}",
                d["rule"].as_str().unwrap(),
                d["line"],
                d["message"]
            )
        })
        .collect()
}

fn report<'a>(reports: &'a [Value], version: &str) -> &'a Value {
    reports
        .iter()
        .find(|r| r["requested"] == version)
        .unwrap_or_else(|| panic!("no report for {version}"))
}

fn names(items: &Value) -> Vec<&str> {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect()
}

/// A report of a negotiated version with tools that all have a name and an input schema.
fn assert_negotiated_with_tools(r: &Value, version: &str) {
    assert_eq!(r["negotiated"], version, "{r:#}");
    assert_eq!(r["refusal"], Value::Null, "{r:#}");
    assert_eq!(r["errors"], serde_json::json!([]), "{r:#}");
    let tools = r["lists"]["tools"].as_array().unwrap();
    assert!(!tools.is_empty(), "{version}: no tools");
    for t in tools {
        assert!(t["name"].is_string(), "{version}: {t}");
        assert!(t["inputSchema"].is_object(), "{version}: {t}");
    }
}

/// server-everything is built on the TypeScript SDK, whose newest version is 2025-11-25; it
/// does not implement `server/discover`.
fn assert_everything_reports(reports: &[Value]) {
    assert_eq!(reports.len(), 5);
    for v in LEGACY {
        let r = report(reports, v);
        assert_negotiated_with_tools(r, v);
        assert_eq!(r["serverInfo"]["name"], "mcp-servers/everything");
        assert!(
            r["lists"]["resources"].as_array().unwrap().len() >= 2,
            "{r:#}"
        );
        assert!(!r["lists"]["resourceTemplates"]
            .as_array()
            .unwrap()
            .is_empty());
        assert!(names(&r["lists"]["prompts"]).contains(&"simple-prompt"));
        assert!(names(&r["lists"]["tools"]).contains(&"echo"));
    }
    let modern = report(reports, MODERN);
    assert_eq!(modern["negotiated"], Value::Null, "{modern:#}");
    assert!(
        modern["refusal"]
            .as_str()
            .is_some_and(|s| s.contains("server/discover")),
        "{modern:#}"
    );
}

#[test]
fn server_everything_over_stdio() {
    if !real_servers_installed() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let capture = tmp.path().join("everything.ndjson");
    let server = everything_stdio();
    let command: Vec<&Path> = server.iter().map(PathBuf::as_path).collect();
    let started = Instant::now();
    let (run, reports) = probe(&[], &capture, &command);
    eprintln!(
        "probing server-everything (stdio) for every catalogue version took {:.2?}",
        started.elapsed()
    );
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert_everything_reports(&reports.unwrap());
    let findings = capture_findings(&capture);
    assert!(findings.is_empty(), "the capture: {findings:#?}");
}

#[test]
fn python_sdk_server_over_stdio() {
    if !real_servers_installed() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let capture = tmp.path().join("python.ndjson");
    let server = python_sdk_server();
    let command: Vec<&Path> = server.iter().map(PathBuf::as_path).collect();
    let started = Instant::now();
    let (run, reports) = probe(&[], &capture, &command);
    eprintln!(
        "probing the Python SDK server for every catalogue version took {:.2?}",
        started.elapsed()
    );
    assert_eq!(run.code, Some(0), "{}", run.output());
    let reports = reports.unwrap();
    // The Python SDK serves both eras from one process.
    for v in LEGACY.iter().copied().chain([MODERN]) {
        let r = report(&reports, v);
        assert_negotiated_with_tools(r, v);
        assert_eq!(r["serverInfo"]["name"], "live-demo-python");
        assert_eq!(names(&r["lists"]["tools"]), ["add", "greet"]);
        assert_eq!(r["lists"]["resources"][0]["uri"], "config://app");
        assert_eq!(
            r["lists"]["resourceTemplates"][0]["uriTemplate"],
            "users://{user_id}/profile"
        );
        assert_eq!(names(&r["lists"]["prompts"]), ["code_review"]);
        assert_eq!(
            r["instructions"],
            "A demo server that mcpdesc probes in its tests."
        );
    }
    let findings = capture_findings(&capture);
    assert!(findings.is_empty(), "the capture: {findings:#?}");
}

/// A loopback port nothing listens on (it was free a moment ago).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn server_everything_over_streamable_http() {
    if !real_servers_installed() {
        return;
    }
    let server = everything_http();
    let tmp = tempfile::tempdir().unwrap();
    let capture = tmp.path().join("http.ndjson");
    let started = Instant::now();
    let (run, reports) = probe(&["--url", &server.url], &capture, &[]);
    eprintln!(
        "probing server-everything (Streamable HTTP) for every catalogue version took {:.2?}",
        started.elapsed()
    );
    drop(server);
    assert_eq!(run.code, Some(0), "{}", run.output());
    let reports = reports.unwrap();
    assert_everything_reports(&reports);
    // Over HTTP the server answers the sessionless `server/discover` with HTTP 400 and a
    // JSON-RPC error whose id is null, which the 2026-07-28 schema does not allow; so that
    // request has no response either. Both are the server's doing, found by the traffic
    // rules; everything else is clean.
    assert!(
        report(&reports, MODERN)["refusal"]
            .as_str()
            .unwrap()
            .contains("-32000"),
        "{reports:#?}"
    );
    let rules: Vec<String> = capture_findings(&capture)
        .into_iter()
        .map(|f| f.split(':').next().unwrap().to_owned())
        .collect();
    assert_eq!(
        rules,
        ["mcp.jsonrpc.request-answered", "mcp.wire.message-schema"],
        "the capture"
    );
}

// ---------------------------------------------------------------- misbehaving servers

/// The fake server in a fresh temporary directory, and the directory.
fn fake_server() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("fake-mcp-server.py");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fake-mcp-server.py"),
        &script,
    )
    .unwrap();
    (dir, script)
}

/// What one probe of the fake server gave; the capture lives as long as this.
struct Probed {
    run: Run,
    reports: Option<Vec<Value>>,
    capture: PathBuf,
    _dir: tempfile::TempDir,
}

impl Probed {
    fn only_report(&self) -> &Value {
        let reports = self.reports.as_ref().expect("reports");
        assert_eq!(reports.len(), 1, "{}", self.run.output());
        &reports[0]
    }
}

/// The timeout, in milliseconds, of the tests that wait for an answer that never comes: short,
/// so that they end soon.
const SHORT_TIMEOUT_MS: &str = "700";

/// The timeout, in milliseconds, of the tests in which every answer comes. A short one would
/// make them depend on the machine's load, not on the client: where the whole workspace's
/// tests run in parallel on two cores, the Python server takes over a second to start, or to
/// write a page of 30 MB. A hang still fails these tests, on their bound.
const AMPLE_TIMEOUT_MS: &str = "30000";

/// Probes the fake server in `mode` for the given versions, waiting as long as an answer may
/// take on a loaded machine; the whole probe must end within `bound`.
fn probe_fake(mode: &str, versions: &[&str], bound: Duration) -> Probed {
    probe_fake_with(mode, versions, &[], bound)
}

/// [`probe_fake`] with further flags.
fn probe_fake_with(mode: &str, versions: &[&str], extra: &[&str], bound: Duration) -> Probed {
    probe_fake_timed(mode, versions, extra, AMPLE_TIMEOUT_MS, bound)
}

/// [`probe_fake`] giving up on each answer after [`SHORT_TIMEOUT_MS`], for a server that
/// fails to answer.
fn probe_fake_impatiently(mode: &str, versions: &[&str], bound: Duration) -> Probed {
    probe_fake_timed(mode, versions, &[], SHORT_TIMEOUT_MS, bound)
}

fn probe_fake_timed(
    mode: &str,
    versions: &[&str],
    extra: &[&str],
    timeout_ms: &str,
    bound: Duration,
) -> Probed {
    let (dir, script) = fake_server();
    let capture = dir.path().join(format!("{mode}.ndjson"));
    let mut flags = vec![
        "--timeout-ms",
        timeout_ms,
        "--startup-timeout-ms",
        timeout_ms,
    ];
    flags.extend_from_slice(extra);
    for v in versions {
        flags.extend(["--protocol-version", v]);
    }
    let python = PathBuf::from("python3");
    let mode_arg = PathBuf::from(mode);
    let started = Instant::now();
    let (run, reports) = probe(&flags, &capture, &[&python, &script, &mode_arg]);
    let took = started.elapsed();
    assert!(took < bound, "{mode}: took {took:.2?}\n{}", run.output());
    Probed {
        run,
        reports,
        capture,
        _dir: dir,
    }
}

fn errors(r: &Value) -> Vec<&str> {
    r["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect()
}

#[test]
fn a_command_that_does_not_exist() {
    let tmp = tempfile::tempdir().unwrap();
    let run = mcpdesc_in(
        tmp.path(),
        ["probe-server", "--", "./no-such-mcp-server", "--flag"],
    );
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert!(
        run.stderr
            .contains("cannot start `./no-such-mcp-server`: No such file or directory"),
        "{}",
        run.output()
    );
    assert_eq!(run.stdout, "");
}

#[test]
fn nothing_listening_at_the_url() {
    let url = format!("http://127.0.0.1:{}/mcp", free_port());
    let run = mcpdesc(["probe-server", "--url", &url, "--timeout-ms", "2000"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert!(
        run.stderr
            .contains(&format!("`{url}` never answered: initialize: HTTP")),
        "{}",
        run.output()
    );
    let run = mcpdesc(["probe-server", "--url", "ftp://127.0.0.1/mcp"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert!(run.stderr.contains("is not an http:// or https:// URL"));
}

#[test]
fn a_server_that_exits_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let capture = tmp.path().join("c.ndjson");
    let python = PathBuf::from("python3");
    let c = PathBuf::from("-c");
    let code = PathBuf::from(
        "import sys; sys.stderr.write('starting\\nconfig missing: API_KEY\\n'); sys.exit(3)",
    );
    let started = Instant::now();
    let (run, reports) = probe(&[], &capture, &[&python, &c, &code]);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert!(reports.is_none());
    for expected in [
        "never answered",
        "exit status: 3",
        "config missing: API_KEY",
    ] {
        assert!(
            run.stderr.contains(expected),
            "{expected}: {}",
            run.output()
        );
    }
}

#[test]
fn a_server_that_stops_reading_does_not_hold_us_past_the_deadline() {
    // It asks and asks, and reads none of the answers: a write to it blocks once the pipe is
    // full, and the answer's deadline ends the wait.
    let p = probe_fake_impatiently("deaf", &["2025-06-18"], Duration::from_secs(20));
    assert_ne!(p.run.code, Some(0), "{}", p.run.output());
    assert!(
        p.run.output().contains("no answer within 700 ms"),
        "{}",
        p.run.output()
    );
}

#[test]
fn a_server_that_never_answers() {
    // Five versions asked for, but a silent server is given up on after the first.
    let p = probe_fake_impatiently("silent", &[], Duration::from_secs(5));
    assert_eq!(p.run.code, Some(2), "{}", p.run.output());
    assert!(p.reports.is_none());
    assert!(
        p.run
            .stderr
            .contains("never answered: initialize: no answer within 700 ms"),
        "{}",
        p.run.output()
    );
}

#[test]
fn a_server_that_writes_garbage_first() {
    let p = probe_fake("garbage", &["2025-06-18"], Duration::from_secs(10));
    assert_eq!(p.run.code, Some(1), "{}", p.run.output());
    let r = p.only_report();
    assert_eq!(r["negotiated"], "2025-06-18");
    assert_eq!(names(&r["lists"]["tools"]).len(), 5);
    let errors = errors(r);
    assert!(errors.contains(&"output that is not JSON: Server starting on stdio..."));
    assert!(errors.contains(&"output that is not JSON: ready!"));
    let findings = capture_findings(&p.capture);
    assert_eq!(findings.len(), 2, "{findings:#?}");
    assert!(findings
        .iter()
        .all(|f| f.starts_with("mcp.stdio.not-json:")));
}

#[test]
fn a_server_that_pages_for_ever_is_stopped_by_the_commands_deadline() {
    // A page every 100 ms under a fresh cursor: within every per-answer timeout, and a
    // thousand pages per list per version without an overall deadline.
    let started = Instant::now();
    let p = probe_fake_with(
        "endless-pages",
        &["2025-03-26", "2025-06-18"],
        &["--deadline-ms", "2000"],
        Duration::from_secs(15),
    );
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(p.run.code, Some(1), "{}", p.run.output());
    let reports = p.reports.as_ref().expect("reports");
    assert!(
        reports.iter().all(|r| errors(r)
            .iter()
            .any(|e| e.contains("the command's deadline passed (2000 ms, --deadline-ms)"))),
        "{}",
        p.run.output()
    );
}

/// Pages of 30 MB each under fresh cursors: two are kept (60 MB), the third would take the
/// lists past their 64 MiB and ends the list (before: every page kept until memory ran out).
/// The bound is wide: the debug build spends seconds of CPU on the 90 MB, and on a loaded
/// machine those seconds stretch to most of a minute.
#[test]
fn large_pages_for_ever_are_kept_only_up_to_the_lists_limit() {
    let p = probe_fake_with(
        "endless-pages+page-bytes=30000000",
        &["2025-06-18"],
        &[],
        Duration::from_secs(180),
    );
    assert_eq!(p.run.code, Some(1), "{}", &p.run.stderr);
    let r = p.only_report();
    assert_eq!(
        r["lists"]["tools"].as_array().map(Vec::len),
        Some(2),
        "{:?}",
        errors(r)
    );
    assert!(
        errors(r).contains(
            &"tools/list: the server's lists outgrew 67108864 bytes, their limit; stopped after 2 entries"
        ),
        "{:?}",
        errors(r)
    );
}

#[test]
fn a_flood_of_stray_responses_is_listed_three_times_and_counted() {
    let p = probe_fake("wrong-id-flood", &["2025-06-18"], Duration::from_secs(20));
    let r = p.only_report();
    assert_eq!(r["negotiated"], "2025-06-18", "{}", p.run.output());
    let errors = errors(r);
    let stray = errors
        .iter()
        .filter(|e| e.contains("arrived while request 1 was waiting"))
        .count();
    assert_eq!(stray, 3, "{errors:#?}");
    assert_eq!(
        errors.last(),
        Some(&"4997 more response(s) to no request that was waiting"),
        "{errors:#?}"
    );
}

#[test]
fn a_server_that_answers_with_the_wrong_id() {
    // The wrong answer must arrive before the wait ends, so the wait covers the server's
    // start on a loaded machine: 700 ms does not.
    let p = probe_fake_timed(
        "wrong-id",
        &["2025-06-18"],
        &[],
        "5000",
        Duration::from_secs(20),
    );
    assert_eq!(p.run.code, Some(1), "{}", p.run.output());
    let r = p.only_report();
    assert_eq!(r["negotiated"], Value::Null);
    assert_eq!(
        errors(r),
        [
            "initialize: a response with id 1001 arrived while request 1 was waiting",
            "initialize: no answer within 5000 ms",
        ]
    );
    let findings = capture_findings(&p.capture);
    assert!(
        findings
            .iter()
            .any(|f| f.starts_with("mcp.jsonrpc.response-without-request:")),
        "{findings:#?}"
    );
}

#[test]
fn a_server_that_crashes_after_initialize() {
    let p = probe_fake("crash", &["2025-06-18"], Duration::from_secs(10));
    assert_eq!(p.run.code, Some(1), "{}", p.run.output());
    let r = p.only_report();
    assert_eq!(r["negotiated"], "2025-06-18");
    // The list that was being fetched when the server died has no entries.
    assert!(
        r["lists"]["tools"].as_array().is_none_or(Vec::is_empty),
        "{r}"
    );
    let errors = errors(r);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    for expected in [
        "the server closed the connection (exit status: 7)",
        "fatal: simulated crash after initialize",
    ] {
        assert!(errors[0].contains(expected), "{expected}: {errors:#?}");
    }
}

#[test]
fn a_server_that_asks_the_client_things() {
    let p = probe_fake("server-requests", &["2025-06-18"], Duration::from_secs(10));
    let r = p.only_report();
    // The fake server lists its tools only when ping was answered and roots/list refused.
    assert_eq!(names(&r["lists"]["tools"]).len(), 5, "{}", p.run.output());
    assert_eq!(
        errors(r),
        ["resources/templates/list: error -32603 templates are broken"]
    );
    let text = std::fs::read_to_string(&p.capture).unwrap();
    assert!(text.contains(r#"{"dir":"c2s","msg":{"jsonrpc":"2.0","id":"s1","result":{}}}"#));
    assert!(text.contains(r#""method":"notifications/message""#));
    // The client declared no roots capability: asking for roots is the server's fault.
    let findings = capture_findings(&p.capture);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert!(findings[0].starts_with("mcp.capabilities.client-feature-negotiated:"));
}

#[test]
fn every_page_is_fetched_in_both_eras() {
    let p = probe_fake("paginate", &["2025-06-18", MODERN], Duration::from_secs(10));
    assert_eq!(p.run.code, Some(1), "{}", p.run.output());
    for r in p.reports.as_ref().unwrap() {
        let v = r["requested"].as_str().unwrap();
        assert_eq!(r["negotiated"], v);
        assert_eq!(
            names(&r["lists"]["tools"]),
            ["tool-0", "tool-1", "tool-2", "tool-3", "tool-4"],
            "{v}"
        );
        assert_eq!(r["lists"]["resources"].as_array().unwrap().len(), 3, "{v}");
        // The prompts' cursor never changes: followed once, then reported.
        assert_eq!(names(&r["lists"]["prompts"]), ["p", "p"], "{v}");
        assert_eq!(
            errors(r),
            [
                "resources/templates/list: error -32603 templates are broken",
                "prompts/list: nextCursor \"again\" was already followed; the list loops",
            ],
            "{v}"
        );
    }
    // Requests of both eras are well-formed: 2026-07-28 ones carry their own metadata.
    let findings = capture_findings(&p.capture);
    assert!(findings.is_empty(), "{findings:#?}");
    let text = std::fs::read_to_string(&p.capture).unwrap();
    assert!(text.contains(r#""method":"tools/list","params":{"cursor":"2"}"#));
    assert!(text.contains(
        r#""method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28""#
    ));
}

#[test]
fn a_redirect_to_another_origin_is_not_followed() {
    // The other origin listens, and must never hear from us: the session and protocol
    // headers, and the answers taken for the server's, stay with the endpoint.
    let other = TcpListener::bind("127.0.0.1:0").unwrap();
    other.set_nonblocking(true).unwrap();
    let other_port = other.local_addr().unwrap().port();
    let port = free_port();
    let script = format!(
        r#"
import http.server
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(307)
        self.send_header("Location", "http://127.0.0.1:{other_port}/mcp")
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", {port}), H).serve_forever()
"#
    );
    let mut server = std::process::Command::new("python3")
        .arg("-c")
        .arg(&script)
        .spawn()
        .unwrap();
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the redirecting server did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let url = format!("http://127.0.0.1:{port}/mcp");
    let run = mcpdesc([
        "probe-server",
        "--url",
        &url,
        "--protocol-version",
        "2025-06-18",
        "--timeout-ms",
        "3000",
        "--startup-timeout-ms",
        "3000",
    ]);
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert!(
        run.output().contains(&format!(
            "HTTP 307 to http://127.0.0.1:{other_port}/mcp; a redirect to another origin is not followed"
        )),
        "{}",
        run.output()
    );
    assert!(
        matches!(other.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "the other origin was contacted"
    );
}
