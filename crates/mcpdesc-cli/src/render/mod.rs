//! Turning validation results and catalogues into text, JSON, SARIF, GitHub annotations and
//! JUnit XML. Every renderer returns a `String`; nothing here writes to a terminal.

mod github;
mod json;
pub(crate) mod junit;
pub mod rules;
mod sarif;
mod text;

use mcpdesc_core::{Catalogue, Diagnostic, LoadFailure, Severity};
use serde::{Deserialize, Serialize};

pub use github::github;
pub use json::json;
pub use junit::junit;
pub use sarif::sarif;
pub use text::text;

/// The output formats of `mcpdesc validate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputFormat {
    /// Diagnostics with source excerpts, grouped by file, and a summary line.
    Text,
    /// The documented machine contract (`{"files": [...]}`).
    Json,
    /// SARIF 2.1.0, for code-scanning dashboards.
    Sarif,
    /// GitHub Actions workflow commands (`::error file=…::…`).
    Github,
    /// JUnit XML, one test suite per document.
    Junit,
}

/// The outcome for one input after suppressions, strictness and the baseline were applied.
#[derive(Debug, Clone)]
pub struct FileResult {
    /// The path as shown to the user (as given, or as found while walking a directory).
    pub path: String,
    /// The source text, for excerpts (absent when the input could not be read).
    pub source: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
    /// Set when the document could not be read or parsed.
    pub load_error: Option<LoadFailure>,
    /// The input could not be read at all (missing file, permission, no match for a glob).
    pub io_error: bool,
    /// Findings silenced by `x-mcpdesc-suppress` entries or `[[ignore]]` blocks.
    pub suppressed: usize,
    /// Findings already recorded in the baseline.
    pub baselined: usize,
}

impl FileResult {
    /// The document loaded and has no error-level finding.
    pub fn is_valid(&self) -> bool {
        self.load_error.is_none()
            && !self
                .diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error)
    }

    /// A load failure that no rule turned into a diagnostic.
    pub fn unclaimed_load_error(&self) -> Option<&LoadFailure> {
        self.load_error
            .as_ref()
            .filter(|_| self.io_error || self.diagnostics.is_empty())
    }
}

/// Where each rule's documentation page lives.
#[derive(Debug, Clone, Default)]
pub struct DocUrls {
    template: Option<String>,
}

impl DocUrls {
    /// The catalogue's `docs-url` template, or `base` (a template with `{id}`, or a base URL
    /// under which `{owner}/{id}` is appended).
    pub fn new(cat: &Catalogue, base: Option<&str>) -> DocUrls {
        let template = match base {
            Some(b) if b.contains("{id}") => Some(b.to_owned()),
            Some(b) => Some(format!("{}/{{owner}}/{{id}}", b.trim_end_matches('/'))),
            None => cat.def.docs_url.clone(),
        };
        DocUrls { template }
    }

    /// The page of rule `id`, when the catalogue knows the rule and a template is set.
    pub fn url(&self, cat: &Catalogue, id: &str) -> Option<String> {
        let template = self.template.as_ref()?;
        let rule = cat.rule(id)?;
        Some(
            template
                .replace("{owner}", rule.def.owner.as_str())
                .replace("{id}", id),
        )
    }
}

/// Everything a renderer needs besides the results.
pub struct RenderContext<'a> {
    pub catalogue: &'a Catalogue,
    pub docs: DocUrls,
    /// The strict profile was used (warnings were promoted to errors).
    pub strict: bool,
    /// Findings at or above this severity fail the run.
    pub fail_on: Severity,
    /// Emit ANSI colour sequences (text format only).
    pub color: bool,
}

impl RenderContext<'_> {
    /// The profile name reported in machine-readable output.
    pub fn profile(&self) -> &'static str {
        if self.strict {
            "strict"
        } else {
            "conformance"
        }
    }
}

/// Finding counts over all results.
#[derive(Debug, Default, Clone, Copy)]
pub struct Totals {
    pub files: usize,
    pub invalid: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    pub suppressed: usize,
    pub baselined: usize,
}

impl Totals {
    pub fn of(results: &[FileResult]) -> Totals {
        let mut t = Totals {
            files: results.len(),
            ..Totals::default()
        };
        for r in results {
            if !r.is_valid() {
                t.invalid += 1;
            }
            if r.unclaimed_load_error().is_some() {
                t.errors += 1;
            }
            for d in &r.diagnostics {
                match d.severity {
                    Severity::Error => t.errors += 1,
                    Severity::Warning => t.warnings += 1,
                    Severity::Info => t.infos += 1,
                }
            }
            t.suppressed += r.suppressed;
            t.baselined += r.baselined;
        }
        t
    }
}

/// ` (MCP 2025-06-18, 2025-11-25)`, or nothing for a version-independent finding.
pub(crate) fn versions_suffix(d: &Diagnostic) -> String {
    if d.versions.is_empty() {
        String::new()
    } else {
        format!(" (MCP {})", d.versions.join(", "))
    }
}

/// `n thing` or `n things`.
pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
