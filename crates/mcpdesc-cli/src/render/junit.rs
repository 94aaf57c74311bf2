//! JUnit XML: one test suite per document, one test case per finding.

use std::fmt::Write as _;

use super::{versions_suffix, FileResult, RenderContext};

/// Escapes text for XML content and attribute values.
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
            c if (c as u32) < 0x20 && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

/// Findings at or above the fail-on level are `<failure>`s, load failures `<error>`s, the
/// others passing test cases that carry the finding in `<system-out>`. A document without
/// findings is one passing test case.
pub fn junit(results: &[FileResult], ctx: &RenderContext<'_>) -> String {
    let mut suites = String::new();
    let (mut tests, mut failures, mut errors) = (0usize, 0usize, 0usize);
    for r in results {
        let mut cases = String::new();
        let (mut t, mut f, mut e) = (0usize, 0usize, 0usize);
        let path = esc(&r.path);
        if let Some(le) = r.unclaimed_load_error() {
            t += 1;
            e += 1;
            let _ = writeln!(
                cases,
                "    <testcase classname=\"{path}\" name=\"{}\">\n      <error type=\"{}\" message=\"{}\">{path}:{}:{}: {}</error>\n    </testcase>",
                esc(le.code),
                esc(le.code),
                esc(&le.message),
                le.line,
                le.column,
                esc(&le.message)
            );
        }
        for d in &r.diagnostics {
            t += 1;
            let name = if d.pointer.is_empty() {
                format!("{} at (root)", d.rule)
            } else {
                format!("{} at {}", d.rule, d.pointer)
            };
            let detail = format!(
                "{}:{}:{}: {}[{}] {}{}",
                r.path,
                d.line,
                d.column,
                d.severity.as_str(),
                d.rule,
                d.message,
                versions_suffix(d)
            );
            let url = ctx
                .doc_url(r, &d.rule)
                .map(|u| format!("&#10;{}", esc(&u)))
                .unwrap_or_default();
            if d.severity >= ctx.fail_on {
                f += 1;
                let _ = writeln!(
                    cases,
                    "    <testcase classname=\"{path}\" name=\"{}\">\n      <failure type=\"{}\" message=\"{}\">{}{url}</failure>\n    </testcase>",
                    esc(&name),
                    d.severity.as_str(),
                    esc(&d.message),
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
