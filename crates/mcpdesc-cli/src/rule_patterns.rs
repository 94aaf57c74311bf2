//! `--select` and `--ignore` patterns that match no rule: a usage error with the closest rule
//! id or prefix, since a typo would otherwise run no rule at all (and pass) or silence
//! nothing.

use std::collections::BTreeSet;

use mcpdesc_core::{Engine, Selection};

use crate::render::safe::escape;

/// Where a pattern was given, for the message: `--select`, or `select` of a configuration
/// file.
#[derive(Debug, Clone)]
pub(crate) struct Origin {
    pub flag: &'static str,
    pub pattern: String,
    /// The configuration file that gave it, when the command line did not.
    pub file: Option<String>,
}

impl Origin {
    /// Patterns typed on the command line after `flag`.
    pub(crate) fn flag(flag: &'static str, patterns: &[String]) -> Vec<Origin> {
        patterns
            .iter()
            .map(|p| Origin {
                flag,
                pattern: p.clone(),
                file: None,
            })
            .collect()
    }

    /// Patterns of the `key` list of the configuration file `file`.
    pub(crate) fn config(key: &'static str, patterns: &[String], file: &str) -> Vec<Origin> {
        patterns
            .iter()
            .map(|p| Origin {
                flag: key,
                pattern: p.clone(),
                file: Some(file.to_owned()),
            })
            .collect()
    }

    fn describe(&self) -> String {
        match &self.file {
            None => format!("`--{} {}`", self.flag, escape(&self.pattern)),
            Some(file) => format!(
                "`{}` of `{}` in {}",
                self.flag,
                escape(&self.pattern),
                escape(file)
            ),
        }
    }
}

/// One `error:` line for each pattern of `origins` that matches no rule of any loaded
/// release nor any rule the command line reports itself; empty when all match.
pub(crate) fn unmatched(engine: &Engine, selection: &Selection, origins: &[Origin]) -> Vec<String> {
    let ids = known_ids(engine);
    let others: Vec<&str> = ids.iter().map(String::as_str).collect();
    let bad: BTreeSet<&str> = selection
        .unmatched(engine.catalogue(), &others)
        .into_iter()
        .collect();
    let mut lines = Vec::new();
    for o in origins.iter().filter(|o| bad.contains(o.pattern.as_str())) {
        let mut line = format!("{} matches no rule", o.describe());
        match suggestion(&o.pattern, &others) {
            Some(s) => line.push_str(&format!("; did you mean `{}`?", escape(&s))),
            None => line.push_str("; `mcpdesc rules list` shows every rule"),
        }
        lines.push(line);
    }
    lines
}

/// Every rule id of every loaded release and of the command line's own rules.
fn known_ids(engine: &Engine) -> BTreeSet<String> {
    let mut ids: BTreeSet<String> = engine
        .releases()
        .releases()
        .iter()
        .flat_map(|cat| cat.rules.iter().map(|r| r.id().to_owned()))
        .collect();
    ids.extend(mcpdesc_project::suppress::cli_rules().map(|r| r.id.to_owned()));
    ids
}

/// The id, or the prefix in the pattern's own form (`mcp.elicitation.*`), that `pattern`
/// most probably stands for.
pub(crate) fn suggestion(pattern: &str, ids: &[&str]) -> Option<String> {
    let stem = pattern.trim_end_matches('*').trim_end_matches('.');
    let suffix = &pattern[stem.len()..];
    let wildcard = !suffix.is_empty();
    let mut candidates: BTreeSet<&str> = BTreeSet::new();
    for id in ids {
        if !wildcard {
            candidates.insert(id);
        }
        // Every dotted prefix (`mcp`, `mcp.elicitation`) is a pattern too.
        for (i, _) in id.match_indices('.') {
            candidates.insert(&id[..i]);
        }
    }
    closest(stem, candidates).map(|c| format!("{c}{suffix}"))
}

/// The candidate nearest to `wrong` by edits (letters inserted, deleted, replaced or two
/// neighbours swapped), within about a third of its length; ties go to the higher
/// Jaro–Winkler similarity, which favours a common beginning.
pub(crate) fn closest<'a>(
    wrong: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    ranked(wrong, candidates).into_iter().next()
}

/// The candidates within the edit distance [`closest`] allows, nearest first.
pub(crate) fn ranked<'a>(
    wrong: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Vec<&'a str> {
    let wrong = wrong.to_lowercase();
    let allowed = match wrong.chars().count() {
        0..=2 => return Vec::new(),
        3..=5 => 1,
        6..=8 => 2,
        n => (n / 4).clamp(3, 6),
    };
    let mut near: Vec<(usize, f64, &'a str)> = candidates
        .into_iter()
        .filter_map(|c| {
            let lower = c.to_lowercase();
            let distance = strsim::damerau_levenshtein(&wrong, &lower);
            (distance <= allowed).then(|| (distance, strsim::jaro_winkler(&wrong, &lower), c))
        })
        .collect();
    near.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(b.2)));
    near.into_iter().map(|(_, _, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::suggestion;

    const IDS: [&str; 4] = [
        "mcpdesc.tool.required",
        "mcpdesc.tool.name-unique",
        "mcp.elicitation.protocol-version",
        "mcp.elicitation.mode",
    ];

    #[test]
    fn a_misspelt_id_suggests_the_id() {
        assert_eq!(
            suggestion("mcpdesc.tol.required", &IDS).as_deref(),
            Some("mcpdesc.tool.required")
        );
        assert_eq!(
            suggestion("MCPDESC.TOOL.REQUIRD", &IDS).as_deref(),
            Some("mcpdesc.tool.required")
        );
    }

    #[test]
    fn a_misspelt_prefix_keeps_its_form() {
        assert_eq!(
            suggestion("mcp.elicitaton.*", &IDS).as_deref(),
            Some("mcp.elicitation.*")
        );
        assert_eq!(
            suggestion("mcp.elicitaton.", &IDS).as_deref(),
            Some("mcp.elicitation.")
        );
        assert_eq!(
            suggestion("mcpdesc.tols", &IDS).as_deref(),
            Some("mcpdesc.tool")
        );
    }

    #[test]
    fn the_nearest_comes_first() {
        assert_eq!(
            super::ranked("mcpdesc.tool.requird", IDS),
            ["mcpdesc.tool.required"]
        );
        assert_eq!(
            super::ranked("mcp.elicitation.mod", IDS),
            ["mcp.elicitation.mode"]
        );
    }

    #[test]
    fn nothing_close_suggests_nothing() {
        assert_eq!(suggestion("nosuch.rule", &IDS), None);
        assert_eq!(suggestion("x", &IDS), None);
    }
}
