//! JUnit XML, written by `quick-junit` (the writer cargo-nextest uses) for `validate`,
//! `check-server` and `test` alike: one test suite per document, one test case per finding.

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use super::safe::{self, escape};
use super::{versions_suffix, FileResult, RenderContext};

/// The XML of `report`, ending with a newline.
pub(crate) fn to_xml(report: &Report) -> anyhow::Result<String> {
    let mut xml = report.to_string()?;
    if !xml.ends_with('\n') {
        xml.push('\n');
    }
    Ok(xml)
}

/// `s` as XML can carry it, line breaks and tabs kept.
///
/// XML 1.0 cannot carry most C0 controls, U+FFFE or U+FFFF at all, not even as character
/// references (the writer would drop them silently), so they take the visible form of
/// [`safe`]. So do the other unsafe characters (C1 and bidirectional controls,
/// U+2028/U+2029), although XML could carry them: CI dashboards and terminals show the
/// decoded text to people, and there they must not act. Markup characters are the writer's
/// to escape.
pub(crate) fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            c if safe::is_unsafe(c) || matches!(c, '\u{fffe}' | '\u{ffff}') => {
                safe::push_escaped(&mut out, c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Text on one line, for attributes: its own line breaks are shown, not kept (an XML reader
/// would turn them into spaces).
pub(crate) fn line(s: &str) -> String {
    text(&escape(s))
}

/// Findings at or above the fail-on level are `<failure>`s, load failures `<error>`s, the
/// others passing test cases that carry the finding in `<system-out>`. A document without
/// findings is one passing test case.
pub(crate) fn junit(results: &[FileResult], ctx: &RenderContext<'_>) -> anyhow::Result<String> {
    let mut report = Report::new("mcpdesc");
    for r in results {
        let path = line(&r.path);
        let mut suite = TestSuite::new(path.as_str());
        suite.add_property(Property::new("profile", ctx.profile()));
        if let Some(le) = r.unclaimed_load_error() {
            let at = match super::load_error_position(le) {
                Some((l, c)) => format!("{path}:{l}:{c}"),
                None => path.to_string(),
            };
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
            status
                .set_type(line(le.code))
                .set_message(line(&le.message))
                .set_description(format!("{at}: {}", line(&le.message)));
            let mut case = TestCase::new(line(le.code), status);
            case.set_classname(path.as_str());
            suite.add_test_case(case);
        }
        for d in &r.diagnostics {
            let name = if d.pointer.is_empty() {
                format!("{} at (root)", escape(&d.rule))
            } else {
                format!("{} at {}", escape(&d.rule), escape(&d.pointer))
            };
            let mut detail = line(&format!(
                "{}:{}:{}: {}[{}] {}{}",
                escape(&r.path),
                d.line,
                d.column,
                d.severity.as_str(),
                escape(&d.rule),
                escape(&d.message),
                versions_suffix(d)
            ));
            if let Some(url) = ctx.doc_url(r, &d.rule) {
                detail.push('\n');
                detail.push_str(&line(&url));
            }
            let mut case = if d.severity >= ctx.fail_on {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status
                    .set_type(d.severity.as_str())
                    .set_message(line(&d.message))
                    .set_description(detail);
                TestCase::new(text(&name), status)
            } else {
                let mut case = TestCase::new(text(&name), TestCaseStatus::success());
                case.set_system_out(detail);
                case
            };
            case.set_classname(path.as_str());
            suite.add_test_case(case);
        }
        if suite.test_cases.is_empty() {
            let mut case = TestCase::new("valid", TestCaseStatus::success());
            case.set_classname(path.as_str());
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    to_xml(&report)
}

#[cfg(test)]
mod tests {
    use super::{line, text, to_xml};
    use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

    #[test]
    fn unwritable_characters_take_their_visible_form() {
        assert_eq!(text("a\nb\tc"), "a\nb\tc");
        assert_eq!(
            text("\0\u{1b}\r\u{fffe}\u{ffff}\u{9b}\u{202e}"),
            "\\u{0}\\u{1b}\\u{d}\\u{fffe}\\u{ffff}\\u{9b}\\u{202e}"
        );
        assert_eq!(line("a\nb<"), "a\\u{a}b<");
    }

    #[test]
    fn markup_is_escaped_by_the_writer() {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        status.set_message(text("<a b=\"c\" d='e'>&"));
        let mut suite = TestSuite::new("s");
        suite.add_test_case(TestCase::new("t", status));
        let mut report = Report::new("r");
        report.add_test_suite(suite);
        let xml = to_xml(&report).unwrap();
        assert!(
            xml.contains("message=\"&lt;a b=&quot;c&quot; d=&apos;e&apos;&gt;&amp;\""),
            "{xml}"
        );
    }
}
