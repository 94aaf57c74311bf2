//! Turning reports and catalogues into text and JSON.

use std::fmt::Write as _;

use anyhow::Result;
use mcpdesc_core::{Catalogue, Report};
use serde::Serialize;
use serde_json::{json, Value};

use crate::cli::Format;

pub struct FileResult {
    pub path: String,
    pub report: Report,
}

/// `file:line:column: severity[rule] message`, one line per diagnostic, then a summary.
pub fn text(results: &[FileResult]) -> String {
    let mut out = String::new();
    let (mut errors, mut warnings) = (0, 0);
    for r in results {
        if let Some(e) = &r.report.load_error {
            if r.report.diagnostics.is_empty() {
                let _ = writeln!(
                    out,
                    "{}:{}:{}: error: {}",
                    r.path, e.line, e.column, e.message
                );
                errors += 1;
            }
        }
        for d in &r.report.diagnostics {
            let versions = if d.versions.is_empty() {
                String::new()
            } else {
                format!(" (MCP {})", d.versions.join(", "))
            };
            let _ = writeln!(
                out,
                "{}:{}:{}: {}[{}] {}{}",
                r.path,
                d.line,
                d.column,
                d.severity.as_str(),
                d.rule,
                d.message,
                versions
            );
            match d.severity {
                mcpdesc_core::Severity::Error => errors += 1,
                mcpdesc_core::Severity::Warning => warnings += 1,
                mcpdesc_core::Severity::Info => {}
            }
        }
    }
    let invalid = results.iter().filter(|r| !r.report.is_valid()).count();
    let _ = writeln!(
        out,
        "{} file(s) checked: {} invalid, {} error(s), {} warning(s)",
        results.len(),
        invalid,
        errors,
        warnings
    );
    out
}

#[derive(Serialize)]
struct JsonFile<'a> {
    path: &'a str,
    valid: bool,
    diagnostics: &'a [mcpdesc_core::Diagnostic],
    #[serde(rename = "loadError", skip_serializing_if = "Option::is_none")]
    load_error: Option<&'a mcpdesc_core::LoadFailure>,
}

/// The documented machine contract: `{"files":[{"path","valid","diagnostics":[...]}]}`.
pub fn json(results: &[FileResult]) -> Result<String> {
    let files: Vec<JsonFile<'_>> = results
        .iter()
        .map(|r| JsonFile {
            path: &r.path,
            valid: r.report.is_valid(),
            diagnostics: &r.report.diagnostics,
            load_error: r.report.load_error.as_ref(),
        })
        .collect();
    Ok(serde_json::to_string_pretty(&json!({ "files": files }))? + "\n")
}

/// Every rule with its metadata, fields named as in the rule files.
pub fn rules_list(cat: &Catalogue, format: Format) -> Result<String> {
    match format {
        Format::Json => {
            let rules: Vec<Value> = cat
                .rules
                .iter()
                .map(|r| {
                    let mut v = serde_json::to_value(&r.def)?;
                    if let Some(obj) = v.as_object_mut() {
                        obj.insert("severity".into(), json!(r.severity));
                        obj.insert(
                            "source".into(),
                            json!({"file": r.source.file, "line": r.source.line}),
                        );
                    }
                    Ok(v)
                })
                .collect::<Result<_>>()?;
            Ok(serde_json::to_string_pretty(&json!({ "rules": rules }))? + "\n")
        }
        Format::Text => {
            let mut out = String::new();
            for r in &cat.rules {
                let _ = writeln!(
                    out,
                    "{:<60} {:<8} {:<7} {}",
                    r.def.id,
                    r.def.owner.as_str(),
                    r.def.level.as_str(),
                    r.def.title
                );
            }
            let _ = writeln!(out, "{} rule(s)", cat.rules.len());
            Ok(out)
        }
    }
}
