//! `mcpdesc docs`: writes the rule pages of every loaded release, generated from the rule
//! files, or checks that the committed ones are current.

use std::fmt::Write as _;
use std::path::PathBuf;
use crate::exit::ExitCode;

use anyhow::Result;
use mcpdesc_authoring::corpus::pages;

use crate::render::safe::{escape, escape_multiline};

#[derive(Debug, clap::Args)]
pub(crate) struct DocsArgs {
    #[command(flatten)]
    pub rules: crate::cli::RulesArgs,
    /// Directory of the rule pages: one directory per release (`<DIR>/<release>/<owner>/<id>.md`)
    /// and the list of releases in `<DIR>/README.md`.
    #[arg(long, value_name = "DIR", default_value = "docs/rules")]
    pub out: PathBuf,
    /// Write nothing; fail (exit 1) with a diff when the pages under --out are not current.
    #[arg(long)]
    pub check: bool,
}

pub(crate) fn run(args: DocsArgs) -> Result<ExitCode> {
    // Pages are generated for every release; `--spec-version` only has to name one.
    let engine = args.rules.engine()?;
    let generated = pages::generate(engine.releases(), &args.out);
    for w in &generated.warnings {
        eprintln!("warning: {}", escape(w));
    }
    if !generated.errors.is_empty() {
        let mut report = String::new();
        for e in &generated.errors {
            writeln!(report, "error: {}", escape(e))?;
        }
        eprint!("{report}");
        anyhow::bail!(
            "{} problem(s) with the rule pages; nothing was written",
            generated.errors.len()
        );
    }
    // The directory comes from the command line, page paths from rule ids, page text from
    // the rule files and the committed pages: all of it is shown escaped.
    let out = args.out.display().to_string();
    let out = escape(&out);
    // The report is written in one piece, so a reader that stops early (`| head`) ends it
    // quietly instead of failing a write halfway.
    let mut report = String::new();
    if !args.check {
        let summary = pages::write(&generated, &args.out)?;
        for p in &summary.written {
            writeln!(report, "wrote {out}/{}", escape(p))?;
        }
        for p in &summary.removed {
            writeln!(report, "removed {out}/{}", escape(p))?;
        }
        writeln!(
            report,
            "{out}: {} page(s) written, {} removed, {} unchanged",
            summary.written.len(),
            summary.removed.len(),
            summary.unchanged
        )?;
        crate::output::emit(&report)?;
        return Ok(ExitCode::SUCCESS);
    }
    let cmp = pages::compare(&generated, &args.out)?;
    if cmp.is_clean() {
        writeln!(
            report,
            "{out}: {} page(s) up to date",
            generated.files.len()
        )?;
        crate::output::emit(&report)?;
        return Ok(ExitCode::SUCCESS);
    }
    for s in &cmp.stale {
        let path = escape(&s.path);
        writeln!(report, "stale: {out}/{path}")?;
        let diff = similar::TextDiff::from_lines(&s.current, &s.generated);
        let diff = diff
            .unified_diff()
            .context_radius(3)
            .header(
                &format!("{out}/{path} (committed)"),
                &format!("{out}/{path} (generated)"),
            )
            .to_string();
        report.push_str(&escape_multiline(&diff));
    }
    for p in &cmp.missing {
        writeln!(report, "missing: {out}/{}", escape(p))?;
    }
    for p in &cmp.extra {
        writeln!(
            report,
            "extra: {out}/{} (no rule generates it any more)",
            escape(p)
        )?;
    }
    writeln!(
        report,
        "{out}: {} stale, {} missing, {} extra; run `mcpdesc docs` to regenerate",
        cmp.stale.len(),
        cmp.missing.len(),
        cmp.extra.len()
    )?;
    crate::output::emit(&report)?;
    Ok(ExitCode::from(1))
}
