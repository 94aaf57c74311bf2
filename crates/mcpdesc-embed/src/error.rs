//! Why a validator could not be built or an input could not be reached.

use mcpdesc_core::internal::eval::UnknownProtocolVersion;
use mcpdesc_core::{RuleLoadError, RuleProblem};
use thiserror::Error;

/// Everything that stops a validation before a document is judged.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Error {
    /// The rule files have problems; every one is listed.
    #[error("{} problem(s) in the rule files:{}", problems.len(), listing(problems))]
    Rules { problems: Vec<RuleFileProblem> },
    /// No loaded release serves the requested specification version.
    #[error(
        "no release serves specification version `{requested}`; supported versions: {supported}"
    )]
    UnservedSpecVersion {
        requested: String,
        supported: String,
    },
    #[error("{0}")]
    UnknownProtocolVersion(#[from] UnknownProtocolVersion),
    #[error("unknown format `{0}`; expected json, yaml or capture")]
    UnknownFormat(String),
    #[error("cannot read {path}: {message}")]
    Io {
        path: String,
        message: String,
        kind: std::io::ErrorKind,
        /// The operating system's error number, when it gave one.
        errno: Option<i32>,
    },
}

impl Error {
    pub(crate) fn unreadable(path: &std::path::Path, e: &std::io::Error) -> Error {
        Error::Io {
            path: path.display().to_string(),
            message: e.to_string(),
            kind: e.kind(),
            errno: e.raw_os_error(),
        }
    }
}

/// One problem of a rule file, at its file, line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleFileProblem {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl From<RuleProblem> for RuleFileProblem {
    fn from(p: RuleProblem) -> RuleFileProblem {
        RuleFileProblem {
            file: p.file,
            line: p.line,
            column: p.column,
            message: p.message,
        }
    }
}

impl From<RuleLoadError> for Error {
    fn from(e: RuleLoadError) -> Error {
        Error::Rules {
            problems: e.problems.into_iter().map(Into::into).collect(),
        }
    }
}

fn listing(problems: &[RuleFileProblem]) -> String {
    problems
        .iter()
        .map(|p| format!("\n  {}:{}:{}: {}", p.file, p.line, p.column, p.message))
        .collect()
}
