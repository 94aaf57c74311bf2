//! `mcpdesc tap -- COMMAND…`: a stdio proxy a client launches in place of its server. The
//! traffic passes through unchanged; each message is checked by the traffic rules beside it
//! and the findings are written as they happen.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use anyhow::{Context as _, Result};
use mcpdesc_core::{Engine, Format, Severity};
use serde_json::Value;

use crate::exit::ExitCode;
use crate::render::{self, DocUrls, FileResult, RenderContext};
use crate::tap_pump::{self, Dir, Event, Lines, Shared};

/// Messages waiting to be checked, at most.
const QUEUE: usize = 1024;
/// Bytes of messages waiting to be checked, at most.
const QUEUE_BYTES: usize = 64 * 1024 * 1024;
/// Rules that judge a message by what comes after it, which a message checked as it passes
/// cannot know yet.
const LATER: &[&str] = &["mcp.jsonrpc.request-answered"];
/// How long the server's output is still forwarded after the server exited.
const DRAIN: std::time::Duration = std::time::Duration::from_secs(2);
/// Requests remembered for pairing their responses, at most, and their bytes.
const PENDING: usize = 4096;
const PENDING_BYTES: usize = 16 * 1024 * 1024;

#[derive(Debug, clap::Args)]
pub(crate) struct TapArgs {
    /// The server command and its arguments, after `--`.
    #[arg(required = true, last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
    /// Write the findings and the summary to FILE instead of standard error.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// Write every message exchanged to FILE as a capture (see docs/traffic.md).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Judge the messages before an `initialize` exchange (a client that reconnects, say) in
    /// this MCP protocol version [default: they are undated].
    #[arg(long, value_name = "VERSION")]
    pub protocol_version: Option<String>,
    #[command(flatten)]
    pub rules: crate::cli::RulesArgs,
    #[command(flatten)]
    pub limits: crate::limit_args::LimitArgs,
}

pub(crate) fn run(args: TapArgs) -> Result<ExitCode> {
    let engine = args
        .rules
        .engine()?
        .with_limits(args.limits.limits())
        .with_traffic_version(args.protocol_version.clone());
    let max_line = usize::try_from(engine.limits().max_input_bytes).unwrap_or(usize::MAX);
    let mut log: Box<dyn Write + Send> = match &args.log {
        Some(path) => Box::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot write the log {}", path.display()))?,
        ),
        None => Box::new(std::io::stderr()),
    };
    let record = match &args.record {
        Some(path) => Some(Mutex::new(std::io::BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot write the capture to {}", path.display()))?,
        ))),
        None => None,
    };
    let name = args
        .record
        .as_ref()
        .map_or_else(|| "<tap>".to_owned(), |p| p.display().to_string());

    let (program, rest) = args
        .command
        .split_first()
        .context("no server command after `--`")?;
    let mut child = Command::new(program)
        .args(rest)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("cannot start {program}"))?;
    let child_in = child
        .stdin
        .take()
        .context("the server has no standard input")?;
    let child_out = child
        .stdout
        .take()
        .context("the server has no standard output")?;

    let (tx, rx) = mpsc::sync_channel(QUEUE);
    let shared = Arc::new(Shared {
        tx,
        in_flight: AtomicUsize::new(0),
        budget: QUEUE_BYTES,
        dropped: AtomicUsize::new(0),
        record,
        seq: Mutex::new(0),
    });

    let checker = {
        let shared = Arc::clone(&shared);
        std::thread::spawn(move || {
            let mut tally = Tally::default();
            let mut context = Context::default();
            while let Ok(event) = rx.recv() {
                match event {
                    Event::End => break,
                    Event::TooLarge { seq, dir, bytes } => {
                        tally.too_large += 1;
                        let _ = writeln!(
                            log,
                            "{}:{}: warning: a {} message of {bytes} bytes is past the \
                             {max_line}-byte limit; forwarded, not checked",
                            render::safe::escape(&name),
                            seq,
                            dir.as_str()
                        );
                    }
                    Event::Record { seq, record } => {
                        shared.in_flight.fetch_sub(record.len(), Ordering::AcqRel);
                        tally.messages += 1;
                        let out = context.check(&engine, &record, seq, &name);
                        tally.count(&out);
                        let text = render_findings(&engine, out);
                        let _ = log.write_all(text.as_bytes());
                        let _ = log.flush();
                    }
                }
            }
            tally.dropped = shared.dropped.load(Ordering::Relaxed);
            let _ = writeln!(log, "{}", tally.summary());
            let _ = log.flush();
        })
    };

    let to_server = {
        let shared = Arc::clone(&shared);
        let lines = Lines::new(Dir::C2s, max_line);
        let reading = AtomicBool::new(false);
        std::thread::spawn(move || {
            tap_pump::pump(std::io::stdin(), child_in, lines, &shared, &reading);
        })
    };
    // Never joined: it may sit in a read of our standard input after the server is gone.
    drop(to_server);
    let (drained_tx, drained) = mpsc::channel::<()>();
    let reading = Arc::new(AtomicBool::new(false));
    {
        let shared = Arc::clone(&shared);
        let reading = Arc::clone(&reading);
        let lines = Lines::new(Dir::S2c, max_line);
        std::thread::spawn(move || {
            tap_pump::pump(child_out, std::io::stdout(), lines, &shared, &reading);
            let _ = drained_tx.send(());
        });
    }

    let status = child.wait().context("lost the server process")?;
    // A process the server started may keep its standard output open after the server is
    // gone (a wrapper such as `npx` that was killed, say): the tap ends with the server once
    // that output has been quiet for a while. A client slow to read holds nothing back.
    while let Err(mpsc::RecvTimeoutError::Timeout) = drained.recv_timeout(DRAIN) {
        if reading.load(Ordering::Acquire) {
            break;
        }
    }
    if let Some(file) = &shared.record {
        if let Ok(mut f) = file.lock() {
            let _ = f.flush();
        }
    }
    // Blocking: the end must reach the checker even when its queue is full.
    let _ = shared.tx.send(Event::End);
    let _ = checker.join();
    Ok(ExitCode::from(exit_status(status)))
}

/// The server's exit status as a shell reports it: its code, or 128 plus the signal that
/// ended it.
fn exit_status(status: std::process::ExitStatus) -> u8 {
    if let Some(code) = status.code() {
        return u8::try_from(code & 0xff).unwrap_or(1);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(signal) = status.signal() {
            return u8::try_from((128 + signal) & 0xff).unwrap_or(1);
        }
    }
    1
}

/// What the rules of a single message need from the messages before it: the handshake
/// (for the protocol version) and, for a response, its request (for pairing).
#[derive(Debug, Default)]
struct Context {
    handshake: Vec<String>,
    initialize_id: Option<String>,
    pending: HashMap<String, String>,
    pending_bytes: usize,
}

impl Context {
    /// The findings on the message of `record`, positioned at line `seq` of the capture.
    fn check(
        &mut self,
        engine: &Engine,
        record: &str,
        seq: usize,
        name: &str,
    ) -> (FileResult, usize) {
        let msg = serde_json::from_str::<Value>(record)
            .ok()
            .and_then(|r| r.get("msg").cloned());
        let id = msg
            .as_ref()
            .and_then(|m| m.get("id"))
            .map(ToString::to_string);
        let method = msg
            .as_ref()
            .and_then(|m| m.get("method"))
            .and_then(Value::as_str);
        let is_response = msg.as_ref().is_some_and(|m| m.get("method").is_none());

        let mut capture = String::new();
        let mut lines = 0usize;
        let is_handshake = method == Some("initialize")
            || (is_response && id.is_some() && id == self.initialize_id);
        if !is_handshake {
            for l in &self.handshake {
                capture.push_str(l);
                capture.push('\n');
                lines += 1;
            }
        } else if is_response {
            if let Some(first) = self.handshake.first() {
                capture.push_str(first);
                capture.push('\n');
                lines += 1;
            }
        }
        if is_response && !is_handshake {
            if let Some(request) = id.as_ref().and_then(|id| self.pending.remove(id)) {
                self.pending_bytes = self.pending_bytes.saturating_sub(request.len());
                capture.push_str(&request);
                capture.push('\n');
                lines += 1;
            }
        }
        capture.push_str(record);
        capture.push('\n');
        lines += 1;

        match (method, &id) {
            (Some("initialize"), Some(id)) => {
                self.handshake = vec![record.to_owned()];
                self.initialize_id = Some(id.clone());
            }
            (None, Some(_)) if is_handshake => {
                self.handshake.truncate(1);
                self.handshake.push(record.to_owned());
            }
            (Some(_), Some(id)) => {
                // Responses that never come must not fill memory.
                if self.pending.len() >= PENDING || self.pending_bytes > PENDING_BYTES {
                    self.pending.clear();
                    self.pending_bytes = 0;
                }
                self.pending_bytes += record.len();
                if let Some(old) = self.pending.insert(id.clone(), record.to_owned()) {
                    self.pending_bytes = self.pending_bytes.saturating_sub(old.len());
                }
            }
            _ => {}
        }

        let report = engine.validate_bytes(capture.as_bytes(), Format::Capture);
        let line = u32::try_from(lines).unwrap_or(u32::MAX);
        let at = u32::try_from(seq).unwrap_or(u32::MAX);
        let diagnostics = report
            .diagnostics
            .into_iter()
            .filter(|d| d.line == line && !LATER.contains(&d.rule.as_str()))
            .map(|mut d| {
                d.line = at;
                d
            })
            .collect::<Vec<_>>();
        let found = diagnostics.len();
        (
            FileResult {
                path: name.to_owned(),
                source: None,
                diagnostics,
                load_error: None,
                io_error: false,
                suppressed: 0,
                baselined: 0,
                release: Some(report.release),
            },
            found,
        )
    }
}

fn render_findings(engine: &Engine, (result, found): (FileResult, usize)) -> String {
    if found == 0 {
        return String::new();
    }
    let ctx = RenderContext {
        catalogue: engine.catalogue(),
        releases: engine.releases(),
        docs: DocUrls::new(None),
        strict: false,
        fail_on: Severity::Error,
        color: false,
        summary: false,
    };
    render::concise(&[result], &ctx)
}

/// The counts of the closing summary.
#[derive(Debug, Default)]
struct Tally {
    messages: usize,
    errors: usize,
    warnings: usize,
    others: usize,
    too_large: usize,
    dropped: usize,
}

impl Tally {
    fn count(&mut self, (result, _): &(FileResult, usize)) {
        for d in &result.diagnostics {
            match d.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
                _ => self.others += 1,
            }
        }
    }

    fn summary(&self) -> String {
        format!(
            "mcpdesc tap: {} checked, {}, {}, {} other findings; {} too large to check, {} \
             not checked (the checker was behind)",
            render::plural(self.messages, "message", "messages"),
            render::plural(self.errors, "error", "errors"),
            render::plural(self.warnings, "warning", "warnings"),
            self.others,
            self.too_large,
            self.dropped
        )
    }
}
