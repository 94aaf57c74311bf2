//! `mcpdesc tap -- COMMAND…`: a stdio proxy a client launches in place of its server. The
//! traffic passes through unchanged; each message is checked by the traffic rules beside it
//! and the findings are written as they happen.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use anyhow::{Context as _, Result};
use mcpdesc_core::{Diagnostic, Engine, Severity};

use crate::exit::ExitCode;
use crate::render::{self, DocUrls, FileResult, RenderContext};
use crate::tap_pump::{self, Dir, Event, Lines, Shared};
use crate::tap_window::Window;

/// Messages waiting to be checked, at most.
const QUEUE: usize = 16 * 1024;
/// Messages checked at once, at most.
const BATCH: usize = 4096;
/// Bytes of messages waiting to be checked, at most.
const QUEUE_BYTES: usize = 64 * 1024 * 1024;
/// How long the server's output is still forwarded after the server exited.
const DRAIN: std::time::Duration = std::time::Duration::from_secs(2);

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
            let mut window = Window::new(&engine);
            let mut batch: Vec<(usize, String)> = Vec::new();
            let check = |batch: &mut Vec<(usize, String)>,
                         window: &mut Window,
                         tally: &mut Tally,
                         log: &mut Box<dyn Write + Send>| {
                if batch.is_empty() {
                    return;
                }
                tally.messages += batch.len();
                let found = window.check(&engine, batch);
                batch.clear();
                report(&engine, &name, found, tally, log);
            };
            // The checker takes every message that waits at once: one check of a batch
            // costs about what one of a single message does, so a burst never outruns it.
            'session: while let Ok(first) = rx.recv() {
                let mut next = Some(first);
                while let Some(event) = next.take() {
                    match event {
                        Event::End => {
                            check(&mut batch, &mut window, &mut tally, &mut log);
                            let found = window.finish(&engine);
                            report(&engine, &name, found, &mut tally, &mut log);
                            break 'session;
                        }
                        Event::TooLarge { seq, dir, bytes } => {
                            check(&mut batch, &mut window, &mut tally, &mut log);
                            window.skipped();
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
                            batch.push((seq, record));
                        }
                    }
                    if batch.len() < BATCH {
                        next = rx.try_recv().ok();
                    }
                }
                check(&mut batch, &mut window, &mut tally, &mut log);
            }
            tally.dropped = shared.dropped.load(Ordering::Relaxed);
            tally.incomplete = window.is_incomplete();
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

/// Writes the findings of one check to the log as they are found.
fn report(
    engine: &Engine,
    name: &str,
    diagnostics: Vec<Diagnostic>,
    tally: &mut Tally,
    log: &mut Box<dyn Write + Send>,
) {
    if diagnostics.is_empty() {
        return;
    }
    let result = FileResult {
        path: name.to_owned(),
        source: None,
        diagnostics,
        load_error: None,
        io_error: false,
        suppressed: 0,
        baselined: 0,
        release: None,
    };
    tally.count(&result);
    let _ = log.write_all(render_findings(engine, result).as_bytes());
    let _ = log.flush();
}

fn render_findings(engine: &Engine, result: FileResult) -> String {
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
    /// Rules resting on earlier messages were left out after a message went unchecked.
    incomplete: bool,
}

impl Tally {
    fn count(&mut self, result: &FileResult) {
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
        ) + if self.incomplete {
            "; the rules that compare a message with earlier ones were left out after the \
             first message not checked"
        } else {
            ""
        }
    }
}
