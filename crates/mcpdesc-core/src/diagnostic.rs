//! Findings as plain data. Rendering is the caller's business.

use serde::Serialize;

pub use crate::rules::file::Severity;

/// One finding of one rule at one node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Id of the rule that produced it.
    pub rule: String,
    pub severity: Severity,
    pub message: String,
    /// RFC 6901 JSON Pointer of the node.
    pub pointer: String,
    /// 1-based source line (0 when the document has no source positions).
    pub line: u32,
    /// 1-based source column.
    pub column: u32,
    /// Protocol versions for which the finding holds, oldest first.
    pub versions: Vec<String>,
}

impl Diagnostic {
    /// The stable sort key of a report: position, then pointer, then rule, then message.
    pub(crate) fn sort_key(&self) -> (u32, u32, &str, &str, &str) {
        (
            self.line,
            self.column,
            &self.pointer,
            &self.rule,
            &self.message,
        )
    }
}
