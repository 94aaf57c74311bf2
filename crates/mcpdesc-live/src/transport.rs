//! What a session needs from a connection: send one JSON-RPC message, receive the next.

use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;

/// One thing the server sent.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// Parsed JSON (not necessarily a JSON-RPC message: the session judges that).
    Message(Value),
    /// Text that is not JSON, kept as the server wrote it.
    Raw(String),
}

/// JSON the server sent, read with the depth limit documents have: `serde_json` alone stops
/// at 128 levels, and a message nested deeper than that but within our limit is JSON all the
/// same. One reader at every depth, so that a message reads the same however deep its values
/// go (a duplicate key, say: the last value wins, as `serde_json` has it). `None` when it is
/// not JSON, or is nested deeper than the limit.
pub(crate) fn json(bytes: &[u8]) -> Option<Value> {
    let limit = mcpdesc_core::Limits::default().max_depth;
    if u64::try_from(nesting(bytes)).map_or(true, |depth| depth > u64::from(limit)) {
        return None;
    }
    let mut reader = serde_json::Deserializer::from_slice(bytes);
    // The depth was bounded above, so the reader's own guard against deep input is not needed.
    reader.disable_recursion_limit();
    let value = Value::deserialize(&mut reader).ok()?;
    reader.end().ok()?;
    Some(value)
}

/// The deepest nesting of arrays and objects in `bytes` read as JSON text, brackets inside
/// strings not counted; text that is not JSON is measured all the same, and refused later.
fn nesting(bytes: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for &b in bytes {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// What a line or body the server sent is.
pub(crate) fn incoming(bytes: &[u8]) -> Incoming {
    match json(bytes) {
        Some(v) => Incoming::Message(v),
        None => Incoming::Raw(String::from_utf8_lossy(bytes).into_owned()),
    }
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum TransportError {
    /// The session knows how long it waited, and says so.
    #[error("no answer in time")]
    Timeout,
    #[error("the server closed the connection ({status}){}", stderr_suffix(.stderr))]
    Closed { status: String, stderr: String },
    #[error("{0}")]
    Http(String),
}

fn stderr_suffix(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!("; its standard error ended with:\n{stderr}")
    }
}

pub(crate) trait Transport {
    /// Sends one message; `deadline` bounds the whole exchange where the transport waits for
    /// it (HTTP), and is ignored where sending cannot block for long (a pipe).
    fn send(&mut self, msg: &Value, deadline: Instant) -> Result<(), TransportError>;

    /// The next thing the server sent, waiting at most until `deadline`.
    fn receive(&mut self, deadline: Instant) -> Result<Incoming, TransportError>;

    /// Called once a protocol version is agreed (legacy) or chosen (modern), for transports
    /// that repeat it outside the messages.
    fn set_protocol_version(&mut self, _version: &str) {}

    /// The end of what the server wrote on its own, for error messages; empty when the
    /// transport has no such channel.
    fn stderr_tail(&self) -> String {
        String::new()
    }

    /// Ends the connection; the transport is not used afterwards.
    fn close(&mut self);
}

/// The time left until `deadline`, or `None` once it has passed.
pub(crate) fn remaining(deadline: Instant) -> Option<Duration> {
    deadline
        .checked_duration_since(Instant::now())
        .filter(|d| !d.is_zero())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(depth: usize) -> String {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}1{}}}",
            "[".repeat(depth),
            "]".repeat(depth)
        )
    }

    #[test]
    fn json_is_read_to_the_depth_documents_are() {
        // 2 levels for the message and its result, then the arrays.
        for depth in [10, 127, 200, 254] {
            let Incoming::Message(v) = incoming(nested(depth).as_bytes()) else {
                panic!("{depth} levels: not read");
            };
            assert_eq!(v["id"], 1, "{depth}");
        }
        assert!(matches!(incoming(nested(300).as_bytes()), Incoming::Raw(_)));
        assert!(matches!(incoming(b"not json"), Incoming::Raw(_)));
        assert!(matches!(incoming(b"{} trailing"), Incoming::Raw(_)));
    }

    /// A message reads the same at every depth: a duplicate key's last value wins, shallow
    /// or 200 levels down; brackets in strings do not count towards the depth.
    #[test]
    fn json_reads_alike_at_every_depth() {
        for depth in [0, 100, 200, 254] {
            let text = format!(
                "{{\"a\":{}{{\"k\":1,\"k\":2,\"s\":\"[[{{\\\"\"}}{}}}",
                "[".repeat(depth),
                "]".repeat(depth)
            );
            let v = json(text.as_bytes()).unwrap_or_else(|| panic!("{depth}: not read"));
            let mut inner = &v["a"];
            for _ in 0..depth {
                inner = &inner[0];
            }
            assert_eq!(inner["k"], 2, "{depth}");
            assert_eq!(inner["s"], "[[{\"", "{depth}");
        }
        assert_eq!(nesting(br#"{"a":"]]]","b":[[1]]}"#), 3);
    }
}
