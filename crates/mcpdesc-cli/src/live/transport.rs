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
