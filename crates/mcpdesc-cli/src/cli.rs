//! Command-line arguments.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "mcpdesc",
    version,
    about = "Validate MCP Description documents"
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Validate documents (exit 0: valid, 1: findings at the `--fail-on` level, 2: usage, I/O
    /// or rule errors).
    Validate(Box<ValidateArgs>),
    /// Inspect the rule catalogue.
    Rules {
        #[command(subcommand)]
        command: RulesCommand,
    },
    /// Run fixture regression tests: sidecars, folder conventions, rule examples, registry
    /// checks (exit 0: all pass, 1: failures, 2: usage or rule errors).
    Test(crate::test_cmd::TestArgs),
    /// Generate the rule pages from the rule files, or check that they are current.
    Docs(crate::docs_cmd::DocsArgs),
    /// Report how a rule change affects a corpus of documents.
    Diff(crate::diff_cmd::DiffArgs),
    /// Show one rule: its metadata, applicability and examples (same as `rules show`).
    #[command(mut_arg("spec_version", |a| a.help(SHOW_SPEC_VERSION)))]
    Explain(crate::rules_cmd::ShowArgs),
    /// Start an MCP server (or connect to one with `--url`), negotiate each protocol version
    /// and print what it offers in each as JSON (exit 0: no problem, 1: some report lists
    /// errors, 2: the server could not be reached at all).
    #[cfg(feature = "live")]
    ProbeServer(crate::probe_cmd::ProbeServerArgs),
    /// Write a starting description of a live server (`-- COMMAND` or `--url`) from what it
    /// reports in each protocol version it negotiates, checked by the rules (exit 0: no errors,
    /// 1: the description has errors and is written anyway, 2: nothing could be written).
    #[cfg(feature = "live")]
    Init(crate::init_cmd::InitArgs),
    /// Validate a description and check it against its running server in every protocol
    /// version it declares, validating every message exchanged too (exit codes as for
    /// `validate`; 2 also when the server cannot be started or never answers).
    #[cfg(feature = "live")]
    #[command(
        mut_arg("select", |a| a.help(
            "Run only these rules (catalogue, traffic and `mcpdesc-live.*` alike): ids or \
             prefixes; repeatable or comma-separated. A pattern that matches no rule is a \
             usage error (exit 2)"
        )),
        mut_arg("ignore", |a| a.help(
            "Skip these rules: ids or prefixes; repeatable or comma-separated. A pattern that \
             matches no rule is a usage error (exit 2)"
        )),
        mut_arg("protocol_versions", |a| a.help(
            "Check only this protocol version, which the description must declare \
             (repeatable) [default: every version the description declares]"
        ))
    )]
    CheckServer(crate::check_cmd::CheckServerArgs),
    /// Stand in for a stdio MCP server (`-- COMMAND…`): start it, pass every byte between
    /// the client and it unchanged, and report the traffic rules' findings on each message
    /// as it passes (exit status: the server's).
    Tap(crate::tap_cmd::TapArgs),
    /// Serve the validator to MCP clients over standard input and output: tools that
    /// validate descriptions and captures, explain and list rules and check live servers,
    /// and each rule's page as a resource.
    #[cfg(feature = "mcp")]
    Mcp(crate::mcp_server::McpArgs),
    /// Run the language server over standard input and output, for editors.
    #[cfg(feature = "lsp")]
    Server(crate::server_cmd::ServerArgs),
    /// Write a shell completion script to standard output.
    Completions(crate::rules_cmd::CompletionsArgs),
}

#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct RulesArgs {
    /// Load the releases in this directory instead of the embedded catalogue; repeatable. A
    /// release may extend one in another directory or an embedded one.
    #[arg(long, value_name = "DIR")]
    pub rules: Vec<PathBuf>,
    /// Apply the house rules in this directory on top of whichever release judges each
    /// document; repeatable. The releases stay the embedded ones (or those of `--rules`).
    #[arg(long, value_name = "DIR")]
    pub extend_rules: Vec<PathBuf>,
    /// Judge every document by the release that serves this specification version, whatever
    /// the document declares [default: the document's `mcpdesc` version].
    #[arg(long, value_name = "VERSION")]
    pub spec_version: Option<String>,
}

impl RulesArgs {
    /// The engine of these rules, with the release fixed when `--spec-version` is given.
    pub(crate) fn engine(&self) -> anyhow::Result<mcpdesc_core::Engine> {
        engine_extended(
            &self.rules,
            &self.extend_rules,
            self.spec_version.as_deref(),
        )
    }
}

/// The engine of the releases in `dirs` (the embedded ones when empty) with the house rules
/// of `extend` on top of every release, judging every document by the release of
/// `spec_version` when given.
pub(crate) fn engine_extended(
    dirs: &[PathBuf],
    extend: &[PathBuf],
    spec_version: Option<&str>,
) -> anyhow::Result<mcpdesc_core::Engine> {
    Ok(mcpdesc_project::engine::load_extended(
        dirs,
        extend,
        spec_version,
    )?)
}

#[derive(Debug, clap::Args)]
pub(crate) struct ValidateArgs {
    /// Documents to validate: files, directories (every description and capture below among
    /// the `*.json`, `*.yaml`, `*.yml`, `*.ndjson` and `*.jsonl` files, honouring `.gitignore`
    /// and the excludes), glob patterns, or `-` for standard input.
    #[arg(required = true, value_name = "PATH")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub report: crate::report_args::ReportArgs,
    #[command(flatten)]
    pub options: crate::validate_cmd::ValidateOptions,
    #[command(flatten)]
    pub selection: crate::file_selection::FileSelectionArgs,
    #[command(flatten)]
    pub limits: crate::limit_args::LimitArgs,
}

#[derive(Debug, Subcommand)]
pub(crate) enum RulesCommand {
    /// List the loaded rules, optionally filtered.
    #[command(
        mut_arg("spec_version", |a| a.help(
            "List the rules of the release that serves this specification version \
             [default: the newest release that is not a pre-release]"
        )),
        mut_arg("extend_rules", |a| a.help(
            "Include the house rules in this directory, on top of the release; repeatable"
        ))
    )]
    List {
        #[command(flatten)]
        rules: RulesArgs,
        /// Output format: a table fitted to the terminal, or every field as JSON.
        #[arg(short = 'f', long, value_enum, default_value_t = Format::Text)]
        format: Format,
        #[command(flatten)]
        filter: crate::rules_cmd::RuleFilter,
    },
    /// Show one rule: its metadata, applicability and examples.
    #[command(mut_arg("spec_version", |a| a.help(SHOW_SPEC_VERSION)))]
    Show(crate::rules_cmd::ShowArgs),
}

/// `--spec-version` of `rules show` and `explain`, which judge no document.
const SHOW_SPEC_VERSION: &str = "Show the rule as the release that serves this specification \
     version has it [default: the newest release that is not a pre-release]";

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    Text,
    Json,
}
