//! The messages of a `text/event-stream` body as it passes: each event's `data`, handed
//! to the checker once the blank line that ends the event has arrived.

use crate::tap_pump::{Dir, Shared};

/// Splits an event stream, fed in pieces of any size, into events.
#[derive(Debug)]
pub(crate) struct Events {
    max: usize,
    line: Vec<u8>,
    /// The bytes of the line past `max`, which are not kept.
    line_over: usize,
    data: Vec<u8>,
    has_data: bool,
    /// The bytes of the event's data when past `max` (`data` then keeps its head).
    data_over: Option<usize>,
}

impl Events {
    pub(crate) fn new(max: usize) -> Events {
        Events {
            max,
            line: Vec::new(),
            line_over: 0,
            data: Vec::new(),
            has_data: false,
            data_over: None,
        }
    }

    pub(crate) fn feed(&mut self, mut bytes: &[u8], shared: &Shared) {
        while !bytes.is_empty() {
            let (part, rest, ends) = match memchr::memchr(b'\n', bytes) {
                Some(i) => (&bytes[..i], &bytes[i + 1..], true),
                None => (bytes, &[][..], false),
            };
            // `data: ` and the line break come on top of the longest data kept.
            let room = (self.max + 16).saturating_sub(self.line.len());
            let keep = part.len().min(room);
            self.line.extend_from_slice(&part[..keep]);
            self.line_over += part.len() - keep;
            if ends {
                self.end_line(shared);
            }
            bytes = rest;
        }
    }

    fn end_line(&mut self, shared: &Shared) {
        let line = std::mem::take(&mut self.line);
        let over = std::mem::take(&mut self.line_over);
        let line = line.strip_suffix(b"\r").unwrap_or(&line);
        if line.is_empty() {
            self.dispatch(shared);
            return;
        }
        let Some(value) = line.strip_prefix(b"data") else {
            return;
        };
        let value = match value {
            [b':', b' ', rest @ ..] => rest,
            [b':', rest @ ..] => rest,
            [] => value,
            // Another field whose name starts with `data`.
            _ => return,
        };
        let added = usize::from(self.has_data) + value.len() + over;
        match &mut self.data_over {
            Some(n) => *n += added,
            None if self.data.len() + added > self.max => {
                self.data_over = Some(self.data.len() + added);
            }
            None => {
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(value);
            }
        }
        self.has_data = true;
    }

    fn dispatch(&mut self, shared: &Shared) {
        if self.has_data {
            match self.data_over.take() {
                Some(n) => shared.too_large(Dir::S2c, n, &self.data),
                None => shared.offer(Dir::S2c, &self.data, self.max),
            }
        }
        self.data.clear();
        self.has_data = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tap_pump::Event;
    use std::sync::atomic::AtomicUsize;
    use std::sync::{mpsc, Mutex};

    fn records(input: &[&[u8]], max: usize) -> Vec<String> {
        let (tx, rx) = mpsc::sync_channel(16);
        let shared = Shared {
            tx,
            in_flight: AtomicUsize::new(0),
            budget: 1 << 20,
            dropped: AtomicUsize::new(0),
            record: None,
            seq: Mutex::new(0),
        };
        let mut events = Events::new(max);
        for piece in input {
            events.feed(piece, &shared);
        }
        rx.try_iter()
            .map(|e| match e {
                Event::Record { record, .. } => record,
                Event::TooLarge { bytes, .. } => format!("too large {bytes}"),
                Event::End => "end".to_owned(),
            })
            .collect()
    }

    #[test]
    fn events_split_across_pieces_give_their_data() {
        let got = records(
            &[
                b"event: message\r\nid: 1\r\ndata: {\"a\"",
                b":1}\r\n\r\n: a comment\n\ndata:{\n",
                b"data: \"b\":2}\n\n",
            ],
            100,
        );
        assert_eq!(
            got,
            [
                r#"{"dir":"s2c","msg":{"a":1}}"#,
                r#"{"dir":"s2c","msg":{ "b":2}}"#
            ]
        );
    }

    #[test]
    fn data_past_the_limit_is_reported_by_its_size() {
        let long = [b"data: ".as_slice(), &[b'x'; 300], b"\n\n"].concat();
        assert_eq!(
            records(&[&long, b"data: {}\n\n"], 100),
            ["too large 300", r#"{"dir":"s2c","msg":{}}"#]
        );
    }
}
