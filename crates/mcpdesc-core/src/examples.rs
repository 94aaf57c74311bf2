//! Running the examples every rule declares: an invalid example must produce a diagnostic of
//! its rule at the example's pointer or below it, a valid one must produce none there.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::diagnostic::Diagnostic;
use crate::engine::{Engine, Report};

/// Whether an example claims its rule fires or stays silent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expectation {
    /// A `valid` example: no diagnostic of the rule at or below its pointer.
    Valid,
    /// An `invalid` example: a diagnostic of the rule at or below its pointer.
    Invalid,
}

/// The outcome of one declared example.
#[derive(Debug, Clone)]
pub struct ExampleOutcome {
    /// The id of the rule the example belongs to.
    pub rule: String,
    /// Whether the example was listed as valid or invalid.
    pub expectation: Expectation,
    /// The fixture file, as the example names it (relative to the fixture directory).
    pub fixture: String,
    /// The node of the fixture the example is about, as a JSON Pointer.
    pub pointer: String,
    /// `None` when the example holds; otherwise why not.
    pub failure: Option<String>,
    /// The release the example was judged by.
    pub release: String,
}

/// Whether `pointer` is `at` or lies below it.
pub fn at_or_below(pointer: &str, at: &str) -> bool {
    pointer == at || (pointer.starts_with(at) && pointer[at.len()..].starts_with('/'))
}

/// Runs every example of every rule that the release of `engine` (see
/// [`Engine::catalogue`]) defines itself, reading fixtures from `fixtures`. Rules a release
/// inherits unchanged are exercised by the examples of the release that defines them.
pub fn run_examples(engine: &Engine, fixtures: &Path) -> Vec<ExampleOutcome> {
    let mut reports: HashMap<PathBuf, Result<Report, String>> = HashMap::new();
    let mut out = Vec::new();
    for rule in engine.catalogue().own_rules() {
        let all = rule
            .def
            .examples
            .valid
            .iter()
            .map(|e| (Expectation::Valid, e))
            .chain(
                rule.def
                    .examples
                    .invalid
                    .iter()
                    .map(|e| (Expectation::Invalid, e)),
            );
        for (expectation, ex) in all {
            let path = fixtures.join(&ex.fixture);
            let report = reports
                .entry(path.clone())
                .or_insert_with(|| engine.validate_file(&path).map_err(|e| e.to_string()));
            let failure = match report {
                Err(e) => Some(e.clone()),
                Ok(report) => judge(report, rule.id(), &ex.pointer, expectation, &path),
            };
            out.push(ExampleOutcome {
                rule: rule.id().to_owned(),
                expectation,
                fixture: ex.fixture.clone(),
                pointer: ex.pointer.clone(),
                failure,
                release: engine.catalogue().release.version.to_string(),
            });
        }
    }
    out
}

fn judge(
    report: &Report,
    rule: &str,
    pointer: &str,
    expectation: Expectation,
    path: &Path,
) -> Option<String> {
    if report.load_error.is_none() && !pointer_exists(path, pointer) {
        return Some(format!("pointer `{pointer}` does not exist in the fixture"));
    }
    let hits: Vec<&Diagnostic> = report
        .diagnostics
        .iter()
        .filter(|d| d.rule == rule && at_or_below(&d.pointer, pointer))
        .collect();
    match (expectation, hits.is_empty()) {
        (Expectation::Invalid, true) => Some(format!(
            "expected a `{rule}` diagnostic at or below `{pointer}`, got none"
        )),
        (Expectation::Valid, false) => Some(format!(
            "expected no `{rule}` diagnostic at or below `{pointer}`, got: {}",
            hits.iter()
                .map(|d| format!("{} {}", d.pointer, d.message))
                .collect::<Vec<_>>()
                .join("; ")
        )),
        _ => None,
    }
}

fn pointer_exists(path: &Path, pointer: &str) -> bool {
    if pointer.is_empty() {
        return true;
    }
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    let format = crate::document::Format::from_path(&path.to_string_lossy());
    crate::document::Document::parse(&bytes, format, &crate::document::Limits::default())
        .map(|d| d.root().pointer(pointer).is_some())
        .unwrap_or(false)
}
