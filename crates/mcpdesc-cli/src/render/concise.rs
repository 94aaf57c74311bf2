//! The concise format: one line per finding, `path:line:col: severity rule-id message`, as
//! ruff's `concise` and eslint's `unix` formats print them, for editors' and CI problem
//! matchers and for `grep`.

use std::fmt::Write as _;

use super::safe::escape;
use super::text::{paint, summary, Palette};
use super::{versions_suffix, FileResult, RenderContext};

/// Every finding on one line (files in order, each file's findings by position), a
/// document that could not be read or parsed as an `error` of its load failure code, then the
/// summary line of the text format.
///
/// A finding without a position (line 0) has none in its line either: `path: severity …`,
/// as the text format shows it, rather than a line number that points nowhere.
pub(crate) fn concise(results: &[FileResult], ctx: &RenderContext<'_>) -> String {
    let p = Palette::new(ctx.color);
    let mut out = String::new();
    let at = |path: &str, line: u32, column: u32| {
        let path = escape(path);
        let at = if line > 0 {
            format!("{path}:{line}:{column}")
        } else {
            path.into_owned()
        };
        paint(p.path, &at)
    };
    for r in results {
        if let Some(e) = r.unclaimed_load_error() {
            let _ = writeln!(
                out,
                "{}: {} {} {}",
                at(&r.path, e.line, e.column),
                paint(p.error, "error"),
                paint(p.rule, &escape(e.code)),
                escape(&e.message)
            );
        }
        for d in &r.diagnostics {
            let _ = writeln!(
                out,
                "{}: {} {} {}{}",
                at(&r.path, d.line, d.column),
                paint(p.severity(d.severity), d.severity.as_str()),
                paint(p.rule, &escape(&d.rule)),
                escape(&d.message),
                versions_suffix(d)
            );
        }
    }
    if ctx.summary {
        let _ = writeln!(out, "{}", paint(p.summary, &summary(results, ctx)));
    }
    out
}
