//! The documented machine contract: `{"files": [{"path", "valid", "diagnostics": [...]}]}`.

use anyhow::Result;
use mcpdesc_core::{Diagnostic, LoadFailure};
use serde::Serialize;

use super::{safe, FileResult, RenderContext};

#[derive(Serialize)]
struct JsonReport<'a> {
    files: Vec<JsonFile<'a>>,
    /// `conformance`, or `strict` when warnings were promoted to errors.
    profile: &'static str,
}

#[derive(Serialize)]
struct JsonFile<'a> {
    path: &'a str,
    valid: bool,
    diagnostics: Vec<JsonDiagnostic<'a>>,
    #[serde(rename = "loadError", skip_serializing_if = "Option::is_none")]
    load_error: Option<JsonLoadError<'a>>,
    #[serde(skip_serializing_if = "is_zero")]
    suppressed: usize,
    #[serde(skip_serializing_if = "is_zero")]
    baselined: usize,
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    #[serde(flatten)]
    diagnostic: &'a Diagnostic,
    #[serde(rename = "docUrl", skip_serializing_if = "Option::is_none")]
    doc_url: Option<String>,
}

/// A load failure; `line` and `column` are `null` when it has no position (a file that
/// could not be read at all), as in the Node and Python results, never a made-up `0`.
#[derive(Serialize)]
struct JsonLoadError<'a> {
    code: &'a str,
    message: &'a str,
    line: Option<u32>,
    column: Option<u32>,
}

impl<'a> From<&'a LoadFailure> for JsonLoadError<'a> {
    fn from(e: &'a LoadFailure) -> Self {
        let at = super::load_error_position(e);
        JsonLoadError {
            code: e.code,
            message: &e.message,
            line: at.map(|(line, _)| line),
            column: at.map(|(_, column)| column),
        }
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The JSON report; documented fields first and unchanged, optional additions after them.
pub(crate) fn json(results: &[FileResult], ctx: &RenderContext<'_>) -> Result<String> {
    let files = results
        .iter()
        .map(|r| JsonFile {
            path: &r.path,
            valid: r.is_valid(),
            diagnostics: r
                .diagnostics
                .iter()
                .map(|d| JsonDiagnostic {
                    diagnostic: d,
                    doc_url: ctx.doc_url(r, &d.rule),
                })
                .collect(),
            load_error: r.load_error.as_ref().map(JsonLoadError::from),
            suppressed: r.suppressed,
            baselined: r.baselined,
        })
        .collect();
    let report = JsonReport {
        files,
        profile: ctx.profile(),
    };
    Ok(safe::to_json_pretty(&report)? + "\n")
}
