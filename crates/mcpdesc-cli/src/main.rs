//! `mcpdesc`: validate MCP Description documents against a data-driven rule catalogue.

mod allocator;
mod baseline;
mod check_cmd;
mod cli;
mod commands;
mod config;
mod diff_cmd;
mod docs_cmd;
mod findings;
mod init;
mod init_cmd;
mod inputs;
mod limit_args;
mod live;
mod output;
mod probe_cmd;
mod render;
mod reworded;
mod rules_cmd;
mod server;
mod server_target;
mod suppress;
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
