//! The human format: one block per diagnostic with a source excerpt, grouped by file, then a
//! summary line.

use std::fmt::Write as _;

use anstyle::{AnsiColor, Style};
use mcpdesc_core::{Diagnostic, Severity};

mod excerpt;

use excerpt::{excerpt, SourceLines};

use super::safe::{escape, escape_multiline};
use super::{plural, versions_suffix, FileResult, RenderContext, Totals};

pub(super) struct Palette {
    pub(super) path: Style,
    pub(super) error: Style,
    warning: Style,
    info: Style,
    pub(super) rule: Style,
    gutter: Style,
    note: Style,
    pub(super) summary: Style,
}

impl Palette {
    pub(super) fn new(color: bool) -> Palette {
        if !color {
            let plain = Style::new();
            return Palette {
                path: plain,
                error: plain,
                warning: plain,
                info: plain,
                rule: plain,
                gutter: plain,
                note: plain,
                summary: plain,
            };
        }
        let fg = |c: AnsiColor| Style::new().fg_color(Some(c.into()));
        Palette {
            path: Style::new().bold(),
            error: fg(AnsiColor::Red).bold(),
            warning: fg(AnsiColor::Yellow).bold(),
            info: fg(AnsiColor::Cyan).bold(),
            rule: Style::new().dimmed(),
            gutter: fg(AnsiColor::Blue).bold(),
            note: fg(AnsiColor::Cyan),
            summary: Style::new().bold(),
        }
    }

    pub(super) fn severity(&self, s: Severity) -> Style {
        match s {
            Severity::Error => self.error,
            Severity::Warning => self.warning,
            Severity::Info => self.info,
        }
    }
}

/// Wraps `text` in `style` (no escape sequences for a plain style).
pub(super) fn paint(style: Style, text: &str) -> String {
    if style == Style::new() {
        text.to_owned()
    } else {
        format!("{style}{text}{style:#}")
    }
}

/// `file:line:column: severity[rule] message (MCP versions)`, the excerpt, help and the rule's
/// page, for every diagnostic (files in order, each file's findings by position); a summary.
pub(crate) fn text(results: &[FileResult], ctx: &RenderContext<'_>) -> String {
    let p = Palette::new(ctx.color);
    let mut out = String::new();
    for r in results {
        let lines = SourceLines::new(r.source.as_deref().unwrap_or_default());
        if let Some(e) = r.unclaimed_load_error() {
            let path = escape(&r.path);
            let at = if e.line > 0 {
                format!("{path}:{}:{}", e.line, e.column)
            } else {
                path.into_owned()
            };
            let _ = writeln!(
                out,
                "{}: {}[{}] {}",
                paint(p.path, &at),
                paint(p.error, "error"),
                paint(p.rule, e.code),
                escape(&e.message)
            );
            if e.line > 0 {
                excerpt(&mut out, &p, &lines, e.line, e.column, is_yaml(&r.path));
            }
            out.push('\n');
        }
        for d in &r.diagnostics {
            diagnostic(&mut out, &p, r, &lines, d, ctx);
            out.push('\n');
        }
    }
    if ctx.summary {
        let _ = writeln!(out, "{}", paint(p.summary, &summary(results, ctx)));
    }
    out
}

fn diagnostic(
    out: &mut String,
    p: &Palette,
    r: &FileResult,
    lines: &SourceLines<'_>,
    d: &Diagnostic,
    ctx: &RenderContext,
) {
    let path = escape(&r.path);
    let at = if d.line > 0 {
        format!("{path}:{}:{}", d.line, d.column)
    } else {
        path.into_owned()
    };
    let _ = writeln!(
        out,
        "{}: {}[{}] {}{}",
        paint(p.path, &at),
        paint(p.severity(d.severity), d.severity.as_str()),
        paint(p.rule, &escape(&d.rule)),
        escape(&d.message),
        versions_suffix(d)
    );
    let gutter = if d.line > 0 {
        excerpt(out, p, lines, d.line, d.column, is_yaml(&r.path))
    } else {
        0
    };
    let pad = " ".repeat(gutter.max(1));
    if d.pointer.is_empty() || d.line == 0 {
        let _ = writeln!(
            out,
            "{pad} {} pointer: {}",
            paint(p.gutter, "="),
            if d.pointer.is_empty() {
                "(root)".into()
            } else {
                escape(&d.pointer)
            }
        );
    }
    let rule = ctx.catalogue_of(r).rule(&d.rule);
    if let Some(help) = rule.and_then(|r| r.def.help.as_deref()) {
        let _ = writeln!(
            out,
            "{pad} {} {} {}",
            paint(p.gutter, "="),
            paint(p.note, "help:"),
            escape_multiline(help.trim())
        );
    }
    if let Some(url) = ctx.doc_url(r, &d.rule) {
        let _ = writeln!(
            out,
            "{pad} {} {} {}",
            paint(p.gutter, "="),
            paint(p.note, "docs:"),
            escape(&url)
        );
    }
}

fn is_yaml(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".yaml") || lower.ends_with(".yml")
}

/// `Checked 3 files: 2 invalid, 4 errors, 1 warning; 2 suppressed.`, naming the strict profile.
pub(super) fn summary(results: &[FileResult], ctx: &RenderContext<'_>) -> String {
    let t = Totals::of(results);
    let mut s = format!("Checked {}", plural(t.files, "file", "files"));
    if ctx.strict {
        s.push_str(" under the strict profile (warnings are errors)");
    }
    let _ = write!(
        s,
        ": {} invalid, {}, {}",
        t.invalid,
        plural(t.errors, "error", "errors"),
        plural(t.warnings, "warning", "warnings")
    );
    if t.infos > 0 {
        let _ = write!(s, ", {}", plural(t.infos, "note", "notes"));
    }
    let mut extra = Vec::new();
    if t.suppressed > 0 {
        extra.push(format!("{} suppressed", t.suppressed));
    }
    if t.baselined > 0 {
        extra.push(format!("{} in the baseline", t.baselined));
    }
    if !extra.is_empty() {
        let _ = write!(s, "; {}", extra.join(", "));
    }
    s.push('.');
    s
}
