//! The stdio transport: the server is a child process; each message is one line of its
//! standard input or output.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::transport::{remaining, Incoming, Transport, TransportError};

/// How much of the server's standard error is kept for error messages.
const STDERR_KEEP: usize = 8 * 1024;
/// A longer line is cut there: the rest of it arrives as further (broken) lines, and memory
/// stays bounded whatever the server writes.
const MAX_LINE: u64 = 64 * 1024 * 1024;
/// How long a server gets to exit by itself once its standard input is closed.
const EXIT_GRACE: Duration = Duration::from_millis(1000);
/// How long a server that closed its output gets to report its exit status.
const EXIT_REPORT_WAIT: Duration = Duration::from_millis(1000);

/// A line for the server's standard input, and where to say whether it was written.
type PendingWrite = (Vec<u8>, mpsc::SyncSender<std::io::Result<()>>);

enum ReadEvent {
    Line(Vec<u8>),
    End,
}

pub(crate) struct StdioTransport {
    child: Child,
    /// Lines for the thread that writes the server's standard input; each is answered with
    /// whether it was written. A server that stops reading would block a write for ever: the
    /// session waits for the answer only until its deadline.
    stdin: Option<mpsc::SyncSender<PendingWrite>>,
    /// A write that missed its deadline and may still be blocked: nothing more can be sent.
    stuck: bool,
    lines: Receiver<ReadEvent>,
    stderr: Arc<Tail>,
    closed: bool,
}

impl StdioTransport {
    pub(crate) fn spawn(command: &OsString, args: &[OsString]) -> std::io::Result<StdioTransport> {
        let mut child = Command::new(command)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let stdin = child.stdin.take().map(writer);
        // Bounded, so that a server flooding its output waits for the session instead of
        // filling memory.
        let (tx, lines) = mpsc::sync_channel(1024);
        // The threads are not joined: a grandchild of the server may keep the pipes open
        // after the server itself is gone, and nothing must wait for that.
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match (&mut reader).take(MAX_LINE).read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        while matches!(line.last(), Some(b'\n' | b'\r')) {
                            line.pop();
                        }
                        // Blank lines carry nothing, in a capture as on the wire.
                        if line.iter().all(u8::is_ascii_whitespace) {
                            continue;
                        }
                        if tx.send(ReadEvent::Line(line)).is_err() {
                            return;
                        }
                    }
                }
            }
            let _ = tx.send(ReadEvent::End);
        });
        let tail = Arc::new(Tail::default());
        let sink = Arc::clone(&tail);
        thread::spawn(move || sink.drain(stderr));
        Ok(StdioTransport {
            child,
            stdin,
            stuck: false,
            lines,
            stderr: tail,
            closed: false,
        })
    }

    /// The error for a server whose pipes are gone, with how it ended.
    fn closed_error(&mut self) -> TransportError {
        let waited = Instant::now();
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break status.to_string(),
                Ok(None) if waited.elapsed() < EXIT_REPORT_WAIT => {
                    thread::sleep(Duration::from_millis(10));
                }
                Ok(None) => break "still running, but its standard output is closed".into(),
                Err(e) => break format!("exit status unknown: {e}"),
            }
        };
        // The exit status can arrive before the last of standard error has been read.
        self.stderr.wait_for_end(Duration::from_millis(200));
        TransportError::Closed {
            status,
            stderr: self.stderr.text(),
        }
    }
}

impl Transport for StdioTransport {
    fn send(&mut self, msg: &Value, deadline: Instant) -> Result<(), TransportError> {
        let Some(wait) = remaining(deadline).filter(|_| !self.stuck) else {
            return Err(TransportError::Timeout);
        };
        let mut line = serde_json::to_vec(msg).expect("a Value serialises");
        line.push(b'\n');
        let (done, written) = mpsc::sync_channel(1);
        let queued = self
            .stdin
            .as_ref()
            .is_some_and(|stdin| stdin.send((line, done)).is_ok());
        if !queued {
            return Err(self.closed_error());
        }
        match written.recv_timeout(wait) {
            Ok(Ok(())) => Ok(()),
            // A write fails when the server has exited (or closed its input): say how it ended.
            Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => Err(self.closed_error()),
            Err(RecvTimeoutError::Timeout) => {
                self.stuck = true;
                Err(TransportError::Timeout)
            }
        }
    }

    fn receive(&mut self, deadline: Instant) -> Result<Incoming, TransportError> {
        let Some(wait) = remaining(deadline) else {
            return Err(TransportError::Timeout);
        };
        match self.lines.recv_timeout(wait) {
            Ok(ReadEvent::Line(bytes)) => Ok(super::transport::incoming(&bytes)),
            Ok(ReadEvent::End) | Err(RecvTimeoutError::Disconnected) => Err(self.closed_error()),
            Err(RecvTimeoutError::Timeout) => Err(TransportError::Timeout),
        }
    }

    fn stderr_tail(&self) -> String {
        self.stderr.text()
    }

    fn close(&mut self) {
        if self.closed {
            return;
        }
        self.closed = true;
        // Closing standard input is how a stdio server is asked to stop.
        drop(self.stdin.take());
        let asked = Instant::now();
        while asked.elapsed() < EXIT_GRACE {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        self.close();
    }
}

/// The thread that writes the server's standard input, one line at a time, saying after each
/// whether it was written. It ends when the transport drops its sender (which closes the
/// server's input) or a write fails.
fn writer(mut stdin: ChildStdin) -> mpsc::SyncSender<PendingWrite> {
    let (tx, rx) = mpsc::sync_channel::<PendingWrite>(1);
    thread::spawn(move || {
        for (line, done) in rx {
            let result = stdin.write_all(&line).and_then(|()| stdin.flush());
            let failed = result.is_err();
            let _ = done.send(result);
            if failed {
                return;
            }
        }
    });
    tx
}

/// The last [`STDERR_KEEP`] bytes of the server's standard error.
#[derive(Default)]
struct Tail {
    bytes: Mutex<VecDeque<u8>>,
    ended: AtomicBool,
}

impl Tail {
    fn drain(&self, mut from: impl Read) {
        let mut buf = [0u8; 4096];
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let mut kept = self.bytes.lock().unwrap_or_else(|e| e.into_inner());
                    kept.extend(&buf[..n]);
                    let excess = kept.len().saturating_sub(STDERR_KEEP);
                    kept.drain(..excess);
                }
            }
        }
        self.ended.store(true, Ordering::Release);
    }

    fn wait_for_end(&self, at_most: Duration) {
        let start = Instant::now();
        while !self.ended.load(Ordering::Acquire) && start.elapsed() < at_most {
            thread::sleep(Duration::from_millis(5));
        }
    }

    /// The kept text, trimmed, at most its last 20 lines.
    fn text(&self) -> String {
        let kept = self.bytes.lock().unwrap_or_else(|e| e.into_inner());
        let (a, b) = kept.as_slices();
        let text = String::from_utf8_lossy(&[a, b].concat()).into_owned();
        let lines: Vec<&str> = text.trim().lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }
}
