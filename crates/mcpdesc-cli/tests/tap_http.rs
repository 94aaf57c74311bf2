//! `mcpdesc tap --listen ADDR --upstream URL`: requests and answers pass unchanged and as
//! they come, against the small upstream of `tests/data/fake-http-upstream.py` and against
//! the real server-everything.

mod support;

use std::io::{BufRead as _, BufReader, Read as _};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const PING: &str = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
const LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;

/// A process ended when the test is over, however it ends, and the reader of the rest
/// of its standard error.
struct Running(Child, Option<std::thread::JoinHandle<String>>);

impl Running {
    fn stderr(&mut self) -> String {
        self.1.take().map(|r| r.join().unwrap()).unwrap_or_default()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The fake upstream and its base URL.
fn upstream() -> (Running, String) {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/fake-http-upstream.py"
    );
    let mut child = Command::new("python3")
        .arg(script)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut port = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut port)
        .unwrap();
    (
        Running(child, None),
        format!("http://127.0.0.1:{}", port.trim()),
    )
}

/// `mcpdesc tap --listen 127.0.0.1:0 --upstream URL EXTRA…`, and the address it listens on.
fn tap(upstream: &str, extra: &[&str]) -> (Running, String) {
    let mut args = vec!["tap", "--listen", "127.0.0.1:0", "--upstream", upstream];
    args.extend_from_slice(extra);
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpdesc"))
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    stderr.read_line(&mut line).unwrap();
    // Read on, so that the tap never writes into a full or closed pipe.
    let rest = std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = stderr.read_to_string(&mut rest);
        rest
    });
    let address = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .trim_end_matches(',')
        .to_owned();
    (Running(child, Some(rest)), address)
}

/// Ends the tap as Ctrl-C does and returns its status.
fn interrupt(tap: &mut Running) -> Option<i32> {
    stop(tap, "INT")
}

/// Sends SIGNAL to the tap and returns its status once it ended.
fn stop(tap: &mut Running, signal: &str) -> Option<i32> {
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &tap.0.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let started = Instant::now();
    loop {
        if let Some(status) = tap.0.try_wait().unwrap() {
            return status.code();
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the tap did not end"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

/// Status, end-to-end headers (less the date) and body of one exchange.
#[derive(Debug, PartialEq)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

fn answer(response: ureq::http::Response<ureq::Body>) -> Answer {
    let status = response.status().as_u16();
    let mut headers: Vec<(String, String)> = response
        .headers()
        .iter()
        .filter(|(n, _)| {
            !matches!(
                n.as_str(),
                "date" | "connection" | "transfer-encoding" | "keep-alive"
            )
        })
        .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("").to_owned()))
        .collect();
    headers.sort();
    let mut body = Vec::new();
    response
        .into_body()
        .into_reader()
        .read_to_end(&mut body)
        .unwrap();
    Answer {
        status,
        headers,
        body,
    }
}

fn post(base: &str, msg: &str) -> Answer {
    answer(
        agent()
            .post(&format!("{base}/mcp"))
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .header("Mcp-Session-Id", "session-1")
            .header("MCP-Protocol-Version", "2025-06-18")
            .send(msg)
            .unwrap(),
    )
}

#[test]
fn answers_are_the_same_with_and_without_the_tap() {
    let (_upstream, direct) = upstream();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("tap.log");
    let (mut tap, through) = tap(&direct, &["--log", log.to_str().unwrap()]);
    for msg in [INITIALIZE, INITIALIZED, PING] {
        let a = post(&direct, msg);
        let b = post(&through, msg);
        assert_eq!(a, b, "{msg}");
    }
    assert!(post(&direct, INITIALIZE)
        .headers
        .contains(&("mcp-session-id".to_owned(), "session-1".to_owned())));
    let get = |base: &str| answer(agent().get(&format!("{base}/mcp")).call().unwrap());
    assert_eq!(get(&direct), get(&through));
    assert_eq!(get(&through).status, 405);
    let delete = |base: &str| answer(agent().delete(&format!("{base}/mcp")).call().unwrap());
    assert_eq!(delete(&direct), delete(&through));
    assert_eq!(delete(&through).status, 204);
    assert_eq!(interrupt(&mut tap), Some(0));
    let log = std::fs::read_to_string(log).unwrap();
    assert!(log.contains("mcpdesc tap: "), "{log}");
}

#[test]
fn an_event_arrives_before_its_stream_ends_and_a_bad_message_is_reported() {
    let (_upstream, direct) = upstream();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("tap.log");
    let description = dir.path().join("server.json");
    std::fs::write(
        &description,
        r#"{"mcpdesc": "0.8.0", "info": {"name": "t", "version": "1"},
            "protocolVersions": ["2025-06-18"], "capabilities": [{"tools": {}}],
            "tools": [{"name": "other", "inputSchema": {"type": "object"}}]}"#,
    )
    .unwrap();
    let (mut tap, through) = tap(
        &direct,
        &[
            "--log",
            log.to_str().unwrap(),
            "--description",
            description.to_str().unwrap(),
        ],
    );
    post(&through, INITIALIZE);

    let (events_tx, events) = mpsc::channel::<Vec<u8>>();
    let url = format!("{through}/mcp");
    let reader = std::thread::spawn(move || {
        let response = agent()
            .post(&url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .send(LIST)
            .unwrap();
        assert_eq!(
            response.headers()["content-type"].to_str().unwrap(),
            "text/event-stream"
        );
        let mut body = response.into_body().into_reader();
        let mut chunk = [0u8; 4096];
        loop {
            match body.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => events_tx.send(chunk[..n].to_vec()).unwrap(),
            }
        }
    });
    // The upstream holds the rest of the stream until it is released: the first event
    // arrives only if the tap forwards it at once.
    let mut seen = Vec::new();
    while !String::from_utf8_lossy(&seen).contains("\n\n") {
        let piece = events
            .recv_timeout(Duration::from_secs(20))
            .expect("the first event did not arrive before the stream ended");
        seen.extend(piece);
    }
    assert!(String::from_utf8_lossy(&seen).contains("listing"));
    assert!(!String::from_utf8_lossy(&seen).contains("no-schema"));
    agent().get(&format!("{direct}/release")).call().unwrap();
    reader.join().unwrap();
    seen.extend(events.try_iter().flatten());
    let text = String::from_utf8_lossy(&seen);
    assert!(text.contains("no-schema"), "{text}");

    assert_eq!(interrupt(&mut tap), Some(0));
    let log = std::fs::read_to_string(log).unwrap();
    // The result's tool lacks its input schema.
    assert!(log.contains("error mcp.wire.result-schema"), "{log}");
    assert!(log.contains("mcpdesc tap: 5 messages checked"), "{log}");
    // The list read through the event stream is compared with the description.
    assert!(
        log.contains("server.json:") && log.contains("`other`"),
        "{log}"
    );
}

#[test]
fn an_unreachable_upstream_is_a_502_and_the_tap_serves_on() {
    // A port nobody listens on: bound, then let go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (mut tap, through) = tap(&format!("http://127.0.0.1:{port}"), &[]);
    assert_eq!(post(&through, PING).status, 502);
    assert_eq!(post(&through, PING).status, 502);
    assert_eq!(interrupt(&mut tap), Some(0));
    let stderr = tap.stderr();
    assert!(
        stderr.contains("mcpdesc tap: 2 messages checked"),
        "{stderr}"
    );
    for signal in ["TERM", "HUP"] {
        let (mut tap, _) = self::tap(&format!("http://127.0.0.1:{port}"), &[]);
        assert_eq!(stop(&mut tap, signal), Some(0), "SIG{signal}");
        assert!(tap.stderr().contains("mcpdesc tap: 0 messages checked"));
    }
}

#[test]
fn a_real_server_answers_through_the_tap_as_it_does_without() {
    use support::live_servers::{everything_http, real_servers_installed};
    if !real_servers_installed() {
        return;
    }
    let server = everything_http();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("tap.log");
    let base = server.url.trim_end_matches("/mcp").to_owned();
    let (mut tap, through) = tap(&base, &["--log", log.to_str().unwrap()]);
    // `probe-server` is a whole client: handshake, lists, event streams, the session's end.
    let probe = |url: &str| {
        Command::new(env!("CARGO_BIN_EXE_mcpdesc"))
            .args([
                "probe-server",
                "--url",
                url,
                "--protocol-version",
                "2025-06-18",
            ])
            .output()
            .unwrap()
    };
    let direct = probe(&server.url);
    let via = probe(&format!("{through}/mcp"));
    assert_eq!(direct.status.code(), via.status.code());
    let report = |out: &std::process::Output| -> serde_json::Value {
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
    };
    assert_eq!(report(&direct), report(&via));
    assert!(report(&via).to_string().contains("\"echo\""));
    assert_eq!(interrupt(&mut tap), Some(0));
    let log = std::fs::read_to_string(log).unwrap();
    let summary = log.lines().last().unwrap_or_default();
    assert!(summary.contains(" 0 not checked"), "{log}");
    assert!(!summary.contains(" 0 messages checked"), "{log}");
}
