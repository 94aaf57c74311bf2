//! The result of one validation as owned plain data.

use mcpdesc_core::{Diagnostic, DocumentKind, Format, Report, Severity};
use serde::Serialize;

/// What one validation found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    /// No error findings and the document could be read (warnings allowed).
    pub valid: bool,
    /// The input's name, when it has one.
    pub path: Option<String>,
    /// `description` or `traffic`.
    pub kind: &'static str,
    /// The version of the catalogue release that judged the document.
    pub release: String,
    /// Findings in a stable order: position, pointer, rule, message.
    pub diagnostics: Vec<Finding>,
    /// Set when the document could not be read at all; its findings are in `diagnostics`.
    pub load_error: Option<LoadFailure>,
}

/// One finding of one rule at one node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The id of the rule that found it.
    pub rule: String,
    /// `error`, `warning` or `info`.
    pub severity: &'static str,
    /// What is wrong, in one sentence.
    pub message: String,
    /// RFC 6901 JSON Pointer of the node.
    pub pointer: String,
    /// 1-based line, when the input has source positions.
    pub line: Option<u32>,
    /// 1-based column (in characters), when the input has source positions.
    pub column: Option<u32>,
    /// Protocol versions the finding holds for, oldest first; empty when it holds for
    /// every version.
    pub versions: Vec<String>,
    /// The rule's documentation page, when the release's `docs-url` or the base that was set
    /// is an absolute URI.
    pub doc_url: Option<String>,
}

/// A document that could not be read, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoadFailure {
    /// Stable code of the failure (`syntax`, `limit`, ...).
    pub code: &'static str,
    /// What is wrong with the document.
    pub message: String,
    /// 1-based line of the failure, when the input has source positions.
    pub line: Option<u32>,
    /// 1-based column (in characters) of the failure, when the input has source positions.
    pub column: Option<u32>,
}

impl Outcome {
    pub(crate) fn new(
        report: Report,
        format: Format,
        name: Option<&str>,
        promoted: &dyn Fn(&str) -> bool,
        positioned: bool,
    ) -> Outcome {
        let position = |n: u32| (positioned && n > 0).then_some(n);
        let diagnostics: Vec<Finding> = report
            .diagnostics
            .into_iter()
            .map(|d: Diagnostic| {
                let severity = if d.severity == Severity::Warning && promoted(&d.rule) {
                    Severity::Error
                } else {
                    d.severity
                };
                Finding {
                    doc_url: d.url,
                    severity: severity.as_str(),
                    line: position(d.line),
                    column: position(d.column),
                    rule: d.rule,
                    message: d.message,
                    pointer: d.pointer,
                    versions: d.versions,
                }
            })
            .collect();
        let load_error = report.load_error.map(|e| LoadFailure {
            code: e.code,
            message: e.message,
            line: position(e.line),
            column: position(e.column),
        });
        Outcome {
            valid: load_error.is_none() && !diagnostics.iter().any(|d| d.severity == "error"),
            path: name.map(str::to_owned),
            kind: DocumentKind::of(format).as_str(),
            release: report.release,
            diagnostics,
            load_error,
        }
    }

    /// How many findings have `severity` (`error`, `warning`, `info`).
    pub fn count(&self, severity: &str) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }
}
