//! The forwarding half of `mcpdesc tap`: copies bytes from one end to the other as they
//! arrive, and hands complete lines, as capture records, to the checking side without ever
//! waiting for it.

use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError};
use std::sync::{Arc, Mutex};

/// Bytes read at once: a message larger than this is forwarded in several writes.
const CHUNK: usize = 64 * 1024;

/// The bytes of a too-large line that its capture record keeps, to show what it was.
const EXCERPT: usize = 256;

/// Which way a message went, as the capture format names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dir {
    C2s,
    S2c,
}

impl Dir {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Dir::C2s => "c2s",
            Dir::S2c => "s2c",
        }
    }
}

/// What the forwarding threads tell the checking thread.
#[derive(Debug)]
pub(crate) enum Event {
    /// One line, as its capture record (a single line without the newline), and the
    /// record's line in the capture.
    Record { seq: usize, record: String },
    /// A line longer than the limit: forwarded, not checked.
    TooLarge { seq: usize, dir: Dir, bytes: usize },
    /// Nothing more will come.
    End,
}

/// What the forwarding threads share with the checking thread.
#[derive(Debug)]
pub(crate) struct Shared {
    pub tx: SyncSender<Event>,
    /// Bytes of records sent and not yet checked, so that a slow check bounds memory by
    /// size, not only by count.
    pub in_flight: AtomicUsize,
    pub budget: usize,
    /// Records the checking thread never saw because it was behind.
    pub dropped: AtomicUsize,
    /// The capture file, written here so that it holds every message, checked or not.
    pub record: Option<Mutex<std::io::BufWriter<std::fs::File>>>,
    /// Lines handed over so far.
    pub seq: Mutex<usize>,
}

impl Shared {
    /// Numbers the record, writes it to the capture and offers it to the checker, all under
    /// one lock: the two directions then agree on the order, and a finding's line is the
    /// record's line in the capture.
    fn deliver(&self, record: String, event: impl FnOnce(usize, String) -> Event, len: usize) {
        let Ok(mut seq) = self.seq.lock() else {
            return;
        };
        *seq += 1;
        if let Some(file) = &self.record {
            if let Ok(mut f) = file.lock() {
                // A capture that cannot be written must not stop the traffic.
                let _ = f.write_all(record.as_bytes());
                let _ = f.write_all(b"\n");
            }
        }
        if self.in_flight.fetch_add(len, Ordering::AcqRel) + len > self.budget {
            self.in_flight.fetch_sub(len, Ordering::AcqRel);
            self.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        match self.tx.try_send(event(*seq, record)) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                self.in_flight.fetch_sub(len, Ordering::AcqRel);
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    fn hand_over(&self, record: String) {
        let len = record.len();
        self.deliver(record, |seq, record| Event::Record { seq, record }, len);
    }

    pub(crate) fn too_large(&self, dir: Dir, bytes: usize, head: &[u8]) {
        let excerpt = String::from_utf8_lossy(&head[..head.len().min(EXCERPT)]);
        let record = serde_json::json!({"dir": dir.as_str(), "raw": excerpt, "bytes": bytes});
        // Counted as nothing against the budget: its event holds no text.
        self.deliver(
            record.to_string(),
            |seq, _| Event::TooLarge { seq, dir, bytes },
            0,
        );
    }
}

impl Shared {
    /// Hands over one whole message (an HTTP body, an event's data) that went `dir`: a
    /// message past `max` bytes is reported by its size, not checked.
    #[cfg_attr(not(feature = "live"), allow(dead_code))]
    pub(crate) fn offer(&self, dir: Dir, message: &[u8], max: usize) {
        if message.len() > max {
            self.too_large(dir, message.len(), message);
            return;
        }
        // A record is one line; outside its strings, JSON holds line breaks only as
        // whitespace, so a message spread over lines is the same message on one.
        let flat: Vec<u8> = message
            .iter()
            .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b })
            .collect();
        if let Some(record) = record_of(dir, &flat) {
            self.hand_over(record);
        }
    }
}

/// The capture record of one line: the message itself when it is JSON, else the text.
pub(crate) fn record_of(dir: Dir, line: &[u8]) -> Option<String> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    if serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok() {
        // Valid JSON is valid UTF-8, and a line holds no newline: the record stays one line
        // and keeps the message exactly as sent.
        let msg = String::from_utf8_lossy(line);
        Some(format!(
            r#"{{"dir":"{}","msg":{}}}"#,
            dir.as_str(),
            msg.trim()
        ))
    } else {
        let text = String::from_utf8_lossy(line);
        Some(serde_json::json!({"dir": dir.as_str(), "raw": text}).to_string())
    }
}

/// Splits a byte stream into lines of at most `max` bytes; a longer line is reported by its
/// size and its first bytes, never held whole.
#[derive(Debug)]
pub(crate) struct Lines {
    dir: Dir,
    max: usize,
    buf: Vec<u8>,
    /// Bytes of the current line when it is past `max` (`buf` then keeps its head).
    over: Option<usize>,
}

impl Lines {
    pub(crate) fn new(dir: Dir, max: usize) -> Lines {
        Lines {
            dir,
            max,
            buf: Vec::new(),
            over: None,
        }
    }

    pub(crate) fn feed(&mut self, mut bytes: &[u8], shared: &Shared) {
        while !bytes.is_empty() {
            let (part, rest, ends) = match memchr::memchr(b'\n', bytes) {
                Some(i) => (&bytes[..i], &bytes[i + 1..], true),
                None => (bytes, &[][..], false),
            };
            self.take(part);
            if ends {
                self.finish(shared);
            }
            bytes = rest;
        }
    }

    fn take(&mut self, part: &[u8]) {
        match &mut self.over {
            Some(n) => *n += part.len(),
            None if self.buf.len() + part.len() > self.max => {
                self.over = Some(self.buf.len() + part.len());
                let keep = EXCERPT.saturating_sub(self.buf.len()).min(part.len());
                self.buf.extend_from_slice(&part[..keep]);
                self.buf.truncate(EXCERPT);
                self.buf.shrink_to(EXCERPT);
            }
            None => self.buf.extend_from_slice(part),
        }
    }

    /// Ends the current line (at a newline, or at the end of the stream).
    pub(crate) fn finish(&mut self, shared: &Shared) {
        match self.over.take() {
            Some(n) => shared.too_large(self.dir, n, &self.buf),
            None => {
                if let Some(record) = record_of(self.dir, &self.buf) {
                    shared.hand_over(record);
                }
            }
        }
        self.buf.clear();
    }
}

/// Copies `from` to `to` until `from` ends, flushing every chunk so that nothing waits on
/// the proxy, and feeds what passed to `lines`. Once `to` is closed, what comes is still
/// read (and checked), so that the writer at the other end never blocks on a reader that
/// left. `reading` is set while it waits for input (and not on its reader).
pub(crate) fn pump(
    mut from: impl Read,
    mut to: impl Write,
    mut lines: Lines,
    shared: &Arc<Shared>,
    reading: &AtomicBool,
) {
    let mut chunk = vec![0u8; CHUNK];
    let mut open = true;
    loop {
        reading.store(true, Ordering::Release);
        let read = from.read(&mut chunk);
        reading.store(false, Ordering::Release);
        let n = match read {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        // A line is numbered before it is passed on, so that an answer the other side sends
        // to it is numbered after it, in the capture as on the wire. Handing it over never
        // waits for the checker: a full queue drops it from checking.
        lines.feed(&chunk[..n], shared);
        if open && to.write_all(&chunk[..n]).and_then(|()| to.flush()).is_err() {
            open = false;
        }
    }
    if !lines.buf.is_empty() || lines.over.is_some() {
        lines.finish(shared);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn shared(queue: usize, budget: usize) -> (Arc<Shared>, mpsc::Receiver<Event>) {
        let (tx, rx) = mpsc::sync_channel(queue);
        let shared = Shared {
            tx,
            in_flight: AtomicUsize::new(0),
            budget,
            dropped: AtomicUsize::new(0),
            record: None,
            seq: Mutex::new(0),
        };
        (Arc::new(shared), rx)
    }

    fn events(rx: &mpsc::Receiver<Event>) -> Vec<String> {
        rx.try_iter()
            .map(|e| match e {
                Event::Record { seq, record } => format!("{seq} {record}"),
                Event::TooLarge { seq, dir, bytes } => format!("{seq} {} {bytes}", dir.as_str()),
                Event::End => "end".to_owned(),
            })
            .collect()
    }

    #[test]
    fn lines_split_across_reads_become_one_record_each() {
        let (shared, rx) = shared(16, 1 << 20);
        let mut out = Vec::new();
        let input: &[u8] = b"{\"a\":1}\r\n\nnot json\n{\"b\"";
        pump(
            input,
            &mut out,
            Lines::new(Dir::S2c, 100),
            &shared,
            &AtomicBool::new(false),
        );
        assert_eq!(out, input);
        assert_eq!(
            events(&rx),
            [
                r#"1 {"dir":"s2c","msg":{"a":1}}"#,
                r#"2 {"dir":"s2c","raw":"not json"}"#,
                r#"3 {"dir":"s2c","raw":"{\"b\""}"#,
            ]
        );
    }

    #[test]
    fn a_line_past_the_limit_is_reported_by_its_size_and_not_kept() {
        let (shared, rx) = shared(16, 1 << 20);
        let mut lines = Lines::new(Dir::C2s, 10);
        let long = vec![b'x'; 5000];
        lines.feed(&long, &shared);
        lines.feed(&long, &shared);
        assert!(lines.buf.capacity() <= EXCERPT);
        lines.feed(b"\n{}\n", &shared);
        assert_eq!(events(&rx), ["1 c2s 10000", r#"2 {"dir":"c2s","msg":{}}"#]);
    }

    #[test]
    fn a_full_queue_drops_and_counts_instead_of_waiting() {
        let (shared, rx) = shared(1, 1 << 20);
        let mut lines = Lines::new(Dir::C2s, 100);
        lines.feed(b"{}\n{}\n{}\n", &shared);
        assert_eq!(events(&rx).len(), 1);
        assert_eq!(shared.dropped.load(Ordering::Relaxed), 2);
        // A record larger than the bytes left in the budget is dropped too.
        let (shared, rx) = self::shared(16, 4);
        let mut lines = Lines::new(Dir::C2s, 100);
        lines.feed(b"{}\n", &shared);
        assert!(events(&rx).is_empty());
        assert_eq!(shared.dropped.load(Ordering::Relaxed), 1);
    }
}
