//! In-document suppressions: the root specification extension `x-mcpdesc-suppress`.
//!
//! ```yaml
//! x-mcpdesc-suppress:
//!   - rule: mcp.elicitation.protocol-version   # an id, or a prefix such as `mcp.elicitation.*`
//!     pointer: /tools/0                        # optional: this node and everything below it
//!     reason: URL mode is negotiated out of band
//! ```
//!
//! The findings of the document are matched against the entries here, in the command-line
//! layer; the engine knows nothing of it. Entries that silence nothing and malformed entries
//! are reported under the command line's own rule ids, listed in [`cli_rules`].

use mcpdesc_core::document::{Kind, ValueRef};
use mcpdesc_core::{Diagnostic, Document, Selection, Severity};

/// The root member that holds the suppressions.
pub const SUPPRESS_KEY: &str = "x-mcpdesc-suppress";
/// A suppression that matched no finding of its document.
pub const UNUSED: &str = "mcpdesc-cli.unused-suppression";
/// A suppression entry that is not `{rule, reason, pointer?}`.
pub const INVALID: &str = "mcpdesc-cli.invalid-suppression";

/// A rule that the command line, not the catalogue, reports.
pub struct CliRule {
    /// The rule id.
    pub id: &'static str,
    /// Short imperative title.
    pub title: &'static str,
    /// What the rule requires and why, for its documentation.
    pub description: &'static str,
    /// The severity of its findings.
    pub severity: Severity,
    /// The section of `docs/cli.md` that documents it.
    pub section: &'static str,
}

/// Every rule the command line reports itself (documented in `docs/cli.md`).
pub fn cli_rules() -> impl Iterator<Item = &'static CliRule> {
    SUPPRESSION_RULES.iter().chain(crate::live_rules::RULES)
}

/// Whether the command line, not the catalogue, reports rule `id`.
pub fn is_cli_rule(id: &str) -> bool {
    cli_rules().any(|r| r.id == id)
}

const SUPPRESSION_SECTION: &str = "In-document suppressions";

const SUPPRESSION_RULES: &[CliRule] = &[
    CliRule {
        id: UNUSED,
        title: "Remove suppressions that silence nothing",
        description: "An `x-mcpdesc-suppress` entry matched no finding of its document: the \
                      problem was fixed or the rule id or pointer is wrong. Remove the entry so \
                      that it cannot hide a future finding.",
        severity: Severity::Warning,
        section: SUPPRESSION_SECTION,
    },
    CliRule {
        id: INVALID,
        title: "Write suppressions as {rule, reason, pointer?}",
        description: "Every `x-mcpdesc-suppress` entry is an object with a non-empty `rule` \
                      (a rule id or prefix), a non-empty `reason`, and optionally a `pointer` \
                      (an RFC 6901 JSON Pointer); the member itself is an array.",
        severity: Severity::Error,
        section: SUPPRESSION_SECTION,
    },
];

/// One parsed suppression entry.
#[derive(Debug, Clone)]
pub struct Suppression {
    /// Index in the `x-mcpdesc-suppress` array.
    pub index: usize,
    /// The rule id or prefix (`mcp.elicitation.*`) it silences.
    pub rule: String,
    /// The node it covers, with its descendants; `None` for the whole document.
    pub pointer: Option<String>,
    /// Whether it silenced at least one finding.
    pub used: bool,
}

impl Suppression {
    fn matches(&self, d: &Diagnostic) -> bool {
        rule_matches(&self.rule, &d.rule)
            && match &self.pointer {
                None => true,
                Some(p) => {
                    p.is_empty()
                        || d.pointer == *p
                        || d.pointer
                            .strip_prefix(p.as_str())
                            .is_some_and(|rest| rest.starts_with('/'))
                }
            }
    }
}

/// Whether rule `id` matches `pattern` (an id, or a prefix such as `mcp.elicitation.*`), with
/// the same meaning as `--select`.
pub fn rule_matches(pattern: &str, id: &str) -> bool {
    Selection {
        select: vec![pattern.to_owned()],
        ..Selection::default()
    }
    .includes(id)
}

fn cli_diagnostic(
    rule: &str,
    severity: Severity,
    message: String,
    pointer: String,
    doc: &Document<'_>,
) -> Diagnostic {
    let pos = doc.position(&pointer);
    Diagnostic::new(rule.to_owned(), severity, message).at(pointer, pos.line, pos.column)
}

/// The document's suppressions, and diagnostics for malformed entries.
pub fn parse(doc: &Document<'_>) -> (Vec<Suppression>, Vec<Diagnostic>) {
    let mut sups = Vec::new();
    let mut problems = Vec::new();
    let Some(value) = doc.root().get(SUPPRESS_KEY) else {
        return (sups, problems);
    };
    let base = format!("/{SUPPRESS_KEY}");
    let Some(entries) = value.as_array() else {
        problems.push(cli_diagnostic(
            INVALID,
            Severity::Error,
            format!("`{SUPPRESS_KEY}` must be an array of {{rule, reason, pointer?}} objects"),
            base,
            doc,
        ));
        return (sups, problems);
    };
    for (index, entry) in entries.iter().enumerate() {
        let at = format!("{base}/{index}");
        match entry_of(entry) {
            Ok((rule, pointer)) => sups.push(Suppression {
                index,
                rule,
                pointer,
                used: false,
            }),
            Err(why) => problems.push(cli_diagnostic(INVALID, Severity::Error, why, at, doc)),
        }
    }
    (sups, problems)
}

/// `(rule, pointer)` of a well-formed entry (which also has a non-empty `reason`).
fn entry_of(entry: ValueRef<'_>) -> Result<(String, Option<String>), String> {
    let obj = entry
        .as_object()
        .ok_or("a suppression must be an object {rule, reason, pointer?}")?;
    if let Some(k) = obj
        .keys()
        .find(|k| !["rule", "pointer", "reason"].contains(k))
    {
        return Err(format!(
            "unknown member `{k}` in a suppression (expected `rule`, `pointer`, `reason`)"
        ));
    }
    let text = |k: &str| obj.get(k).and_then(ValueRef::as_str).map(str::trim);
    let rule = match text("rule") {
        Some(r) if !r.is_empty() => r.to_owned(),
        _ => return Err("a suppression needs a `rule`: a rule id or prefix".into()),
    };
    if text("reason").is_none_or(str::is_empty) {
        return Err(format!("the suppression of `{rule}` needs a `reason`"));
    }
    let pointer = match obj.get("pointer").map(ValueRef::kind) {
        None => None,
        Some(Kind::String(p)) if p.is_empty() || p.starts_with('/') => Some(p.to_owned()),
        Some(_) => {
            return Err(format!(
                "the `pointer` of the suppression of `{rule}` must be a JSON Pointer (\"\" or starting with `/`)"
            ))
        }
    };
    Ok((rule, pointer))
}

/// Removes the findings some suppression covers (marking it used); returns how many went.
pub fn apply(diagnostics: &mut Vec<Diagnostic>, sups: &mut [Suppression]) -> usize {
    let before = diagnostics.len();
    diagnostics.retain(|d| {
        let mut hit = false;
        for s in sups.iter_mut() {
            if s.matches(d) {
                s.used = true;
                hit = true;
            }
        }
        !hit
    });
    before - diagnostics.len()
}

/// Diagnostics for suppressions that silenced nothing. `could_fire(pattern)` says whether a
/// rule matching the pattern ran at all in this invocation (a suppression of a deselected rule
/// is not reported); `known(pattern)` whether the catalogue has such a rule.
pub fn unused(
    doc: &Document<'_>,
    sups: &[Suppression],
    could_fire: impl Fn(&str) -> bool,
    known: impl Fn(&str) -> bool,
) -> Vec<Diagnostic> {
    sups.iter()
        .filter(|s| !s.used)
        .filter_map(|s| {
            let message = if !known(&s.rule) {
                format!("the suppression names `{}`, which matches no rule", s.rule)
            } else if could_fire(&s.rule) {
                match &s.pointer {
                    Some(p) => format!(
                        "the suppression of `{}` at `{p}` matches no finding; remove it",
                        s.rule
                    ),
                    None => format!(
                        "the suppression of `{}` matches no finding; remove it",
                        s.rule
                    ),
                }
            } else {
                return None;
            };
            Some(cli_diagnostic(
                UNUSED,
                Severity::Warning,
                message,
                format!("/{SUPPRESS_KEY}/{}", s.index),
                doc,
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdesc_core::{Format, Limits};

    fn doc(text: &str) -> Document<'_> {
        Document::parse_str(text, Format::Json, &Limits::default()).unwrap()
    }

    fn diag(rule: &str, pointer: &str) -> Diagnostic {
        Diagnostic::new(rule, Severity::Error, "m").at(pointer, 1, 1)
    }

    #[test]
    fn matches_by_rule_prefix_and_subtree() {
        let d = doc(r#"{"x-mcpdesc-suppress": [
                {"rule": "mcp.elicitation.*", "pointer": "/tools/0", "reason": "r"},
                {"rule": "mcpdesc.info.name", "reason": "r"}]}"#);
        let (mut sups, problems) = parse(&d);
        assert!(problems.is_empty());
        let mut diags = vec![
            diag("mcp.elicitation.mode", "/tools/0/elicitations/0"),
            diag("mcp.elicitation.mode", "/tools/10"),
            diag("mcpdesc.info.name", "/info"),
        ];
        assert_eq!(apply(&mut diags, &mut sups), 2);
        assert_eq!(diags[0].pointer, "/tools/10");
        assert!(sups.iter().all(|s| s.used));
    }

    #[test]
    fn malformed_entries_are_reported() {
        let d = doc(
            r#"{"x-mcpdesc-suppress": [{"rule": "a"}, {"reason": "b"}, 3, {"rule": "a", "reason": "b", "pointer": "x"}]}"#,
        );
        let (sups, problems) = parse(&d);
        assert!(sups.is_empty());
        assert_eq!(problems.len(), 4);
        assert!(problems.iter().all(|p| p.rule == INVALID));
    }
}
