//! Classifies, correlates and dates the messages of a capture (see the module table).

use std::cell::OnceCell;
use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{MessagePath, TrafficConfig, SCOPE_MEMBER};
use crate::document::Tree;
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

    fn of(entry: &Map<String, Value>) -> Kind {
        if entry.contains_key("framing") {
            return Kind::Framing;
        }
        let Some(msg) = entry.get("msg").and_then(Value::as_object) else {
            return Kind::Unknown;
        };
        let has_method = msg.get("method").is_some_and(Value::is_string);
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

/// The first string `path` selects from `msg`. `compact` keeps the tree of `msg` made for a
/// path that cannot be read in place, for the other paths of the same message.
fn string_at(path: &MessagePath, msg: &Value, compact: &OnceCell<Tree<'static>>) -> Option<String> {
    if let Some(tokens) = &path.tokens {
        return in_place(msg, tokens)
            .and_then(Value::as_str)
            .map(str::to_owned);
    }
    let msg = compact.get_or_init(|| Tree::from_value(msg)).root();
    path.path
        .values_from(msg, "", msg)
        .first()
        .and_then(|v| v.as_str())
        .map(str::to_owned)
}

/// Follows `tokens` from `start` as a singular relative path does (a token is an array index
/// when the node is an array).
fn in_place<'v>(start: &'v Value, tokens: &[String]) -> Option<&'v Value> {
    let mut value = start;
    for t in tokens {
        value = match value {
            Value::Object(m) => m.get(t)?,
            Value::Array(a) => t.parse::<usize>().ok().and_then(|i| a.get(i))?,
            _ => return None,
        };
    }
    Some(value)
}

/// What is known of a request while its response is awaited.
struct Pending {
    index: usize,
    dir: Option<String>,
    method: Option<String>,
}

/// Adds `kind`, `method`, `dir`, `protocolVersions`, `request`, `answered` and `idInFlight`
/// to the entries of a capture document (`{"messages": [...]}`), in place. `default_version`
/// dates the messages the data does not date.
pub fn annotate(root: &mut Value, config: &TrafficConfig, default_version: Option<&str>) {
    let Some(entries) = root
        .get_mut(crate::document::MESSAGES)
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    let kinds: Vec<Kind> = entries
        .iter()
        .map(|e| e.as_object().map_or(Kind::Unknown, Kind::of))
        .collect();
    let mut versions: Vec<Option<String>> = vec![None; entries.len()];
    let mut methods: Vec<Option<String>> = vec![None; entries.len()];
    let mut dirs: Vec<Option<String>> = entries
        .iter()
        .map(|e| e.get("dir").and_then(Value::as_str).map(str::to_owned))
        .collect();
    let mut answered_by: Vec<Option<usize>> = vec![None; entries.len()];
    let mut in_flight_dup = vec![false; entries.len()];
    let mut request_of: Vec<Option<usize>> = vec![None; entries.len()];
    // JSON-RPC ids by their JSON text, so 1 and "1" stay distinct.
    let mut pending: HashMap<String, Vec<Pending>> = HashMap::new();
    let mut current: Option<String> = default_version.map(str::to_owned);
    let mut handshakes: Vec<usize> = Vec::new();

    let null = Value::Null;
    for i in 0..entries.len() {
        let kind = kinds[i];
        let msg = entries[i].get("msg").unwrap_or(&null);
        let compact = OnceCell::new();
        let read = |path: &MessagePath| string_at(path, msg, &compact);
        match kind {
            Kind::Message(Request | Notification) => {
                let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
                let own = config.message_version.as_ref().and_then(read);
                let is_handshake = kind == Kind::Message(Request)
                    && config
                        .handshake
                        .as_ref()
                        .is_some_and(|h| method.as_deref() == Some(h.method.as_str()));
                let requested = if is_handshake {
                    config.handshake.as_ref().and_then(|h| read(&h.requested))
                } else {
                    None
                };
                versions[i] = own.clone().or(requested).or_else(|| current.clone());
                if own.is_some() {
                    current = own;
                }
                if is_handshake {
                    handshakes.push(i);
                }
                methods[i] = method.clone();
                if kind == Kind::Message(Request) {
                    let key = msg.get("id").map(Value::to_string).unwrap_or_default();
                    let waiting = pending.entry(key).or_default();
                    if waiting.iter().any(|p| p.dir == dirs[i]) {
                        in_flight_dup[i] = true;
                    }
                    waiting.push(Pending {
                        index: i,
                        dir: dirs[i].clone(),
                        method,
                    });
                }
            }
            Kind::Message(ResultKind | ErrorKind) => {
                let key = msg.get("id").map(Value::to_string).unwrap_or_default();
                let found = pending.get_mut(&key).and_then(|waiting| {
                    // The request went the other way; with no direction known, the latest.
                    let want = dirs[i].as_deref().and_then(reverse);
                    let at = waiting.iter().rposition(|p| {
                        want.is_none() || p.dir.is_none() || p.dir.as_deref() == want
                    })?;
                    Some(waiting.remove(at))
                });
                match found {
                    Some(req) => {
                        answered_by[req.index] = Some(i);
                        request_of[i] = Some(req.index);
                        methods[i] = req.method.clone();
                        if dirs[i].is_none() {
                            dirs[i] = req.dir.as_deref().and_then(reverse).map(str::to_owned);
                        }
                        let negotiated =
                            handshakes.contains(&req.index) && kind == Kind::Message(ResultKind);
                        if negotiated {
                            if let Some(v) =
                                config.handshake.as_ref().and_then(|h| read(&h.negotiated))
                            {
                                versions[req.index] = Some(v.clone());
                                current = Some(v);
                            }
                        }
                        versions[i] = versions[req.index].clone();
                    }
                    None => versions[i] = current.clone(),
                }
            }
            Kind::Framing | Kind::Unknown => versions[i] = current.clone(),
        }
    }

    let copies: Vec<Option<Value>> = (0..entries.len())
        .map(|i| request_of[i].and_then(|r| entries[r].get("msg").cloned()))
        .collect();
    for (i, (entry, copy)) in entries.iter_mut().zip(copies).enumerate() {
        let Some(obj) = entry.as_object_mut() else {
            continue;
        };
        obj.insert("kind".to_owned(), kinds[i].as_str().into());
        if let Some(m) = methods[i].take() {
            obj.insert("method".to_owned(), m.into());
        }
        if !obj.contains_key("dir") {
            if let Some(d) = dirs[i].take() {
                obj.insert("dir".to_owned(), d.into());
            }
        }
        let list: Vec<Value> = versions[i].take().map(Value::from).into_iter().collect();
        obj.insert(SCOPE_MEMBER.to_owned(), Value::Array(list));
        if let Some(copy) = copy {
            obj.insert("request".to_owned(), copy);
        }
        if kinds[i] == Kind::Message(Request) {
            obj.insert("answered".to_owned(), answered_by[i].is_some().into());
            if in_flight_dup[i] {
                obj.insert("idInFlight".to_owned(), true.into());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{Format, Limits, ValueDocument};
    use crate::rules::file::{HandshakeDef, TrafficDef};

    fn config() -> TrafficConfig {
        TrafficConfig::compile(&TrafficDef {
            message_version: Some("@.params._meta['v']".into()),
            handshake: Some(HandshakeDef {
                method: "hello".into(),
                requested: "@.params.want".into(),
                negotiated: "@.result.got".into(),
            }),
        })
        .unwrap()
    }

    fn annotated(text: &str) -> Value {
        let doc = ValueDocument::parse_str(text, Format::Capture, &Limits::default()).unwrap();
        let mut v = doc.into_value();
        annotate(&mut v, &config(), None);
        v
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
            let read = string_at(&path, &msg, &OnceCell::new());
            assert_eq!(read.as_deref(), want, "{text}");
            let from_tree = MessagePath {
                tokens: None,
                ..path
            };
            assert_eq!(
                string_at(&from_tree, &msg, &OnceCell::new()),
                read,
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
    }

    #[test]
    fn positions_point_into_the_capture() {
        let text = "{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n{\"dir\":\"c2s\",\"msg\":{\"jsonrpc\":\"2.0\",\"method\":\"b\",\n\"params\":{}}}\n";
        let mut doc = ValueDocument::parse_str(text, Format::Capture, &Limits::default()).unwrap();
        assert_eq!(doc.position("/messages/0/msg/method").line, 1);
        // The second message spans two lines, so a framing entry comes before it.
        assert_eq!(doc.value()["messages"][1]["framing"], "embedded-newline");
        let p = doc.position("/messages/2/msg/method");
        assert_eq!((p.line, p.column), (2, 46));
        assert_eq!(doc.position("/messages/2/msg/params").line, 3);
        // Annotated, then compacted for evaluation: the positions stay those of the capture.
        annotate(doc.value_mut(), &config(), None);
        let doc = doc.into_document();
        assert_eq!(
            doc.root().pointer("/messages/2/kind").unwrap(),
            "notification"
        );
        let p = doc.position("/messages/2/msg/method");
        assert_eq!((p.line, p.column), (2, 46));
        assert_eq!(doc.position("/messages/2/msg/params").line, 3);
    }
}
