//! `--statistics`: how many findings each rule reported, most first, as `ruff --statistics`
//! prints them.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use mcpdesc_core::Severity;
use serde_json::json;

use super::safe::{escape, to_json_pretty};
use super::text::summary;
use super::{FileResult, RenderContext};
use mcpdesc_project::suppress::cli_rules;

/// One rule's count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RuleCount {
    /// The rule id, or the code of a load failure no rule reported.
    pub rule: String,
    /// The highest severity among its findings (the strict profile and a rule's
    /// applicability can report one rule at several).
    pub severity: Severity,
    pub count: usize,
    /// The rule's title; empty for a load failure.
    pub title: String,
}

/// The count of every rule with findings, the most frequent first, ties by rule id.
pub(crate) fn counts(results: &[FileResult], ctx: &RenderContext<'_>) -> Vec<RuleCount> {
    let mut by_rule: BTreeMap<String, RuleCount> = BTreeMap::new();
    for r in results {
        let cat = ctx.catalogue_of(r);
        let mut count = |rule: &str, severity: Severity| {
            let e = by_rule.entry(rule.to_owned()).or_insert_with(|| RuleCount {
                rule: rule.to_owned(),
                severity,
                count: 0,
                title: cat
                    .rule(rule)
                    .map(|r| r.def.title.trim().to_owned())
                    .or_else(|| {
                        cli_rules()
                            .find(|c| c.id == rule)
                            .map(|c| c.title.to_owned())
                    })
                    .unwrap_or_default(),
            });
            e.count += 1;
            e.severity = e.severity.max(severity);
        };
        if let Some(e) = r.unclaimed_load_error() {
            count(e.code, Severity::Error);
        }
        for d in &r.diagnostics {
            count(&d.rule, d.severity);
        }
    }
    let mut counts: Vec<RuleCount> = by_rule.into_values().collect();
    counts.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.rule.cmp(&b.rule)));
    counts
}

/// A table of `count  severity  rule  title` lines, then the summary line of the text format.
pub(crate) fn text(results: &[FileResult], ctx: &RenderContext<'_>) -> String {
    let counts = counts(results, ctx);
    let rules: Vec<String> = counts
        .iter()
        .map(|c| escape(&c.rule).into_owned())
        .collect();
    let count_width = counts
        .iter()
        .map(|c| c.count.to_string().len())
        .max()
        .unwrap_or(1);
    let rule_width = rules.iter().map(|r| r.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for (c, rule) in counts.iter().zip(&rules) {
        let line = format!(
            "{:>count_width$}  {:<7}  {rule:<rule_width$}  {}",
            c.count,
            c.severity.as_str(),
            escape(&c.title)
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    if ctx.summary {
        let _ = writeln!(out, "{}", summary(results, ctx));
    }
    out
}

/// The counts as a JSON array of `{"rule", "severity", "count", "title"}`, most first.
pub(crate) fn json(results: &[FileResult], ctx: &RenderContext<'_>) -> anyhow::Result<String> {
    let counts: Vec<serde_json::Value> = counts(results, ctx)
        .into_iter()
        .map(|c| {
            json!({
                "rule": c.rule,
                "severity": c.severity.as_str(),
                "count": c.count,
                "title": c.title,
            })
        })
        .collect();
    Ok(to_json_pretty(&counts)? + "\n")
}
