//! What a session needs from a connection: send one JSON-RPC message, receive the next.

use std::time::{Duration, Instant};

use serde_json::Value;

/// One thing the server sent.
#[derive(Debug)]
pub enum Incoming {
    /// Parsed JSON (not necessarily a JSON-RPC message: the session judges that).
    Message(Value),
    /// Text that is not JSON, kept as the server wrote it.
    Raw(String),
}

/// JSON the server sent, read with the depth limit documents have: `serde_json` alone stops
/// at 128 levels, and a message nested deeper than that but within our limit is JSON all the
/// same. `None` when it is not JSON, or is nested deeper than the limit.
pub fn json(bytes: &[u8]) -> Option<Value> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(v) => Some(v),
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => {
            let limits = mcpdesc_core::Limits::default();
            let mut doc = mcpdesc_core::document::ValueDocument::parse(
                bytes,
                mcpdesc_core::Format::Json,
                &limits,
            )
            .ok()?;
            Some(std::mem::take(doc.value_mut()))
        }
        Err(_) => None,
    }
}

/// What a line or body the server sent is.
pub fn incoming(bytes: &[u8]) -> Incoming {
    match json(bytes) {
        Some(v) => Incoming::Message(v),
        None => Incoming::Raw(String::from_utf8_lossy(bytes).into_owned()),
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TransportError {
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

pub trait Transport {
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
pub fn remaining(deadline: Instant) -> Option<Duration> {
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
    }
}
