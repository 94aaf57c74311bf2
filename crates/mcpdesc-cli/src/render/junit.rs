//! JUnit XML: one test suite per document, one test case per finding.

use std::fmt::Write as _;

use super::safe::{self, escape};
use super::{versions_suffix, FileResult, RenderContext};

/// Escapes text for XML content and attribute values; newlines become `&#10;` so that they
/// survive in attributes.
///
/// XML 1.0 cannot carry most C0 controls, U+FFFE or U+FFFF at all, not even as character
/// references, so they take the visible form of [`safe`]. So do the other unsafe characters
/// (C1 and bidirectional controls, U+2028/U+2029), although XML could carry them: CI
/// dashboards and terminals show the decoded text to people, and there they must not act.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\t' => out.push('\t'),
            c if safe::is_unsafe(c) || matches!(c, '\u{fffe}' | '\u{ffff}') => {
                safe::push_escaped(&mut out, c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Document-derived text on one line: its own newlines are shown, not kept.
fn line(s: &str) -> String {
    esc(&escape(s))
}

/// Findings at or above the fail-on level are `<failure>`s, load failures `<error>`s, the
/// others passing test cases that carry the finding in `<system-out>`. A document without
/// findings is one passing test case.
pub(crate) fn junit(results: &[FileResult], ctx: &RenderContext<'_>) -> String {
    let mut suites = String::new();
    let (mut tests, mut failures, mut errors) = (0usize, 0usize, 0usize);
    for r in results {
        let mut cases = String::new();
        let (mut t, mut f, mut e) = (0usize, 0usize, 0usize);
        let path = line(&r.path);
        if let Some(le) = r.unclaimed_load_error() {
            t += 1;
            e += 1;
            let at = match super::load_error_position(le) {
                Some((l, c)) => format!("{path}:{l}:{c}"),
                None => path.to_string(),
            };
            let _ = writeln!(
                cases,
                "    <testcase classname=\"{path}\" name=\"{}\">\n      <error type=\"{}\" message=\"{}\">{at}: {}</error>\n    </testcase>",
                esc(le.code),
                esc(le.code),
                line(&le.message),
                line(&le.message)
            );
        }
        for d in &r.diagnostics {
            t += 1;
            let name = if d.pointer.is_empty() {
                format!("{} at (root)", escape(&d.rule))
            } else {
                format!("{} at {}", escape(&d.rule), escape(&d.pointer))
            };
            let detail = format!(
                "{}:{}:{}: {}[{}] {}{}",
                escape(&r.path),
                d.line,
                d.column,
                d.severity.as_str(),
                escape(&d.rule),
                escape(&d.message),
                versions_suffix(d)
            );
            let url = ctx
                .doc_url(r, &d.rule)
                .map(|u| format!("&#10;{}", line(&u)))
                .unwrap_or_default();
            if d.severity >= ctx.fail_on {
                f += 1;
                let _ = writeln!(
                    cases,
                    "    <testcase classname=\"{path}\" name=\"{}\">\n      <failure type=\"{}\" message=\"{}\">{}{url}</failure>\n    </testcase>",
                    esc(&name),
                    d.severity.as_str(),
                    line(&d.message),
                    esc(&detail)
                );
            } else {
                let _ = writeln!(
                    cases,
                    "    <testcase classname=\"{path}\" name=\"{}\">\n      <system-out>{}{url}</system-out>\n    </testcase>",
                    esc(&name),
                    esc(&detail)
                );
            }
        }
        if t == 0 {
            t = 1;
            let _ = writeln!(cases, "    <testcase classname=\"{path}\" name=\"valid\"/>");
        }
        tests += t;
        failures += f;
        errors += e;
        let _ = write!(
            suites,
            "  <testsuite name=\"{path}\" tests=\"{t}\" failures=\"{f}\" errors=\"{e}\">\n    <properties>\n      <property name=\"profile\" value=\"{}\"/>\n    </properties>\n{cases}  </testsuite>\n",
            ctx.profile()
        );
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mcpdesc\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\">\n{suites}</testsuites>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::{esc, line};

    #[test]
    fn markup_and_unwritable_characters_are_escaped() {
        assert_eq!(
            esc("<a b=\"c\" d='e'>&"),
            "&lt;a b=&quot;c&quot; d=&apos;e&apos;&gt;&amp;"
        );
        assert_eq!(esc("a\nb\tc"), "a&#10;b\tc");
        assert_eq!(
            esc("\0\u{1b}\r\u{fffe}\u{ffff}\u{9b}\u{202e}"),
            "\\u{0}\\u{1b}\\u{d}\\u{fffe}\\u{ffff}\\u{9b}\\u{202e}"
        );
        assert_eq!(line("a\nb<"), "a\\u{a}b&lt;");
    }
}
