//! One protocol version against one connection: negotiate it, then list everything the
//! server advertises.
//!
//! Whatever the server does wrong becomes part of the report, never a panic or a hang: a
//! refused version is an outcome, an error answer to a list is recorded as that list's
//! error, and only a connection that stops working ends the session early.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{json, Map, Value};

use mcpdesc_core::internal::rules::file::{LiveDef, LiveStatelessDef};

use super::calls::{CallOutcome, PlannedCall};
use super::record::Recorder;
use super::transport::{Incoming, Transport, TransportError};
use super::Timeouts;

/// A list longer than this many pages is taken to be looping.
const MAX_PAGES: usize = 1000;

/// The most a session keeps of the entries of every list together, in bytes of their JSON
/// text (as the capture): a server paging for ever under fresh cursors, each page large,
/// would otherwise be held in memory page after page until the deadline.
const MAX_LISTED_BYTES: usize = 64 * 1024 * 1024;
/// Lines that are not JSON are reported one by one up to this many, then counted.
const MAX_RAW_REPORTED: usize = 3;

/// What one negotiation with the server found.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerReport {
    /// The protocol version asked for.
    pub requested: String,
    /// The version both sides agreed on, when they did.
    pub negotiated: Option<String>,
    /// Why the version was not agreed, when it was not.
    pub refusal: Option<String>,
    /// The versions the server named instead of the requested one.
    pub offered: Vec<String>,
    /// The `serverInfo` the server sent in its `initialize` result.
    pub server_info: Option<Value>,
    /// The `capabilities` the server declared in its `initialize` result.
    pub capabilities: Option<Value>,
    /// The `instructions` the server gave in its `initialize` result, if any.
    pub instructions: Option<String>,
    /// The entries of each list the server advertises, by the description collection it
    /// lines up with (the catalogue's `live.lists`).
    pub lists: std::collections::BTreeMap<String, Vec<Value>>,
    /// What the server answered to each example call, when examples were run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<CallOutcome>,
    /// Everything that went wrong, in the order it happened.
    pub errors: Vec<String>,
}

/// JSON-RPC ids for the client's requests.
#[derive(Debug, Default)]
pub(crate) struct Ids(u64);

impl Ids {
    fn next(&mut self) -> u64 {
        self.0 += 1;
        self.0
    }
}

pub(crate) struct Outcome {
    pub report: ServerReport,
    /// Whether the server sent anything at all.
    pub heard_from_server: bool,
    /// The failure that ended the session early, if one did.
    pub fatal: Option<String>,
}

/// How the server answered one request.
enum Reply {
    Result(Value),
    Error(Value),
}

pub(crate) fn run(
    live: &LiveDef,
    transport: &mut dyn Transport,
    recorder: &mut Recorder,
    ids: &mut Ids,
    version: &str,
    timeouts: &Timeouts,
    calls: &[PlannedCall],
) -> Outcome {
    // Versions are dates, so they compare as strings.
    let modern = live
        .stateless
        .as_ref()
        .is_some_and(|s| version >= s.since.as_str());
    let mut session = Session {
        live,
        transport,
        recorder,
        ids,
        timeouts: *timeouts,
        version: version.to_owned(),
        modern,
        report: ServerReport {
            requested: version.to_owned(),
            ..ServerReport::default()
        },
        heard: false,
        raw_lines: 0,
        stray_responses: 0,
        not_jsonrpc: 0,
        listed_bytes: 0,
    };
    let fatal = match session.negotiate() {
        Ok(true) => session
            .list_all()
            .and_then(|()| session.call_all(calls))
            .err(),
        Ok(false) => None,
        Err(e) => Some(e),
    };
    if let Some(e) = &fatal {
        session.report.errors.push(e.clone());
    }
    for (count, what) in [
        (session.raw_lines, "line(s) of output that are not JSON"),
        (
            session.stray_responses,
            "response(s) to no request that was waiting",
        ),
        (session.not_jsonrpc, "message(s) that are not JSON-RPC"),
    ] {
        if count > MAX_RAW_REPORTED {
            let more = count - MAX_RAW_REPORTED;
            session.report.errors.push(format!("{more} more {what}"));
        }
    }
    Outcome {
        report: session.report,
        heard_from_server: session.heard,
        fatal,
    }
}

struct Session<'a> {
    live: &'a LiveDef,
    transport: &'a mut dyn Transport,
    recorder: &'a mut Recorder,
    ids: &'a mut Ids,
    timeouts: Timeouts,
    version: String,
    modern: bool,
    report: ServerReport,
    heard: bool,
    raw_lines: usize,
    /// Responses to no waiting request, and messages that are not JSON-RPC: a server may
    /// send millions; the first few are listed, the rest counted.
    stray_responses: usize,
    not_jsonrpc: usize,
    /// What the lists kept so far weigh, against [`MAX_LISTED_BYTES`].
    listed_bytes: usize,
}

/// A failure that ends the session, as the message for the report.
type Fatal = String;

impl Session<'_> {
    /// Agrees on the version; `Ok(false)` when the server does not serve it.
    fn negotiate(&mut self) -> Result<bool, Fatal> {
        if self.modern {
            self.discover()
        } else {
            self.initialize()
        }
    }

    fn initialize(&mut self) -> Result<bool, Fatal> {
        let live = self.live;
        let m = &live.members;
        let mut params = Map::new();
        params.insert(m.version.clone(), Value::from(self.version.as_str()));
        params.insert(m.capabilities.clone(), json!({}));
        params.insert(m.client_info.clone(), client_info());
        let timeout = self.timeouts.startup;
        let method = live.handshake.method.as_str();
        let result = match self.request(method, Some(Value::Object(params)), timeout)? {
            Reply::Result(r) => r,
            Reply::Error(e) => {
                self.report.refusal = Some(format!("{method} failed: {}", describe_error(&e)));
                return Ok(false);
            }
        };
        self.report.server_info = result.get(&m.server_info).cloned();
        self.report.capabilities = result.get(&m.capabilities).cloned();
        self.report.instructions = string_member(&result, &m.instructions);
        match result.get(&m.version).and_then(Value::as_str) {
            Some(agreed) if agreed == self.version => {}
            Some(other) => {
                self.report.offered = vec![other.to_owned()];
                self.report.refusal = Some(format!("refused {}, offered {other}", self.version));
                return Ok(false);
            }
            None => {
                self.report.refusal = Some(format!("the {method} result names no `{}`", m.version));
                return Ok(false);
            }
        }
        self.report.negotiated = Some(self.version.clone());
        self.transport.set_protocol_version(&self.version);
        self.notify(&live.handshake.initialized)?;
        Ok(true)
    }

    fn discover(&mut self) -> Result<bool, Fatal> {
        let live = self.live;
        let m = &live.members;
        let Some(st) = live.stateless.as_ref() else {
            return Ok(false);
        };
        // The version goes outside the message too (an HTTP header) from the first request:
        // there is no handshake to agree it first.
        self.transport.set_protocol_version(&self.version);
        let params = json!({"_meta": self.request_meta(st)});
        let timeout = self.timeouts.startup;
        let method = st.discover.as_str();
        let result = match self.request(method, Some(params), timeout)? {
            Reply::Result(r) => r,
            Reply::Error(e) => {
                let code = e.get("code").and_then(Value::as_i64);
                self.report.refusal = Some(match code {
                    Some(c) if c == st.unsupported_code => {
                        self.report.offered = string_list(e.pointer(&st.unsupported_versions));
                        format!(
                            "refused {}, offered {}",
                            self.version,
                            list_or_none(&self.report.offered)
                        )
                    }
                    // JSON-RPC's "method not found".
                    Some(-32601) => format!(
                        "does not implement {method}, so serves no client of {} ({})",
                        self.version,
                        describe_error(&e)
                    ),
                    _ => format!("{method} failed: {}", describe_error(&e)),
                });
                return Ok(false);
            }
        };
        self.report.server_info = result.pointer(&pointer_to(&st.meta_server_info)).cloned();
        self.report.capabilities = result.get(&m.capabilities).cloned();
        self.report.instructions = string_member(&result, &m.instructions);
        let supported = string_list(result.get(&m.supported));
        if !supported.contains(&self.version) {
            self.report.refusal = Some(format!(
                "refused {}, offered {}",
                self.version,
                list_or_none(&supported)
            ));
            self.report.offered = supported;
            return Ok(false);
        }
        self.report.negotiated = Some(self.version.clone());
        Ok(true)
    }

    /// Every page of every list whose capability the server advertises.
    fn list_all(&mut self) -> Result<(), Fatal> {
        let live = self.live;
        let advertised = |cap: &str| {
            self.report
                .capabilities
                .as_ref()
                .and_then(|c| c.get(cap))
                .is_some_and(|v| !v.is_null())
        };
        let wanted: Vec<_> = live
            .lists
            .iter()
            .filter(|l| advertised(&l.capability))
            .collect();
        for list in wanted {
            let items = self.list(&list.method, &list.result)?;
            self.report.lists.insert(list.collection.clone(), items);
        }
        Ok(())
    }

    /// The examples' requests, one by one; an error answer is that call's outcome.
    fn call_all(&mut self, calls: &[PlannedCall]) -> Result<(), Fatal> {
        for call in calls {
            let mut params = call.params.as_object().cloned().unwrap_or_default();
            if let Some(st) = self.live.stateless.as_ref().filter(|_| self.modern) {
                params.insert("_meta".into(), self.request_meta(st));
            }
            let reply = self.request(
                &call.method,
                Some(Value::Object(params)),
                self.timeouts.request,
            )?;
            let mut outcome = CallOutcome {
                pointer: call.pointer.clone(),
                ..CallOutcome::default()
            };
            match reply {
                Reply::Result(r) => outcome.result = Some(r),
                Reply::Error(e) => outcome.error = Some(describe_error(&e)),
            }
            self.report.calls.push(outcome);
        }
        Ok(())
    }

    /// All pages of one list; an error answer or a malformed page ends the list (as an error
    /// of the report) but not the session.
    fn list(&mut self, method: &str, member: &str) -> Result<Vec<Value>, Fatal> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = HashSet::new();
        for _ in 0..MAX_PAGES {
            let mut params = Map::new();
            if let Some(st) = self.live.stateless.as_ref().filter(|_| self.modern) {
                params.insert("_meta".into(), self.request_meta(st));
            }
            if let Some(c) = &cursor {
                params.insert(self.live.cursor.param.clone(), Value::String(c.clone()));
            }
            let params = (!params.is_empty()).then_some(Value::Object(params));
            let mut page = match self.request(method, params, self.timeouts.request)? {
                Reply::Result(r) => r,
                Reply::Error(e) => {
                    self.report
                        .errors
                        .push(format!("{method}: {}", describe_error(&e)));
                    return Ok(items);
                }
            };
            // The entries are moved out of the page: a page may be tens of megabytes.
            match page.get_mut(member).and_then(Value::as_array_mut) {
                Some(list) => {
                    let weight: usize = list.iter().map(json_bytes).sum();
                    if self.listed_bytes + weight > MAX_LISTED_BYTES {
                        self.report.errors.push(format!(
                            "{method}: the server's lists outgrew {MAX_LISTED_BYTES} bytes, \
                             their limit; stopped after {} entries",
                            items.len()
                        ));
                        return Ok(items);
                    }
                    self.listed_bytes += weight;
                    items.append(list);
                }
                None => {
                    self.report
                        .errors
                        .push(format!("{method}: the result has no `{member}` array"));
                    return Ok(items);
                }
            }
            match page.get(&self.live.cursor.next) {
                None | Some(Value::Null) => return Ok(items),
                Some(Value::String(next)) => {
                    if !seen.insert(next.clone()) {
                        self.report.errors.push(format!(
                            "{method}: {} {next:?} was already followed; the list loops",
                            self.live.cursor.next
                        ));
                        return Ok(items);
                    }
                    cursor = Some(next.clone());
                }
                Some(other) => {
                    self.report.errors.push(format!(
                        "{method}: {} {other} is not a string",
                        self.live.cursor.next
                    ));
                    return Ok(items);
                }
            }
        }
        self.report.errors.push(format!(
            "{method}: still paginating after {MAX_PAGES} pages; stopped"
        ));
        Ok(items)
    }

    /// `_meta` of every request in the stateless era: the version, and capabilities (none:
    /// the probe never handles server requests).
    fn request_meta(&self, st: &LiveStatelessDef) -> Value {
        let mut meta = Map::new();
        meta.insert(st.meta_version.clone(), Value::from(self.version.as_str()));
        meta.insert(st.meta_capabilities.clone(), json!({}));
        meta.insert(st.meta_client_info.clone(), client_info());
        Value::Object(meta)
    }

    fn notify(&mut self, method: &str) -> Result<(), Fatal> {
        let msg = json!({"jsonrpc": "2.0", "method": method});
        self.recorder.sent(&msg);
        let deadline = self.timeouts.deadline(self.timeouts.request);
        self.transport
            .send(&msg, deadline)
            .map_err(|e| self.transport_failure(method, e, self.timeouts.request))
    }

    /// Sends a request and waits for its answer, dealing with whatever else the server sends
    /// meanwhile.
    fn request(
        &mut self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
    ) -> Result<Reply, Fatal> {
        let id = self.ids.next();
        let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(p) = params {
            msg["params"] = p;
        }
        self.recorder.sent(&msg);
        let deadline = self.timeouts.deadline(timeout);
        self.transport
            .send(&msg, deadline)
            .map_err(|e| self.transport_failure(method, e, timeout))?;
        loop {
            let incoming = self
                .transport
                .receive(deadline)
                .map_err(|e| self.transport_failure(method, e, timeout))?;
            self.heard = true;
            let msg = match incoming {
                Incoming::Raw(text) => {
                    self.recorder.received_raw(&text);
                    self.raw_lines += 1;
                    if self.raw_lines <= MAX_RAW_REPORTED {
                        self.report
                            .errors
                            .push(format!("output that is not JSON: {}", excerpt(&text)));
                    }
                    continue;
                }
                Incoming::Message(m) => m,
            };
            self.recorder.received(&msg);
            let has_method = msg.get("method").is_some_and(Value::is_string);
            let msg_id = msg.get("id");
            match (has_method, msg_id) {
                (true, Some(req_id)) => {
                    let req_id = req_id.clone();
                    self.answer_server_request(&msg, req_id, deadline, method, timeout)?;
                }
                // Notifications (progress, logging, list changes) are kept in the capture
                // only: the lists are fetched after them anyway.
                (true, None) => {}
                (false, Some(got)) if msg.get("result").is_some() || msg.get("error").is_some() => {
                    // A null id is the server saying it could not read the request; with
                    // one request in flight at a time, that is this one.
                    let unreadable = got.is_null() && msg.get("error").is_some();
                    if *got == json!(id) || unreadable {
                        return Ok(match msg.get("error") {
                            Some(e) => Reply::Error(e.clone()),
                            None => Reply::Result(msg["result"].clone()),
                        });
                    }
                    self.stray_responses += 1;
                    if self.stray_responses <= MAX_RAW_REPORTED {
                        self.report.errors.push(format!(
                            "{method}: a response with id {got} arrived while request {id} was waiting"
                        ));
                    }
                }
                _ => {
                    self.not_jsonrpc += 1;
                    if self.not_jsonrpc <= MAX_RAW_REPORTED {
                        self.report.errors.push(format!(
                            "not a JSON-RPC message: {}",
                            excerpt(&msg.to_string())
                        ));
                    }
                }
            }
        }
    }

    /// Answers a request of the server so that it does not wait for the client forever:
    /// `ping` as the protocol asks, everything else as not implemented.
    fn answer_server_request(
        &mut self,
        request: &Value,
        id: Value,
        deadline: Instant,
        during: &str,
        timeout: Duration,
    ) -> Result<(), Fatal> {
        let method = request["method"].as_str().unwrap_or_default();
        let answer = if method == "ping" {
            json!({"jsonrpc": "2.0", "id": id, "result": {}})
        } else {
            json!({"jsonrpc": "2.0", "id": id, "error": {
                "code": -32601,
                "message": format!("Method not found: mcpdesc does not handle {method}"),
            }})
        };
        self.recorder.sent(&answer);
        self.transport
            .send(&answer, deadline)
            .map_err(|e| self.transport_failure(during, e, timeout))
    }

    fn transport_failure(&self, method: &str, e: TransportError, timeout: Duration) -> Fatal {
        match e {
            TransportError::Timeout => {
                let mut text = match self.timeouts.overall_passed() {
                    Some(given) => format!(
                        "{method}: the command's deadline passed ({} ms, --deadline-ms)",
                        given.as_millis()
                    ),
                    None => format!("{method}: no answer within {} ms", timeout.as_millis()),
                };
                let stderr = self.transport.stderr_tail();
                if !stderr.is_empty() {
                    text.push_str(&format!(
                        "; the server's standard error ended with:\n{stderr}"
                    ));
                }
                text
            }
            other => format!("{method}: {other}"),
        }
    }
}

fn client_info() -> Value {
    json!({"name": "mcpdesc", "version": env!("CARGO_PKG_VERSION")})
}

fn string_member(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn string_list(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn list_or_none(versions: &[String]) -> String {
    if versions.is_empty() {
        "none".into()
    } else {
        versions.join(", ")
    }
}

/// A JSON Pointer to one member whose name may contain `/`.
fn pointer_to(member: &str) -> String {
    format!("/_meta/{}", member.replace('~', "~0").replace('/', "~1"))
}

/// A JSON-RPC error object as `CODE message`.
fn describe_error(e: &Value) -> String {
    let code = e.get("code").map(Value::to_string).unwrap_or_default();
    let message = e.get("message").and_then(Value::as_str).unwrap_or("");
    format!("error {code} {message}").trim_end().to_owned()
}

/// At most 200 characters of `text`, on one line.
fn excerpt(text: &str) -> String {
    let one_line = text.replace(['\n', '\r'], " ");
    match one_line.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &one_line[..cut]),
        None => one_line,
    }
}

/// About the length of `value` as compact JSON, without writing it: a bound on what it holds.
fn json_bytes(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(_) => 5,
        Value::Number(_) => 8,
        Value::String(s) => s.len() + 2,
        Value::Array(items) => 2 + items.iter().map(|v| json_bytes(v) + 1).sum::<usize>(),
        Value::Object(members) => {
            2 + members
                .iter()
                .map(|(k, v)| k.len() + 4 + json_bytes(v))
                .sum::<usize>()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_pointer_escapes_the_slash() {
        let key = "io.modelcontextprotocol/serverInfo";
        let v = json!({"_meta": {key: {"name": "s"}}});
        assert_eq!(v.pointer(&pointer_to(key)), Some(&json!({"name": "s"})));
    }

    #[test]
    fn excerpts_are_short_and_single_line() {
        assert_eq!(excerpt("a\nb"), "a b");
        assert_eq!(excerpt(&"x".repeat(300)).chars().count(), 201);
    }
}
