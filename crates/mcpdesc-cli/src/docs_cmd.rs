//! `mcpdesc docs`: writes the rule pages of every loaded release, generated from the rule
//! files, or checks that the committed ones are current.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use mcpdesc_core::corpus::pages;

#[derive(Debug, clap::Args)]
pub struct DocsArgs {
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

pub fn run(args: DocsArgs) -> Result<ExitCode> {
    // Pages are generated for every release; `--spec-version` only has to name one.
    let engine = args.rules.engine()?;
    let generated = pages::generate(engine.releases(), &args.out);
    for w in &generated.warnings {
        eprintln!("warning: {w}");
    }
    let out = args.out.display();
    if !args.check {
        let summary = pages::write(&generated, &args.out)?;
        for p in &summary.written {
            println!("wrote {out}/{p}");
        }
        for p in &summary.removed {
            println!("removed {out}/{p}");
        }
        println!(
            "{out}: {} page(s) written, {} removed, {} unchanged",
            summary.written.len(),
            summary.removed.len(),
            summary.unchanged
        );
        return Ok(ExitCode::SUCCESS);
    }
    let cmp = pages::compare(&generated, &args.out)?;
    if cmp.is_clean() {
        println!("{out}: {} page(s) up to date", generated.files.len());
        return Ok(ExitCode::SUCCESS);
    }
    for s in &cmp.stale {
        println!("stale: {out}/{}", s.path);
        let diff = similar::TextDiff::from_lines(&s.current, &s.generated);
        print!(
            "{}",
            diff.unified_diff().context_radius(3).header(
                &format!("{out}/{} (committed)", s.path),
                &format!("{out}/{} (generated)", s.path)
            )
        );
    }
    for p in &cmp.missing {
        println!("missing: {out}/{p}");
    }
    for p in &cmp.extra {
        println!("extra: {out}/{p} (no rule generates it any more)");
    }
    println!(
        "{out}: {} stale, {} missing, {} extra; run `mcpdesc docs` to regenerate",
        cmp.stale.len(),
        cmp.missing.len(),
        cmp.extra.len()
    );
    Ok(ExitCode::from(1))
}
