//! The capture of a probe, in the record format of `docs/traffic.md`, so that the traffic
//! rules can judge what was actually exchanged.

use serde_json::{json, Value};

/// Capture records in wire order, one line each.
#[derive(Debug, Default)]
pub struct Recorder {
    text: String,
}

impl Recorder {
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
        // Compact JSON escapes every newline inside strings, so a record is always one line.
        self.text.push_str(&record.to_string());
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
