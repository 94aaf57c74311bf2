//! Why a validator could not be built or an input could not be reached.

use mcpdesc_core::internal::eval::UnknownProtocolVersion;
use mcpdesc_core::{RuleLoadError, RuleProblem};
use thiserror::Error;

/// Everything that stops a validation before a document is judged.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Error {
    /// The rule files have problems; every one is listed.
    #[error("{} problem(s) in the rule files:{}", problems.len(), listing(problems))]
    Rules {
        /// Every problem found, by file and position.
        problems: Vec<RuleFileProblem>,
    },
    /// No loaded release serves the requested specification version.
    #[error(
        "no release serves specification version `{requested}`; supported versions: {supported}"
    )]
    UnservedSpecVersion {
        /// The specification version asked for.
        requested: String,
        /// The specification versions the loaded releases serve, worded for a message.
        supported: String,
    },
    /// A protocol version to cover is not one the catalogue knows.
    #[error("{0}")]
    UnknownProtocolVersion(#[from] UnknownProtocolVersion),
    /// A format name is none of `json`, `yaml` (`yml`) or `capture` (`traffic`, `ndjson`,
    /// `jsonl`); it holds the name as given.
    #[error("unknown format `{0}`; expected json, yaml or capture")]
    UnknownFormat(String),
    /// A file to validate could not be read.
    #[error("cannot read {path}: {message}")]
    Io {
        /// The file's path, as displayed.
        path: String,
        /// The operating system's description of the failure.
        message: String,
        /// The kind of failure, for callers that map it onto their own errors.
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
    /// The rule file's path.
    pub file: String,
    /// Line of the problem, from 1.
    pub line: u32,
    /// Column of the problem, from 1.
    pub column: u32,
    /// What is wrong.
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
