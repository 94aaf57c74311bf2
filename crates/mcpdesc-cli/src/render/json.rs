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
    load_error: Option<&'a LoadFailure>,
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
            load_error: r.load_error.as_ref(),
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
