//! `mcpdesc`: validate MCP Description documents against a data-driven rule catalogue.

mod allocator;
mod baseline;
#[cfg(feature = "live")]
mod check_cmd;
mod cli;
mod commands;
mod diff_cmd;
mod docs_cmd;
#[cfg(feature = "live")]
mod init_cmd;
mod inputs;
mod limit_args;
mod output;
#[cfg(feature = "live")]
mod probe_cmd;
mod render;
mod reworded;
mod rules_cmd;
#[cfg(feature = "lsp")]
mod server_cmd;
#[cfg(feature = "live")]
mod server_target;
mod test_cmd;
mod validate_cmd;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match commands::run(args) {
        Ok(code) => code,
        Err(e) => {
            // Paths, rule ids and document text end up in error messages.
            let message = format!("{e:#}");
            eprintln!("error: {}", render::safe::escape_multiline(&message));
            ExitCode::from(2)
        }
    }
}
