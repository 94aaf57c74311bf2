//! `mcpdesc`: validate MCP Description documents against a data-driven rule catalogue.

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(mcpdesc_cli::main_with_args(std::env::args_os()))
}
