//! The expected-diagnostics sidecar: `<name>.expected.yaml` next to a fixture `<name>.json`
//! (or `.yaml`, `.yml`), holding the exact diagnostics the fixture must produce.
//!
//! A sidecar is a YAML list with one entry per diagnostic, each entry on one line in flow
//! style, sorted, so a change of behaviour shows as added and removed lines in a review:
//!
//! ```yaml
//! - {rule: mcp.elicitation.protocol-version, pointer: /tools/0/elicitations/0/mode, severity: error, versions: [2025-06-18]}
//! - {rule: mcpdesc.info.required-fields, pointer: /info, severity: error, versions: []}
//! ```
//!
//! A document that does not load at all has one `{load-error: CODE}` entry (first) besides
//! the diagnostics the rules report for the failure. An empty list `[]` means "no
//! diagnostics". Messages are deliberately not recorded: rewording a message is not a change
//! of behaviour.

use std::cmp::Ordering;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use thiserror::Error;

use mcpdesc_core::Report;
use mcpdesc_core::Severity;
use mcpdesc_document::{Format, Limits, ValueDocument};

/// One expected finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Entry {
    /// The document does not load; `code` is the load-error code (e.g. `yaml-syntax`).
    LoadError {
        /// The load-error code.
        #[serde(rename = "load-error")]
        code: String,
    },
    /// A diagnostic of a rule.
    Diagnostic {
        /// The rule id.
        rule: String,
        /// RFC 6901 JSON Pointer of the node it is about.
        pointer: String,
        /// Its severity.
        severity: Severity,
        /// The protocol versions it holds for; empty when it holds for every version.
        versions: Vec<String>,
    },
}

impl Entry {
    /// The rule of a diagnostic entry.
    pub fn rule(&self) -> Option<&str> {
        match self {
            Entry::Diagnostic { rule, .. } => Some(rule),
            Entry::LoadError { .. } => None,
        }
    }

    /// The entry as its sidecar line (without the leading `- `).
    pub fn to_flow(&self) -> String {
        match self {
            Entry::LoadError { code } => format!("{{load-error: {}}}", scalar(code)),
            Entry::Diagnostic {
                rule,
                pointer,
                severity,
                versions,
            } => format!(
                "{{rule: {}, pointer: {}, severity: {}, versions: [{}]}}",
                scalar(rule),
                scalar(pointer),
                severity.as_str(),
                versions
                    .iter()
                    .map(|v| scalar(v))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    fn cmp_key(&self, other: &Entry) -> Ordering {
        match (self, other) {
            (Entry::LoadError { code: a }, Entry::LoadError { code: b }) => a.cmp(b),
            (Entry::LoadError { .. }, Entry::Diagnostic { .. }) => Ordering::Less,
            (Entry::Diagnostic { .. }, Entry::LoadError { .. }) => Ordering::Greater,
            (
                Entry::Diagnostic {
                    rule: r1,
                    pointer: p1,
                    severity: s1,
                    versions: v1,
                },
                Entry::Diagnostic {
                    rule: r2,
                    pointer: p2,
                    severity: s2,
                    versions: v2,
                },
            ) => r1
                .cmp(r2)
                .then_with(|| cmp_pointers(p1, p2))
                .then_with(|| s2.cmp(s1))
                .then_with(|| v1.cmp(v2)),
        }
    }
}

/// Orders JSON Pointers token by token, array indices numerically (`/2` before `/10`).
pub fn cmp_pointers(a: &str, b: &str) -> Ordering {
    let key = |p: &str| -> Vec<(u8, u64, String)> {
        mcpdesc_document::pointer::tokens(p)
            .map(|t| match t.parse::<u64>() {
                Ok(n) if !t.starts_with('0') || t.as_ref() == "0" => (0, n, String::new()),
                _ => (1, 0, t.into_owned()),
            })
            .collect()
    };
    key(a).cmp(&key(b))
}

/// Sorts entries into sidecar order.
pub fn sort(entries: &mut [Entry]) {
    entries.sort_by(Entry::cmp_key);
}

/// The entries a report amounts to, in sidecar order.
pub fn from_report(report: &Report) -> Vec<Entry> {
    let mut out: Vec<Entry> = report
        .load_error
        .iter()
        .map(|e| Entry::LoadError {
            code: e.code.to_owned(),
        })
        .chain(report.diagnostics.iter().map(|d| Entry::Diagnostic {
            rule: d.rule.clone(),
            pointer: d.pointer.clone(),
            severity: d.severity,
            versions: d.versions.clone(),
        }))
        .collect();
    sort(&mut out);
    out
}

/// The sidecar of a fixture: `foo.json` → `foo.expected.yaml`.
pub fn path_for(fixture: &Path) -> PathBuf {
    let stem = fixture
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    fixture.with_file_name(format!("{stem}{}", super::SIDECAR_SUFFIX))
}

/// The sidecar text for `entries` (sorted first).
pub fn render(entries: &[Entry]) -> String {
    let mut sorted = entries.to_vec();
    sort(&mut sorted);
    if sorted.is_empty() {
        return "[]\n".to_owned();
    }
    let mut out = String::new();
    for e in &sorted {
        let _ = writeln!(out, "- {}", e.to_flow());
    }
    out
}

/// The lines of `entries` as they appear in a sidecar (for comparisons and diffs).
pub fn lines(entries: &[Entry]) -> Vec<String> {
    let text = render(entries);
    text.lines().map(str::to_owned).collect()
}

/// A malformed sidecar.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{line}:{column}: {message}")]
pub struct SidecarError {
    /// Line of the problem in the sidecar, from 1.
    pub line: u32,
    /// Column of the problem in the sidecar, from 1.
    pub column: u32,
    /// What is wrong.
    pub message: String,
}

/// Reads sidecar text with the crate's own YAML loader. The entries are returned sorted.
pub fn parse(text: &str) -> Result<Vec<Entry>, SidecarError> {
    let doc = ValueDocument::parse_str(text, Format::Yaml, &Limits::default()).map_err(|e| {
        SidecarError {
            line: e.position.line,
            column: e.position.column,
            message: e.kind.to_string(),
        }
    })?;
    let fail = |ptr: &str, message: String| {
        let pos = doc.position(ptr);
        SidecarError {
            line: pos.line,
            column: pos.column,
            message,
        }
    };
    let Value::Array(items) = doc.value() else {
        return Err(fail(
            "",
            "a sidecar is a list of expected diagnostics (`[]` for none)".into(),
        ));
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = format!("/{i}");
        let Value::Object(map) = item else {
            return Err(fail(&at, "each entry is a mapping such as `{rule: .., pointer: .., severity: .., versions: [..]}`".into()));
        };
        let string = |key: &str| -> Result<Option<String>, SidecarError> {
            match map.get(key) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(fail(&format!("{at}/{key}"), format!("`{key}` is a string"))),
            }
        };
        if map.contains_key("load-error") {
            if let Some(extra) = map.keys().find(|k| *k != "load-error") {
                return Err(fail(
                    &format!("{at}/{extra}"),
                    format!("a `load-error` entry has no other members, found `{extra}`"),
                ));
            }
            out.push(Entry::LoadError {
                code: string("load-error")?.unwrap_or_default(),
            });
            continue;
        }
        if let Some(extra) = map
            .keys()
            .find(|k| !["rule", "pointer", "severity", "versions"].contains(&k.as_str()))
        {
            return Err(fail(
                &format!("{at}/{extra}"),
                format!(
                    "unknown member `{extra}`; an entry has `rule`, `pointer`, `severity`, `versions`"
                ),
            ));
        }
        let required = |key: &str| -> Result<String, SidecarError> {
            string(key)?.ok_or_else(|| fail(&at, format!("the entry has no `{key}`")))
        };
        let rule = required("rule")?;
        let pointer = required("pointer")?;
        let severity = match required("severity")?.as_str() {
            "error" => Severity::Error,
            "warning" => Severity::Warning,
            "info" => Severity::Info,
            other => {
                return Err(fail(
                    &format!("{at}/severity"),
                    format!("unknown severity `{other}`; use error, warning or info"),
                ))
            }
        };
        let versions = match map.get("versions") {
            None => Vec::new(),
            Some(Value::Array(vs)) => vs
                .iter()
                .enumerate()
                .map(|(j, v)| {
                    v.as_str().map(str::to_owned).ok_or_else(|| {
                        fail(
                            &format!("{at}/versions/{j}"),
                            "a protocol version is a string".into(),
                        )
                    })
                })
                .collect::<Result<_, _>>()?,
            Some(_) => {
                return Err(fail(
                    &format!("{at}/versions"),
                    "`versions` is a list".into(),
                ))
            }
        };
        out.push(Entry::Diagnostic {
            rule,
            pointer,
            severity,
            versions,
        });
    }
    sort(&mut out);
    Ok(out)
}

/// `s` as a YAML flow scalar: plain when that reads back as the same string, else
/// double-quoted (JSON string syntax, which YAML reads the same way).
fn scalar(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '/' | '-' | '~'))
        && !s.starts_with('-');
    if safe {
        let reread = ValueDocument::parse_str(&format!("[{s}]"), Format::Yaml, &Limits::default());
        if matches!(reread.as_ref().map(|d| d.value()), Ok(Value::Array(a)) if a.len() == 1 && a[0] == s)
        {
            return s.to_owned();
        }
    }
    serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diag(rule: &str, pointer: &str, severity: Severity, versions: &[&str]) -> Entry {
        Entry::Diagnostic {
            rule: rule.into(),
            pointer: pointer.into(),
            severity,
            versions: versions.iter().map(|v| (*v).to_owned()).collect(),
        }
    }

    #[test]
    fn renders_one_sorted_line_per_entry_and_reads_it_back() {
        let entries = vec![
            diag("mcp.b", "/tools/10", Severity::Error, &["2025-06-18"]),
            diag("mcp.b", "/tools/2", Severity::Warning, &[]),
            diag("mcp.a", "", Severity::Error, &["2024-11-05", "2025-03-26"]),
            diag(
                "mcp.a",
                "/odd key/a~1b/{x}, y",
                Severity::Info,
                &["1.0", "true"],
            ),
            Entry::LoadError {
                code: "yaml-syntax".into(),
            },
        ];
        let text = render(&entries);
        assert_eq!(
            text,
            "- {load-error: yaml-syntax}\n\
             - {rule: mcp.a, pointer: \"\", severity: error, versions: [2024-11-05, 2025-03-26]}\n\
             - {rule: mcp.a, pointer: \"/odd key/a~1b/{x}, y\", severity: info, versions: [\"1.0\", \"true\"]}\n\
             - {rule: mcp.b, pointer: /tools/2, severity: warning, versions: []}\n\
             - {rule: mcp.b, pointer: /tools/10, severity: error, versions: [2025-06-18]}\n"
        );
        let mut sorted = entries.clone();
        sort(&mut sorted);
        assert_eq!(parse(&text).unwrap(), sorted);
        assert_eq!(render(&[]), "[]\n");
        assert_eq!(parse("[]\n").unwrap(), vec![]);
    }

    #[test]
    fn reports_malformed_entries_with_positions() {
        let e = parse("- {rule: a, pointer: /x, severity: fatal}\n").unwrap_err();
        assert_eq!((e.line, e.column), (1, 36));
        assert!(e.message.contains("fatal"));
        assert!(parse("- {rule: a, pointer: /x, severity: error, msg: hi}")
            .unwrap_err()
            .message
            .contains("`msg`"));
        assert!(parse("{a: 1}").is_err());
        assert!(parse("- {pointer: /x, severity: error}")
            .unwrap_err()
            .message
            .contains("`rule`"));
    }

    #[test]
    fn sidecar_path_replaces_the_extension() {
        assert_eq!(
            path_for(Path::new("a/foo.json")),
            PathBuf::from("a/foo.expected.yaml")
        );
        assert_eq!(
            path_for(Path::new("foo.bar.yml")),
            PathBuf::from("foo.bar.expected.yaml")
        );
    }
}
