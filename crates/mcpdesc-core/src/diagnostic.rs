//! Findings as plain data. Rendering is the caller's business.

use serde::Serialize;

pub use crate::rules::file::Severity;

/// One finding of one rule at one node.
///
/// New members may be added in any release (it is `#[non_exhaustive]`); make one outside this
/// crate with [`Diagnostic::new`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Diagnostic {
    /// Id of the rule that produced it.
    pub rule: String,
    /// How serious it is, for the protocol versions it concerns.
    pub severity: Severity,
    /// What is wrong, in the rule's words with the node's details filled in.
    pub message: String,
    /// RFC 6901 JSON Pointer of the node.
    pub pointer: String,
    /// 1-based source line (0 when the document has no source positions).
    pub line: u32,
    /// 1-based source column.
    pub column: u32,
    /// Protocol versions for which the finding holds, oldest first.
    pub versions: Vec<String>,
    /// The rule's documentation page: the catalogue's `docs-url`, or the base the embedder
    /// gave ([`crate::Engine::with_docs_url`]), expanded for this rule. Only an absolute URI
    /// counts as a link; a relative path (a page inside a repository) leaves this `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// One line: `LINE:COL severity rule-id: message (at POINTER)`, the position left out when the
/// document has no source positions (line 0), `(at the document root)` for the empty
/// pointer, and ` <URL>` at the end when the rule has a page:
///
/// ```text
/// 12:7 error mcp.tool.name-required: tool has no name (at /tools/0) <https://example.org/r>
/// ```
impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{} ", self.line, self.column)?;
        }
        write!(
            f,
            "{} {}: {}",
            self.severity.as_str(),
            self.rule,
            self.message
        )?;
        if self.pointer.is_empty() {
            f.write_str(" (at the document root)")?;
        } else {
            write!(f, " (at {})", self.pointer)?;
        }
        if let Some(url) = &self.url {
            write!(f, " <{url}>")?;
        }
        Ok(())
    }
}

impl Diagnostic {
    /// A finding of rule `rule` at the document root, without position, versions or page:
    /// for tools that report findings of their own beside the engine's. Set the other members
    /// on the value it returns.
    pub fn new(rule: impl Into<String>, severity: Severity, message: impl Into<String>) -> Self {
        Diagnostic {
            rule: rule.into(),
            severity,
            message: message.into(),
            pointer: String::new(),
            line: 0,
            column: 0,
            versions: Vec::new(),
            url: None,
        }
    }

    /// The finding placed at `pointer`, on 1-based `line` and `column` of the source.
    pub fn at(mut self, pointer: impl Into<String>, line: u32, column: u32) -> Self {
        self.pointer = pointer.into();
        self.line = line;
        self.column = column;
        self
    }

    /// The finding concerning these protocol versions.
    pub fn for_versions(mut self, versions: Vec<String>) -> Self {
        self.versions = versions;
        self
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    fn diagnostic(line: u32, pointer: &str, url: Option<&str>) -> Diagnostic {
        Diagnostic {
            rule: "mcp.tool.name-required".into(),
            severity: Severity::Error,
            message: "tool has no name".into(),
            pointer: pointer.into(),
            line,
            column: 7,
            versions: Vec::new(),
            url: url.map(str::to_owned),
        }
    }

    #[test]
    fn display_is_one_line() {
        assert_eq!(
            diagnostic(12, "/tools/0", Some("https://example.org/r")).to_string(),
            "12:7 error mcp.tool.name-required: tool has no name (at /tools/0) <https://example.org/r>"
        );
        assert_eq!(
            diagnostic(0, "", None).to_string(),
            "error mcp.tool.name-required: tool has no name (at the document root)"
        );
    }
}
