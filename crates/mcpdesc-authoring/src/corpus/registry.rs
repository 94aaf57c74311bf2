//! Checks of the catalogue as a registry: every rule is identifiable, documented by
//! examples that exist, and complete about the protocol versions it covers.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;
use serde::Serialize;

use mcpdesc_core::Catalogue;
use mcpdesc_document::{Document, Format, Limits};

/// One registry check and every rule that fails it.
#[derive(Debug, Clone, Serialize)]
pub struct RegistryCheck {
    /// Stable name, e.g. `unique-ids`.
    pub name: &'static str,
    /// What the check requires.
    pub description: &'static str,
    /// Every rule that fails the check; empty when it passes.
    pub failures: Vec<RegistryFailure>,
    /// The release whose rules were checked.
    pub release: String,
}

impl RegistryCheck {
    /// Whether no rule fails the check.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// One rule failing a registry check.
#[derive(Debug, Clone, Serialize)]
pub struct RegistryFailure {
    /// The failing rule's id.
    pub rule: String,
    /// `file:line` of the rule.
    pub source: String,
    /// What is wrong with the rule, in one sentence.
    pub message: String,
}

/// Whether a specification section reference is well-formed: a number or an appendix letter,
/// then dotted numbers, then optional parenthesised clauses (`3.2`, `16.1`, `A`, `A.1`,
/// `9.4(b)`); or, for a specification organised in pages rather than numbered sections (MCP),
/// a page path with an optional anchor (`basic/lifecycle`, `server/tools#calling-tools`).
pub fn is_section_ref(s: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(concat!(
            r"^(?:(?:[1-9][0-9]*|[A-Z])(?:\.(?:0|[1-9][0-9]*))*(?:\([a-z0-9]+\))*",
            r"|[a-z]+(?:/[a-z0-9-]+)+(?:#[a-z0-9-]+)?)$"
        ))
        .unwrap()
    })
    .is_match(s)
}

/// Runs every registry check over `cat`; example fixtures are read from `fixtures`
/// (normally [`Catalogue::fixtures_dir`]).
pub fn check(cat: &Catalogue, fixtures: Option<&Path>) -> Vec<RegistryCheck> {
    let mut unique = Vec::new();
    let mut examples = Vec::new();
    let mut applicability = Vec::new();
    let mut targets = Vec::new();
    let mut sections = Vec::new();
    let mut seen = HashSet::new();
    let mut docs: HashMap<PathBuf, Result<Document<'static>, String>> = HashMap::new();

    for rule in cat.own_rules() {
        let fail = |out: &mut Vec<RegistryFailure>, message: String| {
            out.push(RegistryFailure {
                rule: rule.id().to_owned(),
                source: format!("{}:{}", rule.source.file, rule.source.line),
                message,
            })
        };
        let d = &rule.def;
        if !seen.insert(d.id.as_str()) {
            fail(&mut unique, format!("`{}` is defined more than once", d.id));
        }
        if d.examples.valid.is_empty() {
            fail(&mut examples, "has no valid example".into());
        }
        if d.examples.invalid.is_empty() {
            fail(&mut examples, "has no invalid example".into());
        }
        for (_, name) in cat.versions.iter() {
            if !rule.applicability.contains_key(name) {
                fail(
                    &mut applicability,
                    format!("the applicability table does not name protocol version {name}"),
                );
            }
        }
        for name in rule.applicability.keys() {
            if cat.versions.parse(name).is_none() {
                fail(
                    &mut applicability,
                    format!("the applicability table names unknown protocol version {name}"),
                );
            }
        }
        for s in &d.required_by.sections {
            if !is_section_ref(s) {
                fail(
                    &mut sections,
                    format!(
                        "section reference `{s}` is not well-formed (expected e.g. `3.2`, `16.1`, `A`)"
                    ),
                );
            }
        }
        if d.required_by.sections.is_empty() {
            fail(&mut sections, "`required-by` names no section".into());
        }
        let all = d
            .examples
            .valid
            .iter()
            .map(|e| ("valid", e))
            .chain(d.examples.invalid.iter().map(|e| ("invalid", e)));
        for (kind, ex) in all {
            let Some(dir) = fixtures else {
                fail(
                    &mut targets,
                    format!(
                        "{kind} example {}: the catalogue names no fixture directory",
                        ex.fixture
                    ),
                );
                continue;
            };
            let path = dir.join(&ex.fixture);
            let doc = docs.entry(path.clone()).or_insert_with(|| {
                let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
                let format = Format::from_path(&path.to_string_lossy());
                // A fixture that does not load is fine (serialization rules need them);
                // only the pointers of loadable fixtures can be resolved.
                Document::parse(&bytes, format, &Limits::default())
                    .map(Document::into_owned)
                    .or_else(|_| Ok(Document::from_value(&serde_json::Value::Null)))
            });
            match doc {
                Err(e) => fail(
                    &mut targets,
                    format!("{kind} example fixture {} cannot be read: {e}", ex.fixture),
                ),
                Ok(doc)
                    if !doc.root().is_null()
                        && !ex.pointer.is_empty()
                        && doc.root().pointer(&ex.pointer).is_none() =>
                {
                    fail(
                        &mut targets,
                        format!(
                            "{kind} example pointer `{}` does not exist in {}",
                            ex.pointer, ex.fixture
                        ),
                    )
                }
                Ok(_) => {}
            }
        }
    }

    vec![
        RegistryCheck {
            name: "unique-ids",
            description: "every rule id is defined once",
            failures: unique,
            release: cat.release.version.to_string(),
        },
        RegistryCheck {
            name: "examples-present",
            description: "every rule has at least one valid and one invalid example",
            failures: examples,
            release: cat.release.version.to_string(),
        },
        RegistryCheck {
            name: "applicability-complete",
            description: "every applicability table names every protocol version of the catalogue",
            failures: applicability,
            release: cat.release.version.to_string(),
        },
        RegistryCheck {
            name: "example-targets-exist",
            description: "every example fixture exists and every example pointer resolves in it",
            failures: targets,
            release: cat.release.version.to_string(),
        },
        RegistryCheck {
            name: "section-references",
            description: "every rule names well-formed specification sections",
            failures: sections,
            release: cat.release.version.to_string(),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn section_references() {
        for ok in [
            "3.2",
            "16.1",
            "A",
            "9.4",
            "A.1",
            "12",
            "3.0",
            "9.4(b)",
            "basic/lifecycle",
            "server/tools#calling-tools",
        ] {
            assert!(is_section_ref(ok), "{ok}");
        }
        for bad in [
            "",
            "3.",
            ".2",
            "§3.2",
            "3.2.",
            "03",
            "AB",
            "a",
            "3 .2",
            "3,2",
            "(b)",
            "basic",
            "/basic",
            "Basic/lifecycle",
        ] {
            assert!(!is_section_ref(bad), "{bad}");
        }
    }
}
