//! The Streamable HTTP transport: each message is POSTed to the endpoint; the server answers
//! with a JSON body or with a stream of server-sent events that ends in the response.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::time::Instant;

use serde_json::Value;
use ureq::{Agent, Body};

use super::transport::{remaining, Incoming, Transport, TransportError};
use super::Timeouts;

/// Bodies and events larger than this are cut off: memory stays bounded whatever the
/// server sends.
const MAX_BODY: u64 = 64 * 1024 * 1024;
const SESSION_HEADER: &str = "mcp-session-id";
/// Redirects followed for one message, all within the endpoint's origin.
const MAX_REDIRECTS: usize = 5;

pub(crate) struct HttpTransport {
    agent: Agent,
    url: String,
    timeouts: Timeouts,
    /// The legacy session the server opened at initialize, echoed on every later request.
    session: Option<String>,
    version: Option<String>,
    /// Messages already read, not yet received by the session.
    pending: VecDeque<Incoming>,
    /// The event stream answering the latest request, read as the session asks for more.
    stream: Option<EventStream>,
}

impl HttpTransport {
    pub(crate) fn new(url: &str, timeouts: Timeouts) -> HttpTransport {
        let agent: Agent = Agent::config_builder()
            // Error statuses carry JSON-RPC errors (a refused version is a 400).
            .http_status_as_error(false)
            // Redirects are ours to judge: one to another origin would carry the session and
            // protocol headers there, and its answers would be taken for the server's.
            .max_redirects(0)
            .build()
            .into();
        HttpTransport {
            agent,
            url: url.to_owned(),
            timeouts,
            session: None,
            version: None,
            pending: VecDeque::new(),
            stream: None,
        }
    }

    /// One POST of `msg` to the endpoint, with the session and protocol headers.
    fn post_once(
        &self,
        msg: &Value,
        deadline: Instant,
    ) -> Result<ureq::http::Response<Body>, TransportError> {
        let Some(budget) = remaining(deadline) else {
            return Err(TransportError::Timeout);
        };
        let mut request = self
            .agent
            .post(&self.url)
            .config()
            .timeout_global(Some(budget))
            .build()
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json");
        if let Some(id) = &self.session {
            request = request.header("Mcp-Session-Id", id);
        }
        if let Some(v) = &self.version {
            request = request.header("MCP-Protocol-Version", v);
            // From 2026-07-28 the method travels as a header too, so that gateways can
            // route without reading the body.
            if v.as_str() >= "2026-07-28" {
                if let Some(method) = msg.get("method").and_then(Value::as_str) {
                    request = request.header("Mcp-Method", method);
                }
            }
        }
        request.send(msg.to_string()).map_err(http_error)
    }

    fn post(
        &mut self,
        msg: &Value,
        is_request: bool,
        deadline: Instant,
    ) -> Result<(), TransportError> {
        let mut hops = 0;
        let response = loop {
            let response = self.post_once(msg, deadline)?;
            let status = response.status().as_u16();
            if !matches!(status, 301 | 302 | 303 | 307 | 308) {
                break response;
            }
            let location = header(&response, "location").to_owned();
            let base = url::Url::parse(&self.url).ok();
            let target = base.as_ref().and_then(|b| b.join(&location).ok());
            let same_origin = base
                .zip(target.as_ref())
                .is_some_and(|(b, t)| b.origin() == t.origin());
            match target {
                Some(t) if same_origin && hops < MAX_REDIRECTS => {
                    hops += 1;
                    self.url = t.to_string();
                }
                _ => {
                    let why = if same_origin {
                        format!("more than {MAX_REDIRECTS} redirects")
                    } else {
                        "a redirect to another origin is not followed: the session and protocol \
                         headers stay with the endpoint, and another origin's answers are not the \
                         server's"
                            .to_owned()
                    };
                    return Err(TransportError::Http(format!(
                        "HTTP {status} to {}; {why}",
                        crate::safe::escape(&location.chars().take(300).collect::<String>())
                    )));
                }
            }
        };
        if msg.get("method").and_then(Value::as_str) == Some("initialize") {
            if let Some(id) = response.headers().get(SESSION_HEADER) {
                self.session = id.to_str().ok().map(str::to_owned);
            }
        }
        let status = response.status().as_u16();
        let content_type = header(&response, "content-type").to_ascii_lowercase();
        let body = response.into_body();
        if content_type.starts_with("text/event-stream") {
            let mut stream = EventStream::new(body);
            if is_request {
                self.stream = Some(stream);
            } else {
                // Nothing waits for an answer to a notification or a response: whatever
                // such a stream carries is read now.
                while let Some(data) = stream.next_event()? {
                    self.pending.push_back(parse(data));
                }
            }
            return Ok(());
        }
        let text = read_text(body)?;
        if text.trim().is_empty() {
            // 202 Accepted for a notification or a response; an error status without a body
            // is all the server says.
            return if status < 400 {
                Ok(())
            } else {
                Err(TransportError::Http(format!(
                    "HTTP {status} without a body"
                )))
            };
        }
        match super::transport::json(text.as_bytes()) {
            // A JSON-RPC batch, which servers of 2025-03-26 may send.
            Some(Value::Array(messages)) => {
                self.pending
                    .extend(messages.into_iter().map(Incoming::Message));
            }
            Some(message) => self.pending.push_back(Incoming::Message(message)),
            None if status >= 400 => {
                return Err(TransportError::Http(format!(
                    "HTTP {status}: {}",
                    text.trim().chars().take(300).collect::<String>()
                )))
            }
            None => self.pending.push_back(Incoming::Raw(text)),
        }
        Ok(())
    }
}

impl Transport for HttpTransport {
    fn send(&mut self, msg: &Value, deadline: Instant) -> Result<(), TransportError> {
        let is_request = msg.get("method").is_some() && msg.get("id").is_some();
        if is_request {
            // A new request of ours means the previous one is answered: its stream, if
            // still open, has nothing more the session waits for.
            self.stream = None;
        }
        self.post(msg, is_request, deadline)
    }

    fn receive(&mut self, deadline: Instant) -> Result<Incoming, TransportError> {
        loop {
            if let Some(next) = self.pending.pop_front() {
                return Ok(next);
            }
            let Some(stream) = self.stream.as_mut() else {
                return Err(TransportError::Http(
                    "the HTTP response ended without an answer".into(),
                ));
            };
            if remaining(deadline).is_none() {
                return Err(TransportError::Timeout);
            }
            match stream.next_event() {
                Ok(Some(data)) => self.pending.push_back(parse(data)),
                Ok(None) => self.stream = None,
                Err(e) => {
                    self.stream = None;
                    return Err(e);
                }
            }
        }
    }

    fn set_protocol_version(&mut self, version: &str) {
        self.version = Some(version.to_owned());
    }

    fn close(&mut self) {
        self.stream = None;
        // Ending the legacy session lets the server free it now rather than at its timeout;
        // a server that does not support that answers 405, which is fine.
        if let Some(id) = self.session.take() {
            let _ = self
                .agent
                .delete(&self.url)
                .config()
                .timeout_global(Some(self.timeouts.request))
                .build()
                .header("Mcp-Session-Id", id)
                .call();
        }
    }
}

/// Server-sent events, read one at a time; only `data` matters for MCP.
pub(super) struct EventStream {
    lines: BufReader<Box<dyn Read + Send>>,
}

impl EventStream {
    fn new(body: Body) -> EventStream {
        EventStream::from_reader(Box::new(body.into_with_config().limit(MAX_BODY).reader()))
    }

    pub(super) fn from_reader(reader: Box<dyn Read + Send>) -> EventStream {
        EventStream {
            lines: BufReader::new(reader),
        }
    }

    /// The data of the next event that has any; `None` at the end of the stream.
    pub(super) fn next_event(&mut self) -> Result<Option<String>, TransportError> {
        let mut data: Option<String> = None;
        loop {
            let mut line = String::new();
            let n = self
                .lines
                .read_line(&mut line)
                .map_err(|e| http_error(ureq::Error::from(e)))?;
            if n == 0 {
                return Ok(data.filter(|d| !d.is_empty()));
            }
            let line = line.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                // An event with empty data is not dispatched (the SSE rule): that is what a
                // priming event, which only carries an id to resume from, looks like.
                match data.take() {
                    Some(d) if !d.is_empty() => return Ok(Some(d)),
                    _ => continue,
                }
            }
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            if field == "data" {
                let value = value.strip_prefix(' ').unwrap_or(value);
                match &mut data {
                    Some(d) => {
                        d.push('\n');
                        d.push_str(value);
                    }
                    None => data = Some(value.to_owned()),
                }
            }
        }
    }
}

/// A header's value, or "" when it is absent or not text.
fn header<'r>(response: &'r ureq::http::Response<Body>, name: &str) -> &'r str {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

fn parse(data: String) -> Incoming {
    match super::transport::json(data.as_bytes()) {
        Some(v) => Incoming::Message(v),
        None => Incoming::Raw(data),
    }
}

fn read_text(body: Body) -> Result<String, TransportError> {
    body.into_with_config()
        .limit(MAX_BODY)
        .lossy_utf8(true)
        .read_to_string()
        .map_err(http_error)
}

fn http_error(e: ureq::Error) -> TransportError {
    match e {
        ureq::Error::Timeout(_) => TransportError::Timeout,
        other => TransportError::Http(format!("HTTP: {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(text: &'static str) -> Vec<String> {
        let mut stream = EventStream::from_reader(Box::new(text.as_bytes()));
        std::iter::from_fn(|| stream.next_event().unwrap()).collect()
    }

    #[test]
    fn data_of_each_event_with_data() {
        let text =
            "id: 1\ndata: \n\n: comment\nevent: message\ndata: {\"a\":\r\ndata:1}\n\ndata: last";
        assert_eq!(events(text), ["{\"a\":\n1}", "last"]);
    }
}
