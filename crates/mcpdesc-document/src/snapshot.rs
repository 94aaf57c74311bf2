//! A compact binary form of a parsed [`ValueDocument`], positions included.
//!
//! Files that ship inside a binary (the default rule catalogue) are parsed once at build time
//! and stored in this form, so loading them costs a JSON decode instead of a YAML parse while
//! every position still points into the original source.
//!
//! Layout (all integers little-endian `u32`): the magic bytes, the format, the node count,
//! six integers per node (value line and column, key line and column, first child, child
//! count), the child-list length and the child list, then the value in a tagged binary form
//! (a tag byte per value; strings, arrays and objects prefixed by their length), which decodes
//! several times faster than JSON text.

use serde_json::Value;

use super::spans::{SpanNode, SpanTree};
use super::{Format, Position, ValueDocument};

const MAGIC: &[u8; 8] = b"MCPDSNP2";

impl ValueDocument {
    /// The snapshot of this document, for [`ValueDocument::from_snapshot`].
    pub fn to_snapshot(&self) -> Vec<u8> {
        let spans = self.spans();
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        let format = match self.format() {
            Format::Json => 0u32,
            Format::Yaml => 1,
            Format::Capture => 2,
        };
        let put = |out: &mut Vec<u8>, n: u32| out.extend_from_slice(&n.to_le_bytes());
        put(&mut out, format);
        put(&mut out, spans.nodes.len() as u32);
        for n in &spans.nodes {
            for v in [
                n.value.line,
                n.value.column,
                n.key.line,
                n.key.column,
                n.first_child,
                n.child_count,
            ] {
                put(&mut out, v);
            }
        }
        put(&mut out, spans.children.len() as u32);
        for &c in &spans.children {
            put(&mut out, c);
        }
        write_value(&mut out, self.value());
        out
    }

    /// Decodes a snapshot made by [`ValueDocument::to_snapshot`]; `None` when `bytes` is not one
    /// (wrong magic, truncated, or child links out of range).
    pub fn from_snapshot(bytes: &[u8]) -> Option<ValueDocument> {
        let mut reader = Reader(bytes.strip_prefix(MAGIC.as_slice())?);
        let format = match reader.u32()? {
            0 => Format::Json,
            1 => Format::Yaml,
            2 => Format::Capture,
            _ => return None,
        };
        let count = reader.u32()? as usize;
        // Each node takes 24 bytes, so a count the input cannot hold is refused before
        // anything is allocated.
        if count > reader.0.len() / 24 {
            return None;
        }
        let mut nodes = Vec::with_capacity(count);
        for _ in 0..count {
            nodes.push(SpanNode {
                value: Position::new(reader.u32()?, reader.u32()?),
                key: Position::new(reader.u32()?, reader.u32()?),
                first_child: reader.u32()?,
                child_count: reader.u32()?,
            });
        }
        let child_count = reader.u32()? as usize;
        if child_count > reader.0.len() / 4 {
            return None;
        }
        let children = (0..child_count)
            .map(|_| reader.u32())
            .collect::<Option<Vec<u32>>>()?;
        let links_ok = nodes.iter().all(|n| {
            (n.first_child as usize).saturating_add(n.child_count as usize) <= children.len()
        }) && children.iter().all(|&c| (c as usize) < nodes.len());
        if !links_ok {
            return None;
        }
        let value = reader.value(0)?;
        if !reader.0.is_empty() {
            return None;
        }
        Some(ValueDocument::from_parts(
            value,
            SpanTree { nodes, children },
            format,
        ))
    }
}

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const U64: u8 = 3;
const I64: u8 = 4;
const F64: u8 = 5;
const STRING: u8 = 6;
const ARRAY: u8 = 7;
const OBJECT: u8 = 8;

/// Deeper than any document the loaders accept, so decoding a damaged snapshot cannot
/// overflow the stack.
const MAX_DEPTH: usize = 1024;

fn write_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn write_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.push(NULL),
        Value::Bool(false) => out.push(FALSE),
        Value::Bool(true) => out.push(TRUE),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                out.push(U64);
                out.extend_from_slice(&u.to_le_bytes());
            } else if let Some(i) = n.as_i64() {
                out.push(I64);
                out.extend_from_slice(&i.to_le_bytes());
            } else {
                out.push(F64);
                out.extend_from_slice(&n.as_f64().unwrap_or(0.0).to_le_bytes());
            }
        }
        Value::String(s) => {
            out.push(STRING);
            write_str(out, s);
        }
        Value::Array(items) => {
            out.push(ARRAY);
            out.extend_from_slice(&(items.len() as u32).to_le_bytes());
            for item in items {
                write_value(out, item);
            }
        }
        Value::Object(map) => {
            out.push(OBJECT);
            out.extend_from_slice(&(map.len() as u32).to_le_bytes());
            for (k, item) in map {
                write_str(out, k);
                write_value(out, item);
            }
        }
    }
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn u32(&mut self) -> Option<u32> {
        let (head, rest) = self.0.split_first_chunk::<4>()?;
        self.0 = rest;
        Some(u32::from_le_bytes(*head))
    }

    fn u64(&mut self) -> Option<[u8; 8]> {
        let (head, rest) = self.0.split_first_chunk::<8>()?;
        self.0 = rest;
        Some(*head)
    }

    fn string(&mut self) -> Option<String> {
        let len = self.u32()? as usize;
        if len > self.0.len() {
            return None;
        }
        let (bytes, rest) = self.0.split_at(len);
        self.0 = rest;
        std::str::from_utf8(bytes).ok().map(str::to_owned)
    }

    /// A length that the remaining input can hold (each item takes at least one byte).
    fn count(&mut self) -> Option<usize> {
        let n = self.u32()? as usize;
        (n <= self.0.len()).then_some(n)
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        let (&tag, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(match tag {
            NULL => Value::Null,
            FALSE => Value::Bool(false),
            TRUE => Value::Bool(true),
            U64 => Value::from(u64::from_le_bytes(self.u64()?)),
            I64 => Value::from(i64::from_le_bytes(self.u64()?)),
            F64 => Value::from(serde_json::Number::from_f64(f64::from_le_bytes(
                self.u64()?,
            ))?),
            STRING => Value::String(self.string()?),
            ARRAY => {
                let n = self.count()?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.value(depth + 1)?);
                }
                Value::Array(items)
            }
            OBJECT => {
                let n = self.count()?;
                let mut map = serde_json::Map::with_capacity(n);
                for _ in 0..n {
                    let key = self.string()?;
                    map.insert(key, self.value(depth + 1)?);
                }
                Value::Object(map)
            }
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Limits;

    #[test]
    fn round_trip_keeps_values_and_positions() {
        let text = "a: 1\nb:\n  - x\n  - {c: 2.5, d: null}\n'e': \"f\"\n";
        let doc = ValueDocument::parse_str(text, Format::Yaml, &Limits::default()).unwrap();
        let back = ValueDocument::from_snapshot(&doc.to_snapshot()).unwrap();
        assert_eq!(back.value(), doc.value());
        assert_eq!(back.format(), Format::Yaml);
        for ptr in ["", "/a", "/b", "/b/1", "/b/1/c", "/b/1/d", "/e", "/missing"] {
            assert_eq!(back.position(ptr), doc.position(ptr), "{ptr}");
            assert_eq!(
                back.spans().key_position(back.value(), ptr),
                doc.spans().key_position(doc.value(), ptr),
                "{ptr}"
            );
        }
    }

    #[test]
    fn damaged_snapshots_are_refused() {
        let doc = ValueDocument::parse_str("a: [1, 2]", Format::Yaml, &Limits::default()).unwrap();
        let snap = doc.to_snapshot();
        for cut in 0..snap.len() {
            let _ = ValueDocument::from_snapshot(&snap[..cut]);
        }
        assert!(ValueDocument::from_snapshot(b"not a snapshot").is_none());
        let mut bad_link = snap.clone();
        // The first node's first-child field.
        bad_link[8 + 8 + 16..8 + 8 + 20].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(ValueDocument::from_snapshot(&bad_link).is_none());
    }
}
