//! Command-line arguments.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "mcpdesc",
    version,
    about = "Validate MCP Description documents"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate documents (exit 0: valid, 1: findings at the `--fail-on` level, 2: usage, I/O
    /// or rule errors).
    Validate(ValidateArgs),
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
    Explain(crate::rules_cmd::ShowArgs),
    /// Write a shell completion script to standard output.
    Completions(crate::rules_cmd::CompletionsArgs),
}

#[derive(Debug, clap::Args)]
pub struct RulesArgs {
    /// Load rules from this directory instead of the embedded catalogue.
    #[arg(long, value_name = "DIR")]
    pub rules: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// Documents to validate: files, directories (every `*.json`, `*.yaml`, `*.yml` below,
    /// honouring `.gitignore`), glob patterns, or `-` for standard input.
    #[arg(required = true, value_name = "PATH")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub options: crate::validate_cmd::ValidateOptions,
    #[command(flatten)]
    pub limits: crate::limit_args::LimitArgs,
}

#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// List the loaded rules, optionally filtered.
    List {
        #[command(flatten)]
        rules: RulesArgs,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        #[command(flatten)]
        filter: crate::rules_cmd::RuleFilter,
    },
    /// Show one rule: its metadata, applicability and examples.
    Show(crate::rules_cmd::ShowArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}
