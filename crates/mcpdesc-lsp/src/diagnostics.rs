//! Findings as LSP diagnostics: the rule id as the code, the rule page as its description,
//! the protocol versions in the message, and the finding itself in `data` so that code
//! actions know what they act on.

use std::collections::HashMap;
use std::str::FromStr as _;

use lsp_types::{
    CodeDescription, Diagnostic, DiagnosticSeverity, NumberOrString, Position, Range, Uri,
};
use mcpdesc_core::document::Position as DocPosition;
use mcpdesc_core::{Catalogue, Severity};
use serde::{Deserialize, Serialize};

use super::locate;
use super::text::Text;
use super::worker::{Checked, RuleError};
use mcpdesc_project::safe;

/// The finding a diagnostic stands for, carried in its `data`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct FindingData {
    pub rule: String,
    pub pointer: String,
    pub versions: Vec<String>,
}

/// The catalogue of the release that judged a checked document.
pub(crate) fn catalogue_of(checked: &Checked) -> Option<&Catalogue> {
    let engine = checked.engine.as_deref()?;
    Some(
        engine
            .releases()
            .releases()
            .iter()
            .map(|c| &**c)
            .find(|c| c.release.version.to_string() == checked.release)
            .unwrap_or(engine.catalogue()),
    )
}

/// The range a finding at `line`:`column` underlines.
pub(crate) fn range_of(text: &Text, line: u32, column: u32) -> Range {
    match locate::token(text, DocPosition::new(line, column)) {
        Some((start, end)) => text.range(start, end),
        None => Range::new(Position::new(0, 0), Position::new(0, 0)),
    }
}

fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
    }
}

/// The message shown: the finding's text made safe, with the versions it concerns.
pub(crate) fn message(d: &mcpdesc_core::Diagnostic) -> String {
    let text = safe::escape(&d.message);
    if d.versions.is_empty() {
        text.into_owned()
    } else {
        format!("{text} (MCP {})", d.versions.join(", "))
    }
}

pub(crate) fn for_checked(checked: &Checked) -> Vec<Diagnostic> {
    if let Some(e) = &checked.rule_error {
        return vec![Diagnostic {
            range: Range::default(),
            severity: Some(DiagnosticSeverity::ERROR),
            source: Some("mcpdesc".into()),
            message: safe::escape_multiline(&e.message).into_owned(),
            ..Diagnostic::default()
        }];
    }
    let cat = catalogue_of(checked);
    checked
        .findings
        .iter()
        .map(|d| Diagnostic {
            range: range_of(&checked.text, d.line, d.column),
            severity: Some(severity(d.severity)),
            code: Some(NumberOrString::String(d.rule.clone())),
            code_description: cat
                .and_then(|c| checked.links.link(c, &d.rule))
                .map(|href| CodeDescription { href }),
            source: Some("mcpdesc".into()),
            message: message(d),
            data: serde_json::to_value(FindingData {
                rule: d.rule.clone(),
                pointer: d.pointer.clone(),
                versions: d.versions.clone(),
            })
            .ok(),
            ..Diagnostic::default()
        })
        .collect()
}

/// The problems of a failed rule load, on the rule files they are in.
pub(crate) fn for_rule_problems(e: &RuleError) -> HashMap<Uri, Vec<Diagnostic>> {
    let mut out: HashMap<Uri, Vec<Diagnostic>> = HashMap::new();
    for (file, line, column, message) in &e.problems {
        let Some(uri) = url::Url::from_file_path(file)
            .ok()
            .and_then(|u| Uri::from_str(u.as_str()).ok())
        else {
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let text = Text::new(text);
        // Rule files are YAML.
        text.read_as(mcpdesc_core::Format::Yaml);
        let range = range_of(&text, *line, *column);
        out.entry(uri).or_default().push(Diagnostic {
            range,
            severity: Some(DiagnosticSeverity::ERROR),
            source: Some("mcpdesc rules".into()),
            message: safe::escape(message).into_owned(),
            ..Diagnostic::default()
        });
    }
    out
}
