//! What a user sees of one document: the engine's findings after configuration ignores,
//! in-document suppressions and the strict profile. `validate` and the language server
//! both go through here, so an editor shows exactly what CI reports.

use std::path::Path;

use mcpdesc_core::{Catalogue, Diagnostic, Document, Format, Limits, Selection, Severity};

use crate::config::Config;
use crate::suppress;

/// A document's bytes as the text excerpts and suppressions read: invalid UTF-8 replaced,
/// a leading byte-order mark dropped (the parsers skip it too, so positions agree).
pub fn source_text(bytes: Vec<u8>) -> String {
    let mut text = String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    text
}

/// The rules and protocol versions a run covers: `select` and `ignore` patterns, and the
/// protocol versions named (every version when none is).
pub fn selection(
    cat: &Catalogue,
    select: &[String],
    ignore: &[String],
    versions: &[String],
) -> Result<Selection, String> {
    Selection::of(cat, select, ignore, versions).map_err(|e| e.to_string())
}

/// The user's choices that act on findings after the engine ran.
pub struct Policy<'a> {
    /// The catalogue that judged the document.
    pub catalogue: &'a Catalogue,
    /// The rules and protocol versions the run covers; suppressions of rules outside it are not
    /// reported unused.
    pub selection: &'a Selection,
    /// The configuration file that applies to the document, if any.
    pub config: Option<&'a Config>,
    /// Whether warnings are reported as errors.
    pub strict: bool,
}

impl Policy<'_> {
    /// Applies the policy to the findings of the document at `abs` whose text is `text`;
    /// returns how many findings were silenced.
    pub fn apply(
        &self,
        diagnostics: &mut Vec<Diagnostic>,
        abs: &Path,
        text: Option<&str>,
        format: Format,
        limits: &Limits,
    ) -> usize {
        let mut suppressed = 0;
        // Configuration ignores act as if the rule had not run for this path.
        if let Some(c) = self.config {
            let before = diagnostics.len();
            diagnostics.retain(|d| !c.ignores(abs, &d.rule));
            suppressed += before - diagnostics.len();
        }
        // Only documents that mention the extension are read a second time.
        let doc = text
            .filter(|src| src.contains(suppress::SUPPRESS_KEY))
            .and_then(|src| Document::parse_str(src, format, limits).ok());
        if let Some(doc) = &doc {
            suppressed += self.suppress(diagnostics, doc);
            if let Some(c) = self.config {
                diagnostics.retain(|d| !c.ignores(abs, &d.rule));
            }
            diagnostics.sort_by(|a, b| {
                (a.line, a.column, &a.pointer, &a.rule, &a.message)
                    .cmp(&(b.line, b.column, &b.pointer, &b.rule, &b.message))
            });
        }
        if self.strict {
            // A note on what the validator could not establish is no fault of the document:
            // promoting it would fail every strict run of a document covering that revision.
            let informational =
                |id: &str| self.catalogue.rule(id).is_some_and(|r| r.def.informational);
            for d in diagnostics.iter_mut() {
                if d.severity == Severity::Warning && !informational(&d.rule) {
                    d.severity = Severity::Error;
                }
            }
        }
        suppressed
    }

    /// Applies the document's `x-mcpdesc-suppress` entries and reports malformed and unused
    /// ones, under the command line's own rule ids when those are selected.
    fn suppress(&self, diagnostics: &mut Vec<Diagnostic>, doc: &Document<'_>) -> usize {
        let cat = self.catalogue;
        let selection = self.selection;
        // Suppressions of rules that cannot fire in this run are not reported as unused.
        let could_fire = |pattern: &str| {
            selection.versions.is_none()
                && cat
                    .rules
                    .iter()
                    .any(|r| suppress::rule_matches(pattern, r.id()) && selection.includes(r.id()))
        };
        // The command line's own rules (those of `check-server` too) are rules a
        // suppression may name, though `validate` never reports most of them.
        let known = |pattern: &str| {
            cat.rules
                .iter()
                .any(|r| suppress::rule_matches(pattern, r.id()))
                || suppress::cli_rules().any(|r| suppress::rule_matches(pattern, r.id))
        };
        let (mut sups, problems) = suppress::parse(doc);
        let silenced = suppress::apply(diagnostics, &mut sups);
        if selection.includes(suppress::INVALID) {
            diagnostics.extend(problems);
        }
        if selection.includes(suppress::UNUSED) {
            diagnostics.extend(suppress::unused(doc, &sups, could_fire, known));
        }
        silenced
    }
}
