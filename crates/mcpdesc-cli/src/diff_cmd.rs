//! `mcpdesc diff`: the impact of a rule change on a corpus, as Markdown for a pull-request
//! comment or as JSON.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use mcpdesc_core::corpus::collect;
use mcpdesc_core::corpus::impact::{self, show_value, FieldChange, Impact};
use mcpdesc_core::Engine;

#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// The rules before the change.
    #[arg(long, value_name = "OLD")]
    pub base_rules: PathBuf,
    /// The rules after the change (default: the embedded catalogue).
    #[arg(long, value_name = "NEW")]
    pub rules: Option<PathBuf>,
    /// Documents or directories (walked for `*.json`, `*.yaml`, `*.yml`; sidecars skipped).
    #[arg(required = true, value_name = "CORPUS")]
    pub corpus: Vec<PathBuf>,
    #[arg(long, value_enum, default_value_t = DiffFormat::Markdown)]
    pub format: DiffFormat,
    #[command(flatten)]
    pub limits: crate::limit_args::LimitArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    Markdown,
    Json,
}

pub fn run(args: DiffArgs) -> Result<ExitCode> {
    let limits = args.limits.limits();
    let old = Engine::from_dir(&args.base_rules)
        .map_err(|e| anyhow::anyhow!("{e}"))
        .with_context(|| format!("base rules {}", args.base_rules.display()))?
        .with_limits(limits.clone());
    let new = match &args.rules {
        Some(dir) => Engine::from_dir(dir),
        None => Engine::embedded(),
    }
    .map_err(|e| anyhow::anyhow!("{e}"))
    .context("new rules")?
    .with_limits(limits);
    let docs = collect(&args.corpus)?;
    let impact = impact::corpus_impact(&old, &new, &docs)?;
    match args.format {
        DiffFormat::Json => {
            let mut v = serde_json::to_value(&impact)?;
            v["verdictChanges"] = serde_json::to_value(
                impact
                    .verdict_changes()
                    .map(|d| {
                        serde_json::json!({
                            "document": d.document,
                            "old": d.old_verdict,
                            "new": d.new_verdict,
                        })
                    })
                    .collect::<Vec<_>>(),
            )?;
            v["byRule"] = serde_json::to_value(impact.by_rule())?;
            println!("{}", serde_json::to_string_pretty(&v)?);
        }
        DiffFormat::Markdown => {
            let new_name = args
                .rules
                .as_ref()
                .map_or("the embedded rules".to_owned(), |p| p.display().to_string());
            print!(
                "{}",
                markdown(&impact, &args.base_rules.display().to_string(), &new_name)
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The report as a pull-request comment.
pub fn markdown(impact: &Impact, old: &str, new: &str) -> String {
    let c = &impact.changes;
    let mut o = String::new();
    let _ = writeln!(o, "## Rule change impact\n");
    let _ = writeln!(o, "`{old}` → `{new}`\n");
    let verdicts = impact.verdict_changes().count();
    let _ = writeln!(
        o,
        "| documents checked | rules added | rules removed | rules changed | verdicts changed | diagnostics appeared | diagnostics vanished |"
    );
    let _ = writeln!(o, "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let _ = writeln!(
        o,
        "| {} | {} | {} | {} | {verdicts} | {} | {} |\n",
        impact.documents,
        c.added.len(),
        c.removed.len(),
        c.changed.len(),
        impact.appeared(),
        impact.vanished()
    );
    if c.is_empty() && impact.affected.is_empty() {
        let _ = writeln!(o, "No rule changes and no change in any document.");
        return o;
    }

    if !c.catalogue.is_empty() {
        let _ = writeln!(o, "### Catalogue changed\n");
        field_table(&mut o, &c.catalogue);
    }
    if !c.added.is_empty() {
        let _ = writeln!(o, "### Rules added\n");
        for r in &c.added {
            let _ = writeln!(
                o,
                "- `{}` — {} ({}, {}; `{}`)",
                r.id,
                cell(&r.title),
                r.level,
                r.severity.as_str(),
                r.source
            );
        }
        let _ = writeln!(o);
    }
    if !c.removed.is_empty() {
        let _ = writeln!(o, "### Rules removed\n");
        for r in &c.removed {
            let _ = writeln!(
                o,
                "- `{}` — {} ({}, {}; was `{}`)",
                r.id,
                cell(&r.title),
                r.level,
                r.severity.as_str(),
                r.source
            );
        }
        let _ = writeln!(o);
    }
    if !c.changed.is_empty() {
        let _ = writeln!(o, "### Rules changed\n");
        for r in &c.changed {
            let _ = writeln!(o, "#### `{}`\n", r.id);
            field_table(&mut o, &r.fields);
        }
    }

    let _ = writeln!(o, "### Documents whose verdict changed\n");
    if verdicts == 0 {
        let _ = writeln!(o, "None.\n");
    } else {
        let _ = writeln!(o, "| document | before | after |");
        let _ = writeln!(o, "| --- | --- | --- |");
        for d in impact.verdict_changes() {
            let _ = writeln!(
                o,
                "| `{}` | {} | {} |",
                cell(&d.document),
                d.old_verdict.as_str(),
                d.new_verdict.as_str()
            );
        }
        let _ = writeln!(o);
    }

    let _ = writeln!(o, "### Diagnostics by rule\n");
    let by_rule = impact.by_rule();
    if by_rule.is_empty() {
        let _ = writeln!(o, "No diagnostic appeared or vanished.");
    }
    for (rule, ri) in &by_rule {
        let _ = writeln!(
            o,
            "#### `{rule}` (+{} −{})\n",
            ri.appeared.len(),
            ri.vanished.len()
        );
        let _ = writeln!(
            o,
            "| | document | pointer | severity | versions | message |"
        );
        let _ = writeln!(o, "| --- | --- | --- | --- | --- | --- |");
        let rows = ri
            .appeared
            .iter()
            .map(|d| ("+", d))
            .chain(ri.vanished.iter().map(|d| ("−", d)));
        for (sign, d) in rows {
            let x = &d.diagnostic;
            let _ = writeln!(
                o,
                "| {sign} | `{}` | `{}` | {} | {} | {} |",
                cell(&d.document),
                cell(if x.pointer.is_empty() {
                    "\"\""
                } else {
                    &x.pointer
                }),
                x.severity.as_str(),
                x.versions.join(", "),
                cell(&x.message)
            );
        }
        let _ = writeln!(o);
    }
    o
}

fn field_table(o: &mut String, fields: &[FieldChange]) {
    let _ = writeln!(o, "| field | before | after |");
    let _ = writeln!(o, "| --- | --- | --- |");
    for f in fields {
        let _ = writeln!(
            o,
            "| `{}` | {} | {} |",
            cell(&f.field),
            cell(&show_value(&f.old)),
            cell(&show_value(&f.new))
        );
    }
    let _ = writeln!(o);
}

/// Text for a table cell: one line, pipes escaped.
fn cell(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}
