//! Traffic captures: the framing layer of a recorded message exchange.
//!
//! A capture is newline-delimited JSON (one message per line, as a stdio transport frames
//! them), a JSON array of messages, or one message. Each line may be a bare message or a
//! record `{"dir": "c2s" | "s2c", "msg": {...}}` saying which way it went; a record
//! `{"dir": ..., "raw": "..."}` keeps a line that was not JSON. The result is a document
//!
//! ```text
//! {"messages": [{"line": 3, "dir": "c2s", "msg": {...}},
//!               {"line": 4, "framing": "not-json", "detail": "...", "text": "..."}]}
//! ```
//!
//! in which every message keeps the positions of its source line. A line (or `msg`) holding
//! an array is a JSON-RPC batch: each of its messages is an entry, marked
//! `"batch": {"index": i, "size": n}`. Framing problems never
//! abort the load: they become entries with a `framing` code, so that rules report them
//! with line numbers and every other message is still judged.

use serde_json::Number;

use super::tree::lines::{Breaks, Cursor, LineIndex};
use super::tree::{to_u32, Builder, Positions, Tree};
use super::{json, Limits, LoadError, LoadErrorKind, Position};
use crate::sink::Sink;

/// The member of a capture document holding its entries.
pub const MESSAGES: &str = "messages";

/// Lines joined at most when looking for a message broken over several lines.
const MAX_JOINED_LINES: usize = 64;

/// Longest excerpt of an unreadable line kept in its entry.
const EXCERPT_CHARS: usize = 120;

/// A value read from a slice of the capture: `node` in the builder, `nodes` the nodes its
/// reading made (for the capture's node limit).
#[derive(Clone, Copy)]
struct Read {
    node: u32,
    nodes: usize,
}

/// A member of an entry made by the reader rather than read.
enum Made {
    Line(u32),
    Text(String),
}

struct Reader<'t, 'l> {
    text: &'t str,
    limits: &'l Limits,
    b: Builder<'t>,
    nodes: u64,
    /// Entries of the message list so far.
    entries: u64,
}

/// Reads `text` as a capture. Every message is stored where it was read, with its source
/// positions; what the reader adds (the entries, their line numbers, directions and framing
/// codes) sits at the start of the entry's line.
pub(super) fn parse_tree<'t>(text: &'t str, limits: &Limits) -> Result<Tree<'t>, LoadError> {
    // About one node per ten bytes of compact JSON.
    let mut r = Reader {
        text,
        limits,
        b: Builder::new(text, text.len() / 10),
        nodes: 0,
        entries: 0,
    };
    // A capture that is one JSON value is the array form, or one message (pretty-printed,
    // perhaps): neither is framed line by line. Newline-delimited text fails this read at its
    // second message.
    let whole = if text.trim_start().starts_with(['[', '{']) {
        r.read(0, text)
    } else {
        None
    };
    let elements: Option<Vec<u32>> =
        whole.and_then(|w| r.b.array_elements(w.node).map(<[u32]>::to_vec));
    let root = r.b.open(0, true);
    r.b.key(MESSAGES, 0);
    let messages = r.b.open(0, false);
    match (whole, elements) {
        (Some(w), Some(items)) => {
            let index = LineIndex::new(Breaks::Newline);
            let mut cursor = Cursor::new();
            // The nodes are counted once, with the first message, not once per message.
            let mut nodes = w.nodes;
            for item in items {
                let line = cursor.position(&index, text, r.b.pos_of(item)).line;
                let start = line_start(text, r.b.pos_of(item));
                r.message_or_batch(item, None, std::mem::take(&mut nodes), line, start, None)?;
            }
        }
        (Some(w), None) if r.b.object_members(w.node).is_some() => {
            let start = line_start(text, r.b.pos_of(w.node));
            let line = Cursor::new()
                .position(&LineIndex::new(Breaks::Newline), text, start)
                .line;
            r.record(w, line, start)?;
        }
        _ => r.lines()?,
    }
    r.b.close_array(messages);
    r.b.close_object(root);
    Ok(r.b.finish_as_reserved(Positions::Offsets(LineIndex::new(Breaks::Newline))))
}

/// The offset where the line holding `offset` starts.
fn line_start(text: &str, offset: u32) -> u32 {
    let before = text.get(..offset as usize).unwrap_or(text);
    before.rfind('\n').map_or(0, |i| to_u32(i + 1))
}

impl<'t> Reader<'t, '_> {
    /// Reads the JSON value `slice` (at `base` in the capture) into the builder; on failure
    /// nothing read is kept.
    fn read(&mut self, base: u32, slice: &str) -> Option<Read> {
        self.try_read(base, slice).ok()
    }

    fn try_read(&mut self, base: u32, slice: &str) -> Result<Read, LoadError> {
        let at = self.b.checkpoint();
        let before = self.b.node_count();
        let mut sink = Shifted {
            inner: &mut self.b,
            base,
        };
        match json::parse_into(slice, self.limits, &mut sink) {
            Ok(()) => {
                let nodes = self.b.node_count() - before;
                // The value stays on the builder's stack until its entry takes it.
                let node = self.b.take_last().unwrap_or(0);
                Ok(Read { node, nodes })
            }
            Err(e) => {
                self.b.rollback(at);
                Err(e)
            }
        }
    }

    fn lines(&mut self) -> Result<(), LoadError> {
        let text = self.text;
        let lines: Vec<&'t str> = text.split('\n').collect();
        let mut starts = Vec::with_capacity(lines.len());
        let mut offset = 0usize;
        for l in &lines {
            starts.push(to_u32(offset));
            offset += l.len() + 1;
        }
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i].strip_suffix('\r').unwrap_or(lines[i]);
            let number = i as u32 + 1;
            let start = starts[i];
            if line.trim().is_empty() {
                i += 1;
                continue;
            }
            match self.try_read(start, line) {
                Ok(read) => {
                    self.record(read, number, start)?;
                    i += 1;
                }
                Err(error) => {
                    if let Some((end, read)) = self.joined(&lines, &starts, i) {
                        let detail = format!(
                            "one message spans lines {number} to {}; a message is one line",
                            end + 1
                        );
                        self.plain(
                            vec![
                                ("line", Made::Line(number)),
                                ("framing", Made::Text("embedded-newline".into())),
                                ("detail", Made::Text(detail)),
                            ],
                            number,
                            start,
                        )?;
                        self.record(read, number, start)?;
                        i = end + 1;
                    } else {
                        self.unreadable(line, number, start, &error)?;
                        i += 1;
                    }
                }
            }
        }
        Ok(())
    }

    /// A message broken over lines `first..=end`, if joining them gives one.
    fn joined(&mut self, lines: &[&str], starts: &[u32], first: usize) -> Option<(usize, Read)> {
        if !lines[first].trim_start().starts_with(['{', '[']) {
            return None;
        }
        let from = starts[first] as usize;
        for end in (first + 1..lines.len()).take(MAX_JOINED_LINES) {
            // The lines with the newlines between them: the capture's own text.
            let to = starts[end] as usize + lines[end].len();
            let slice = self.text.get(from..to)?;
            if let Some(read) = self.read(starts[first], slice) {
                return Some((end, read));
            }
        }
        None
    }

    fn unreadable(
        &mut self,
        line: &str,
        number: u32,
        start: u32,
        error: &LoadError,
    ) -> Result<(), LoadError> {
        if let LoadErrorKind::Limit { .. } = error.kind {
            return Err(LoadError::new(
                error.kind.clone(),
                Position::new(number, error.position.column),
            ));
        }
        self.plain(
            vec![
                ("line", Made::Line(number)),
                ("framing", Made::Text("not-json".into())),
                ("detail", Made::Text(error.kind.to_string())),
                ("text", Made::Text(excerpt(line))),
            ],
            number,
            start,
        )
    }

    /// A line that parsed: a record with `dir` and `msg` (or `raw`), or a bare message.
    fn record(&mut self, read: Read, number: u32, start: u32) -> Result<(), LoadError> {
        let mut dir = None;
        let (mut msg, mut raw, mut jsonrpc) = (None, None, false);
        if let Some(members) = self.b.object_members(read.node) {
            for (key, key_pos, value) in members {
                match key {
                    "dir" => dir = Some(value),
                    "msg" => msg = Some((value, Some(key_pos))),
                    "raw" => raw = Some(value),
                    "jsonrpc" => jsonrpc = true,
                    _ => {}
                }
            }
        }
        if (msg.is_none() && raw.is_none()) || jsonrpc {
            return self.message_or_batch(read.node, None, read.nodes, number, start, None);
        }
        let dir = dir.and_then(|d| self.b.string_of(d)).map(str::to_owned);
        if let Some(raw) = raw.and_then(|r| self.b.string_of(r)).map(excerpt) {
            let mut entry = vec![("line", Made::Line(number))];
            if let Some(d) = dir {
                entry.push(("dir", Made::Text(d)));
            }
            entry.extend([
                ("framing", Made::Text("not-json".into())),
                (
                    "detail",
                    Made::Text("the stream carried a line that is not JSON".into()),
                ),
                ("text", Made::Text(raw)),
            ]);
            return self.plain(entry, number, start);
        }
        match msg {
            Some((node, key_pos)) => {
                self.message_or_batch(node, key_pos, read.nodes, number, start, dir)
            }
            None => self.message(None, read.nodes, number, start, dir, None),
        }
    }

    /// A message, or a JSON-RPC batch: an array of messages sent as one. Each message of a
    /// batch is an entry of its own (so that requests and responses pair up as they do
    /// alone), with `batch: {"index", "size"}` saying where it sat; whether the protocol
    /// version allows batches is for the rules to say. An empty array batches nothing: it
    /// is kept as a message that is not an object.
    fn message_or_batch(
        &mut self,
        node: u32,
        key_pos: Option<u32>,
        nodes: usize,
        line: u32,
        start: u32,
        dir: Option<String>,
    ) -> Result<(), LoadError> {
        let Some(items) = self.b.array_elements(node).map(<[u32]>::to_vec) else {
            return self.message(Some((node, key_pos)), nodes, line, start, dir, None);
        };
        if items.is_empty() {
            // Batches nothing: an array where a message should be.
            return self.message(Some((node, key_pos)), nodes, line, start, dir, None);
        }
        let size = items.len();
        // The batch's nodes are counted once, with its first message.
        let mut nodes = nodes;
        for (index, item) in items.into_iter().enumerate() {
            let batch = Some((index, size));
            let counted = std::mem::take(&mut nodes);
            // Each message's `msg` sits where the message starts in the batch.
            let at = Some(self.b.pos_of(item));
            self.message(Some((item, at)), counted, line, start, dir.clone(), batch)?;
        }
        Ok(())
    }

    /// An entry holding message `msg` (its node and the position of its key in a record; no
    /// node when a record has none) read from line `line`.
    fn message(
        &mut self,
        msg: Option<(u32, Option<u32>)>,
        nodes: usize,
        line: u32,
        start: u32,
        dir: Option<String>,
        batch: Option<(usize, usize)>,
    ) -> Result<(), LoadError> {
        self.count(nodes as u64 + if batch.is_some() { 6 } else { 3 }, line)?;
        self.entry(line)?;
        let b = &mut self.b;
        let entry = b.open(start, true);
        b.key("line", start);
        b.number(Number::from(line), start);
        if let Some(d) = dir {
            b.key("dir", start);
            b.string(&d, start);
        }
        if let Some((index, size)) = batch {
            b.key("batch", start);
            let place = b.open(start, true);
            b.key("index", start);
            b.number(Number::from(index), start);
            b.key("size", start);
            b.number(Number::from(size), start);
            b.close_object(place);
        }
        if !msg.is_some_and(|(node, _)| b.is_object(node)) {
            b.key("framing", start);
            b.string("not-an-object", start);
            b.key("detail", start);
            b.string("a JSON-RPC message is a JSON object", start);
        }
        match msg {
            Some((node, key_pos)) => {
                b.key("msg", key_pos.unwrap_or(start));
                b.adopt(node);
            }
            None => {
                b.key("msg", start);
                b.null(start);
            }
        }
        b.close_object(entry);
        Ok(())
    }

    /// An entry without a message: every member sits at the start of its line.
    fn plain(
        &mut self,
        members: Vec<(&str, Made)>,
        line: u32,
        start: u32,
    ) -> Result<(), LoadError> {
        self.count(members.len() as u64 + 1, line)?;
        self.entry(line)?;
        let b = &mut self.b;
        let entry = b.open(start, true);
        for (key, value) in members {
            b.key(key, start);
            match value {
                Made::Line(n) => b.number(Number::from(n), start),
                Made::Text(t) => b.string(&t, start),
            }
        }
        b.close_object(entry);
        Ok(())
    }

    /// Bounds the message list as any array is bounded: a capture is one collection of
    /// entries, however it is framed.
    fn entry(&mut self, line: u32) -> Result<(), LoadError> {
        if self.entries >= self.limits.max_collection_len {
            return Err(LoadError::new(
                LoadErrorKind::Limit {
                    limit: "max-collection-len",
                    value: self.limits.max_collection_len,
                },
                Position::new(line, 1),
            ));
        }
        self.entries += 1;
        Ok(())
    }

    /// Bounds the capture's node count as a whole, not only each line's.
    fn count(&mut self, nodes: u64, line: u32) -> Result<(), LoadError> {
        self.nodes += nodes;
        if self.nodes > self.limits.max_nodes {
            return Err(LoadError::new(
                LoadErrorKind::Limit {
                    limit: "max-nodes",
                    value: self.limits.max_nodes,
                },
                Position::new(line, 1),
            ));
        }
        Ok(())
    }
}

/// A sink that places what a loader reads from a slice of the capture at the slice's offset.
struct Shifted<'b, 't> {
    inner: &'b mut Builder<'t>,
    base: u32,
}

impl Sink for Shifted<'_, '_> {
    type Mark = <Builder<'static> as Sink>::Mark;

    fn null(&mut self, pos: u32) {
        self.inner.null(pos.saturating_add(self.base));
    }
    fn bool(&mut self, value: bool, pos: u32) {
        self.inner.bool(value, pos.saturating_add(self.base));
    }
    fn number(&mut self, value: Number, pos: u32) {
        self.inner.number(value, pos.saturating_add(self.base));
    }
    fn string(&mut self, value: &str, pos: u32) {
        self.inner.string(value, pos.saturating_add(self.base));
    }
    fn key(&mut self, key: &str, pos: u32) {
        self.inner.key(key, pos.saturating_add(self.base));
    }
    fn open(&mut self, pos: u32, object: bool) -> Self::Mark {
        self.inner.open(pos.saturating_add(self.base), object)
    }
    fn close_array(&mut self, mark: Self::Mark) {
        self.inner.close_array(mark);
    }
    fn close_object(&mut self, mark: Self::Mark) {
        self.inner.close_object(mark);
    }
    fn entries(&self, mark: Self::Mark) -> usize {
        self.inner.entries(mark)
    }
    fn keys(&self, mark: Self::Mark) -> impl Iterator<Item = &str> {
        self.inner.keys(mark)
    }
}

fn excerpt(text: &str) -> String {
    if text.chars().count() <= EXCERPT_CHARS {
        return text.to_owned();
    }
    let head: String = text.chars().take(EXCERPT_CHARS).collect();
    format!("{head}…")
}
