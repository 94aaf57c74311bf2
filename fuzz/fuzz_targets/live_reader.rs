//! The live client's reading of what a server writes, on arbitrary bytes: `json` and `incoming`
//! on the input as one message, on each of its lines as the stdio transport splits them, and on
//! the data of each server-sent event of the input read as an event stream (the HTTP
//! transport's reader). None may panic or overflow the stack; `json` reads a value nested up to
//! 256 levels (`serde_json` up to 127, the document loader beyond) and refuses a deeper one;
//! `incoming` is a message exactly when `json` reads one.
#![no_main]

use std::borrow::Cow;
use std::io::{BufRead, BufReader, Cursor, Read};
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

// The live client keeps these modules private: they are compiled in as they are, with the two
// items of the parent crate they name.
#[allow(dead_code)]
#[path = "../../crates/mcpdesc-live/src/transport.rs"]
mod transport;

#[allow(dead_code)]
#[path = "../../crates/mcpdesc-live/src/http.rs"]
mod http;

/// The connection timeouts `http` keeps (only for closing a session, not reached here).
#[allow(dead_code)]
#[derive(Debug, Clone, Copy)]
struct Timeouts {
    request: Duration,
}

/// The escaping `http` applies to a redirect's location (not reached here).
#[allow(dead_code)]
mod safe {
    pub fn escape(s: &str) -> std::borrow::Cow<'_, str> {
        std::borrow::Cow::Borrowed(s)
    }
}

use transport::{incoming, json, Incoming, TransportError};

/// `json`'s depth limit: the document loader's default `max_depth`.
const MAX_DEPTH: usize = 256;
/// The deepest nesting `serde_json` reads; deeper, `json` hands over to the document loader.
const SERDE_DEPTH: usize = 127;

/// Nesting depth of a value (a scalar is 0, the root container 1), without recursion.
fn depth(v: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(v, 1)];
    while let Some((v, d)) = stack.pop() {
        match v {
            Value::Array(items) => {
                deepest = deepest.max(d);
                stack.extend(items.iter().map(|x| (x, d + 1)));
            }
            Value::Object(members) => {
                deepest = deepest.max(d);
                stack.extend(members.values().map(|x| (x, d + 1)));
            }
            _ => {}
        }
    }
    deepest
}

/// `json` and `incoming` on one message, with what must hold between them.
fn read_one(bytes: &[u8]) -> Option<Value> {
    let value = json(bytes);
    if let Some(v) = &value {
        assert!(depth(v) <= MAX_DEPTH, "a value deeper than {MAX_DEPTH}");
    }
    match (incoming(bytes), &value) {
        (Incoming::Message(m), Some(v)) => assert_eq!(&m, v),
        (Incoming::Raw(text), None) => assert_eq!(text, String::from_utf8_lossy(bytes)),
        (got, _) => panic!("incoming gave {got:?}, json {value:?}"),
    }
    value
}

/// `inner` (JSON text of a value `value` of depth `own`) inside `levels` arrays and objects,
/// their kinds taken from `kinds`; `json` must read it exactly when the total depth is within
/// the limit, as the same value.
fn check_nested(inner: &str, value: &Value, own: usize, levels: usize, kinds: &[u8]) {
    let array = |i: usize| kinds.is_empty() || kinds[i % kinds.len()] & 1 == 0;
    let mut text = String::with_capacity(inner.len() + 8 * levels);
    for i in 0..levels {
        text.push_str(if array(i) { "[" } else { "{\"k\":" });
    }
    text.push_str(inner);
    for i in (0..levels).rev() {
        text.push(if array(i) { ']' } else { '}' });
    }
    let got = read_one(text.as_bytes());
    if own + levels > MAX_DEPTH {
        assert!(got.is_none(), "{} levels were read", own + levels);
        return;
    }
    let Some(got) = got else {
        panic!("{} levels were refused", own + levels);
    };
    let mut expected = value.clone();
    for i in (0..levels).rev() {
        expected = if array(i) {
            Value::Array(vec![expected])
        } else {
            Value::Object([("k".to_owned(), expected)].into_iter().collect())
        };
    }
    assert_eq!(got, expected, "{} levels", own + levels);
}

fuzz_target!(|data: &[u8]| {
    // The input as one message (a line of a stdio server, a JSON body over HTTP).
    let whole = read_one(data);

    // Its value, or `null`, nested to either side of the depth limit and of the point where
    // `serde_json` hands over to the document loader.
    let (inner, value) = match &whole {
        Some(v) => (Cow::Owned(v.to_string()), v.clone()),
        None => (Cow::Borrowed("null"), Value::Null),
    };
    let own = depth(&value);
    for total in [SERDE_DEPTH, SERDE_DEPTH + 1, MAX_DEPTH, MAX_DEPTH + 1] {
        if let Some(levels) = total.checked_sub(own) {
            check_nested(&inner, &value, own, levels, data);
        }
    }

    // The input as a stdio server's output: one message a line, line ends (CR and LF) cut off,
    // blank lines skipped, as the stdio transport's reading thread does.
    let mut lines = BufReader::new(Cursor::new(data));
    loop {
        let mut line = Vec::new();
        let n = (&mut lines)
            .take(64 * 1024 * 1024)
            .read_until(b'\n', &mut line)
            .expect("a slice is always readable");
        if n == 0 {
            break;
        }
        while matches!(line.last(), Some(b'\n' | b'\r')) {
            line.pop();
        }
        if !line.iter().all(u8::is_ascii_whitespace) {
            read_one(&line);
        }
    }

    // The input as an event stream answering a POST: the data of each event, until the end or
    // a line that is not UTF-8 (an error that ends the stream).
    let mut stream = http::EventStream::from_reader(Box::new(Cursor::new(data.to_vec())));
    let mut events = 0usize;
    loop {
        match stream.next_event() {
            Ok(Some(event)) => {
                events += 1;
                assert!(events <= data.len(), "more events than bytes");
                assert!(!event.is_empty(), "an event without data was dispatched");
                assert!(event.len() <= data.len());
                read_one(event.as_bytes());
            }
            Ok(None) => break,
            Err(TransportError::Http(_)) => {
                assert!(std::str::from_utf8(data).is_err(), "an error on UTF-8 text");
                break;
            }
            Err(e) => panic!("the stream failed with {e:?}"),
        }
    }
});
