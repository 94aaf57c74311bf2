//! The end of `validate` and `check-server`: render the results in the chosen format, write
//! them where asked, and choose the exit code. One place, so that both commands honour every
//! output flag alike.

use std::path::PathBuf;

use anyhow::{bail, Result};
use mcpdesc_project::config::ColorWhen;

use crate::exit::ExitCode;
use crate::render::{self, FileResult, OutputFormat, RenderContext, Totals};
use crate::report_args::Verbosity;

/// The output flags after the configuration file's defaults were merged in.
#[derive(Debug, Clone)]
pub(crate) struct Delivery {
    pub format: OutputFormat,
    pub color: ColorWhen,
    pub output_file: Option<PathBuf>,
    pub verbosity: Verbosity,
    pub statistics: bool,
    pub max_warnings: Option<usize>,
}

impl Delivery {
    /// A usage error in the combination of flags, found before any work is done.
    pub(crate) fn check(&self) -> Result<()> {
        if self.statistics
            && !matches!(
                self.format,
                OutputFormat::Text | OutputFormat::Concise | OutputFormat::Json
            )
        {
            bail!("--statistics works with the text, concise and json formats only");
        }
        Ok(())
    }

    /// Whether notes on standard error (progress, hints) are wanted.
    pub(crate) fn notes(&self) -> bool {
        self.verbosity == Verbosity::Normal
    }

    fn colored(&self) -> bool {
        matches!(self.format, OutputFormat::Text | OutputFormat::Concise)
            && match self.color {
                ColorWhen::Always => true,
                ColorWhen::Never => false,
                // A report file is not a terminal.
                ColorWhen::Auto => {
                    self.output_file.is_none()
                        && anstream::AutoStream::choice(&std::io::stdout())
                            != anstream::ColorChoice::Never
                }
            }
    }
}

/// Renders `results`, writes them to the report file or standard output, and returns the
/// exit code: 2 when an input could not be read, 1 when a finding reaches the fail-on level,
/// a document could not be parsed or the warnings exceed `--max-warnings`, else 0.
pub(crate) fn deliver(
    results: &[FileResult],
    mut ctx: RenderContext<'_>,
    d: &Delivery,
) -> Result<ExitCode> {
    ctx.color = d.colored();
    ctx.summary = d.verbosity == Verbosity::Normal;
    let out = match (d.format, d.statistics) {
        (OutputFormat::Json, true) => render::statistics::json(results, &ctx)?,
        (_, true) => render::statistics::text(results, &ctx),
        (format, false) => render::in_format(format, results, &ctx)?,
    };
    crate::output::report(
        &out,
        d.output_file.as_deref(),
        d.verbosity == Verbosity::Silent,
    )?;

    if results.iter().any(|r| r.io_error) {
        // The report that names them is not shown: an input that could not be read ends
        // the run with exit 2, and errors of that kind are said whatever the verbosity.
        if d.verbosity == Verbosity::Silent {
            for r in results.iter().filter(|r| r.io_error) {
                if let Some(e) = &r.load_error {
                    eprintln!(
                        "{}: error: {}",
                        render::safe::escape(&r.path),
                        render::safe::escape(&e.message)
                    );
                }
            }
        }
        return Ok(ExitCode::from(2));
    }
    let failed = results
        .iter()
        .any(|r| r.load_error.is_some() || r.diagnostics.iter().any(|x| x.severity >= ctx.fail_on));
    if failed {
        return Ok(ExitCode::FAILURE);
    }
    if let Some(max) = d.max_warnings {
        let warnings = Totals::of(results).warnings;
        if warnings > max {
            if d.verbosity != Verbosity::Silent {
                eprintln!(
                    "mcpdesc: {} found, more than --max-warnings {max} allows",
                    render::plural(warnings, "warning", "warnings")
                );
            }
            return Ok(ExitCode::FAILURE);
        }
    }
    Ok(ExitCode::SUCCESS)
}
