//! `mcpdesc server`: its flags, handed to the language server.

use std::path::PathBuf;
use crate::exit::ExitCode;
use std::time::Duration;

use anyhow::Result;

/// Arguments of `mcpdesc server`.
#[derive(Debug, clap::Args)]
pub(crate) struct ServerArgs {
    #[command(flatten)]
    pub rules: crate::cli::RulesArgs,
    /// Use this configuration file for every document instead of discovering `mcpdesc.toml`.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Ignore every `mcpdesc.toml`.
    #[arg(long, conflicts_with = "config")]
    pub no_config: bool,
    /// How long at most an edit in a burst waits for the burst to pause before the document
    /// is checked again, in milliseconds (never longer than the document's last check took);
    /// an edit after a longer pause is checked at once.
    #[arg(long, value_name = "MS", default_value_t = 150)]
    pub debounce_ms: u64,
    /// Talk over standard input and output (the only transport; accepted for editors that
    /// pass it).
    #[arg(long)]
    pub stdio: bool,
    #[command(flatten)]
    pub limits: crate::limit_args::LimitArgs,
}

/// Runs the server until the client asks it to exit.
pub(crate) fn run(args: ServerArgs) -> Result<ExitCode> {
    let options = mcpdesc_lsp::Options {
        rules: args.rules.rules,
        extend_rules: args.rules.extend_rules,
        spec_version: args.rules.spec_version,
        config: args.config,
        no_config: args.no_config,
        debounce: Duration::from_millis(args.debounce_ms),
        limits: args.limits.limits(),
        on_start: Some(crate::allocator::return_freed_memory_at_once),
    };
    // The language server ends with 0 after a shutdown request, else with 1.
    let code = mcpdesc_lsp::run(options)?;
    Ok(if code == std::process::ExitCode::SUCCESS {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
