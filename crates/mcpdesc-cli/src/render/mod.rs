//! Turning validation results and catalogues into text, concise lines, statistics, JSON,
//! SARIF, GitHub annotations and JUnit XML. Every renderer returns a `String`; nothing here writes to a terminal. Text taken
//! from documents, paths and rule files goes out through [`safe`], so that it cannot drive the
//! reader's terminal or disguise itself.

mod concise;
mod github;
mod json;
pub(crate) mod junit;
pub(crate) mod rules;
pub(crate) use mcpdesc_project::safe;
mod sarif;
pub(crate) mod statistics;
mod text;

use mcpdesc_core::internal::release_dir;
use mcpdesc_core::internal::rules::CatalogueSet;
use mcpdesc_core::{Catalogue, Diagnostic, LoadFailure, Severity};

pub(crate) use concise::concise;
pub(crate) use github::github;
pub(crate) use json::json;
pub(crate) use junit::junit;
pub(crate) use sarif::sarif;
pub(crate) use text::text;

pub(crate) use mcpdesc_project::config::OutputFormat;

/// The outcome for one input after suppressions, strictness and the baseline were applied.
#[derive(Debug, Clone)]
pub(crate) struct FileResult {
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
    /// The version of the release that judged the document (`None` when it was not read).
    pub release: Option<String>,
}

impl FileResult {
    /// The document loaded and has no error-level finding.
    pub(crate) fn is_valid(&self) -> bool {
        self.load_error.is_none()
            && !self
                .diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error)
    }

    /// A load failure that no rule turned into a diagnostic.
    pub(crate) fn unclaimed_load_error(&self) -> Option<&LoadFailure> {
        self.load_error
            .as_ref()
            .filter(|_| self.io_error || self.diagnostics.is_empty())
    }
}

/// `results` in `format`.
pub(crate) fn in_format(
    format: OutputFormat,
    results: &[FileResult],
    ctx: &RenderContext<'_>,
) -> anyhow::Result<String> {
    Ok(match format {
        OutputFormat::Text => text(results, ctx),
        OutputFormat::Concise => concise(results, ctx),
        OutputFormat::Json => json(results, ctx)?,
        OutputFormat::Sarif => sarif(results, ctx)?,
        OutputFormat::Github => github(results, ctx),
        OutputFormat::Junit => junit(results, ctx)?,
    })
}

/// Where a load failure is, as `(line, column)`; `None` for one that has no position (a
/// file that could not be read at all), which every format then reports for the file alone.
pub(crate) fn load_error_position(e: &LoadFailure) -> Option<(u32, u32)> {
    (e.line > 0).then_some((e.line, e.column.max(1)))
}

pub(crate) use mcpdesc_core::DocUrls;

/// Everything a renderer needs besides the results.
pub(crate) struct RenderContext<'a> {
    /// The default release (or the one `--spec-version` fixed).
    pub catalogue: &'a Catalogue,
    /// Every loaded release; each document's findings link to the release that judged it.
    pub releases: &'a CatalogueSet,
    pub docs: DocUrls,
    /// The strict profile was used (warnings were promoted to errors).
    pub strict: bool,
    /// Findings at or above this severity fail the run.
    pub fail_on: Severity,
    /// Emit ANSI colour sequences (text and concise formats only).
    pub color: bool,
    /// End the text and concise formats with the summary line (`--quiet` leaves it out).
    pub summary: bool,
}

impl RenderContext<'_> {
    /// The release that judged `r` (the default one when it is unknown).
    pub(crate) fn catalogue_of(&self, r: &FileResult) -> &Catalogue {
        r.release
            .as_deref()
            .and_then(|v| {
                self.releases
                    .releases()
                    .iter()
                    .find(|c| release_dir(c) == v)
            })
            .map_or(self.catalogue, |c| &**c)
    }

    /// The page of rule `id` for a finding in `r`, in the release that judged `r`.
    pub(crate) fn doc_url(&self, r: &FileResult, id: &str) -> Option<String> {
        self.docs.url(self.catalogue_of(r), id)
    }

    /// The profile name reported in machine-readable output.
    pub(crate) fn profile(&self) -> &'static str {
        if self.strict {
            "strict"
        } else {
            "conformance"
        }
    }
}

/// Finding counts over all results.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Totals {
    pub files: usize,
    pub invalid: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    pub suppressed: usize,
    pub baselined: usize,
}

impl Totals {
    pub(crate) fn of(results: &[FileResult]) -> Totals {
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
        format!(" (MCP {})", safe::escape(&d.versions.join(", ")))
    }
}

/// `n thing` or `n things`.
pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_url_gets_the_layout_of_the_pages() {
        let t = |b: &str| DocUrls::new(Some(b)).template().unwrap().to_owned();
        assert_eq!(
            t("https://example.org/rules/"),
            "https://example.org/rules/{release}/{owner}/{id}.md"
        );
        assert_eq!(t("https://example.org/{id}"), "https://example.org/{id}");
        assert!(DocUrls::new(None).template().is_none());
    }
}
