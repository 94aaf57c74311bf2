//! `cargo xtask bench-editor FILE…`: how long the language server takes from a change
//! notification to the diagnostics of that change, measured from outside the process as
//! an editor sees it: the release `mcpdesc server` over stdio, a document opened, then
//! small incremental edits (a character of a string changed and changed back).
//!
//! Two cases: an edit after a pause (checked at once) and the last edit of a burst of
//! keystrokes 30 ms apart (the burst is coalesced; the latency is from the last one).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

/// Latencies of one document, in milliseconds.
pub(crate) struct EditorLatency {
    pub file: PathBuf,
    pub bytes: usize,
    pub open_ms: f64,
    pub isolated: Vec<f64>,
    pub burst_end: Vec<f64>,
    pub diagnostics: usize,
}

struct Server {
    child: Child,
    stdin: ChildStdin,
    incoming: mpsc::Receiver<(Instant, Value)>,
}

impl Server {
    fn start(bin: &Path, cache: &Path) -> Result<Server> {
        let mut child = Command::new(bin)
            .arg("server")
            .env("XDG_CACHE_HOME", cache)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {} server", bin.display()))?;
        let stdin = child.stdin.take().context("stdin")?;
        let stdout = child.stdout.take().context("stdout")?;
        let (tx, incoming) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        len = v.parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; len];
                if r.read_exact(&mut body).is_err() {
                    return;
                }
                // Timestamped as soon as it is read, before any parsing here.
                let at = Instant::now();
                if let Ok(v) = serde_json::from_slice(&body) {
                    if tx.send((at, v)).is_err() {
                        return;
                    }
                }
            }
        });
        Ok(Server {
            child,
            stdin,
            incoming,
        })
    }

    fn send(&mut self, v: &Value) -> Result<Instant> {
        let body = serde_json::to_vec(v)?;
        let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        framed.extend_from_slice(&body);
        let at = Instant::now();
        self.stdin.write_all(&framed)?;
        self.stdin.flush()?;
        Ok(at)
    }

    fn wait(&self, pred: impl Fn(&Value) -> bool) -> Result<(Instant, Value)> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let (at, v) = self
                .incoming
                .recv_timeout(left)
                .context("no answer from the server")?;
            if pred(&v) {
                return Ok((at, v));
            }
        }
    }

    fn diagnostics_of(&self, version: i64) -> Result<(Instant, usize)> {
        let (at, v) = self.wait(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["version"] == version
        })?;
        Ok((
            at,
            v["params"]["diagnostics"].as_array().map_or(0, Vec::len),
        ))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The line and UTF-16 column of a character that can be toggled without changing the
/// document's validity: the first letter of the first `"description"` value, else of the
/// first string value.
fn toggle_point(text: &str) -> Result<(u64, u64, char)> {
    let at = ["\"description\": \"", "\"name\": \""]
        .iter()
        .find_map(|k| text.find(k).map(|i| i + k.len()))
        .context("no string value to edit")?;
    let c = text[at..].chars().next().context("empty value")?;
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..at].matches('\n').count() as u64;
    let col = text[line_start..at].encode_utf16().count() as u64;
    Ok((line, col, c))
}

/// Measures the server on `file`: `isolated` edits each after a pause, `bursts` bursts of
/// eight keystrokes.
pub(crate) fn measure(
    bin: &Path,
    file: &Path,
    isolated: usize,
    bursts: usize,
) -> Result<EditorLatency> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let cache = std::env::temp_dir().join(format!("mcpdesc-bench-editor-{}", std::process::id()));
    let mut s = Server::start(bin, &cache)?;
    let uri = format!("file://{}", file.canonicalize()?.display());
    s.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"processId": null, "rootUri": null, "capabilities": {}}}))?;
    s.wait(|m| m["id"] == 1)?;
    s.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}))?;
    let opened = s.send(&json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": text}}}))?;
    let (at, diagnostics) = s.diagnostics_of(1)?;
    let open_ms = ms(at - opened);

    let (line, col, original) = toggle_point(&text)?;
    let other = if original == 'x' { 'y' } else { 'x' };
    let mut version = 1i64;
    let mut flip = false;
    let mut edit = |s: &mut Server| -> Result<(i64, Instant)> {
        version += 1;
        flip = !flip;
        let c = if flip { other } else { original };
        let sent = s.send(
            &json!({"jsonrpc": "2.0", "method": "textDocument/didChange",
            "params": {"textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {"start": {"line": line, "character": col},
                    "end": {"line": line, "character": col + 1}}, "text": c.to_string()}]}}),
        )?;
        Ok((version, sent))
    };
    let pause = Duration::from_millis(400);
    let mut iso = Vec::new();
    for _ in 0..isolated {
        std::thread::sleep(pause);
        let (v, sent) = edit(&mut s)?;
        let (at, _) = s.diagnostics_of(v)?;
        iso.push(ms(at - sent));
    }
    let mut burst_end = Vec::new();
    for _ in 0..bursts {
        std::thread::sleep(pause);
        let mut last = None;
        for k in 0..8 {
            if k > 0 {
                std::thread::sleep(Duration::from_millis(30));
            }
            last = Some(edit(&mut s)?);
        }
        let (v, sent) = last.context("a burst")?;
        let (at, _) = s.diagnostics_of(v)?;
        burst_end.push(ms(at - sent));
    }
    let _ = s.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": null}));
    let _ = s.wait(|m| m["id"] == 2);
    let _ = s.send(&json!({"jsonrpc": "2.0", "method": "exit", "params": null}));
    let _ = std::fs::remove_dir_all(&cache);
    Ok(EditorLatency {
        file: file.to_owned(),
        bytes: text.len(),
        open_ms,
        isolated: iso,
        burst_end,
        diagnostics,
    })
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `(median, 90th percentile, max)` of `v`.
pub(crate) fn summary(v: &[f64]) -> (f64, f64, f64) {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.9), v[v.len() - 1])
}

/// `cargo xtask bench-editor [FILE…]` (default: the bench corpus's `medium.json`).
pub(crate) fn bench_editor_cmd(args: &[String]) -> Result<()> {
    let ws = crate::workspace();
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(&ws)
        .args(["build", "--release", "-q", "-p", "mcpdesc-cli"])
        .status()?;
    if !status.success() {
        bail!("building the release binary failed");
    }
    let bin = crate::bench_report::target_dir().join("release/mcpdesc");
    let files: Vec<PathBuf> = if args.is_empty() {
        let corpus = crate::bench_report::default_corpus_dir();
        let medium = corpus.join("medium.json");
        if !medium.is_file() {
            crate::bench_corpus::write_corpus(&corpus, crate::bench_corpus::SEED)?;
        }
        vec![medium]
    } else {
        args.iter().map(PathBuf::from).collect()
    };
    for f in files {
        let r = measure(&bin, &f, 30, 10)?;
        let (m, p90, max) = summary(&r.isolated);
        if std::env::var_os("MCPDESC_BENCH_VERBOSE").is_some() {
            eprintln!("edits after a pause (ms): {:.1?}", r.isolated);
            eprintln!("ends of bursts (ms): {:.1?}", r.burst_end);
        }
        let (bm, bp90, bmax) = summary(&r.burst_end);
        println!(
            "{} ({} bytes, {} diagnostics): open {:.1} ms; edit after a pause: median {m:.1} ms, p90 {p90:.1}, max {max:.1}; end of a burst: median {bm:.1} ms, p90 {bp90:.1}, max {bmax:.1}",
            r.file.display(),
            r.bytes,
            r.diagnostics,
            r.open_ms
        );
    }
    Ok(())
}
