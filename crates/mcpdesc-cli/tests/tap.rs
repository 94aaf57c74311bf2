//! `mcpdesc tap -- COMMAND`: the traffic passes unchanged, findings go to standard error, and
//! the server's exit status, crash or flood reach the client as they would without the proxy.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A small stdio server: answers `initialize` and `tools/list` (with a tool that lacks its
/// input schema), prints a line that is not JSON for any other request, and exits with the
/// status in argv[1] at the end of its input. "crash" exits at once on the first request;
/// "flood=N" writes one line of N bytes first; "orphan" leaves a process behind that holds
/// its standard output open, and exits with status 5; "notify=N" writes N notifications at
/// once and exits; "hang" never reads and never ends by itself; "trap" says it is ready,
/// then exits with status 42 on SIGINT, SIGTERM or SIGHUP; "chatty=N" writes N
/// notifications at once, then reads to the end of its input; "mute" never answers and
/// says at the end how many lines it read.
const SERVER: &str = r#"
import json, signal, subprocess, sys, time
mode = sys.argv[1]
if mode == "hang":
    time.sleep(120)
    sys.exit(0)
if mode == "trap":
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, lambda *_: sys.exit(42))
    print('{"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "ready"}}', flush=True)
    time.sleep(120)
    sys.exit(0)
if mode.startswith("chatty="):
    note = '{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "%d"}}\n'
    try:
        sys.stdout.write("".join(note % i for i in range(int(mode[len("chatty="):]))))
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    for line in sys.stdin:
        pass
    sys.exit(0)
if mode == "mute":
    n = sum(1 for _ in sys.stdin)
    print('{"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "read %d"}}' % n, flush=True)
    sys.exit(3)
if mode.startswith("notify="):
    note = '{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "%d"}}\n'
    sys.stdout.write("".join(note % i for i in range(int(mode[len("notify="):]))))
    sys.stdout.flush()
    sys.exit(0)
if mode == "orphan":
    # Its standard error is not the one the test reads to its end.
    subprocess.Popen(["sleep", "60"], stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print('{"jsonrpc": "2.0", "method": "notifications/message"}', flush=True)
    sys.exit(5)
if mode.startswith("flood="):
    n = int(mode[len("flood="):])
    out = sys.stdout.buffer
    block = b"x" * (1 << 20)
    while n > 0:
        out.write(block[: min(n, len(block))])
        n -= len(block)
    out.write(b"\n")
    out.flush()
for line in sys.stdin:
    m = json.loads(line)
    if mode == "crash":
        sys.stdout.write('{"jsonrpc": "2.0", "id": 0, "res')
        sys.stdout.flush()
        sys.exit(139)
    if m.get("method") == "initialize":
        r = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
             "serverInfo": {"name": "t", "version": "1"}}
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
    elif m.get("method") == "tools/list":
        r = {"tools": [{"name": "no-schema"}]}
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
    elif "id" in m:
        print("a log line on stdout", flush=True)
sys.exit(int(mode) if mode.isdigit() else 0)
"#;

const CLIENT: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
    "\n",
);

fn server(dir: &Path) -> PathBuf {
    let path = dir.join("server.py");
    std::fs::write(&path, SERVER).unwrap();
    path
}

fn run(program: &str, args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // Written beside the reads, so that neither side waits for the other.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn tap(extra: &[&str], server: &Path, mode: &str, input: &[u8]) -> Output {
    let server = server.to_str().unwrap();
    let mut args = vec!["tap"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "python3", server, mode]);
    run(env!("CARGO_BIN_EXE_mcpdesc"), &args, input)
}

/// The tap between a client that waits for the answer to `initialize` before it sends the
/// rest of `CLIENT`, as clients do, and the server in mode "0".
fn session(extra: &[&str], server: &Path) -> Output {
    use std::io::{BufRead, BufReader, Read};
    let mut args = vec!["tap"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "python3", server.to_str().unwrap(), "0"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpdesc"))
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        text
    });
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let (first, rest) = CLIENT.split_once('\n').unwrap();
    writeln!(stdin, "{first}").unwrap();
    let mut answer = String::new();
    stdout.read_line(&mut answer).unwrap();
    stdin.write_all(rest.as_bytes()).unwrap();
    drop(stdin);
    let mut out = answer.into_bytes();
    stdout.read_to_end(&mut out).unwrap();
    let status = child.wait().unwrap();
    Output {
        status,
        stdout: out,
        stderr: errors.join().unwrap(),
    }
}

fn direct(server: &Path, mode: &str, input: &[u8]) -> Output {
    run("python3", &[server.to_str().unwrap(), mode], input)
}

#[test]
fn the_client_sees_the_same_bytes_with_and_without_the_tap() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path());
    let through = tap(&[], &server, "0", CLIENT.as_bytes());
    let without = direct(&server, "0", CLIENT.as_bytes());
    assert_eq!(through.stdout, without.stdout);
    assert_eq!(through.status.code(), Some(0));
}

#[test]
fn findings_on_each_message_go_to_standard_error() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path());
    let out = session(&[], &server);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error mcp.wire.result-schema"), "{stderr}");
    // The server answers `ping` with a line that is not JSON: the request is never
    // answered, which only the end of the session can tell.
    let unanswered = stderr.find("mcp.jsonrpc.request-answered").unwrap();
    assert!(
        unanswered > stderr.find("mcp.stdio.not-json").unwrap(),
        "{stderr}"
    );
    assert!(stderr.contains("error mcp.stdio.not-json"), "{stderr}");
    assert!(
        stderr.contains("mcpdesc tap: 6 messages checked"),
        "{stderr}"
    );
}

#[test]
fn the_log_and_the_capture_go_to_their_files() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path());
    let log = dir.path().join("tap.log");
    let capture = dir.path().join("session.ndjson");
    let out = session(
        &[
            "--log",
            log.to_str().unwrap(),
            "--record",
            capture.to_str().unwrap(),
        ],
        &server,
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = std::fs::read_to_string(log).unwrap();
    assert!(log.contains("mcp.wire.result-schema"), "{log}");
    let capture = std::fs::read_to_string(capture).unwrap();
    assert_eq!(capture.lines().count(), 6, "{capture}");
    assert!(capture.contains(r#"{"dir":"s2c","raw":"a log line on stdout"}"#));
    // The capture is one `validate` reads. (The client here does not wait for the handshake,
    // so what it sent before it is undated there: only the version-free rules are asserted.)
    let validated = run(
        env!("CARGO_BIN_EXE_mcpdesc"),
        &[
            "validate",
            "--format",
            "concise",
            dir.path().join("session.ndjson").to_str().unwrap(),
        ],
        b"",
    );
    let report = String::from_utf8_lossy(&validated.stdout);
    assert!(report.contains("error mcp.stdio.not-json"), "{report}");
}

#[test]
fn the_exit_status_is_the_servers() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path());
    let out = tap(&[], &server, "7", CLIENT.as_bytes());
    assert_eq!(out.status.code(), Some(7));
}

#[test]
fn a_crashing_server_ends_the_tap_with_its_status() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path());
    let through = tap(&[], &server, "crash", CLIENT.as_bytes());
    let without = direct(&server, "crash", CLIENT.as_bytes());
    assert_eq!(through.stdout, without.stdout);
    assert_eq!(through.status.code(), Some(139));
    let stderr = String::from_utf8_lossy(&through.stderr);
    // The unfinished last line is still checked.
    assert!(stderr.contains("mcp.stdio.not-json"), "{stderr}");
}

#[test]
fn a_flood_is_forwarded_whole_and_reported_as_too_large() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path());
    let size = 100 * 1024 * 1024;
    let out = tap(&[], &server, &format!("flood={size}"), CLIENT.as_bytes());
    assert_eq!(out.status.code(), Some(0));
    let first = out.stdout.iter().position(|&b| b == b'\n').unwrap();
    assert_eq!(first, size);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("message of {size} bytes is past the")),
        "{stderr}"
    );
    assert!(stderr.contains("1 too large to check"), "{stderr}");
}

#[test]
fn a_process_left_behind_by_the_server_does_not_hold_the_tap() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path());
    let started = std::time::Instant::now();
    let out = tap(&[], &server, "orphan", b"");
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(5));
    assert!(String::from_utf8_lossy(&out.stdout).contains("notifications/message"));
}

#[test]
fn a_burst_of_messages_passes_whole_and_every_one_is_accounted_for() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path());
    let n = 20_000;
    let mode = format!("notify={n}");
    let through = tap(&[], &server, &mode, b"");
    let without = direct(&server, &mode, b"");
    assert_eq!(through.stdout, without.stdout);
    assert_eq!(through.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&through.stderr);
    let summary = stderr.lines().last().unwrap();
    let number = |before: &str| -> usize {
        let words: Vec<&str> = summary.split([' ', ',', ';']).collect();
        let i = words.iter().position(|w| *w == before).unwrap();
        words[i - 1].parse().unwrap()
    };
    // Checked or counted as not checked, never lost.
    assert_eq!(number("messages") + number("not"), n, "{summary}");
}

#[test]
fn messages_before_a_handshake_are_judged_in_the_version_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path());
    let client = concat!(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#, "\n");
    let undated = tap(&[], &server, "0", client.as_bytes());
    let stderr = String::from_utf8_lossy(&undated.stderr);
    assert!(stderr.contains("mcp.wire.undated-message"), "{stderr}");
    let dated = tap(
        &["--protocol-version", "2025-06-18"],
        &server,
        "0",
        client.as_bytes(),
    );
    let stderr = String::from_utf8_lossy(&dated.stderr);
    assert!(!stderr.contains("mcp.wire.undated-message"), "{stderr}");
    assert!(stderr.contains("error mcp.wire.result-schema"), "{stderr}");
}

/// `mcpdesc tap -- python3 SERVER MODE`, its standard streams piped.
fn spawn_tap(extra: &[&str], server: &Path, mode: &str) -> std::process::Child {
    let mut args = vec!["tap"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "python3", server.to_str().unwrap(), mode]);
    Command::new(env!("CARGO_BIN_EXE_mcpdesc"))
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The child's status, or a failure once `limit` has passed (the child is then killed).
fn wait_at_most(
    child: &mut std::process::Child,
    limit: std::time::Duration,
) -> std::process::ExitStatus {
    let started = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("the tap did not end within {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn a_client_that_closes_early_ends_a_server_that_ignores_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path());
    let mut tap = spawn_tap(&[], &server, "hang");
    drop(tap.stdin.take());
    let status = wait_at_most(&mut tap, std::time::Duration::from_secs(30));
    // Ended by the SIGTERM the tap sends once the server outlived its client for a while.
    assert_eq!(status.code(), Some(128 + 15));
}

#[test]
fn signals_to_the_tap_reach_the_server() {
    use std::io::BufRead as _;
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path());
    for signal in ["INT", "TERM", "HUP"] {
        let mut tap = spawn_tap(&[], &server, "trap");
        let mut out = std::io::BufReader::new(tap.stdout.take().unwrap());
        let mut ready = String::new();
        out.read_line(&mut ready).unwrap();
        assert!(ready.contains("ready"), "{ready}");
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), &tap.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let status = wait_at_most(&mut tap, std::time::Duration::from_secs(30));
        assert_eq!(status.code(), Some(42), "SIG{signal}");
    }
}

#[test]
fn a_client_that_stops_reading_does_not_hang_the_tap() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path());
    // Far more than a pipe holds: the server blocks for ever unless the tap reads on.
    // Findings go to a file: a standard error nobody reads would hold the tap up too.
    let log = dir.path().join("tap.log");
    let mut tap = spawn_tap(&["--log", log.to_str().unwrap()], &server, "chatty=50000");
    drop(tap.stdout.take());
    let mut stdin = tap.stdin.take().unwrap();
    let _ = stdin.write_all(CLIENT.as_bytes());
    drop(stdin);
    let status = wait_at_most(&mut tap, std::time::Duration::from_secs(30));
    assert_eq!(status.code(), Some(0));
}

#[test]
fn a_server_that_never_answers_still_gets_everything_and_ends_at_eof() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path());
    let log = dir.path().join("tap.log");
    let mut tap = spawn_tap(&["--log", log.to_str().unwrap()], &server, "mute");
    let mut stdin = tap.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        for _ in 0..1000 {
            stdin.write_all(CLIENT.as_bytes()).unwrap();
        }
    });
    let status = wait_at_most(&mut tap, std::time::Duration::from_secs(60));
    writer.join().unwrap();
    let mut out = String::new();
    std::io::Read::read_to_string(&mut tap.stdout.take().unwrap(), &mut out).unwrap();
    assert!(out.contains("read 3000"), "{out}");
    assert_eq!(status.code(), Some(3));
}

#[test]
fn line_formats_stream_and_document_formats_come_at_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path());
    let text = session(&["--format", "text"], &server);
    let stderr = String::from_utf8_lossy(&text.stderr);
    assert!(stderr.contains("error[mcp.wire.result-schema]"), "{stderr}");
    let github = session(&["--format", "github"], &server);
    let stderr = String::from_utf8_lossy(&github.stderr);
    assert!(stderr.contains("::error "), "{stderr}");

    let log = dir.path().join("tap.json");
    let json = session(
        &["--format", "json", "--log", log.to_str().unwrap()],
        &server,
    );
    assert_eq!(json.status.code(), Some(0));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    let text = report.to_string();
    assert!(text.contains("mcp.wire.result-schema"), "{text}");
    assert!(text.contains("mcp.stdio.not-json"), "{text}");
    // The summary goes beside the document, not into it.
    let stderr = String::from_utf8_lossy(&json.stderr);
    assert!(
        stderr.contains("mcpdesc tap: 6 messages checked"),
        "{stderr}"
    );

    let sarif = session(&["--format", "sarif"], &server);
    let report: serde_json::Value = serde_json::from_slice(&sarif.stderr).unwrap();
    assert_eq!(report["version"], "2.1.0");
    let junit = session(&["--format", "junit"], &server);
    let stderr = String::from_utf8_lossy(&junit.stderr);
    assert!(stderr.starts_with("<?xml"), "{stderr}");
}

#[cfg(feature = "live")]
#[test]
fn the_session_is_compared_with_a_description() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path());
    let description = dir.path().join("server.json");
    std::fs::write(
        &description,
        r#"{
  "mcpdesc": "0.8.0",
  "info": {"name": "t", "version": "1"},
  "protocolVersions": ["2025-06-18"],
  "capabilities": [{"tools": {}}],
  "tools": [{"name": "other", "inputSchema": {"type": "object"}}]
}
"#,
    )
    .unwrap();
    let out = tap(
        &["--description", description.to_str().unwrap()],
        &server,
        "0",
        CLIENT.as_bytes(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("server.json:"), "{stderr}");
    assert!(stderr.contains("mcpdesc-live."), "{stderr}");
    assert!(stderr.contains("`other`"), "{stderr}");
    assert_eq!(out.status.code(), Some(0));

    // Without a list read whole, only the handshake is compared.
    let client = CLIENT.lines().next().unwrap().to_owned() + "\n";
    let out = tap(
        &["--description", description.to_str().unwrap()],
        &server,
        "0",
        client.as_bytes(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("`other`"), "{stderr}");

    // Without a handshake there is nothing to compare, and the tap says so.
    let client = CLIENT.lines().nth(1).unwrap().to_owned() + "\n";
    let out = tap(
        &["--description", description.to_str().unwrap()],
        &server,
        "0",
        client.as_bytes(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("was not compared with") && stderr.contains("no initialize exchange"),
        "{stderr}"
    );
}

/// Plays the server's side of a capture: waits for each client message (which must arrive
/// unchanged) and writes each of its own, exactly as the capture holds them.
const REPLAY: &str = r#"
import sys
for line in open(sys.argv[1], encoding="utf-8").read().splitlines():
    head = '{"dir":"c2s","msg":'
    msg = line[len(head):-1]
    if line.startswith(head):
        if sys.stdin.readline().rstrip("\n") != msg:
            sys.exit(3)
    else:
        sys.stdout.write(msg + "\n")
        sys.stdout.flush()
"#;

/// `(line, column, rule)` of each concise finding in `text`.
fn concise_findings(text: &str) -> std::collections::BTreeSet<(u32, u32, String)> {
    text.lines()
        .filter_map(|l| {
            let (place, rest) = l.split_once(": ")?;
            let mut place = place.rsplitn(3, ':');
            let column = place.next()?.parse().ok()?;
            let line = place.next()?.parse().ok()?;
            let rule = rest.split_whitespace().nth(1)?.to_owned();
            Some((line, column, rule))
        })
        .collect()
}

#[test]
fn real_captures_replayed_through_the_tap_get_the_findings_validate_gives() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let replay = dir.path().join("replay.py");
    std::fs::write(&replay, REPLAY).unwrap();
    let real = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../spec-fixtures/traffic/real");
    let mut captures: Vec<PathBuf> = std::fs::read_dir(&real)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ndjson"))
        .collect();
    captures.sort();
    assert!(captures.len() >= 10);
    let mut with_findings = 0;
    for capture in &captures {
        let log = dir.path().join("tap.log");
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcpdesc"))
            .args(["tap", "--log", log.to_str().unwrap(), "--", "python3"])
            .arg(&replay)
            .arg(capture)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut to = child.stdin.take().unwrap();
        let mut from = BufReader::new(child.stdout.take().unwrap());
        // In lockstep, as a client waits for each answer: the tap numbers the messages in
        // the capture's order.
        for line in std::fs::read_to_string(capture).unwrap().lines() {
            let msg = &line[r#"{"dir":"c2s","msg":"#.len()..line.len() - 1];
            if line.starts_with(r#"{"dir":"c2s""#) {
                writeln!(to, "{msg}").unwrap();
            } else {
                let mut got = String::new();
                from.read_line(&mut got).unwrap();
                assert_eq!(got.trim_end_matches('\n'), msg, "{}", capture.display());
            }
        }
        drop(to);
        assert_eq!(
            child.wait().unwrap().code(),
            Some(0),
            "{}",
            capture.display()
        );
        let tapped = std::fs::read_to_string(&log).unwrap();
        let validated = run(
            env!("CARGO_BIN_EXE_mcpdesc"),
            &["validate", "-f", "concise", capture.to_str().unwrap()],
            b"",
        );
        let expected = concise_findings(&String::from_utf8_lossy(&validated.stdout));
        assert_eq!(
            concise_findings(&tapped),
            expected,
            "{}:\n{tapped}",
            capture.display()
        );
        with_findings += usize::from(!expected.is_empty());
    }
    // The documented non-conformances of the real captures are among them.
    assert!(with_findings >= 4, "{with_findings}");
}
