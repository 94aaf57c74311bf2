//! The human format: one block per diagnostic with a source excerpt, grouped by file, then a
//! summary line.

use std::fmt::Write as _;

use anstyle::{AnsiColor, Style};
use mcpdesc_core::{Diagnostic, Severity};

use super::{plural, versions_suffix, FileResult, RenderContext, Totals};

/// Lines of context shown above and below the line of a finding.
const CONTEXT: u32 = 1;

struct Palette {
    path: Style,
    error: Style,
    warning: Style,
    info: Style,
    rule: Style,
    gutter: Style,
    note: Style,
    summary: Style,
}

impl Palette {
    fn new(color: bool) -> Palette {
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

    fn severity(&self, s: Severity) -> Style {
        match s {
            Severity::Error => self.error,
            Severity::Warning => self.warning,
            Severity::Info => self.info,
        }
    }
}

/// Wraps `text` in `style` (no escape sequences for a plain style).
fn paint(style: Style, text: &str) -> String {
    if style == Style::new() {
        text.to_owned()
    } else {
        format!("{style}{text}{style:#}")
    }
}

/// `file:line:column: severity[rule] message (MCP versions)`, the excerpt, help and the rule's
/// page, for every diagnostic (files in order, each file's findings by position); a summary.
pub fn text(results: &[FileResult], ctx: &RenderContext<'_>) -> String {
    let p = Palette::new(ctx.color);
    let mut out = String::new();
    for r in results {
        let lines: Vec<&str> = r
            .source
            .as_deref()
            .map(|s| s.lines().collect())
            .unwrap_or_default();
        if let Some(e) = r.unclaimed_load_error() {
            let at = if e.line > 0 {
                format!("{}:{}:{}", r.path, e.line, e.column)
            } else {
                r.path.clone()
            };
            let _ = writeln!(
                out,
                "{}: {}[{}] {}",
                paint(p.path, &at),
                paint(p.error, "error"),
                paint(p.rule, e.code),
                e.message
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
    let _ = writeln!(out, "{}", paint(p.summary, &summary(results, ctx)));
    out
}

fn diagnostic(
    out: &mut String,
    p: &Palette,
    r: &FileResult,
    lines: &[&str],
    d: &Diagnostic,
    ctx: &RenderContext,
) {
    let at = if d.line > 0 {
        format!("{}:{}:{}", r.path, d.line, d.column)
    } else {
        r.path.clone()
    };
    let _ = writeln!(
        out,
        "{}: {}[{}] {}{}",
        paint(p.path, &at),
        paint(p.severity(d.severity), d.severity.as_str()),
        paint(p.rule, &d.rule),
        d.message,
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
                "(root)"
            } else {
                &d.pointer
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
            help.trim()
        );
    }
    if let Some(url) = ctx.doc_url(r, &d.rule) {
        let _ = writeln!(
            out,
            "{pad} {} {} {url}",
            paint(p.gutter, "="),
            paint(p.note, "docs:")
        );
    }
}

fn is_yaml(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".yaml") || lower.ends_with(".yml")
}

/// Writes the lines (of `lines`, the source) around `line` with a caret under the node at `column`; returns the gutter
/// width used (0 when the line is not in `src`).
fn excerpt(
    out: &mut String,
    p: &Palette,
    lines: &[&str],
    line: u32,
    column: u32,
    yaml: bool,
) -> usize {
    let idx = line as usize;
    if idx == 0 || idx > lines.len() {
        return 0;
    }
    let first = line.saturating_sub(CONTEXT).max(1);
    let last = (line + CONTEXT).min(lines.len() as u32);
    let width = last.to_string().len();
    let bar = paint(p.gutter, "|");
    let _ = writeln!(out, "{} {bar}", " ".repeat(width));
    for n in first..=last {
        let text = lines[n as usize - 1].trim_end_matches('\r');
        let num = paint(p.gutter, &format!("{n:>width$}"));
        if text.is_empty() {
            let _ = writeln!(out, "{num} {bar}");
        } else {
            let _ = writeln!(out, "{num} {bar} {text}");
        }
        if n == line {
            let (indent, len) = caret(text, column, yaml);
            let _ = writeln!(
                out,
                "{} {bar} {indent}{}",
                " ".repeat(width),
                paint(p.error, &"^".repeat(len))
            );
        }
    }
    width
}

/// The whitespace before column `column` (tabs kept so the caret lines up) and the width of
/// the token that starts there.
fn caret(line: &str, column: u32, yaml: bool) -> (String, usize) {
    let chars: Vec<char> = line.chars().collect();
    let start = (column.max(1) as usize - 1).min(chars.len());
    let indent: String = chars[..start]
        .iter()
        .map(|&c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let rest = &chars[start..];
    let len = match rest.first() {
        None => 1,
        Some(&q @ ('"' | '\'')) => {
            let mut i = 1;
            let mut escaped = false;
            while i < rest.len() {
                let c = rest[i];
                if escaped {
                    escaped = false;
                } else if c == '\\' && q == '"' {
                    escaped = true;
                } else if c == q {
                    break;
                }
                i += 1;
            }
            (i + 1).min(rest.len())
        }
        Some('{' | '[') => 1,
        Some(_) => {
            let in_flow = chars[..start].iter().any(|&c| c == '[' || c == '{');
            let mut i = 0;
            while i < rest.len() {
                let c = rest[i];
                let next = rest.get(i + 1).copied();
                let stop = if yaml {
                    (c == ':' && next.is_none_or(|n| n == ' '))
                        || (c == ' ' && next == Some('#'))
                        || (in_flow && matches!(c, ',' | ']' | '}'))
                } else {
                    c.is_whitespace() || matches!(c, ',' | ']' | '}' | ':')
                };
                if stop {
                    break;
                }
                i += 1;
            }
            let token: String = rest[..i].iter().collect();
            token.trim_end().chars().count().max(1)
        }
    };
    (indent, len)
}

/// `Checked 3 files: 2 invalid, 4 errors, 1 warning; 2 suppressed.`, naming the strict profile.
pub fn summary(results: &[FileResult], ctx: &RenderContext<'_>) -> String {
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

#[cfg(test)]
mod tests {
    use super::caret;

    #[test]
    fn caret_spans_the_token() {
        assert_eq!(
            caret(r#"  "mode": "url","#, 11, false),
            ("          ".into(), 5)
        );
        assert_eq!(caret("  name: My Server # x", 9, true).1, 9);
        assert_eq!(caret("  - {a: 1}", 5, true).1, 1);
        assert_eq!(caret("\tx: 1", 2, true), ("\t".into(), 1));
        assert_eq!(caret("", 3, false), (String::new(), 1));
    }
}
