//! `mcpdesc rules list`, `mcpdesc rules show` / `mcpdesc explain`, and `mcpdesc completions`.

use std::io::IsTerminal as _;

use crate::exit::ExitCode;

use anyhow::{bail, Result};
use mcpdesc_core::internal::rules::file::Applicability;
use mcpdesc_core::{Catalogue, Engine, Rule};

use crate::cli::{Format, RulesArgs};
use crate::render::{self, DocUrls};
use mcpdesc_project::suppress::cli_rules;

/// Which rules `rules list` shows.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct RuleFilter {
    /// Only rules of this owner (`mcp`, `mcpdesc`, or one the rules declare).
    #[arg(long, value_name = "OWNER")]
    pub owner: Option<String>,
    /// Only rules whose surface contains this text (case-insensitive), e.g. `tool`.
    #[arg(long, value_name = "TEXT")]
    pub surface: Option<String>,
    /// Only rules of this level (`must`, `should`, `may`).
    #[arg(long, value_name = "LEVEL")]
    pub level: Option<String>,
    /// Only rules evaluated for this MCP protocol version.
    #[arg(long = "protocol-version", value_name = "VERSION")]
    pub protocol_version: Option<String>,
}

/// `rules show ID` and `explain ID`.
#[derive(Debug, clap::Args)]
pub(crate) struct ShowArgs {
    /// Rule id (`mcpdesc rules list` shows them all).
    #[arg(value_name = "ID")]
    pub id: String,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Base URL of the rule pages (see `validate --docs-base-url`).
    #[arg(long, value_name = "URL")]
    pub docs_base_url: Option<String>,
}

/// `completions SHELL`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to write a completion script for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

fn engine(args: &RulesArgs) -> Result<Engine> {
    args.engine()
}

fn known<'a>(what: &str, value: &str, allowed: impl IntoIterator<Item = &'a str>) -> Result<()> {
    let allowed: Vec<&str> = allowed.into_iter().collect();
    if !allowed.contains(&value) {
        bail!(
            "unknown {what} `{value}`; expected one of: {}",
            allowed.join(", ")
        );
    }
    Ok(())
}

/// The rules `filter` keeps, in catalogue order.
pub(crate) fn filtered<'a>(cat: &'a Catalogue, filter: &RuleFilter) -> Result<Vec<&'a Rule>> {
    if let Some(o) = &filter.owner {
        known("owner", o, cat.owners.iter().map(|o| o.as_str()))?;
    }
    if let Some(l) = &filter.level {
        known("level", l, ["must", "should", "may"])?;
    }
    if let Some(v) = &filter.protocol_version {
        known("protocol version", v, cat.versions.iter().map(|(_, n)| n))?;
    }
    let surface = filter.surface.as_ref().map(|s| s.to_lowercase());
    Ok(cat
        .rules
        .iter()
        .filter(|r| {
            filter
                .owner
                .as_ref()
                .is_none_or(|o| r.def.owner.as_str() == o)
        })
        .filter(|r| {
            filter
                .level
                .as_ref()
                .is_none_or(|l| r.def.level.as_str() == l)
        })
        .filter(|r| {
            surface
                .as_ref()
                .is_none_or(|s| r.def.surface.text().to_lowercase().contains(s.as_str()))
        })
        .filter(|r| {
            filter.protocol_version.as_ref().is_none_or(|v| {
                matches!(
                    r.applicability.get(v),
                    Some(Applicability::Applies | Applicability::Warns)
                )
            })
        })
        .map(|r| &**r)
        .collect())
}

pub(crate) fn list(rules: &RulesArgs, filter: &RuleFilter, format: Format) -> Result<ExitCode> {
    let engine = engine(rules)?;
    let cat = engine.catalogue();
    let selected = filtered(cat, filter)?;
    let width = match format {
        Format::Text => table_width(),
        Format::Json => None,
    };
    crate::output::emit(&render::rules::list(cat, &selected, format, width)?)?;
    Ok(ExitCode::SUCCESS)
}

/// The width to fit the `rules list` table to: `COLUMNS` when set, else the terminal's when
/// standard output is one (80 when it cannot be told). Output to a pipe or file is not cut,
/// so that `grep` and scripts see every line whole.
fn table_width() -> Option<usize> {
    let columns = std::env::var("COLUMNS").ok();
    if let Some(n) = columns
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
    {
        return Some(n);
    }
    if !std::io::stdout().is_terminal() {
        return None;
    }
    Some(
        terminal_size::terminal_size_of(std::io::stdout())
            .map_or(80, |(terminal_size::Width(w), _)| usize::from(w)),
    )
}

pub(crate) fn show(args: &ShowArgs) -> Result<ExitCode> {
    let engine = engine(&args.rules)?;
    let docs = DocUrls::new(args.docs_base_url.as_deref());
    crate::output::emit(&explanation(engine.catalogue(), &args.id, &docs)?)?;
    Ok(ExitCode::SUCCESS)
}

/// The text `explain ID` prints for a catalogue rule or a rule of the command line; an
/// unknown id is an error that suggests close ones.
pub(crate) fn explanation(cat: &Catalogue, id: &str, docs: &DocUrls) -> Result<String> {
    if let Some(rule) = cat.rule(id) {
        return Ok(render::rules::show(cat, rule, docs));
    }
    if let Some(r) = cli_rules().find(|r| r.id == id) {
        return Ok(format!(
            "{}\n{}\n{}\n\n{}\n\n\
             Reported by the command line, not by a catalogue rule; default severity: {}.\n\
             See docs/cli.md, \"{}\".\n",
            r.id,
            "=".repeat(r.id.len()),
            r.title,
            r.description,
            r.severity.as_str(),
            r.section
        ));
    }
    let ids: Vec<&str> = cat
        .rules
        .iter()
        .map(|r| r.id())
        .chain(cli_rules().map(|r| r.id))
        .collect();
    let close = similar_ids(id, &ids);
    let id = render::safe::escape(id);
    match close.as_slice() {
        [] => bail!("no rule `{id}`; `mcpdesc rules list` shows every rule"),
        [one] => bail!("no rule `{id}`; did you mean `{one}`?"),
        many => {
            let many: Vec<String> = many.iter().map(|id| format!("`{id}`")).collect();
            bail!("no rule `{id}`; did you mean one of: {}?", many.join(", "))
        }
    }
}

/// Up to five ids close to `wrong`: those a few edits away, nearest first, then those that
/// contain its last segment or start with it (`mcp.elicitation.protocol` for
/// `mcp.elicitation.protocol-version`).
fn similar_ids<'a>(wrong: &str, ids: &[&'a str]) -> Vec<&'a str> {
    let needle = wrong.to_lowercase();
    let tail = needle.rsplit('.').next().unwrap_or(&needle).to_owned();
    let mut close = crate::rule_patterns::ranked(wrong, ids.iter().copied());
    let starts = ids
        .iter()
        .filter(|id| id.to_lowercase().starts_with(&needle));
    let contains = ids
        .iter()
        .filter(|id| tail.len() >= 3 && id.to_lowercase().contains(&tail));
    for id in starts.chain(contains) {
        if !close.contains(id) {
            close.push(id);
        }
    }
    close.truncate(5);
    close
}

pub(crate) fn completions(args: &CompletionsArgs) -> Result<ExitCode> {
    let mut cmd = <crate::cli::Cli as clap::CommandFactory>::command();
    // Generated into memory first: `generate` panics when its writer fails, and a full disk
    // or a closed pipe is an error to report, not a crash.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "mcpdesc", &mut script);
    crate::output::emit(&String::from_utf8_lossy(&script))?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::similar_ids;

    #[test]
    fn a_typo_suggests_the_id_first() {
        let ids = [
            "mcpdesc.tool.name-unique",
            "mcpdesc.tool.required",
            "mcp.elicitation.protocol-version",
        ];
        assert_eq!(
            similar_ids("mcpdesc.tool.requird", &ids),
            ["mcpdesc.tool.required"]
        );
        assert_eq!(
            similar_ids("mcp.elicitation.protocol", &ids),
            ["mcp.elicitation.protocol-version"]
        );
        assert!(similar_ids("nosuch.thing", &ids).is_empty());
    }
}
