//! The language server's framing on arbitrary bytes, read as the editor's input stream: every
//! frame must consume input, a body is never longer than the message ceiling (nor allocated
//! beyond it), the frames do not depend on how the input is buffered, the input ends only at
//! its end, every body decodes to a message or to a parse / invalid-request error response, and
//! the server's read loop hands on exactly what the frames say.
//!
//! The first byte chooses the ceiling (4096, or a small one down to 0), the second the
//! capacity of the second reader's buffer; the rest is the stream.
#![no_main]

use std::io::{BufReader, Cursor};

use libfuzzer_sys::fuzz_target;
use lsp_server::{ErrorCode, Message, RequestId};
use serde_json::Value;

// The language server keeps its transport module private: it is compiled in as it is.
#[allow(dead_code)]
#[path = "../../crates/mcpdesc-lsp/src/transport.rs"]
mod transport;

use transport::{decode, read_frame, read_loop, skip_body, Frame};

/// The frames of `input` as the server reads them, through a buffer of `capacity` bytes.
fn frames(input: &[u8], limit: usize, capacity: usize) -> Vec<Frame> {
    let mut r = BufReader::with_capacity(capacity, Cursor::new(input));
    let consumed = |r: &BufReader<Cursor<&[u8]>>| r.get_ref().position() - r.buffer().len() as u64;
    let mut out = Vec::new();
    let mut at = 0u64;
    while let Some(frame) = read_frame(&mut r, limit).expect("a slice is always readable") {
        let now = consumed(&r);
        assert!(now > at, "a frame consumes input: {frame:?} at {at}");
        at = now;
        match &frame {
            Frame::Body(body) => {
                assert!(body.len() <= limit, "a body of {} > {limit}", body.len());
                assert!(body.capacity() <= limit, "a body allocated beyond {limit}");
            }
            Frame::TooLarge {
                announced,
                limit: told,
            } => {
                assert_eq!(*told, limit);
                assert!(*announced > limit as u64);
            }
            Frame::BadHeaders(why) => assert!(!why.is_empty()),
        }
        let skip = match frame {
            Frame::TooLarge { announced, .. } => Some(announced),
            _ => None,
        };
        out.push(frame);
        if let Some(announced) = skip {
            if !skip_body(&mut r, announced).expect("a slice is always readable") {
                assert_eq!(consumed(&r), input.len() as u64, "a short skip is the end");
                return out;
            }
            at = consumed(&r);
        }
    }
    // `None` only once the input is used up (at its end, or in a frame cut short).
    assert_eq!(
        consumed(&r),
        input.len() as u64,
        "the input ends only at its end"
    );
    out
}

/// What `decode` gives a body: the message, or an error response whose code says why.
fn check_decode(body: &[u8]) -> Result<Message, Box<lsp_server::Response>> {
    let decoded = decode(body);
    let json = serde_json::from_slice::<Value>(body).ok();
    match &decoded {
        Ok(_) => assert!(
            json.is_some(),
            "a message decoded from a body that is not JSON"
        ),
        Err(response) => {
            let error = response
                .response_result
                .as_ref()
                .expect_err("an error response");
            let expected = if json.is_some() {
                ErrorCode::InvalidRequest
            } else {
                ErrorCode::ParseError
            };
            assert_eq!(error.code, expected as i32, "{}", error.message);
            if json.is_none() {
                // JSON-RPC's null id, which the writer spells out.
                assert_eq!(response.id, RequestId::from("\u{0}null".to_owned()));
            }
        }
    }
    decoded
}

fuzz_target!(|data: &[u8]| {
    let Some((&choice, rest)) = data.split_first() else {
        return;
    };
    let limit = if choice < 128 {
        4096
    } else {
        usize::from(choice - 128) * 8
    };
    let capacity = rest.first().map_or(1, |&b| 1 + usize::from(b % 64));
    let input = rest;

    let read = frames(input, limit, 8 * 1024);
    assert_eq!(
        read,
        frames(input, limit, capacity),
        "the frames depend on the buffering"
    );

    let mut to_server = Vec::new();
    let mut to_editor = 0usize;
    for frame in &read {
        match frame {
            Frame::Body(body) => match check_decode(body) {
                Ok(msg) => {
                    to_server.push(serde_json::to_value(&msg).expect("a message serialises"))
                }
                Err(_) => to_editor += 1,
            },
            Frame::BadHeaders(_) | Frame::TooLarge { .. } => to_editor += 1,
        }
    }

    // The server's own loop over the same stream: the same messages, one answer or warning for
    // everything else.
    let (server, from_reader) = crossbeam_channel::unbounded();
    let (errors, answers) = crossbeam_channel::unbounded();
    read_loop(
        &mut BufReader::new(Cursor::new(input)),
        limit,
        &server,
        &errors,
    )
    .expect("a slice is always readable");
    let handed: Vec<Value> = from_reader
        .try_iter()
        .map(|msg| serde_json::to_value(&msg).expect("a message serialises"))
        .collect();
    assert_eq!(handed, to_server);
    assert_eq!(answers.try_iter().count(), to_editor);
});
