//! The checking side of `mcpdesc tap`, shared by its stdio and HTTP transports: one thread
//! fed by a bounded queue checks each message, writes the findings in the chosen format and
//! ends with a summary.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;

use anyhow::{Context as _, Result};
use mcpdesc_core::{Diagnostic, Engine, Severity};

use crate::render::{self, DocUrls, FileResult, OutputFormat, RenderContext};
use crate::tap_pump::{Event, Shared};
use crate::tap_window::Window;

/// Messages waiting to be checked, at most.
const QUEUE: usize = 16 * 1024;
/// Messages checked at once, at most.
const BATCH: usize = 4096;
/// Bytes of messages waiting to be checked, at most.
const QUEUE_BYTES: usize = 64 * 1024 * 1024;
/// Findings a whole-document format keeps for the end of the session; past it they are
/// only counted, so that a long session cannot fill memory.
const KEPT_FINDINGS: usize = 100_000;

/// Everything the checker is told before the traffic starts.
pub(crate) struct Settings {
    pub engine: Engine,
    pub format: OutputFormat,
    pub log: Option<PathBuf>,
    pub record: Option<PathBuf>,
    #[cfg(feature = "live")]
    pub description: Option<crate::tap_describe::Described>,
}

/// The running checker; [`Checker::finish`] ends it with its summary.
pub(crate) struct Checker {
    shared: Arc<Shared>,
    thread: JoinHandle<()>,
    max_message: usize,
}

impl Checker {
    pub(crate) fn start(settings: Settings) -> Result<Checker> {
        let Settings {
            engine,
            format,
            log,
            record,
            #[cfg(feature = "live")]
            description,
        } = settings;
        let max_message = usize::try_from(engine.limits().max_input_bytes).unwrap_or(usize::MAX);
        let to_file = log.is_some();
        let out: Box<dyn Write + Send> = match &log {
            Some(path) => Box::new(
                std::fs::File::create(path)
                    .with_context(|| format!("cannot write the log {}", path.display()))?,
            ),
            None => Box::new(std::io::stderr()),
        };
        let capture = match &record {
            Some(path) => Some(Mutex::new(std::io::BufWriter::new(
                std::fs::File::create(path)
                    .with_context(|| format!("cannot write the capture to {}", path.display()))?,
            ))),
            None => None,
        };
        let name = record
            .as_ref()
            .map_or_else(|| "<tap>".to_owned(), |p| p.display().to_string());

        let (tx, rx) = mpsc::sync_channel(QUEUE);
        let shared = Arc::new(Shared {
            tx,
            in_flight: AtomicUsize::new(0),
            budget: QUEUE_BYTES,
            dropped: AtomicUsize::new(0),
            record: capture,
            seq: Mutex::new(0),
        });
        let mut sink = Sink {
            out,
            to_file,
            format,
            kept: Vec::new(),
            past_kept: 0,
            release: None,
        };
        let thread = {
            let shared = Arc::clone(&shared);
            std::thread::spawn(move || {
                let mut tally = Tally::default();
                let mut window = Window::new(&engine);
                let mut batch: Vec<(usize, String)> = Vec::new();
                #[cfg(feature = "live")]
                let mut session = description
                    .as_ref()
                    .map(crate::tap_describe::Described::session);
                let check = |batch: &mut Vec<(usize, String)>,
                             window: &mut Window,
                             tally: &mut Tally,
                             sink: &mut Sink| {
                    if batch.is_empty() {
                        return;
                    }
                    tally.messages += batch.len();
                    let found = window.check(&engine, batch);
                    batch.clear();
                    tally.count(&found);
                    sink.findings(&engine, result_of(&name, found, &engine));
                };
                // The checker takes every message that waits at once: checking a batch costs
                // about what checking one message does, so a burst does not outrun it.
                'session: while let Ok(first) = rx.recv() {
                    let mut next = Some(first);
                    while let Some(event) = next.take() {
                        match event {
                            Event::End => {
                                check(&mut batch, &mut window, &mut tally, &mut sink);
                                let found = window.finish(&engine);
                                tally.count(&found);
                                sink.findings(&engine, result_of(&name, found, &engine));
                                break 'session;
                            }
                            Event::TooLarge { seq, dir, bytes } => {
                                check(&mut batch, &mut window, &mut tally, &mut sink);
                                window.skipped();
                                tally.too_large += 1;
                                sink.note(&format!(
                                    "{}:{}: warning: a {} message of {bytes} bytes is past the \
                                     {max_message}-byte limit; forwarded, not checked",
                                    render::safe::escape(&name),
                                    seq,
                                    dir.as_str()
                                ));
                            }
                            Event::Record { seq, record } => {
                                shared.in_flight.fetch_sub(record.len(), Ordering::AcqRel);
                                #[cfg(feature = "live")]
                                if let Some(session) = &mut session {
                                    session.see(&record);
                                }
                                batch.push((seq, record));
                            }
                        }
                        if batch.len() < BATCH {
                            next = rx.try_recv().ok();
                        }
                    }
                    check(&mut batch, &mut window, &mut tally, &mut sink);
                }
                tally.incomplete = window.is_incomplete();
                #[cfg_attr(not(feature = "live"), allow(unused_mut))]
                let mut described = None;
                #[cfg(feature = "live")]
                if let (Some(description), Some(session)) = (&description, &session) {
                    match description.compare(&engine, session) {
                        Ok(result) => {
                            tally.count(&result.diagnostics);
                            described = Some(result);
                        }
                        Err(why) => sink.note(&format!(
                            "mcpdesc tap: the traffic was not compared with {}: {why}",
                            render::safe::escape(&description.path)
                        )),
                    }
                }
                tally.dropped = shared.dropped.load(Ordering::Relaxed);
                sink.end(&engine, &name, described, &tally.summary());
            })
        };
        Ok(Checker {
            shared,
            thread,
            max_message,
        })
    }

    /// Where the transports hand their messages over.
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Messages larger than this are forwarded and reported, not checked.
    pub(crate) fn max_message(&self) -> usize {
        self.max_message
    }

    /// Ends the checking once every message was handed over: what is queued is checked,
    /// then the description is compared and the summary written.
    pub(crate) fn finish(self) {
        if let Some(file) = &self.shared.record {
            if let Ok(mut f) = file.lock() {
                let _ = f.flush();
            }
        }
        // Blocking: the end must reach the checker even when its queue is full.
        let _ = self.shared.tx.send(Event::End);
        let _ = self.thread.join();
    }
}

/// Where the findings go, in their format.
struct Sink {
    out: Box<dyn Write + Send>,
    /// The log is a file (else standard error).
    to_file: bool,
    format: OutputFormat,
    /// The findings a whole-document format writes at the end.
    kept: Vec<Diagnostic>,
    past_kept: usize,
    /// The release that judged the traffic.
    release: Option<String>,
}

impl Sink {
    fn streams(&self) -> bool {
        matches!(
            self.format,
            OutputFormat::Concise | OutputFormat::Text | OutputFormat::Github
        )
    }

    /// A line about the tap itself: in the log beside line findings, on standard error
    /// beside a document (which it would break).
    fn note(&mut self, line: &str) {
        if self.streams() {
            let _ = writeln!(self.out, "{line}");
            let _ = self.out.flush();
        } else {
            let _ = writeln!(std::io::stderr(), "{line}");
        }
    }

    fn findings(&mut self, engine: &Engine, result: FileResult) {
        if self.release.is_none() {
            self.release.clone_from(&result.release);
        }
        if result.diagnostics.is_empty() {
            return;
        }
        if self.streams() {
            let text = self.render(engine, &[result]);
            let _ = self.out.write_all(text.as_bytes());
            let _ = self.out.flush();
            return;
        }
        for d in result.diagnostics {
            if self.kept.len() < KEPT_FINDINGS {
                self.kept.push(d);
            } else {
                self.past_kept += 1;
            }
        }
    }

    fn render(&self, engine: &Engine, results: &[FileResult]) -> String {
        let ctx = RenderContext {
            catalogue: engine.catalogue(),
            releases: engine.releases(),
            docs: DocUrls::new(None),
            strict: false,
            fail_on: Severity::Error,
            color: false,
            summary: false,
        };
        render::in_format(self.format, results, &ctx)
            .unwrap_or_else(|e| format!("mcpdesc tap: cannot render the findings: {e}\n"))
    }

    /// The description's findings, the document of a whole-document format, and the
    /// summary: in the log for line formats, on standard error beside a document in a file.
    fn end(&mut self, engine: &Engine, name: &str, described: Option<FileResult>, summary: &str) {
        if self.streams() {
            if let Some(result) = described {
                self.findings(engine, result);
            }
            let _ = writeln!(self.out, "{summary}");
            let _ = self.out.flush();
            return;
        }
        let mut results = vec![FileResult {
            path: name.to_owned(),
            source: None,
            diagnostics: std::mem::take(&mut self.kept),
            load_error: None,
            io_error: false,
            suppressed: 0,
            baselined: 0,
            release: self.release.take(),
        }];
        results.extend(described);
        let text = self.render(engine, &results);
        let _ = self.out.write_all(text.as_bytes());
        let _ = self.out.flush();
        if self.past_kept > 0 {
            let _ = writeln!(
                std::io::stderr(),
                "mcpdesc tap: {} more findings were counted but not kept for the report",
                self.past_kept
            );
        }
        if self.to_file {
            let _ = writeln!(std::io::stderr(), "{summary}");
        }
    }
}

/// The findings of one check, as the renderers take them.
fn result_of(name: &str, diagnostics: Vec<Diagnostic>, engine: &Engine) -> FileResult {
    FileResult {
        path: name.to_owned(),
        source: None,
        diagnostics,
        load_error: None,
        io_error: false,
        suppressed: 0,
        baselined: 0,
        release: Some(engine.catalogue().version()),
    }
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
    fn count(&mut self, diagnostics: &[Diagnostic]) {
        for d in diagnostics {
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
