//! `mcpdesc diff`: the impact of a rule change on a corpus, as Markdown for a pull-request
//! comment or as JSON.

use std::fmt::Write as _;
use std::path::PathBuf;
use crate::exit::ExitCode;

use anyhow::{Context, Result};
use mcpdesc_authoring::corpus::collect;
use mcpdesc_authoring::corpus::impact::{
    self, show_value, ChangeBasis, FieldChange, Impact, RecordedChange,
};
use mcpdesc_core::Engine;

use crate::render::safe::{escape, escape_multiline, to_json_pretty};
use crate::reworded::{split, Split};

#[derive(Debug, clap::Args)]
#[command(group(
    clap::ArgGroup::new("base")
        .required(true)
        .multiple(true)
        .args(["base_rules", "base_spec_version"])
))]
pub(crate) struct DiffArgs {
    /// The rules before the change: the releases in this directory; repeatable [default: the
    /// same rules as after the change].
    #[arg(long, value_name = "DIR")]
    pub base_rules: Vec<PathBuf>,
    /// The release before the change: the one of the base rules that serves this
    /// specification version [default: their default release].
    #[arg(long, value_name = "VERSION")]
    pub base_spec_version: Option<String>,
    /// The rules after the change: the releases in this directory; repeatable [default: the
    /// embedded catalogue].
    #[arg(long, value_name = "DIR")]
    pub rules: Vec<PathBuf>,
    /// The release after the change: the one of the rules that serves this specification
    /// version [default: their default release].
    #[arg(long, value_name = "VERSION")]
    pub spec_version: Option<String>,
    /// Documents or directories (walked for `*.json`, `*.yaml`, `*.yml`, `*.ndjson`, `*.jsonl`;
    /// sidecars skipped).
    #[arg(required = true, value_name = "CORPUS")]
    pub corpus: Vec<PathBuf>,
    /// Let a CORPUS directory that holds no document pass instead of failing the run (exit 2).
    #[arg(long)]
    pub allow_empty_input: bool,
    #[arg(long, value_enum, default_value_t = DiffFormat::Markdown)]
    pub format: DiffFormat,
    #[command(flatten)]
    pub limits: crate::limit_args::LimitArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum DiffFormat {
    Markdown,
    Json,
}

/// The engine of the releases in `dirs` (the embedded ones when empty), fixed to the release
/// serving `version` or to the set's default release.
fn side(
    what: &str,
    dirs: &[PathBuf],
    version: Option<&str>,
    limits: &mcpdesc_core::Limits,
) -> Result<Engine> {
    let engine = if dirs.is_empty() {
        Engine::embedded()
    } else {
        Engine::from_dirs(dirs)
    }
    .map_err(|e| anyhow::anyhow!("{e}"))
    .with_context(|| {
        let shown = dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        format!("{what} rules {shown}")
    })?;
    let chosen = match version {
        Some(v) => v.to_owned(),
        None => {
            let set = engine.releases();
            let default = set.default_release().release.version.to_string();
            if set.releases().len() > 1 {
                let all = set
                    .releases()
                    .iter()
                    .map(|c| c.release.version.to_string())
                    .collect::<Vec<_>>()
                    .join(", ");
                eprintln!(
                    "note: the {what} rules hold releases {}; comparing their default release {} (choose another with --{}spec-version)",
                    escape(&all),
                    escape(&default),
                    if what == "base" { "base-" } else { "" }
                );
            }
            default
        }
    };
    Ok(engine
        .with_spec_version(Some(&chosen))
        .with_context(|| format!("{what} release"))?
        .with_limits(limits.clone()))
}

/// Where a release's rules were read from, for the report.
fn origin(engine: &Engine) -> String {
    match &engine.catalogue().dir {
        Some(d) => format!("`{}`", escape(&d.display().to_string())),
        None => "the embedded rules".to_owned(),
    }
}

pub(crate) fn run(args: DiffArgs) -> Result<ExitCode> {
    let limits = args.limits.limits();
    let base_dirs = if args.base_rules.is_empty() {
        &args.rules
    } else {
        &args.base_rules
    };
    let old = side(
        "base",
        base_dirs,
        args.base_spec_version.as_deref(),
        &limits,
    )?;
    let new = side("new", &args.rules, args.spec_version.as_deref(), &limits)?;
    // A mistyped corpus directory would otherwise report no change in no document, as if the
    // rule change affected nothing. No report is printed, as with `validate`.
    let empty = crate::inputs::empty_corpus(&args.corpus)?;
    if !empty.is_empty() && !args.allow_empty_input {
        let message = crate::inputs::empty_corpus_error(&empty);
        eprint!("{}", escape_multiline(&message));
        return Ok(ExitCode::from(2));
    }
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
            crate::output::emit(&(to_json_pretty(&v)? + "\n"))?;
        }
        DiffFormat::Markdown => {
            crate::output::emit(&markdown(&impact, &origin(&old), &origin(&new)))?
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The report as a pull-request comment; `old` and `new` name where each release was read.
pub(crate) fn markdown(impact: &Impact, old: &str, new: &str) -> String {
    let c = &impact.changes;
    let by_history = c.basis == ChangeBasis::History;
    let (base, after) = (escape(&impact.base), escape(&impact.new));
    let mut o = String::new();
    let _ = writeln!(o, "## Rule change impact: {base} → {after}\n");
    let _ = writeln!(
        o,
        "Base: release {base} ({old}). New: release {after} ({new}).\n"
    );
    if by_history {
        let _ = writeln!(
            o,
            "Rule changes as recorded by the releases after {base}.\n"
        );
    }
    let verdicts = impact.verdict_changes().count();
    let by_rule = impact.by_rule();
    let splits: Vec<(&String, Split<'_>)> = by_rule.iter().map(|(r, ri)| (r, split(ri))).collect();
    let count = |f: fn(&Split<'_>) -> usize| splits.iter().map(|(_, s)| f(s)).sum::<usize>();
    let mut columns: Vec<(&str, usize)> = vec![
        ("documents checked", impact.documents),
        ("rules added", c.added.len()),
    ];
    if by_history {
        columns.extend([
            ("rules replaced", c.replaced.len()),
            ("applicability changed", c.applicability_changed.len()),
            ("rules retired", c.retired.len()),
        ]);
    }
    columns.extend([
        ("rules removed", c.removed.len()),
        ("rules changed", c.changed.len()),
        ("verdicts changed", verdicts),
        ("diagnostics appeared", count(|s| s.appeared.len())),
        ("diagnostics vanished", count(|s| s.vanished.len())),
        ("diagnostics reworded", count(|s| s.reworded())),
    ]);
    let row = |cells: Vec<String>| format!("| {} |", cells.join(" | "));
    let _ = writeln!(
        o,
        "{}",
        row(columns.iter().map(|(h, _)| (*h).to_owned()).collect())
    );
    let _ = writeln!(
        o,
        "{}",
        row(columns.iter().map(|_| "---:".to_owned()).collect())
    );
    let _ = writeln!(
        o,
        "{}\n",
        row(columns.iter().map(|(_, n)| n.to_string()).collect())
    );
    if c.is_empty() && impact.affected.is_empty() {
        let _ = writeln!(o, "No rule changes and no change in any document.");
        return o;
    }

    if !c.catalogue.is_empty() {
        let _ = writeln!(o, "### Catalogue changed\n");
        field_table(&mut o, &c.catalogue);
    }
    if !c.versions_added.is_empty() {
        let _ = writeln!(o, "### Protocol versions added\n");
        for v in &c.versions_added {
            let _ = writeln!(
                o,
                "- `{}`, as `{}`: {} rules take it as they take `{}`, with no other change.",
                escape(&v.version),
                escape(&v.like),
                v.rules,
                escape(&v.like)
            );
        }
        let _ = writeln!(o);
    }
    if !c.added.is_empty() {
        let _ = writeln!(o, "### Rules added\n");
        for r in &c.added {
            let since = r
                .since
                .as_ref()
                .map_or(String::new(), |v| format!("added in {}; ", escape(v)));
            let _ = writeln!(
                o,
                "- `{}` — {} ({}, {}; {since}`{}`)",
                escape(&r.id),
                cell(&r.title),
                escape(&r.level),
                r.severity.as_str(),
                escape(&r.source)
            );
        }
        let _ = writeln!(o);
    }
    if !c.replaced.is_empty() {
        let _ = writeln!(o, "### Rules replaced or amended\n");
        for r in &c.replaced {
            let _ = writeln!(o, "#### `{}` — {}\n", escape(&r.id), cell(&r.title));
            reasons(&mut o, &r.reasons);
            if r.fields.is_empty() {
                let _ = writeln!(o, "The new definition is the same as the old one.\n");
            } else {
                field_table(&mut o, &r.fields);
            }
        }
    }
    if !c.applicability_changed.is_empty() {
        let _ = writeln!(o, "### Applicability changed\n");
        for r in &c.applicability_changed {
            let _ = writeln!(o, "#### `{}` — {}\n", escape(&r.id), cell(&r.title));
            reasons(&mut o, &r.reasons);
            let _ = writeln!(o, "| protocol version | before | after | |");
            let _ = writeln!(o, "| --- | --- | --- | --- |");
            let show = |a: Option<mcpdesc_core::internal::rules::Applicability>| {
                a.map_or("(absent)", |a| a.as_str())
            };
            for t in &r.table {
                let _ = writeln!(
                    o,
                    "| {} | {} | {} |{}",
                    cell(&t.version),
                    show(t.old),
                    show(t.new),
                    if t.changed() { " changed |" } else { " |" }
                );
            }
            let _ = writeln!(o);
        }
    }
    if !c.retired.is_empty() {
        let _ = writeln!(o, "### Rules retired\n");
        for r in &c.retired {
            let _ = writeln!(
                o,
                "- `{}` — {} ({}, {}; was `{}`). Retired in {} (`{}`): {}",
                escape(&r.rule.id),
                cell(&r.rule.title),
                escape(&r.rule.level),
                r.rule.severity.as_str(),
                escape(&r.rule.source),
                escape(&r.release),
                escape(&r.retired_at),
                cell(&r.reason)
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
                escape(&r.id),
                cell(&r.title),
                escape(&r.level),
                r.severity.as_str(),
                escape(&r.source)
            );
        }
        let _ = writeln!(o);
    }
    if !c.changed.is_empty() {
        let _ = writeln!(o, "### Rules changed\n");
        for r in &c.changed {
            let _ = writeln!(o, "#### `{}`\n", escape(&r.id));
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

    let reworded = count(|s| s.reworded()) > 0;
    if reworded {
        let _ = writeln!(o, "### Diagnostics reworded\n");
        let _ = writeln!(
            o,
            "The same findings (document, pointer, severity and versions) with a message that \
             differs in these words.\n"
        );
        let _ = writeln!(o, "| rule | before | after | findings | for example |");
        let _ = writeln!(o, "| --- | --- | --- | ---: | --- |");
        for (rule, s) in &splits {
            for r in &s.rewordings {
                let (a, _) = r.findings[0];
                let docs = r.documents();
                let _ = writeln!(
                    o,
                    "| `{}` | {} | {} | {} in {} document{} | `{}` at `{}` |",
                    escape(rule),
                    quoted(&r.old),
                    quoted(&r.new),
                    r.findings.len(),
                    docs,
                    if docs == 1 { "" } else { "s" },
                    cell(&a.document),
                    cell(&a.diagnostic.pointer)
                );
            }
        }
        let _ = writeln!(o);
    }
    let _ = writeln!(o, "### Diagnostics by rule\n");
    let changed: Vec<_> = splits
        .iter()
        .filter(|(_, s)| !s.appeared.is_empty() || !s.vanished.is_empty())
        .collect();
    if changed.is_empty() {
        let _ = writeln!(
            o,
            "No diagnostic appeared or vanished{}.",
            if reworded {
                " but for the rewordings above"
            } else {
                ""
            }
        );
    }
    for (rule, s) in changed {
        let _ = writeln!(
            o,
            "#### `{}` (+{} −{})\n",
            escape(rule),
            s.appeared.len(),
            s.vanished.len()
        );
        let _ = writeln!(
            o,
            "| | document | pointer | severity | versions | message |"
        );
        let _ = writeln!(o, "| --- | --- | --- | --- | --- | --- |");
        let rows = s
            .appeared
            .iter()
            .map(|d| ("+", *d))
            .chain(s.vanished.iter().map(|d| ("−", *d)));
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
                cell(&x.versions.join(", ")),
                cell(&x.message)
            );
        }
        let _ = writeln!(o);
    }
    o
}

/// Words quoted as inline code, or "(nothing)".
fn quoted(words: &str) -> String {
    if words.is_empty() {
        "(nothing)".to_owned()
    } else {
        mcpdesc_authoring::corpus::layout::code(&cell(words))
    }
}

/// The recorded reasons of a rule's changes, one line each.
fn reasons(o: &mut String, reasons: &[RecordedChange]) {
    for r in reasons {
        let mut kind = r.kind.to_owned();
        if let Some(first) = kind.get(..1) {
            kind = format!("{}{}", first.to_uppercase(), &kind[1..]);
        }
        let _ = writeln!(
            o,
            "- {kind} in {} (`{}`): {}",
            escape(&r.release),
            escape(&r.source),
            cell(&r.reason)
        );
    }
    let _ = writeln!(o);
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

/// Text for a table cell: one line, whitespace runs collapsed, pipes escaped. Characters that
/// could act on the reader's terminal take their visible form (see [`escape`]); so do NEL and
/// the Unicode line and paragraph separators, which are whitespace but would hide what a key
/// or value really holds.
fn cell(s: &str) -> String {
    let space = |c: char| c.is_whitespace() && !matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}');
    let line = s
        .split(space)
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|");
    escape(&line).into_owned()
}
