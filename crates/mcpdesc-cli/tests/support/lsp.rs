//! A scripted Language Server Protocol client: runs `mcpdesc server` over stdio, frames
//! messages with `Content-Length`, and waits for what the server sends.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long any expected message may take.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(20);

pub(crate) struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Notifications and server requests seen while waiting for something else.
    pub seen: Vec<Value>,
}

pub(crate) fn file_uri(path: &Path) -> String {
    let path = path.canonicalize().unwrap_or_else(|_| path.to_owned());
    format!("file://{}", path.display()).replace(' ', "%20")
}

impl Client {
    /// Starts the server with `args` in `dir` and completes the `initialize` handshake.
    pub(crate) fn start(dir: &Path, args: &[&str], init_options: Value) -> (Client, Value) {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcpdesc"))
            .arg("server")
            .args(args)
            .current_dir(dir)
            .env("XDG_CACHE_HOME", dir.join(".cache"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn mcpdesc server");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, incoming) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        length = v.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; length.expect("Content-Length header")];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                let value: Value = serde_json::from_slice(&body).expect("a JSON message");
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        let mut client = Client {
            child,
            stdin: Some(stdin),
            incoming,
            next_id: 1,
            seen: Vec::new(),
        };
        let root = file_uri(dir);
        let result = client.request(
            "initialize",
            json!({
                "processId": std::process::id(),
                "rootUri": root,
                "capabilities": {
                    "textDocument": {
                        "publishDiagnostics": {"versionSupport": true},
                        "hover": {"contentFormat": ["markdown", "plaintext"]},
                    }
                },
                "initializationOptions": init_options,
            }),
        );
        client.notify("initialized", json!({}));
        (client, result)
    }

    pub(crate) fn send(&mut self, msg: &Value) {
        let body = serde_json::to_vec(msg).unwrap();
        let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        framed.extend_from_slice(&body);
        self.send_raw(&framed);
    }

    /// Writes `bytes` as they are, framing included (or not).
    pub(crate) fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("the server's input is open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// The server's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Closes the server's input.
    pub(crate) fn close_input(&mut self) {
        self.stdin = None;
    }

    /// Waits for the server to exit; its exit code (`None` when a signal ended it).
    pub(crate) fn exit_code(&mut self) -> Option<i32> {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub(crate) fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and waits for its response; returns its `result` (panics on an error).
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        let response = self.request_raw(method, params);
        if let Some(e) = response.get("error") {
            panic!("{method} failed: {e}");
        }
        response["result"].clone()
    }

    /// Sends a request and waits for the whole response.
    pub(crate) fn request_raw(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait_for(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
    }

    /// Waits for the first message for which `pred` holds, keeping the others in `seen`.
    pub(crate) fn wait_for(&mut self, mut pred: impl FnMut(&Value) -> bool) -> Value {
        if let Some(i) = self.seen.iter().position(&mut pred) {
            return self.seen.remove(i);
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(m) if pred(&m) => return m,
                Ok(m) => self.seen.push(m),
                Err(RecvTimeoutError::Timeout) => {
                    panic!(
                        "no expected message within {TIMEOUT:?}; seen: {:#?}",
                        self.seen
                    )
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("the server closed its output; seen: {:#?}", self.seen)
                }
            }
        }
    }

    /// Waits for the diagnostics of `uri` at document version `version`.
    pub(crate) fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let m = self.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        });
        m["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Waits for any diagnostics of `uri` (files the client has not opened have no version).
    pub(crate) fn any_diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let m = self.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        });
        m["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    pub(crate) fn open(&mut self, uri: &str, language: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}),
        );
    }

    /// Replaces the whole text.
    pub(crate) fn change_all(&mut self, uri: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version},
                   "contentChanges": [{"text": text}]}),
        );
    }

    /// Ends the session politely and checks that the server exits with 0.
    pub(crate) fn shutdown(mut self) {
        let r = self.request("shutdown", Value::Null);
        assert_eq!(r, Value::Null);
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "server exited with {status}");
                return;
            }
            assert!(Instant::now() < deadline, "server did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Applies LSP text edits (UTF-16 positions) to `text`, last first.
pub(crate) fn apply_edits(text: &str, edits: &[Value]) -> String {
    let offset = |pos: &Value| -> usize {
        let line = pos["line"].as_u64().unwrap() as usize;
        let character = pos["character"].as_u64().unwrap() as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        let rest = &text[start..];
        let mut units = 0;
        for (i, c) in rest.char_indices() {
            if units >= character || c == '\n' {
                return start + i;
            }
            units += c.len_utf16();
        }
        text.len()
    };
    let mut edits: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_owned();
    for (s, e, t) in edits {
        out.replace_range(s..e, &t);
    }
    out
}

/// A copy of fixture `rel` (below `spec-fixtures/`) in `dir`.
pub(crate) fn fixture_copy(dir: &Path, rel: &str) -> PathBuf {
    let src = super::workspace().join("spec-fixtures").join(rel);
    let dst = dir.join(Path::new(rel).file_name().unwrap());
    std::fs::copy(&src, &dst).unwrap();
    dst
}
