//! The structured results of the tools, whose JSON Schemas are the tools' output schemas.

use mcpdesc_core::{Diagnostic, Severity};
use schemars::JsonSchema;
use serde::Serialize;

use crate::render::FileResult;

/// One finding, as the `json` format of `validate` reports it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct Finding {
    /// The id of the rule that reported it (`mcpdesc explain` shows it).
    pub rule: String,
    /// `error`, `warning` or `info`.
    pub severity: String,
    pub message: String,
    /// RFC 6901 JSON Pointer of the node; empty for the document root.
    pub pointer: String,
    /// 1-based line; 0 when the document has no source positions.
    pub line: u32,
    /// 1-based column; 0 with `line`.
    pub column: u32,
    /// The protocol versions the finding holds for; empty when it does not depend on one.
    pub versions: Vec<String>,
}

impl From<Diagnostic> for Finding {
    fn from(d: Diagnostic) -> Finding {
        Finding {
            rule: d.rule,
            severity: d.severity.as_str().to_owned(),
            message: d.message,
            pointer: d.pointer,
            line: d.line,
            column: d.column,
            versions: d.versions,
        }
    }
}

/// What `validate_description`, `validate_capture` and `check_server` return.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub(crate) struct ValidationResult {
    /// No error-level finding (warnings and notes do not make a document invalid).
    pub valid: bool,
    pub errors: usize,
    pub warnings: usize,
    pub findings: Vec<Finding>,
}

impl ValidationResult {
    /// The findings of several results (a document that could not be read has one: its load error), in the order given.
    pub(crate) fn of(results: Vec<FileResult>) -> ValidationResult {
        let mut findings = Vec::new();
        for r in results {
            if let Some(e) = r.unclaimed_load_error() {
                findings.push(Finding {
                    rule: e.code.to_owned(),
                    severity: Severity::Error.as_str().to_owned(),
                    message: e.message.clone(),
                    pointer: String::new(),
                    line: e.line,
                    column: e.column,
                    versions: Vec::new(),
                });
            }
            findings.extend(r.diagnostics.into_iter().map(Finding::from));
        }
        let count = |s: Severity| findings.iter().filter(|f| f.severity == s.as_str()).count();
        let errors = count(Severity::Error);
        ValidationResult {
            valid: errors == 0,
            errors,
            warnings: count(Severity::Warning),
            findings,
        }
    }

    /// The text block that accompanies the structured result: one line per finding, then a summary line.
    pub(crate) fn text(&self) -> String {
        let mut out = String::new();
        for f in &self.findings {
            if f.line > 0 {
                out.push_str(&format!("{}:{} ", f.line, f.column));
            }
            let at = if f.pointer.is_empty() {
                "the document root"
            } else {
                &f.pointer
            };
            out.push_str(&format!(
                "{} {}: {} (at {at})\n",
                f.severity, f.rule, f.message
            ));
        }
        out.push_str(&format!(
            "{}: {} error(s), {} warning(s)\n",
            if self.valid { "valid" } else { "invalid" },
            self.errors,
            self.warnings
        ));
        out
    }
}

/// One rule, as `rules list` shows it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct RuleSummary {
    pub id: String,
    pub title: String,
    /// Who states the requirement: `mcp` (the specification), `mcpdesc`, or a house owner.
    pub owner: String,
    /// `must`, `should` or `may`.
    pub level: String,
    /// The severity of its findings: `error`, `warning` or `info`.
    pub severity: String,
    /// What the rule looks at (a surface of the protocol or free text).
    pub surface: String,
    /// The protocol versions it is evaluated for.
    pub versions: Vec<String>,
    /// The `mcpdesc://rules/{id}` resource of its page.
    pub uri: String,
}

/// What `list_rules` returns.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct RuleList {
    /// The release of the catalogue the rules come from.
    pub release: String,
    pub count: usize,
    pub rules: Vec<RuleSummary>,
}

/// What `explain_rule` returns.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct RuleExplanation {
    pub id: String,
    pub title: String,
    /// What the rule requires and why.
    pub description: String,
    /// The severity of its findings: `error`, `warning` or `info`.
    pub severity: String,
    /// The whole explanation as `mcpdesc explain ID` prints it.
    pub text: String,
}
