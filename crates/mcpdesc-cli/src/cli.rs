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
    /// Validate documents (exit 0: valid, 1: errors found, 2: usage, I/O or rule errors).
    Validate(ValidateArgs),
    /// Inspect the rule catalogue.
    Rules {
        #[command(subcommand)]
        command: RulesCommand,
    },
}

#[derive(Debug, clap::Args)]
pub struct RulesArgs {
    /// Load rules from this directory instead of the embedded catalogue.
    #[arg(long, value_name = "DIR")]
    pub rules: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// Documents to validate (`.json`, `.yaml`, `.yml`).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// List every loaded rule.
    List {
        #[command(flatten)]
        rules: RulesArgs,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}
