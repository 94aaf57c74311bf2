//! `list_rules` and `explain_rule`: the data of `rules list` and `explain`.

use mcpdesc_core::internal::rules::file::Applicability;
use mcpdesc_core::{Catalogue, Rule};

use super::results::{RuleExplanation, RuleList, RuleSummary};
use crate::render::DocUrls;
use crate::rules_cmd::RuleFilter;

/// The `mcpdesc://rules/{id}` resource of a rule's page.
pub(crate) fn rule_uri(id: &str) -> String {
    format!("{}{id}", super::resources::RULE_URI_PREFIX)
}

/// The rules whose id starts with `prefix` and whose surface contains `surface`
/// (case-insensitive), in catalogue order.
pub(crate) fn list(
    cat: &Catalogue,
    prefix: Option<&str>,
    surface: Option<&str>,
) -> Result<RuleList, String> {
    let filter = RuleFilter {
        surface: surface.map(str::to_owned),
        ..RuleFilter::default()
    };
    let selected = crate::rules_cmd::filtered(cat, &filter).map_err(|e| format!("{e:#}"))?;
    let rules: Vec<RuleSummary> = selected
        .into_iter()
        .filter(|r| prefix.is_none_or(|p| r.id().starts_with(p)))
        .map(summary)
        .collect();
    Ok(RuleList {
        release: cat.release.version.to_string(),
        count: rules.len(),
        rules,
    })
}

fn summary(r: &Rule) -> RuleSummary {
    RuleSummary {
        id: r.id().to_owned(),
        title: r.def.title.clone(),
        owner: r.def.owner.as_str().to_owned(),
        level: r.def.level.as_str().to_owned(),
        severity: r.severity.as_str().to_owned(),
        surface: r.def.surface.text().to_string(),
        versions: r
            .applicability
            .iter()
            .filter(|(_, a)| matches!(a, Applicability::Applies | Applicability::Warns))
            .map(|(v, _)| v.clone())
            .collect(),
        uri: rule_uri(r.id()),
    }
}

/// The explanation of rule `id`, as `explain ID` prints it; an unknown id is an error that
/// suggests close ones.
pub(crate) fn explain(cat: &Catalogue, id: &str) -> Result<RuleExplanation, String> {
    let text = crate::rules_cmd::explanation(cat, id, &DocUrls::new(None))
        .map_err(|e| format!("{e:#}"))?;
    let (title, description, severity) = match cat.rule(id) {
        Some(r) => (
            r.def.title.clone(),
            r.def.description.clone(),
            r.severity.as_str().to_owned(),
        ),
        None => match mcpdesc_project::suppress::cli_rules().find(|r| r.id == id) {
            Some(r) => (
                r.title.to_owned(),
                r.description.to_owned(),
                r.severity.as_str().to_owned(),
            ),
            None => return Err(format!("no rule `{id}`")),
        },
    };
    Ok(RuleExplanation {
        id: id.to_owned(),
        title,
        description,
        severity,
        text,
    })
}
