//! What each subcommand does.

use crate::exit::ExitCode;

use anyhow::Result;

use crate::cli::{Cli, Command, RulesCommand, ValidateArgs};

pub(crate) fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Validate(args) => validate(*args),
        Command::Test(args) => crate::test_cmd::run(args),
        Command::Docs(args) => crate::docs_cmd::run(args),
        Command::Diff(args) => crate::diff_cmd::run(args),
        Command::Rules {
            command:
                RulesCommand::List {
                    rules,
                    format,
                    filter,
                },
        } => crate::rules_cmd::list(&rules, &filter, format),
        Command::Rules {
            command: RulesCommand::Show(args),
        }
        | Command::Explain(args) => crate::rules_cmd::show(&args),
        #[cfg(feature = "lsp")]
        Command::Server(args) => crate::server_cmd::run(args),
        #[cfg(feature = "live")]
        Command::ProbeServer(args) => crate::probe_cmd::run(args),
        #[cfg(feature = "live")]
        Command::Init(args) => crate::init_cmd::run(args),
        #[cfg(feature = "live")]
        Command::CheckServer(args) => crate::check_cmd::run(args),
        Command::Tap(args) => crate::tap_cmd::run(args),
        #[cfg(feature = "mcp")]
        Command::Mcp(args) => crate::mcp_server::run(args),
        Command::Completions(args) => crate::rules_cmd::completions(&args),
    }
}

fn validate(args: ValidateArgs) -> Result<ExitCode> {
    crate::validate_cmd::run(args)
}
