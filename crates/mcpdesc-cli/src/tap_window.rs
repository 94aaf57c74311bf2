//! The messages of a session that the tap checks the new ones against: the traffic rules run
//! on the held messages and the new batch as one capture, as `mcpdesc validate` runs them on a
//! recorded one, and only the findings on the new messages are reported.
//!
//! A session is held whole until it outgrows the window's bounds; then the oldest messages go
//! first, except the handshake, which dates every message after it, and the requests still
//! waiting for their answer, which pair the responses to come. Rules whose findings rest on
//! messages after the one they flag (`depends-on: later-messages`) wait for the end of the
//! session; rules that rest on earlier messages (`depends-on: earlier-messages`) are left out
//! once a message went unchecked, until the next handshake starts a new session.

use std::collections::{HashMap, HashSet, VecDeque};

use mcpdesc_core::internal::MessageContext;
use mcpdesc_core::{Diagnostic, Engine, Format};
use serde::Deserialize;

/// Bytes of held messages, at most: the cost of each check grows with them.
const WINDOW_BYTES: usize = 2 * 1024 * 1024;
/// Held messages, at most.
const WINDOW_MESSAGES: usize = 2000;

/// What the window needs to know of a record, read without building its message.
#[derive(Deserialize)]
struct Probe {
    #[serde(default)]
    dir: Option<String>,
    #[serde(default)]
    msg: Option<MessageProbe>,
}

#[derive(Deserialize)]
struct MessageProbe {
    #[serde(default)]
    id: Option<serde_json::Value>,
    #[serde(default)]
    method: Option<String>,
}

/// What a record is, as far as holding it goes.
struct Seen {
    dir: String,
    /// Its JSON-RPC id, as JSON text.
    id: Option<String>,
    /// It names a method (a request or a notification).
    method: bool,
    /// It is the request of the handshake.
    handshake_request: bool,
}

impl Seen {
    fn of(record: &str, handshake_method: Option<&str>) -> Seen {
        let probe = serde_json::from_str::<Probe>(record).ok();
        let dir = probe
            .as_ref()
            .and_then(|p| p.dir.clone())
            .unwrap_or_default();
        let msg = probe.and_then(|p| p.msg);
        let id = msg
            .as_ref()
            .and_then(|m| m.id.as_ref())
            .filter(|id| !id.is_null())
            .map(ToString::to_string);
        let method = msg.as_ref().and_then(|m| m.method.as_deref());
        let handshake_request = method.is_some() && method == handshake_method && id.is_some();
        Seen {
            dir,
            id,
            method: method.is_some(),
            handshake_request,
        }
    }
}

/// One message held, as its capture record.
#[derive(Debug)]
struct Held {
    /// Its line in the session's capture.
    seq: usize,
    record: String,
    /// The handshake's request or answer: kept while the session lasts.
    handshake: bool,
    /// A request (its direction and id) that no response has answered yet: kept until one
    /// does.
    waiting: Option<(String, String)>,
}

/// The held messages of the current session, and what the rules may still judge.
#[derive(Debug)]
pub(crate) struct Window {
    held: VecDeque<Held>,
    bytes: usize,
    /// Requests waiting for an answer, by direction and id.
    waiting: HashSet<(String, String)>,
    /// The id of the handshake request, while its answer has not passed.
    handshake_id: Option<(String, String)>,
    /// The last line handed to [`Window::check`].
    last_seq: usize,
    /// Some message of this session went unchecked.
    incomplete: bool,
    /// What each rule's findings rest on, by rule id.
    depends: HashMap<String, MessageContext>,
    handshake_method: Option<String>,
}

impl Window {
    pub(crate) fn new(engine: &Engine) -> Self {
        let catalogue = engine.catalogue();
        let depends = catalogue
            .rules
            .iter()
            .filter_map(|r| r.def.depends_on.map(|d| (r.def.id.clone(), d)))
            .collect();
        Window {
            held: VecDeque::new(),
            bytes: 0,
            waiting: HashSet::new(),
            handshake_id: None,
            last_seq: 0,
            incomplete: false,
            depends,
            handshake_method: catalogue.handshake_method().map(str::to_owned),
        }
    }

    /// Some message of the session passed unchecked (too large, or the checker was behind).
    pub(crate) fn skipped(&mut self) {
        self.incomplete = true;
    }

    /// Whether some message of the current session went unchecked.
    pub(crate) fn is_incomplete(&self) -> bool {
        self.incomplete
    }

    /// Adds the records of `batch` (each with its line in the capture, in order) and returns
    /// the findings on them, placed at those lines.
    pub(crate) fn check(&mut self, engine: &Engine, batch: &[(usize, String)]) -> Vec<Diagnostic> {
        let Some(&(first_seq, _)) = batch.first() else {
            return Vec::new();
        };
        if first_seq > self.last_seq + 1 {
            self.incomplete = true;
        }
        let mut found = Vec::new();
        // The index of the first message of the batch in `held`.
        let mut from = self.held.len();
        for (seq, record) in batch {
            let seen = Seen::of(record, self.handshake_method.as_deref());
            if seen.handshake_request && !self.held.is_empty() {
                // A new session starts: the one it ends is judged to its end first, and says
                // nothing about the new one.
                if from < self.held.len() {
                    found.extend(self.run_new(engine, from));
                }
                found.extend(self.finish(engine));
                self.restart();
                from = 0;
            }
            self.add(*seq, record, seen);
            self.last_seq = *seq;
        }
        if from < self.held.len() {
            found.extend(self.run_new(engine, from));
        }
        found.sort_by_key(|d| (d.line, d.column));
        self.trim();
        found
    }

    /// At the end of the session: the findings of the rules that needed the messages after
    /// the one they flag, on the messages still held. None when a message went unchecked:
    /// an answer may have been among them.
    pub(crate) fn finish(&mut self, engine: &Engine) -> Vec<Diagnostic> {
        if self.incomplete || self.held.is_empty() {
            return Vec::new();
        }
        self.run(engine, 0, |d| d == Some(MessageContext::LaterMessages))
    }

    /// The findings on the held messages from `from` on, of the rules that can judge them
    /// now.
    fn run_new(&self, engine: &Engine, from: usize) -> Vec<Diagnostic> {
        let earlier_out = self.incomplete;
        self.run(engine, from, |d| match d {
            Some(MessageContext::LaterMessages) => false,
            Some(MessageContext::EarlierMessages) => !earlier_out,
            None => true,
        })
    }

    fn restart(&mut self) {
        self.held.clear();
        self.bytes = 0;
        self.waiting.clear();
        self.handshake_id = None;
        self.incomplete = false;
    }

    /// Holds one record.
    fn add(&mut self, seq: usize, record: &str, seen: Seen) {
        let Seen {
            dir,
            id,
            method,
            handshake_request,
        } = seen;
        let mut held = Held {
            seq,
            record: record.to_owned(),
            handshake: handshake_request,
            waiting: None,
        };
        match (method, id) {
            (true, Some(id)) => {
                let key = (dir, id);
                if handshake_request {
                    self.handshake_id = Some(key.clone());
                }
                self.waiting.insert(key.clone());
                held.waiting = Some(key);
            }
            (false, Some(id)) => {
                let key = (reverse(&dir).to_owned(), id);
                if self.handshake_id.as_ref() == Some(&key) {
                    held.handshake = true;
                    self.handshake_id = None;
                }
                if self.waiting.remove(&key) {
                    for h in &mut self.held {
                        if h.waiting.as_ref() == Some(&key) {
                            h.waiting = None;
                        }
                    }
                }
            }
            _ => {}
        }
        self.bytes += held.record.len();
        self.held.push_back(held);
    }

    /// Runs the rules on the held messages as one capture and keeps the findings on the
    /// messages from `from` on whose rule `keep` accepts.
    fn run(
        &self,
        engine: &Engine,
        from: usize,
        keep: impl Fn(Option<MessageContext>) -> bool,
    ) -> Vec<Diagnostic> {
        let mut capture = String::with_capacity(self.bytes + self.held.len());
        for h in &self.held {
            capture.push_str(&h.record);
            capture.push('\n');
        }
        let report = engine.validate_bytes(capture.as_bytes(), Format::Capture);
        report
            .diagnostics
            .into_iter()
            .filter_map(|mut d| {
                let index = usize::try_from(d.line).ok()?.checked_sub(1)?;
                if index < from || !keep(self.depends.get(&d.rule).copied()) {
                    return None;
                }
                let seq = self.held.get(index)?.seq;
                d.line = u32::try_from(seq).unwrap_or(u32::MAX);
                d.pointer = renumber(&d.pointer, index, seq);
                Some(d)
            })
            .collect()
    }

    /// Lets the oldest messages go until the window is within its bounds, keeping the
    /// handshake and the requests still waiting; when those alone are past the bounds, the
    /// oldest of them go too, and the rules that rest on them are left out from then on.
    fn trim(&mut self) {
        if self.bytes <= WINDOW_BYTES && self.held.len() <= WINDOW_MESSAGES {
            return;
        }
        // Down to three quarters, so that trimming does not recur at every message.
        let bytes_goal = WINDOW_BYTES / 4 * 3;
        let count_goal = WINDOW_MESSAGES / 4 * 3;
        let mut keep = vec![false; self.held.len()];
        let (mut bytes, mut count) = (0usize, 0usize);
        // The newest messages first, then what must stay whatever its age.
        for (i, h) in self.held.iter().enumerate().rev() {
            if h.handshake || h.waiting.is_some() {
                keep[i] = true;
                bytes += h.record.len();
                count += 1;
            }
        }
        for (i, h) in self.held.iter().enumerate().rev() {
            if keep[i] {
                continue;
            }
            if bytes + h.record.len() > bytes_goal || count + 1 > count_goal {
                break;
            }
            keep[i] = true;
            bytes += h.record.len();
            count += 1;
        }
        let mut kept = VecDeque::with_capacity(count);
        for (h, k) in std::mem::take(&mut self.held).into_iter().zip(keep) {
            if k {
                kept.push_back(h);
            }
        }
        // Waiting requests alone past the bounds: the oldest go, and with them the means to
        // pair their answers.
        while kept.len() > 1 && (bytes > WINDOW_BYTES || kept.len() > WINDOW_MESSAGES) {
            let Some(pos) = kept.iter().position(|h| !h.handshake) else {
                break;
            };
            if let Some(h) = kept.remove(pos) {
                bytes -= h.record.len();
                if let Some(key) = h.waiting {
                    self.waiting.remove(&key);
                }
            }
            self.incomplete = true;
        }
        self.held = kept;
        self.bytes = bytes;
    }
}

fn reverse(dir: &str) -> &'static str {
    match dir {
        "c2s" => "s2c",
        "s2c" => "c2s",
        _ => "",
    }
}

/// `pointer` with the index of its message in the window replaced by the message's index in
/// the session's capture.
fn renumber(pointer: &str, index: usize, seq: usize) -> String {
    let prefix = format!("/messages/{index}");
    match pointer.strip_prefix(&prefix) {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => {
            format!("/messages/{}{rest}", seq.saturating_sub(1))
        }
        _ => pointer.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> Engine {
        Engine::embedded().unwrap().with_traffic_version(None)
    }

    fn rec(dir: &str, msg: &str) -> String {
        format!("{{\"dir\":\"{dir}\",\"msg\":{msg}}}")
    }

    fn handshake() -> Vec<(usize, String)> {
        vec![
            (
                1,
                rec(
                    "c2s",
                    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
                ),
            ),
            (
                2,
                rec(
                    "s2c",
                    r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#,
                ),
            ),
            (
                3,
                rec(
                    "c2s",
                    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                ),
            ),
        ]
    }

    fn rules(found: &[Diagnostic]) -> Vec<(u32, &str)> {
        found.iter().map(|d| (d.line, d.rule.as_str())).collect()
    }

    #[test]
    fn a_clean_session_has_no_findings_and_an_unanswered_request_is_reported_at_the_end() {
        let engine = engine();
        let mut w = Window::new(&engine);
        assert!(w.check(&engine, &handshake()).is_empty());
        let list = rec("c2s", r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
        assert!(
            w.check(&engine, &[(4, list)]).is_empty(),
            "not answered yet is no finding"
        );
        let end = w.finish(&engine);
        assert_eq!(rules(&end), [(4, "mcp.jsonrpc.request-answered")]);
        assert_eq!(end[0].pointer, "/messages/3/msg/id");
    }

    #[test]
    fn a_response_is_paired_with_its_request_in_an_earlier_batch() {
        let engine = engine();
        let mut w = Window::new(&engine);
        w.check(&engine, &handshake());
        w.check(
            &engine,
            &[(
                4,
                rec("c2s", r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#),
            )],
        );
        let answer = rec("s2c", r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}"#);
        assert!(w.check(&engine, &[(5, answer)]).is_empty());
        let stray = rec("s2c", r#"{"jsonrpc":"2.0","id":9,"result":{}}"#);
        let found = w.check(&engine, &[(6, stray.clone())]);
        assert_eq!(rules(&found), [(6, "mcp.jsonrpc.response-without-request")]);
        assert!(w.finish(&engine).is_empty());

        // After a message went unchecked, the answer may have been to it: not reported.
        let mut w = Window::new(&engine);
        w.check(&engine, &handshake());
        assert!(w.check(&engine, &[(5, stray)]).is_empty());
        assert!(w.is_incomplete());
    }

    #[test]
    fn the_handshake_and_waiting_requests_outlive_trimming() {
        let engine = engine();
        let mut w = Window::new(&engine);
        w.check(&engine, &handshake());
        w.check(
            &engine,
            &[(
                4,
                rec(
                    "c2s",
                    r#"{"jsonrpc":"2.0","id":"slow","method":"tools/list"}"#,
                ),
            )],
        );
        let pad = "x".repeat(4096);
        let mut seq = 5;
        for round in 0..3 {
            let batch: Vec<(usize, String)> = (0..400)
                .map(|i| {
                    seq += 1;
                    let msg = format!(
                        r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"{round}-{i}-{pad}"}}}}"#
                    );
                    (seq - 1, rec("s2c", &msg))
                })
                .collect();
            assert!(rules(&w.check(&engine, &batch)).is_empty());
        }
        assert!(w.bytes <= WINDOW_BYTES && w.held.len() <= WINDOW_MESSAGES);
        assert!(!w.is_incomplete());
        let answer = rec(
            "s2c",
            r#"{"jsonrpc":"2.0","id":"slow","result":{"tools":[]}}"#,
        );
        assert!(w.check(&engine, &[(seq, answer)]).is_empty());
    }

    #[test]
    fn a_batch_that_ends_one_session_and_starts_the_next_judges_both() {
        let engine = engine();
        let mut w = Window::new(&engine);
        let mut batch = handshake();
        batch.push((4, rec("s2c", r#"{"jsonrpc":"2.0","id":9,"result":{}}"#)));
        batch.push((
            5,
            rec("c2s", r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#),
        ));
        batch.extend(handshake().into_iter().map(|(s, r)| (s + 5, r)));
        let found = w.check(&engine, &batch);
        assert_eq!(
            rules(&found),
            [
                (4, "mcp.jsonrpc.response-without-request"),
                (5, "mcp.jsonrpc.request-answered")
            ]
        );
        assert_eq!(w.held.len(), 3);
    }

    #[test]
    fn a_second_handshake_starts_a_new_session() {
        let engine = engine();
        let mut w = Window::new(&engine);
        w.check(&engine, &handshake());
        w.skipped();
        let again: Vec<(usize, String)> =
            handshake().into_iter().map(|(s, r)| (s + 10, r)).collect();
        assert!(w.check(&engine, &again).is_empty());
        assert!(!w.is_incomplete());
        assert_eq!(w.held.len(), 3);
    }
}
