//! Classifies, correlates and dates the messages of a capture (see the module table).

use std::collections::HashMap;

use super::{MessagePath, TrafficConfig, SCOPE_MEMBER};
use crate::document::{Added, Document, ObjectRef, ValueRef};
use crate::rules::file::MessageKind;
use MessageKind::{Error as ErrorKind, Notification, Request, Result as ResultKind};

/// What an entry is: a JSON-RPC message of one of the kinds wire selectors name, a framing
/// problem, or JSON that is no JSON-RPC message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Message(MessageKind),
    Framing,
    Unknown,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Message(m) => m.as_str(),
            Kind::Framing => "framing",
            Kind::Unknown => "unknown",
        }
    }

    fn of(entry: ObjectRef<'_>) -> Kind {
        if entry.contains_key("framing") {
            return Kind::Framing;
        }
        let Some(msg) = entry.get("msg").and_then(ValueRef::as_object) else {
            return Kind::Unknown;
        };
        let has_method = msg.get("method").is_some_and(ValueRef::is_string);
        match (has_method, msg.contains_key("id")) {
            (true, true) => Kind::Message(Request),
            (true, false) => Kind::Message(Notification),
            (false, true) if msg.contains_key("error") => Kind::Message(ErrorKind),
            (false, true) if msg.contains_key("result") => Kind::Message(ResultKind),
            _ => Kind::Unknown,
        }
    }
}

fn reverse(dir: &str) -> Option<&'static str> {
    match dir {
        "c2s" => Some("s2c"),
        "s2c" => Some("c2s"),
        _ => None,
    }
}

/// The first string `path` selects from `msg`.
fn string_at<'d>(path: &MessagePath, msg: ValueRef<'d>) -> Option<ValueRef<'d>> {
    node_at(path, msg).filter(|v| v.is_string())
}

/// The first node `path` selects from `msg`.
fn node_at<'d>(path: &MessagePath, msg: ValueRef<'d>) -> Option<ValueRef<'d>> {
    match &path.tokens {
        Some(tokens) => in_place(msg, tokens),
        None => path.path.values_from(msg, "", msg).first().copied(),
    }
}

/// Follows `tokens` from `start` as a singular relative path does (a token is an array index
/// when the node is an array).
fn in_place<'v>(start: ValueRef<'v>, tokens: &[String]) -> Option<ValueRef<'v>> {
    let mut value = start;
    for t in tokens {
        value = if let Some(o) = value.as_object() {
            o.get(t)?
        } else {
            let a = value.as_array()?;
            t.parse::<usize>().ok().and_then(|i| a.get(i))?
        };
    }
    Some(value)
}

/// The version an entry is dated with: a string node of the capture, added as a copy that
/// shares its text, or the caller's default.
#[derive(Debug, Clone, Copy)]
enum Text {
    Node(u32),
    Default,
    /// The catalogue's `known` version at this index.
    Known(usize),
}

/// What one entry is given, by node ids and fixed texts: computed for every entry first (a
/// response's request comes before it), then added entry by entry, so that no list of every
/// entry's new members is held at once.
struct EntryEdit {
    entry: u32,
    kind: Kind,
    method: Option<u32>,
    /// The direction, for an entry without one of its own that follows from its request's.
    dir: Option<&'static str>,
    version: Option<Text>,
    /// The request's `msg`, for a response.
    request: Option<u32>,
    /// For a request: whether a response answered it, and whether its id was already in
    /// flight.
    answered: Option<(bool, bool)>,
    /// For the first message of a JSON-RPC batch: whether the batch holds both requests or
    /// notifications and responses.
    batch_mixed: bool,
    /// The negotiation of a request's own version (see [`Negotiated`]).
    negotiated: Negotiated,
}

/// What the answer to a request that declares its own version says of that version.
#[derive(Debug, Clone, Copy, Default)]
struct Negotiated {
    /// A request: the version it declares, when the catalogue does not know it (node id).
    requested_unknown: Option<u32>,
    /// A request: it declares a version the server's latest list of versions served lacks.
    not_offered: bool,
    /// A response other than the refusal, to a request in a version the catalogue does not
    /// know (the version's node id).
    answers_unknown: Option<u32>,
    /// A result, to a request in a version the server listed itself as not serving.
    answers_unoffered: Option<u32>,
}

impl EntryEdit {
    fn members(
        &self,
        default_version: Option<&str>,
        known: &[String],
    ) -> Vec<(&'static str, Added)> {
        let mut members: Vec<(&'static str, Added)> = Vec::with_capacity(7);
        members.push(("kind", Added::Static(self.kind.as_str())));
        if let Some(m) = self.method {
            members.push(("method", Added::Copy(m)));
        }
        if let Some(d) = self.dir {
            members.push(("dir", Added::Static(d)));
        }
        let version = match self.version {
            Some(Text::Node(id)) => Some(Added::Copy(id)),
            Some(Text::Default) => default_version.map(|v| Added::Str(v.to_owned())),
            Some(Text::Known(k)) => known.get(k).map(|v| Added::Str(v.clone())),
            None => None,
        };
        members.push((SCOPE_MEMBER, Added::Array(version.into_iter().collect())));
        if let Some(copy) = self.request {
            members.push(("request", Added::Copy(copy)));
        }
        if let Some((answered, in_flight)) = self.answered {
            members.push(("answered", Added::Bool(answered)));
            if in_flight {
                members.push(("idInFlight", Added::Bool(true)));
            }
        }
        if self.batch_mixed {
            members.push(("batchMixed", Added::Bool(true)));
        }
        let n = &self.negotiated;
        if let Some(v) = n.requested_unknown {
            members.push(("requestedVersion", Added::Copy(v)));
        }
        if n.not_offered {
            members.push(("versionNotOffered", Added::Bool(true)));
        }
        if let Some(v) = n.answers_unknown {
            members.push(("answersUnknownVersion", Added::Copy(v)));
        }
        if let Some(v) = n.answers_unoffered {
            members.push(("answersUnofferedVersion", Added::Copy(v)));
        }
        members
    }
}

/// A JSON-RPC id as a map key: ids are matched by their JSON text, so 1 and "1" (and 1 and
/// 1.0) stay distinct.
#[derive(Debug, PartialEq, Eq, Hash)]
enum IdKey<'a> {
    Str(&'a str),
    Int(i64),
    Text(String),
}

impl<'a> IdKey<'a> {
    fn of(id: Option<ValueRef<'a>>) -> IdKey<'a> {
        let Some(id) = id else {
            return IdKey::Text(String::new());
        };
        if let Some(s) = id.as_str() {
            return IdKey::Str(s);
        }
        match id.as_number().and_then(serde_json::Number::as_i64) {
            Some(n) => IdKey::Int(n),
            None => IdKey::Text(id.to_string()),
        }
    }
}

/// What is known of a request while its response is awaited.
struct Pending<'a> {
    index: usize,
    dir: Option<&'a str>,
    method: Option<ValueRef<'a>>,
}

/// Adds the members of the module table (`kind`, `method`, `dir`, `protocolVersions`, …) to
/// the entries of a capture document (`{"messages": [...]}`). `default_version` dates the
/// messages the data does not date.
pub fn annotate(doc: &mut Document<'_>, config: &TrafficConfig, default_version: Option<&str>) {
    let edits = annotations(doc.root(), config, default_version.is_some());
    doc.add_members_each(
        edits
            .iter()
            .map(|e| (e.entry, e.members(default_version, &config.known))),
    );
}

/// The strings of the array `path` selects in `msg`.
fn strings_at<'d>(path: &MessagePath, msg: ValueRef<'d>) -> Option<Vec<&'d str>> {
    let items = node_at(path, msg)?.as_array()?;
    Some(items.iter().filter_map(|v| v.as_str()).collect())
}

/// What to add to each entry object (by node). `dated`: whether the caller gives a default
/// version.
fn annotations<'a>(root: ValueRef<'a>, config: &TrafficConfig, dated: bool) -> Vec<EntryEdit> {
    let Some(entries) = root
        .get(crate::document::MESSAGES)
        .and_then(ValueRef::as_array)
    else {
        return Vec::new();
    };
    let entries: Vec<ValueRef<'a>> = entries.iter().collect();
    let kinds: Vec<Kind> = entries
        .iter()
        .map(|e| e.as_object().map_or(Kind::Unknown, Kind::of))
        .collect();
    let mut versions: Vec<Option<Text>> = vec![None; entries.len()];
    let mut methods: Vec<Option<ValueRef<'a>>> = vec![None; entries.len()];
    let mut dirs: Vec<Option<&'a str>> = entries
        .iter()
        .map(|e| e.get("dir").and_then(ValueRef::as_str))
        .collect();
    // The directions taken from a request, for responses recorded without one.
    let mut derived_dirs: Vec<Option<&'static str>> = vec![None; entries.len()];
    let mut answered_by: Vec<Option<usize>> = vec![None; entries.len()];
    let mut in_flight_dup = vec![false; entries.len()];
    let mut request_of: Vec<Option<usize>> = vec![None; entries.len()];
    let mut pending: HashMap<IdKey<'a>, Vec<Pending<'a>>, crate::FastHash> = HashMap::default();
    let mut current: Option<Text> = dated.then_some(Text::Default);
    let mut handshakes: Vec<usize> = Vec::new();
    let mut negotiations: Vec<Negotiated> = vec![Negotiated::default(); entries.len()];
    // A request's own version (node id), to name it in its answer.
    let mut own_version: Vec<Option<u32>> = vec![None; entries.len()];
    // The versions the server said it serves, most recently.
    let mut offered: Option<Vec<&'a str>> = None;
    // The last resort for dating the refusal of a version the catalogue does not know.
    let newest = config.known.len().checked_sub(1).map(Text::Known);
    let negotiation = config.negotiation.as_ref();

    for i in 0..entries.len() {
        let kind = kinds[i];
        let Some(msg) = entries[i].get("msg") else {
            if matches!(kind, Kind::Framing | Kind::Unknown) {
                versions[i] = current;
            }
            continue;
        };
        let read = |path: &MessagePath| string_at(path, msg).map(|v| Text::Node(v.id()));
        match kind {
            Kind::Message(Request | Notification) => {
                let method = msg.get("method").filter(|m| m.is_string());
                let own_node = config
                    .message_version
                    .as_ref()
                    .and_then(|p| string_at(p, msg));
                let own = own_node.map(|v| Text::Node(v.id()));
                let is_handshake = kind == Kind::Message(Request)
                    && config.handshake.as_ref().is_some_and(|h| {
                        method.and_then(ValueRef::as_str) == Some(h.method.as_str())
                    });
                let requested = if is_handshake {
                    config.handshake.as_ref().and_then(|h| read(&h.requested))
                } else {
                    None
                };
                let own_name = own_node.and_then(ValueRef::as_str);
                let unknown = kind == Kind::Message(Request)
                    && negotiation.is_some()
                    && own_name.is_some_and(|v| !config.known.iter().any(|k| k == v));
                if unknown {
                    // A version the catalogue does not know: the server's answer says whether
                    // it was served; the request itself cannot be judged.
                    negotiations[i].requested_unknown = own_node.map(|v| v.id());
                    versions[i] = None;
                } else {
                    versions[i] = own.or(requested).or(current);
                    if own.is_some() {
                        current = own;
                    }
                }
                own_version[i] = own_node.map(|v| v.id());
                if let (Some(list), Some(v)) = (&offered, own_name) {
                    negotiations[i].not_offered =
                        kind == Kind::Message(Request) && !list.contains(&v);
                }
                if is_handshake {
                    handshakes.push(i);
                }
                methods[i] = method;
                if kind == Kind::Message(Request) {
                    let waiting = pending.entry(IdKey::of(msg.get("id"))).or_default();
                    if waiting.iter().any(|p| p.dir == dirs[i]) {
                        in_flight_dup[i] = true;
                    }
                    waiting.push(Pending {
                        index: i,
                        dir: dirs[i],
                        method,
                    });
                }
            }
            Kind::Message(ResultKind | ErrorKind) => {
                let found = pending
                    .get_mut(&IdKey::of(msg.get("id")))
                    .and_then(|waiting| {
                        // The request went the other way; with no direction known, the latest.
                        let want = dirs[i].and_then(reverse);
                        let at = waiting
                            .iter()
                            .rposition(|p| want.is_none() || p.dir.is_none() || p.dir == want)?;
                        Some(waiting.remove(at))
                    });
                match found {
                    Some(req) => {
                        answered_by[req.index] = Some(i);
                        request_of[i] = Some(req.index);
                        methods[i] = req.method;
                        if dirs[i].is_none() {
                            derived_dirs[i] = req.dir.and_then(reverse);
                            dirs[i] = derived_dirs[i];
                        }
                        let negotiated =
                            handshakes.contains(&req.index) && kind == Kind::Message(ResultKind);
                        if negotiated {
                            if let Some(v) =
                                config.handshake.as_ref().and_then(|h| read(&h.negotiated))
                            {
                                versions[req.index] = Some(v);
                                current = Some(v);
                            }
                        }
                        versions[i] = versions[req.index];
                        let refusal = kind == Kind::Message(ErrorKind)
                            && negotiation.is_some_and(|n| {
                                msg.get("error")
                                    .and_then(|e| e.get("code"))
                                    .and_then(ValueRef::as_number)
                                    .and_then(serde_json::Number::as_i64)
                                    == Some(n.unsupported_code)
                            });
                        let asked = negotiations[req.index];
                        if refusal {
                            let listed =
                                negotiation.and_then(|n| strings_at(&n.unsupported_supported, msg));
                            if asked.requested_unknown.is_some() {
                                // The refusal is in the server's era: the newest version it
                                // lists as served, else the session's, else the newest known.
                                let served = listed.as_ref().and_then(|list| {
                                    config
                                        .known
                                        .iter()
                                        .rposition(|k| list.contains(&k.as_str()))
                                });
                                versions[i] = served.map(Text::Known).or(current).or(newest);
                            }
                            if let Some(list) = listed {
                                offered = Some(list);
                            }
                        } else if asked.requested_unknown.is_some() {
                            negotiations[i].answers_unknown = asked.requested_unknown;
                        } else if asked.not_offered && kind == Kind::Message(ResultKind) {
                            negotiations[i].answers_unoffered = own_version[req.index];
                        }
                        if kind == Kind::Message(ResultKind) {
                            let method = req.method.and_then(ValueRef::as_str);
                            let listed = negotiation.and_then(|n| {
                                n.offers
                                    .iter()
                                    .find(|(m, _)| Some(m.as_str()) == method)
                                    .and_then(|(_, path)| strings_at(path, msg))
                            });
                            if listed.is_some() {
                                offered = listed;
                            }
                        }
                    }
                    None => versions[i] = current,
                }
            }
            Kind::Framing | Kind::Unknown => versions[i] = current,
        }
    }

    let mixed = mixed_batches(&entries, &kinds);
    let mut edits = Vec::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        let Some(obj) = entry.as_object() else {
            continue;
        };
        let request = kinds[i] == Kind::Message(Request);
        edits.push(EntryEdit {
            entry: entry.id(),
            kind: kinds[i],
            method: methods[i].map(|m| m.id()),
            dir: derived_dirs[i].filter(|_| !obj.contains_key("dir")),
            version: versions[i],
            request: request_of[i]
                .and_then(|r| entries[r].get("msg"))
                .map(|m| m.id()),
            answered: request.then(|| (answered_by[i].is_some(), in_flight_dup[i])),
            batch_mixed: mixed[i],
            negotiated: negotiations[i],
        });
    }
    edits
}

/// Whether each entry starts a JSON-RPC batch holding both requests or notifications and
/// responses: the reader gives each message of a batch `batch: {"index", "size"}`, in order.
fn mixed_batches(entries: &[ValueRef<'_>], kinds: &[Kind]) -> Vec<bool> {
    let place = |i: usize| {
        let batch = entries.get(i)?.get("batch")?;
        let number = |key| batch.get(key)?.as_number()?.as_u64();
        Some((number("index")?, number("size")?))
    };
    let mut mixed = vec![false; entries.len()];
    let mut i = 0;
    while i < entries.len() {
        let Some((0, size)) = place(i) else {
            i += 1;
            continue;
        };
        let end = (i + usize::try_from(size).unwrap_or(usize::MAX)).min(entries.len());
        let (mut calls, mut answers) = (false, false);
        for kind in &kinds[i..end] {
            match kind {
                Kind::Message(Request | Notification) => calls = true,
                Kind::Message(ResultKind | ErrorKind) => answers = true,
                Kind::Framing | Kind::Unknown => {}
            }
        }
        mixed[i] = calls && answers;
        i = end.max(i + 1);
    }
    mixed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{Format, Limits, Tree};
    use crate::rules::file::{HandshakeDef, NegotiationDef, OfferDef, TrafficDef, UnsupportedDef};
    use serde_json::{json, Value};

    fn config() -> TrafficConfig {
        TrafficConfig::compile(&TrafficDef {
            message_version: Some("@.params._meta['v']".into()),
            handshake: Some(HandshakeDef {
                method: "hello".into(),
                requested: "@.params.want".into(),
                negotiated: "@.result.got".into(),
            }),
            negotiation: None,
        })
        .unwrap()
    }

    fn annotated(text: &str) -> Value {
        let mut doc = Document::parse_str(text, Format::Capture, &Limits::default()).unwrap();
        annotate(&mut doc, &config(), None);
        doc.to_value()
    }

    #[test]
    fn handshake_dates_what_follows_and_responses_follow_their_request() {
        let v = annotated(concat!(
            r#"{"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"hello","params":{"want":"B"}}}"#,
            "\n",
            r#"{"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"got":"A"}}}"#,
            "\n",
            r#"{"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"x"}}"#,
            "\n",
            r#"{"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"y","params":{"_meta":{"v":"C"}}}}"#,
            "\n",
            r#"{"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m"}}}"#,
            "\n",
        ));
        let m = v["messages"].as_array().unwrap();
        assert_eq!(m[0]["protocolVersions"], serde_json::json!(["A"]));
        assert_eq!(m[1]["method"], "hello");
        assert_eq!(m[1]["request"]["params"]["want"], "B");
        assert_eq!(m[2]["protocolVersions"], serde_json::json!(["A"]));
        assert_eq!(m[2]["answered"], false);
        assert_eq!(m[3]["idInFlight"], true);
        assert_eq!(m[3]["protocolVersions"], serde_json::json!(["C"]));
        assert_eq!(m[4]["kind"], "error");
        assert_eq!(m[4]["method"], "y");
        assert_eq!(m[4]["protocolVersions"], serde_json::json!(["C"]));
    }

    /// Ids pair by their JSON text: 1, "1", 1.0 and two large integers are five ids, and a
    /// response without a direction answers the latest request with its id.
    #[test]
    fn responses_pair_by_the_text_of_their_id() {
        let request = |id: &str, method: &str| {
            format!(r#"{{"dir":"c2s","msg":{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}}}"#)
        };
        let result = |id: &str| format!(r#"{{"msg":{{"jsonrpc":"2.0","id":{id},"result":{{}}}}}}"#);
        let (big, bigger) = ("18446744073709551614", "18446744073709551615");
        let lines = [
            request("1", "one"),
            request(r#""1""#, "text"),
            request("1.0", "float"),
            request(big, "big"),
            request(bigger, "bigger"),
            result(big),
            result(r#""1""#),
            result("1"),
            result("1.0"),
            result(bigger),
            result("1"),
        ];
        let v = annotated(&(lines.join("\n") + "\n"));
        let m = v["messages"].as_array().unwrap();
        let methods: Vec<&str> = m[5..10]
            .iter()
            .map(|e| e["method"].as_str().unwrap())
            .collect();
        assert_eq!(methods, ["big", "text", "one", "float", "bigger"]);
        assert_eq!(m[7]["dir"], "s2c");
        assert_eq!(m[7]["request"]["method"], "one");
        assert!(m[10].get("method").is_none());
        assert!(m[..5].iter().all(|e| e["answered"] == true));
    }

    #[test]
    fn paths_read_in_place_as_from_a_tree() {
        let msg = serde_json::json!({
            "id": 1,
            "params": {"v": "a", "list": ["x", {"v": "b"}], "0": "zero", "n": 3}
        });
        for (text, in_place, want) in [
            ("@.params.v", true, Some("a")),
            ("$.params.v", true, Some("a")),
            ("@['params']['list'][0]", true, Some("x")),
            ("@.params.list[1].v", true, Some("b")),
            ("@.params['0']", true, Some("zero")),
            ("@.params.n", true, None),
            ("@.params.missing", true, None),
            ("@.params.list[-1].v", false, Some("b")),
            ("@..v", false, Some("a")),
            ("params", false, None),
            ("^.params.v", false, None),
        ] {
            let path = MessagePath::compile(text).unwrap();
            assert_eq!(path.tokens.is_some(), in_place, "{text}");
            let tree = Tree::from_value(&msg);
            let read = string_at(&path, tree.root());
            assert_eq!(read.and_then(ValueRef::as_str), want, "{text}");
            let from_tree = MessagePath {
                tokens: None,
                ..path
            };
            assert_eq!(
                string_at(&from_tree, tree.root()).and_then(ValueRef::as_str),
                want,
                "{text}"
            );
        }
    }

    #[test]
    fn framing_problems_are_entries_with_lines() {
        let v = annotated("not json\n{\"jsonrpc\":\"2.0\",\n\"method\":\"n\"}\n7\n");
        let m = v["messages"].as_array().unwrap();
        assert_eq!(m[0]["framing"], "not-json");
        assert_eq!(m[0]["line"], 1);
        assert_eq!(m[1]["framing"], "embedded-newline");
        assert_eq!(m[2]["kind"], "notification");
        assert_eq!(m[2]["line"], 2);
        assert_eq!(m[3]["framing"], "not-an-object");
        assert_eq!(m[3]["kind"], "framing");
    }

    #[test]
    fn arrays_and_single_messages_are_captures_too() {
        let v = annotated("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"},\n {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}]");
        let m = v["messages"].as_array().unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m[1]["method"], "a");
        assert_eq!(m[1]["line"], 2);
        let one = annotated("{\"jsonrpc\":\"2.0\",\"method\":\"n\"}");
        assert_eq!(one["messages"][0]["kind"], "notification");
        // One message over several lines is that form too, not a line broken by its framing,
        // and it may be a record with a direction.
        let pretty = annotated("\n{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"n\"\n}\n");
        let m = pretty["messages"].as_array().unwrap();
        assert_eq!(m.len(), 1, "{pretty}");
        assert_eq!(m[0]["kind"], "notification");
        assert_eq!(m[0]["line"], 2);
        let record =
            annotated("{\"dir\": \"c2s\",\n \"msg\": {\"jsonrpc\": \"2.0\", \"method\": \"n\"}}");
        let m = record["messages"].as_array().unwrap();
        assert_eq!(m.len(), 1, "{record}");
        assert_eq!(m[0]["dir"], "c2s");
        assert_eq!(m[0]["msg"]["method"], "n");
        // Two messages, one of them broken over lines, are newline-delimited text.
        let two = annotated(
            "{\"jsonrpc\":\"2.0\",\n\"method\":\"n\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n",
        );
        assert_eq!(two["messages"][0]["framing"], "embedded-newline");
    }

    #[test]
    fn positions_point_into_the_capture() {
        let text = "{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n{\"dir\":\"c2s\",\"msg\":{\"jsonrpc\":\"2.0\",\"method\":\"b\",\n\"params\":{}}}\n";
        let mut doc = Document::parse_str(text, Format::Capture, &Limits::default()).unwrap();
        assert_eq!(doc.position("/messages/0/msg/method").line, 1);
        // The second message spans two lines, so a framing entry comes before it.
        assert_eq!(
            doc.root().pointer("/messages/1/framing").unwrap(),
            "embedded-newline"
        );
        let p = doc.position("/messages/2/msg/method");
        assert_eq!((p.line, p.column), (2, 46));
        assert_eq!(doc.position("/messages/2/msg/params").line, 3);
        // Annotated: the positions stay those of the capture, and what was added is at the
        // start of its entry.
        annotate(&mut doc, &config(), None);
        assert_eq!(
            doc.root().pointer("/messages/2/kind").unwrap(),
            "notification"
        );
        let p = doc.position("/messages/2/msg/method");
        assert_eq!((p.line, p.column), (2, 46));
        assert_eq!(doc.position("/messages/2/msg/params").line, 3);
    }

    /// A request in a version the catalogue does not know is undated; its refusal is dated in
    /// the newest known version the refusal lists as served, else the session's, else the
    /// newest known; any other answer names the version, and a later request outside the
    /// server's list is marked.
    #[test]
    fn a_refusal_settles_a_request_in_an_unknown_version() {
        let mut config = TrafficConfig::compile(&TrafficDef {
            message_version: Some("@.params._meta['v']".into()),
            handshake: None,
            negotiation: Some(NegotiationDef {
                unsupported: UnsupportedDef {
                    code: -7,
                    supported: "@.error.data.ok".into(),
                },
                offers: vec![OfferDef {
                    method: "discover".into(),
                    supported: "@.result.ok".into(),
                }],
            }),
        })
        .unwrap();
        config.known = vec!["A".into(), "B".into(), "C".into()];
        let lines = [
            json!({"msg": {"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"_meta": {"v": "Z"}}}}),
            json!({"msg": {"jsonrpc": "2.0", "id": 1, "error": {"code": -7, "message": "no", "data": {"ok": ["A", "B"]}}}}),
            json!({"msg": {"jsonrpc": "2.0", "id": 2, "method": "x", "params": {"_meta": {"v": "C"}}}}),
            json!({"msg": {"jsonrpc": "2.0", "id": 2, "result": {}}}),
            json!({"msg": {"jsonrpc": "2.0", "id": 3, "method": "x", "params": {"_meta": {"v": "Y"}}}}),
            json!({"msg": {"jsonrpc": "2.0", "id": 3, "error": {"code": -7, "message": "no"}}}),
            json!({"msg": {"jsonrpc": "2.0", "id": 4, "method": "x", "params": {"_meta": {"v": "Y"}}}}),
            json!({"msg": {"jsonrpc": "2.0", "id": 4, "result": {}}}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let mut doc = Document::parse_str(&text, Format::Capture, &Limits::default()).unwrap();
        annotate(&mut doc, &config, None);
        let v = doc.to_value();
        let at = |i: usize, member: &str| v["messages"][i][member].clone();
        assert_eq!(at(0, "protocolVersions"), json!([]));
        assert_eq!(at(0, "requestedVersion"), json!("Z"));
        // Refused, listing A and B: the server's era is B.
        assert_eq!(at(1, "protocolVersions"), json!(["B"]));
        assert_eq!(at(1, "answersUnknownVersion"), Value::Null);
        // C is known but not in the list: marked, and its result names it.
        assert_eq!(at(2, "versionNotOffered"), json!(true));
        assert_eq!(at(3, "answersUnofferedVersion"), json!("C"));
        assert_eq!(at(3, "protocolVersions"), json!(["C"]));
        // Refused without a list: the session's version (C, the last request dated).
        assert_eq!(at(5, "protocolVersions"), json!(["C"]));
        // Y answered with a result.
        assert_eq!(at(7, "answersUnknownVersion"), json!("Y"));
        assert_eq!(at(7, "protocolVersions"), json!([]));
    }
}
