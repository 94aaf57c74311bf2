//! `mcpdesc tap --description FILE`: what the server said in the session, lined up with a
//! description at its end as `check-server` lines it up. Only lists the client read whole
//! (from the first page to the last) are compared, since a list seen in part would only
//! yield findings about the part not seen.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{bail, Context as _, Result};
use mcpdesc_core::{Document, Engine, Format};
use mcpdesc_live::compare::{self, Description};
use mcpdesc_live::{LiveDef, ServerReport};
use serde_json::Value;

use crate::render::FileResult;

/// List requests awaiting their answer, at most.
const LIST_REQUESTS: usize = 1024;
/// Bytes of list entries kept for the comparison, at most; past it the lists still being
/// read are given up.
const LIST_BYTES: usize = 32 * 1024 * 1024;

/// A description read and found comparable before the traffic starts.
pub(crate) struct Described {
    pub path: String,
    text: String,
    format: Format,
    live: LiveDef,
}

impl Described {
    pub(crate) fn load(engine: &Engine, path: &Path) -> Result<Described> {
        let display = path.display().to_string();
        let format = match Format::from_path(&display) {
            // A description is never a capture, whatever its name.
            Format::Capture => Format::Json,
            other => other,
        };
        let limits = engine.limits().clone();
        let bytes = crate::inputs::read_document(path, limits.max_input_bytes)
            .with_context(|| format!("cannot read {display}"))?;
        let text = mcpdesc_project::findings::source_text(bytes);
        let doc = Document::parse_str(&text, format, &limits)
            .map_err(|e| anyhow::anyhow!("cannot read {display}: {e}"))?;
        let cat = engine.catalogue_for(doc.root());
        let Some(live) = cat.def.live.clone() else {
            bail!("the catalogue has no `live` section: it does not say how to compare a server");
        };
        drop(doc);
        Ok(Described {
            path: display,
            text,
            format,
            live,
        })
    }

    pub(crate) fn session(&self) -> Session {
        Session {
            live: self.live.clone(),
            initialize: None,
            result: None,
            requests: HashMap::new(),
            reading: HashMap::new(),
            read: HashMap::new(),
            bytes: 0,
        }
    }

    /// The description's findings against what `session` saw.
    pub(crate) fn compare(&self, engine: &Engine, session: &Session) -> Result<FileResult, String> {
        let Some(report) = session.report() else {
            return Err("the session had no initialize exchange".to_owned());
        };
        let limits = engine.limits().clone();
        let doc =
            Document::parse_str(&self.text, self.format, &limits).map_err(|e| e.to_string())?;
        let cat = engine.catalogue_for(doc.root());
        let resolved = cat.resolve_references(doc.root(), &limits);
        let reports = crate::check_cmd::projected(engine, &self.live, vec![report]);
        let mut diagnostics = compare::compare(
            cat,
            &self.live,
            &Description {
                doc: &doc,
                resolved: &resolved,
            },
            &reports,
        );
        diagnostics.sort_by(|a, b| (a.line, a.column, &a.rule).cmp(&(b.line, b.column, &b.rule)));
        Ok(FileResult {
            path: self.path.clone(),
            source: Some(self.text.clone()),
            diagnostics,
            load_error: None,
            io_error: false,
            suppressed: 0,
            baselined: 0,
            release: None,
        })
    }
}

/// What the server said that a description declares: its handshake answer and the lists
/// the client read whole.
#[derive(Debug)]
pub(crate) struct Session {
    live: LiveDef,
    initialize: Option<String>,
    result: Option<Value>,
    /// Unanswered list requests: their list, and whether they asked for the first page.
    requests: HashMap<String, (usize, bool)>,
    /// Per list, the entries read so far from its first page on.
    reading: HashMap<usize, Vec<Value>>,
    /// Per list, the entries of its latest reading from first to last page.
    read: HashMap<usize, Vec<Value>>,
    bytes: usize,
}

impl Session {
    /// Takes note of one capture record.
    pub(crate) fn see(&mut self, record: &str) {
        let bytes = record.len();
        let Ok(record) = serde_json::from_str::<Value>(record) else {
            return;
        };
        let Some(msg) = record.get("msg") else {
            return;
        };
        let Some(id) = msg.get("id").map(ToString::to_string) else {
            return;
        };
        let from_client = record.get("dir").and_then(Value::as_str) == Some("c2s");
        match (from_client, msg.get("method").and_then(Value::as_str)) {
            (true, Some(method)) if method == self.live.handshake.method => {
                self.initialize = Some(id);
            }
            (true, Some(method)) => {
                let Some(list) = self.live.lists.iter().position(|l| l.method == method) else {
                    return;
                };
                let first = msg
                    .get("params")
                    .and_then(|p| p.get(&self.live.cursor.param))
                    .is_none();
                if self.requests.len() >= LIST_REQUESTS {
                    self.requests.clear();
                }
                self.requests.insert(id, (list, first));
            }
            (false, None) => self.answer(&id, msg, bytes),
            _ => {}
        }
    }

    fn answer(&mut self, id: &str, msg: &Value, bytes: usize) {
        let Some(result) = msg.get("result") else {
            return;
        };
        if self.initialize.as_deref() == Some(id) {
            self.result = Some(result.clone());
            return;
        }
        let Some((list, first)) = self.requests.remove(id) else {
            return;
        };
        let def = &self.live.lists[list];
        if first {
            self.reading.insert(list, Vec::new());
        }
        if self.bytes + bytes > LIST_BYTES {
            self.reading.clear();
            self.bytes = 0;
            return;
        }
        let Some(entries) = self.reading.get_mut(&list) else {
            return;
        };
        self.bytes += bytes;
        if let Some(page) = result.get(&def.result).and_then(Value::as_array) {
            entries.extend(page.iter().cloned());
        }
        if result.get(&self.live.cursor.next).is_none() {
            if let Some(whole) = self.reading.remove(&list) {
                self.read.insert(list, whole);
            }
            if self.reading.is_empty() {
                self.bytes = 0;
            }
        }
    }

    /// The session as `check-server` would have reported it, once the handshake was seen.
    fn report(&self) -> Option<ServerReport> {
        let result = self.result.as_ref()?;
        let m = &self.live.members;
        let version = result.get(&m.version).and_then(Value::as_str)?.to_owned();
        let lists = self
            .read
            .iter()
            .map(|(&i, entries)| (self.live.lists[i].collection.clone(), entries.clone()))
            .collect();
        Some(ServerReport {
            requested: version.clone(),
            negotiated: Some(version),
            server_info: result.get(&m.server_info).cloned(),
            capabilities: result.get(&m.capabilities).cloned(),
            instructions: result
                .get(&m.instructions)
                .and_then(Value::as_str)
                .map(ToOwned::to_owned),
            lists,
            ..ServerReport::default()
        })
    }
}
