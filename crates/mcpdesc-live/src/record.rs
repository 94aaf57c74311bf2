//! The capture of a probe, in the record format of `docs/traffic.md`, so that the traffic
//! rules can judge what was actually exchanged.

use serde_json::{json, Value};

/// The most a capture holds: what `validate` reads of a document by default.
const MAX_CAPTURE_BYTES: usize = 64 * 1024 * 1024;

/// Capture records in wire order, one line each, up to a size.
#[derive(Debug)]
pub struct Recorder {
    text: String,
    limit: usize,
    /// Records left out once the limit was reached.
    left_out: usize,
}

impl Default for Recorder {
    fn default() -> Recorder {
        Recorder::with_limit(MAX_CAPTURE_BYTES)
    }
}

impl Recorder {
    /// A recorder that keeps at most `limit` bytes: a server that floods notifications or
    /// pages must not make the capture outgrow memory, or what `validate` can read.
    pub fn with_limit(limit: usize) -> Recorder {
        Recorder {
            text: String::new(),
            limit,
            left_out: 0,
        }
    }

    /// Why the capture is incomplete, when it is.
    pub fn cut(&self) -> Option<String> {
        (self.left_out > 0).then(|| {
            format!(
                "the capture stopped at {} bytes, its limit; {} later message(s) are not in it",
                self.text.len(),
                self.left_out
            )
        })
    }

    /// A message the client sent.
    pub fn sent(&mut self, msg: &Value) {
        self.push(json!({"dir": "c2s", "msg": msg}));
    }

    /// A message the server sent.
    pub fn received(&mut self, msg: &Value) {
        self.push(json!({"dir": "s2c", "msg": msg}));
    }

    /// Server output that is not JSON.
    pub fn received_raw(&mut self, text: &str) {
        self.push(json!({"dir": "s2c", "raw": text}));
    }

    fn push(&mut self, record: Value) {
        if self.left_out > 0 {
            self.left_out += 1;
            return;
        }
        // Compact JSON escapes every newline inside strings, so a record is always one line.
        let line = record.to_string();
        if self.text.len() + line.len() + 1 > self.limit {
            self.left_out = 1;
            return;
        }
        self.text.push_str(&line);
        self.text.push('\n');
    }

    /// The capture as newline-delimited JSON.
    pub fn as_bytes(&self) -> &[u8] {
        self.text.as_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_capture_keeps_whole_records_and_says_what_it_left_out() {
        let mut r = Recorder::with_limit(100);
        for i in 0..10 {
            r.received(
                &json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"i": i}}),
            );
        }
        let text = String::from_utf8(r.as_bytes().to_vec()).unwrap();
        assert!(text.len() <= 100);
        assert!(text.ends_with('\n'));
        assert_eq!(text.lines().count(), 1);
        assert_eq!(
            r.cut().unwrap(),
            format!(
                "the capture stopped at {} bytes, its limit; 9 later message(s) are not in it",
                text.len()
            )
        );
        assert_eq!(Recorder::default().cut(), None);
    }

    #[test]
    fn one_line_per_record_in_wire_order() {
        let mut r = Recorder::default();
        r.sent(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
        r.received_raw("oops\nsecond line");
        r.received(&json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
        let text = String::from_utf8(r.as_bytes().to_vec()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                r#"{"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}"#,
                r#"{"dir":"s2c","raw":"oops\nsecond line"}"#,
                r#"{"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{}}}"#,
            ]
        );
    }
}
