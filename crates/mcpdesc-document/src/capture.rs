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
//! in which every message keeps the positions of its source line. Framing problems never
//! abort the load: they become entries with a `framing` code, so that rules report them
//! with line numbers and every other message is still judged.

use serde_json::{Map, Value};

use super::spans::NodeId;
use super::{json, Limits, LoadError, LoadErrorKind, Position, SpanTree, SpanTreeBuilder};

/// The member of a capture document holding its entries.
pub const MESSAGES: &str = "messages";

/// Lines joined at most when looking for a message broken over several lines.
const MAX_JOINED_LINES: usize = 64;

/// Members an entry may end up with once annotated (`line`, `dir`, `msg`, `kind`, `method`,
/// `protocolVersions`, `request`, `answered`, `idInFlight`).
const ENTRY_MEMBERS: usize = 9;

/// Longest excerpt of an unreadable line kept in its entry.
const EXCERPT_CHARS: usize = 120;

struct Builder<'l> {
    limits: &'l Limits,
    spans: SpanTreeBuilder,
    entries: Vec<Value>,
    entry_ids: Vec<NodeId>,
    nodes: u64,
}

/// One parsed message and where its positions are: node `node` of `spans`, whose lines are
/// `line_offset` lines above the capture's.
struct Parsed<'t> {
    value: Value,
    spans: &'t SpanTree,
    node: Option<NodeId>,
    line_offset: u32,
}

pub(super) fn parse(text: &str, limits: &Limits) -> Result<(Value, SpanTree), LoadError> {
    // About one node per ten bytes of compact JSON; a close first guess spares copying a
    // tree of millions of nodes as it grows.
    let mut b = Builder {
        limits,
        spans: SpanTreeBuilder::with_capacity(text.len() / 10),
        entries: Vec::new(),
        entry_ids: Vec::new(),
        nodes: 0,
    };
    let trimmed = text.trim_start();
    let whole = if trimmed.starts_with('[') {
        json::parse(text, limits).ok()
    } else {
        None
    };
    match whole {
        Some((Value::Array(items), spans)) => {
            for (i, item) in items.into_iter().enumerate() {
                let Some(node) = spans.child_of(0, i) else {
                    continue;
                };
                let line = spans.node_position(node).line;
                b.message(
                    Parsed {
                        value: item,
                        spans: &spans,
                        node: Some(node),
                        line_offset: 0,
                    },
                    line,
                    None,
                )?;
            }
        }
        _ => b.lines(text)?,
    }
    let root = b.spans.node(Position::START, Position::UNKNOWN);
    let messages = b.spans.node(Position::START, Position::START);
    b.spans.set_children(messages, &b.entry_ids);
    b.spans.set_children(root, &[messages]);
    let mut map = Map::new();
    map.insert(MESSAGES.to_owned(), Value::Array(b.entries));
    Ok((Value::Object(map), b.spans.finish(root)))
}

impl Builder<'_> {
    fn lines(&mut self, text: &str) -> Result<(), LoadError> {
        let lines: Vec<&str> = text.split('\n').collect();
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i].strip_suffix('\r').unwrap_or(lines[i]);
            let number = i as u32 + 1;
            if line.trim().is_empty() {
                i += 1;
                continue;
            }
            match json::parse(line, self.limits) {
                Ok((value, spans)) => {
                    self.record(value, spans, number)?;
                    i += 1;
                }
                Err(error) => {
                    if let Some((end, value, spans)) = self.joined(&lines, i) {
                        let mut entry = Map::new();
                        entry.insert("line".to_owned(), Value::from(number));
                        entry.insert("framing".to_owned(), "embedded-newline".into());
                        entry.insert(
                            "detail".to_owned(),
                            format!(
                                "one message spans lines {number} to {}; a message is one line",
                                end + 1
                            )
                            .into(),
                        );
                        self.plain(entry, number)?;
                        self.record(value, spans, number)?;
                        i = end + 1;
                    } else {
                        self.unreadable(line, number, &error)?;
                        i += 1;
                    }
                }
            }
        }
        Ok(())
    }

    /// A message broken over lines `start..=end`, if joining them gives one.
    fn joined(&self, lines: &[&str], start: usize) -> Option<(usize, Value, SpanTree)> {
        if !lines[start].trim_start().starts_with(['{', '[']) {
            return None;
        }
        let mut text = String::from(lines[start]);
        for (end, next) in lines
            .iter()
            .enumerate()
            .skip(start + 1)
            .take(MAX_JOINED_LINES)
        {
            text.push('\n');
            text.push_str(next);
            if let Ok((value, spans)) = json::parse(&text, self.limits) {
                return Some((end, value, spans));
            }
        }
        None
    }

    fn unreadable(&mut self, line: &str, number: u32, error: &LoadError) -> Result<(), LoadError> {
        if let LoadErrorKind::Limit { .. } = error.kind {
            return Err(LoadError::new(
                error.kind.clone(),
                Position::new(number, error.position.column),
            ));
        }
        let mut entry = Map::new();
        entry.insert("line".to_owned(), Value::from(number));
        entry.insert("framing".to_owned(), "not-json".into());
        entry.insert("detail".to_owned(), error.kind.to_string().into());
        entry.insert("text".to_owned(), excerpt(line).into());
        self.plain(entry, number)
    }

    /// A line that parsed: a record with `dir` and `msg` (or `raw`), or a bare message.
    fn record(&mut self, value: Value, spans: SpanTree, number: u32) -> Result<(), LoadError> {
        let is_record = value.as_object().is_some_and(|o| {
            (o.contains_key("msg") || o.contains_key("raw")) && !o.contains_key("jsonrpc")
        });
        if !is_record {
            return self.message(
                Parsed {
                    value,
                    spans: &spans,
                    node: Some(0),
                    line_offset: number - 1,
                },
                number,
                None,
            );
        }
        let Value::Object(mut record) = value else {
            return Ok(());
        };
        let dir = record.get("dir").and_then(Value::as_str).map(str::to_owned);
        if let Some(Value::String(raw)) = record.get("raw") {
            let mut entry = Map::new();
            entry.insert("line".to_owned(), Value::from(number));
            if let Some(d) = &dir {
                entry.insert("dir".to_owned(), d.clone().into());
            }
            entry.insert("framing".to_owned(), "not-json".into());
            entry.insert(
                "detail".to_owned(),
                "the stream carried a line that is not JSON".into(),
            );
            entry.insert("text".to_owned(), excerpt(raw).into());
            return self.plain(entry, number);
        }
        let index = record.keys().position(|k| k == "msg");
        let msg = record.shift_remove("msg").unwrap_or(Value::Null);
        let node = index.and_then(|i| spans.child_of(0, i));
        self.message(
            Parsed {
                value: msg,
                spans: &spans,
                node,
                line_offset: number - 1,
            },
            number,
            dir,
        )
    }

    fn message(&mut self, m: Parsed<'_>, line: u32, dir: Option<String>) -> Result<(), LoadError> {
        self.count(m.spans.len() as u64 + 3, line)?;
        let start = Position::new(line, 1);
        let entry_id = self.spans.node(start, Position::UNKNOWN);
        let line_id = self.spans.node(start, start);
        let mut children = vec![line_id];
        // Room for the members the traffic annotation appends.
        let mut entry = Map::with_capacity(ENTRY_MEMBERS);
        entry.insert("line".to_owned(), Value::from(line));
        if let Some(d) = dir {
            children.push(self.spans.node(start, start));
            entry.insert("dir".to_owned(), d.into());
        }
        if !m.value.is_object() {
            children.push(self.spans.node(start, start));
            entry.insert("framing".to_owned(), "not-an-object".into());
            entry.insert(
                "detail".to_owned(),
                "a JSON-RPC message is a JSON object".into(),
            );
            children.push(self.spans.node(start, start));
        }
        let msg_id = match m.node {
            Some(node) if !m.spans.is_empty() => {
                self.spans.graft(m.spans, node, m.line_offset, start)
            }
            _ => self.spans.node(start, start),
        };
        children.push(msg_id);
        entry.insert("msg".to_owned(), m.value);
        self.spans.set_children(entry_id, &children);
        self.entries.push(Value::Object(entry));
        self.entry_ids.push(entry_id);
        Ok(())
    }

    /// An entry without a message: every member sits at the start of its line.
    fn plain(&mut self, entry: Map<String, Value>, line: u32) -> Result<(), LoadError> {
        self.count(entry.len() as u64 + 1, line)?;
        let start = Position::new(line, 1);
        let id = self.spans.node(start, Position::UNKNOWN);
        let children: Vec<NodeId> = entry
            .iter()
            .map(|_| self.spans.node(start, start))
            .collect();
        self.spans.set_children(id, &children);
        self.entries.push(Value::Object(entry));
        self.entry_ids.push(id);
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

fn excerpt(text: &str) -> String {
    if text.chars().count() <= EXCERPT_CHARS {
        return text.to_owned();
    }
    let head: String = text.chars().take(EXCERPT_CHARS).collect();
    format!("{head}…")
}
