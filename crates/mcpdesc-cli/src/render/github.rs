//! GitHub Actions workflow commands: one annotation per finding.

use std::fmt::Write as _;

use mcpdesc_core::Severity;

use super::safe::escape;
use super::{text::summary, versions_suffix, FileResult, RenderContext};

/// Encodes the message part of a workflow command. Its pieces were escaped with
/// [`escape`] before, so a line break left here is one of ours (the runner decodes `%0A` into
/// a line of the annotation), never one from a document.
fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes and encodes a property value of a workflow command (a path, a rule id).
fn property(s: &str) -> String {
    data(&escape(s)).replace(':', "%3A").replace(',', "%2C")
}

/// `::error file=…,line=…,col=…,title=…::message`, then the summary as a plain log line.
pub(crate) fn github(results: &[FileResult], ctx: &RenderContext<'_>) -> String {
    let mut out = String::new();
    for r in results {
        if let Some(e) = r.unclaimed_load_error() {
            let mut props = format!("file={}", property(&r.path));
            if e.line > 0 {
                let _ = write!(props, ",line={},col={}", e.line, e.column);
            }
            let _ = write!(props, ",title={}", property(e.code));
            let _ = writeln!(out, "::error {props}::{}", data(&escape(&e.message)));
        }
        for d in &r.diagnostics {
            let command = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "notice",
            };
            let mut props = format!("file={}", property(&r.path));
            if d.line > 0 {
                let _ = write!(props, ",line={},col={}", d.line, d.column);
            }
            let _ = write!(props, ",title={}", property(&d.rule));
            let mut message = format!("{}{}", escape(&d.message), versions_suffix(d));
            if !d.pointer.is_empty() {
                let _ = write!(message, " at {}", escape(&d.pointer));
            }
            if let Some(url) = ctx.doc_url(r, &d.rule) {
                let _ = write!(message, "\n{}", escape(&url));
            }
            let _ = writeln!(out, "::{command} {props}::{}", data(&message));
        }
    }
    let _ = writeln!(out, "{}", summary(results, ctx));
    out
}
