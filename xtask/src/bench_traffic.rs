//! The traffic benchmark capture: the real captures of `spec-fixtures/traffic/real/`,
//! repeated with fresh JSON-RPC ids until the capture holds at least [`MESSAGES`] messages.
//!
//! Shared by `cargo xtask bench-report` and the criterion benchmark (included there by path),
//! so both measure the same bytes.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The least number of messages of the benchmark capture.
pub(crate) const MESSAGES: usize = 10_000;

/// The metadata key whose value is a request id (a subscription is named by the id of its
/// listen request), renumbered with the ids.
const ID_VALUED_META: &str = "io.modelcontextprotocol/subscriptionId";

/// The real captures, in name order.
pub(crate) fn real_captures(workspace: &Path) -> Vec<PathBuf> {
    let dir = workspace.join("spec-fixtures/traffic/real");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "ndjson"))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// `id` of repetition `round`: numbers move up by a round's span, strings get a suffix.
fn fresh(id: &Value, round: usize, span: u64) -> Value {
    match id {
        Value::Number(n) => match n.as_u64() {
            Some(u) => Value::from(u + round as u64 * span),
            None => id.clone(),
        },
        Value::String(s) => Value::from(format!("{s}~{round}")),
        _ => id.clone(),
    }
}

fn renumber(v: &mut Value, round: usize, span: u64) {
    match v {
        Value::Object(map) => {
            for (k, child) in map.iter_mut() {
                if k == ID_VALUED_META {
                    *child = fresh(child, round, span);
                } else {
                    renumber(child, round, span);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|c| renumber(c, round, span)),
        _ => {}
    }
}

/// The capture text: every real capture once per round, rounds repeated until `MESSAGES`
/// lines; each round's request ids are distinct from every other round's.
pub(crate) fn capture(workspace: &Path) -> std::io::Result<String> {
    let mut sessions: Vec<Vec<Value>> = Vec::new();
    for path in real_captures(workspace) {
        let text = std::fs::read_to_string(&path)?;
        sessions.push(
            text.lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .collect(),
        );
    }
    let per_round: usize = sessions.iter().map(Vec::len).sum();
    if per_round == 0 {
        return Ok(String::new());
    }
    let span = 1_000_000u64;
    let mut out = String::new();
    let mut written = 0;
    let mut round = 0;
    while written < MESSAGES {
        for session in &sessions {
            for line in session {
                let mut line = line.clone();
                if let Some(msg) = line.get_mut("msg") {
                    if let Some(id) = msg.get("id").cloned() {
                        msg["id"] = fresh(&id, round, span);
                    }
                    renumber(msg, round, span);
                }
                out.push_str(&serde_json::to_string(&line).unwrap_or_default());
                out.push('\n');
                written += 1;
            }
        }
        round += 1;
    }
    Ok(out)
}
