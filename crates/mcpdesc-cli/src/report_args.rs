//! The output, profile and selection flags that `validate` and `check-server` share: one
//! definition, flattened into both, so that the two commands cannot drift apart.

use std::path::PathBuf;

use mcpdesc_project::config::{ColorWhen, FailOn};

use crate::render::OutputFormat;

/// Output, profile and selection flags. `validate` can also take each from `[validate]` in
/// `mcpdesc.toml` (the command line wins), which is why none has a clap default.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct ReportArgs {
    /// Output format [default: text].
    #[arg(short = 'f', long, value_enum, help_heading = "Output")]
    pub format: Option<OutputFormat>,
    /// Write the report to FILE instead of standard output; the exit code is unchanged, and
    /// errors and notes still go to standard error.
    #[arg(short = 'o', long, value_name = "FILE", help_heading = "Output")]
    pub output_file: Option<PathBuf>,
    /// Print only the findings (no summary line, progress bar or notes); twice (`-qq`) prints
    /// nothing, as `--silent`.
    #[arg(short = 'q', long, action = clap::ArgAction::Count, help_heading = "Output")]
    pub quiet: u8,
    /// Print nothing; only the exit code (and errors that end the run) tell the result.
    #[arg(long, help_heading = "Output")]
    pub silent: bool,
    /// Print how many findings each rule reported, most first, instead of the findings (text,
    /// concise and json formats).
    #[arg(long, help_heading = "Output")]
    pub statistics: bool,
    /// Colour the text output: on a terminal unless NO_COLOR is set (auto), always, never
    /// [default: auto].
    #[arg(long, value_enum, value_name = "WHEN", help_heading = "Output")]
    pub color: Option<ColorWhen>,
    /// Where the rule pages linked from each finding live: a template with `{id}` (and
    /// optionally `{release}`, `{owner}`), or a base URL under which `{release}/{owner}/{id}.md`
    /// is appended [default: the catalogue's `docs-url`, the pages in this repository].
    #[arg(long, value_name = "URL", help_heading = "Output")]
    pub docs_base_url: Option<String>,

    /// Use the strict profile: warnings are reported as errors (and the report says so).
    #[arg(long, help_heading = "Profile and selection")]
    pub strict: bool,
    /// Lowest severity that makes the run fail (exit 1) [default: error].
    #[arg(
        long,
        value_enum,
        value_name = "LEVEL",
        help_heading = "Profile and selection"
    )]
    pub fail_on: Option<FailOn>,
    /// Fail the run (exit 1) when more than N warnings are reported, whatever `--fail-on` says.
    #[arg(long, value_name = "N", help_heading = "Profile and selection")]
    pub max_warnings: Option<usize>,
    /// Run only these rules: ids or prefixes (`mcp.elicitation.*`); repeatable or
    /// comma-separated. Replaces `select` of the configuration file. A pattern that matches no
    /// rule is a usage error (exit 2).
    #[arg(
        long,
        value_name = "RULE",
        value_delimiter = ',',
        help_heading = "Profile and selection"
    )]
    pub select: Vec<String>,
    /// Skip these rules: ids or prefixes; repeatable or comma-separated. Adds to `ignore` of
    /// the configuration file. A pattern that matches no rule is a usage error (exit 2).
    #[arg(
        long,
        value_name = "RULE",
        value_delimiter = ',',
        help_heading = "Profile and selection"
    )]
    pub ignore: Vec<String>,
    /// Check only for this MCP protocol version (repeatable).
    #[arg(
        long = "protocol-version",
        value_name = "VERSION",
        help_heading = "Profile and selection"
    )]
    pub protocol_versions: Vec<String>,
}

/// How much a command prints besides its report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Verbosity {
    /// The report with its summary, and notes on standard error.
    Normal,
    /// The findings only.
    Quiet,
    /// Nothing at all.
    Silent,
}

impl ReportArgs {
    pub(crate) fn verbosity(&self) -> Verbosity {
        if self.silent || self.quiet >= 2 {
            Verbosity::Silent
        } else if self.quiet == 1 {
            Verbosity::Quiet
        } else {
            Verbosity::Normal
        }
    }
}
