//! `mcpdesc`: validate MCP Description documents against a data-driven rule catalogue.
//!
//! The command line as a library, so that the Python and Node packages install the same
//! `mcpdesc` command as the binary: [`main_with_args`] is the whole program.

#[cfg(feature = "jemalloc")]
mod allocator;
#[cfg(not(feature = "jemalloc"))]
#[path = "system_allocator.rs"]
mod allocator;
mod baseline;
#[cfg(feature = "live")]
mod check_cmd;
mod cli;
mod commands;
mod diff_cmd;
mod docs_cmd;
mod exit;
mod file_selection;
#[cfg(feature = "live")]
mod init_cmd;
mod inputs;
mod limit_args;
#[cfg(feature = "mcp")]
mod mcp_server;
mod output;
#[cfg(feature = "live")]
mod probe_cmd;
mod render;
mod report;
mod report_args;
mod reworded;
mod rule_patterns;
mod rules_cmd;
#[cfg(feature = "lsp")]
mod server_cmd;
#[cfg(feature = "live")]
mod server_target;
mod tap_check;
mod tap_cmd;
#[cfg(feature = "live")]
mod tap_describe;
#[cfg(feature = "live")]
mod tap_http;
mod tap_pump;
#[cfg(feature = "live")]
mod tap_sse;
mod tap_stdio;
mod tap_window;
mod test_cmd;
mod validate_cmd;

use std::ffi::OsString;

use clap::Parser;

/// Runs the `mcpdesc` command line with `args` (the program name first, as in
/// [`std::env::args_os`]) and returns its exit status: 0 valid, 1 findings, 2 usage, I/O or
/// rule errors, as each subcommand documents.
///
/// Help, version and usage errors are printed here as the binary prints them; nothing ends
/// the calling process.
pub fn main_with_args<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args = match cli::Cli::try_parse_from(args) {
        Ok(args) => args,
        Err(e) => {
            let _ = e.print();
            return u8::try_from(e.exit_code()).unwrap_or(2);
        }
    };
    match commands::run(args) {
        Ok(code) => code.0,
        Err(e) => {
            // Paths, rule ids and document text end up in error messages.
            let message = format!("{e:#}");
            eprintln!("error: {}", render::safe::escape_multiline(&message));
            2
        }
    }
}
