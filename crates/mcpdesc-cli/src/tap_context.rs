//! What `mcpdesc tap` keeps of a session so that each message can be checked alone: the
//! handshake, for the protocol version, and the requests still unanswered, for pairing.

use std::collections::HashMap;

use mcpdesc_core::{Engine, Format};
use serde_json::Value;

use crate::render::FileResult;

/// Rules that judge a message by what comes after it, which a message checked as it passes
/// cannot know yet.
const LATER: &[&str] = &["mcp.jsonrpc.request-answered"];
/// Requests remembered for pairing their responses, at most, and their bytes.
const PENDING: usize = 4096;
const PENDING_BYTES: usize = 16 * 1024 * 1024;

/// What the rules of a single message need from the messages before it: the handshake
/// (for the protocol version) and, for a response, its request (for pairing).
#[derive(Debug, Default)]
pub(crate) struct Context {
    handshake: Vec<String>,
    initialize_id: Option<String>,
    pending: HashMap<String, String>,
    pending_bytes: usize,
}

impl Context {
    /// The findings on the message of `record`, positioned at line `seq` of the capture.
    pub(crate) fn check(
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
