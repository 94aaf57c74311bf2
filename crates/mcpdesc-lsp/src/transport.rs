//! The Language Server Protocol's framing over standard input and output, read defensively.
//!
//! An editor is a peer we do not control: a `Content-Length` is a claim, not a size to
//! allocate. Headers are read line by line with a ceiling, a body larger than the message
//! ceiling is skipped without being held, and a body that is not a JSON-RPC message gets an
//! error response; none of them ends the session. Only the end of the input (or an input that
//! cannot be read) does.

use std::io::{self, BufRead, Read, Write};
use std::thread;

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{Connection, ErrorCode, Message, Notification, RequestId, Response};
use serde_json::Value;

/// Longest header line kept; a longer one is a framing error (its rest is skipped).
const MAX_HEADER_LINE: usize = 8 * 1024;
/// Most header lines before the blank line that ends them.
const MAX_HEADERS: usize = 32;

/// One framed message read from the input, or why none could be.
#[derive(Debug, PartialEq)]
pub(crate) enum Frame {
    Body(Vec<u8>),
    /// The headers were malformed; they have been skipped up to their blank line.
    BadHeaders(String),
    /// The body announced more bytes than allowed; it is still to be skipped, with
    /// [`skip_body`], before the next frame.
    TooLarge {
        announced: u64,
        limit: usize,
    },
}

/// Reads the next frame; `None` at the end of the input (also in the middle of a frame).
pub(crate) fn read_frame(r: &mut impl BufRead, limit: usize) -> io::Result<Option<Frame>> {
    let mut length: Option<Result<u64, String>> = None;
    let mut problem: Option<String> = None;
    let mut headers = 0usize;
    loop {
        let Some(line) = read_header_line(r)? else {
            return Ok(None);
        };
        let line = match line {
            HeaderLine::Text(t) => t,
            HeaderLine::TooLong => {
                headers += 1;
                problem.get_or_insert_with(|| {
                    format!("a header line is longer than {MAX_HEADER_LINE} bytes")
                });
                continue;
            }
        };
        if line.is_empty() {
            if headers == 0 {
                // Blank lines between messages: tolerated, as many clients send them.
                continue;
            }
            break;
        }
        headers += 1;
        if headers > MAX_HEADERS {
            problem.get_or_insert_with(|| format!("more than {MAX_HEADERS} header lines"));
            continue;
        }
        let Some((name, value)) = line.split_once(':') else {
            problem.get_or_insert_with(|| format!("malformed header {:?}", cut(&line)));
            continue;
        };
        if name.trim().eq_ignore_ascii_case("Content-Length") {
            let value = value.trim();
            length = Some(
                value
                    .parse::<u64>()
                    .map_err(|_| format!("`Content-Length: {}` is not a length", cut(value))),
            );
        }
    }
    if let Some(p) = problem {
        return Ok(Some(Frame::BadHeaders(p)));
    }
    let announced = match length {
        None => return Ok(Some(Frame::BadHeaders("no `Content-Length` header".into()))),
        Some(Err(e)) => return Ok(Some(Frame::BadHeaders(e))),
        Some(Ok(n)) => n,
    };
    if announced > limit as u64 {
        return Ok(Some(Frame::TooLarge { announced, limit }));
    }
    let mut body = Vec::with_capacity(announced as usize);
    r.take(announced).read_to_end(&mut body)?;
    if (body.len() as u64) < announced {
        return Ok(None);
    }
    Ok(Some(Frame::Body(body)))
}

/// Skips a body of `announced` bytes without holding it; `false` when the input ends first.
pub(crate) fn skip_body(r: &mut impl BufRead, announced: u64) -> io::Result<bool> {
    Ok(io::copy(&mut r.take(announced), &mut io::sink())? == announced)
}

enum HeaderLine {
    Text(String),
    TooLong,
}

/// One header line without its line end (CRLF, or a bare LF as some clients send), read with
/// a ceiling.
fn read_header_line(r: &mut impl BufRead) -> io::Result<Option<HeaderLine>> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(None);
        }
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..=i], true),
            None => (buf, false),
        };
        let n = chunk.len();
        if !too_long {
            if line.len() + n > MAX_HEADER_LINE + 2 {
                too_long = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        r.consume(n);
        if done {
            break;
        }
    }
    if too_long {
        return Ok(Some(HeaderLine::TooLong));
    }
    while matches!(line.last(), Some(b'\n' | b'\r')) {
        line.pop();
    }
    Ok(Some(HeaderLine::Text(
        String::from_utf8_lossy(&line).into_owned(),
    )))
}

fn cut(s: &str) -> String {
    s.chars().take(80).collect()
}

/// What a body is: a message, or the error response it gets.
pub(crate) fn decode(body: &[u8]) -> Result<Message, Box<Response>> {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return Err(Box::new(error_response(
                None,
                ErrorCode::ParseError as i32,
                format!("the message is not JSON: {e}"),
            )))
        }
    };
    let id = value
        .get("id")
        .cloned()
        .and_then(|id| serde_json::from_value::<RequestId>(id).ok());
    serde_json::from_value::<Message>(value).map_err(|e| {
        Box::new(error_response(
            id,
            ErrorCode::InvalidRequest as i32,
            format!("the message is not a JSON-RPC request, notification or response: {e}"),
        ))
    })
}

/// An error response to `id`, or to JSON-RPC's `null` id when the message's id cannot be read.
fn error_response(id: Option<RequestId>, code: i32, message: String) -> Response {
    Response::new_err(id.unwrap_or_else(null_id), code, message)
}

/// The id that stands for JSON-RPC's `null` in what we write: `lsp-server` has no null id, so
/// the writer spells this one out as `null`.
fn null_id() -> RequestId {
    RequestId::from("\u{0}null".to_owned())
}

/// Threads that read and write standard input and output.
pub(crate) struct IoThreads {
    reader: thread::JoinHandle<io::Result<()>>,
    writer: thread::JoinHandle<io::Result<()>>,
    /// Dropped to tell the writer that the server is done: the reader may still hold a sender
    /// (for its error responses) while it waits on an input the editor keeps open.
    stop: Sender<()>,
}

impl IoThreads {
    /// Waits for the writer to send everything queued; the reader may still be blocked on an
    /// input the editor keeps open, and is left to the process's end.
    pub(crate) fn join(self) -> io::Result<()> {
        drop(self.stop);
        let written = self.writer.join().unwrap_or(Ok(()));
        if self.reader.is_finished() {
            self.reader.join().unwrap_or(Ok(()))?;
        }
        written
    }
}

/// A connection over standard input and output whose messages are at most `limit` bytes.
pub(crate) fn stdio(limit: usize) -> (Connection, IoThreads) {
    let (to_writer, from_server) = crossbeam_channel::unbounded::<Message>();
    let (to_server, from_reader) = crossbeam_channel::bounded::<Message>(0);
    let errors = to_writer.clone();
    let (stop, stopped) = crossbeam_channel::bounded::<()>(0);
    let writer = thread::Builder::new()
        .name("lsp-writer".into())
        .spawn(move || write_loop(&from_server, &stopped, &mut io::stdout().lock()))
        .expect("a thread for the editor's output");
    let reader = thread::Builder::new()
        .name("lsp-reader".into())
        .spawn(move || read_loop(&mut io::stdin().lock(), limit, &to_server, &errors))
        .expect("a thread for the editor's input");
    (
        Connection {
            sender: to_writer,
            receiver: from_reader,
        },
        IoThreads {
            reader,
            writer,
            stop,
        },
    )
}

/// Reads frames until the input ends, handing messages to the server and answering the rest.
pub(crate) fn read_loop(
    r: &mut impl BufRead,
    limit: usize,
    server: &Sender<Message>,
    errors: &Sender<Message>,
) -> io::Result<()> {
    let warn = |text: String| {
        use lsp_types::notification::{Notification as _, ShowMessage};
        let _ = errors.send(
            Notification::new(
                ShowMessage::METHOD.to_owned(),
                lsp_types::ShowMessageParams {
                    typ: lsp_types::MessageType::ERROR,
                    message: format!("mcpdesc: {text}"),
                },
            )
            .into(),
        );
    };
    while let Some(frame) = read_frame(r, limit)? {
        match frame {
            Frame::Body(body) => match decode(&body) {
                Ok(msg) => {
                    if server.send(msg).is_err() {
                        return Ok(());
                    }
                }
                Err(response) => {
                    let _ = errors.send((*response).into());
                }
            },
            Frame::BadHeaders(why) => warn(format!("a message was skipped: {why}")),
            Frame::TooLarge { announced, limit } => {
                warn(format!(
                    "a message of {announced} bytes is skipped: messages are limited to {limit} bytes \
                     (the limit on documents, --max-input-bytes)"
                ));
                if !skip_body(r, announced)? {
                    return Ok(());
                }
            }
        }
    }
    Ok(())
}

fn write_loop(
    messages: &Receiver<Message>,
    stopped: &Receiver<()>,
    out: &mut impl Write,
) -> io::Result<()> {
    loop {
        let msg = crossbeam_channel::select! {
            recv(messages) -> msg => match msg {
                Ok(msg) => msg,
                Err(_) => return Ok(()),
            },
            recv(stopped) -> _ => {
                for msg in messages.try_iter() {
                    write_message(msg, out)?;
                }
                return Ok(());
            }
        };
        write_message(msg, out)?;
    }
}

fn write_message(msg: Message, out: &mut impl Write) -> io::Result<()> {
    #[derive(serde::Serialize)]
    struct JsonRpc<'a> {
        jsonrpc: &'static str,
        #[serde(flatten)]
        msg: &'a Message,
    }
    let body = match &msg {
        Message::Response(r) if r.id == null_id() => {
            let mut value = serde_json::to_value(&msg).map_err(io::Error::other)?;
            value["id"] = Value::Null;
            value["jsonrpc"] = Value::from("2.0");
            serde_json::to_vec(&value)
        }
        _ => serde_json::to_vec(&JsonRpc {
            jsonrpc: "2.0",
            msg: &msg,
        }),
    }
    .map_err(io::Error::other)?;
    write!(out, "Content-Length: {}\r\n\r\n", body.len())?;
    out.write_all(&body)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8], limit: usize) -> Vec<Frame> {
        let mut r = io::BufReader::with_capacity(7, input);
        let mut out = Vec::new();
        while let Some(f) = read_frame(&mut r, limit).unwrap() {
            if let Frame::TooLarge { announced, .. } = f {
                if !skip_body(&mut r, announced).unwrap() {
                    out.push(f);
                    break;
                }
            }
            out.push(f);
        }
        out
    }

    #[test]
    fn reads_what_is_announced_and_skips_what_is_too_large() {
        let input = b"Content-Length: 2\r\n\r\n{}Content-Length: 9223372036854775807\r\n\r\n";
        assert_eq!(
            frames(input, 100),
            [
                Frame::Body(b"{}".to_vec()),
                Frame::TooLarge {
                    announced: 9223372036854775807,
                    limit: 100
                }
            ]
        );
        let input = b"Content-Length: 12\r\n\r\n{\"a\":\"bcde\"}content-length:2\n\n[]";
        assert_eq!(
            frames(input, 5),
            [
                Frame::TooLarge {
                    announced: 12,
                    limit: 5
                },
                Frame::Body(b"[]".to_vec())
            ]
        );
    }

    #[test]
    fn bad_headers_are_skipped_up_to_their_blank_line() {
        let long = format!("X-Long: {}\r\n", "a".repeat(20_000));
        let input = format!(
            "Content-Length: x\r\n\r\nnonsense\r\n\r\n{long}Content-Length: 2\r\n\r\nContent-Length: 2\r\n\r\n{{}}"
        );
        let got = frames(input.as_bytes(), 100);
        assert_eq!(got.len(), 4, "{got:?}");
        assert!(matches!(&got[0], Frame::BadHeaders(m) if m.contains("is not a length")));
        assert!(matches!(&got[1], Frame::BadHeaders(m) if m.contains("malformed header")));
        assert!(matches!(&got[2], Frame::BadHeaders(m) if m.contains("longer than")));
        assert_eq!(got[3], Frame::Body(b"{}".to_vec()));
    }

    #[test]
    fn a_body_cut_short_ends_the_input() {
        assert_eq!(frames(b"Content-Length: 10\r\n\r\n{}", 100), []);
        assert_eq!(frames(b"Content-Length: 10", 100), []);
    }

    #[test]
    fn malformed_bodies_get_error_responses() {
        let e = decode(b"{not json").unwrap_err();
        assert_eq!(
            e.response_result.unwrap_err().code,
            ErrorCode::ParseError as i32
        );
        assert_eq!(e.id, null_id());
        let e = decode(br#"{"jsonrpc":"2.0","id":7,"method":3}"#).unwrap_err();
        assert_eq!(
            e.response_result.unwrap_err().code,
            ErrorCode::InvalidRequest as i32
        );
        assert_eq!(e.id, RequestId::from(7));
        assert!(decode(br#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#).is_ok());
    }
}
