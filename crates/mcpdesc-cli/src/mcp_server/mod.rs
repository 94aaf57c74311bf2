//! `mcpdesc mcp`: the validator as an MCP server over standard input and output, so that an
//! MCP client (an editor, a desktop assistant) can validate descriptions and captures, look
//! rules up and check a live server with the same engine and rules as the command line.

mod documents;
#[cfg(feature = "live")]
mod live_check;
mod resources;
mod results;
mod rule_data;
mod tools;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use anyhow::{Context as _, Result};
use mcpdesc_core::Engine;
use mcpdesc_project::config::{self, Config, Discovery};
use rmcp::ServiceExt as _;

use crate::cli::RulesArgs;
use crate::exit::ExitCode;

#[derive(Debug, clap::Args)]
pub(crate) struct McpArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Ignore `mcpdesc.toml` in the working directory (by default its `rules`,
    /// `extend-rules`, `spec-version` and ignores apply, as for `validate`).
    #[arg(long)]
    pub no_config: bool,
    #[command(flatten)]
    pub limits: crate::limit_args::LimitArgs,
}

/// What every request of a session shares: the engine is loaded once, the rule pages
/// rendered on the first request for one.
pub(crate) struct State {
    engine: Engine,
    config: Option<Arc<Config>>,
    /// The rule directories the engine was loaded from, for `check_server`, which loads its own.
    #[cfg_attr(not(feature = "live"), allow(dead_code))]
    rules: RulesArgs,
    pages: OnceLock<resources::Pages>,
}

pub(crate) fn run(args: McpArgs) -> Result<ExitCode> {
    let config = if args.no_config {
        None
    } else {
        Discovery::default().for_dir(&config::absolute(Path::new(".")))?
    };
    let rules = resolved_rules(&args.rules, config.as_deref());
    let engine = rules.engine()?.with_limits(args.limits.limits());
    let state = Arc::new(State {
        engine,
        config,
        rules,
        pages: OnceLock::new(),
    });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the server's runtime")?;
    runtime.block_on(async move {
        let service = match tools::Server::new(state)
            .serve(rmcp::transport::stdio())
            .await
        {
            Ok(service) => service,
            // A client that goes away before its first request ended nothing that had begun.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(e) => return Err(e).context("the MCP session could not start"),
        };
        service
            .waiting()
            .await
            .context("the MCP session ended with an error")?;
        anyhow::Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The command line's rule options, each unset one taken from the configuration file as
/// `validate` takes it.
fn resolved_rules(args: &RulesArgs, config: Option<&Config>) -> RulesArgs {
    let d = config.map(|c| c.defaults.clone()).unwrap_or_default();
    RulesArgs {
        rules: if args.rules.is_empty() {
            d.rules.into_iter().collect::<Vec<PathBuf>>()
        } else {
            args.rules.clone()
        },
        extend_rules: if args.extend_rules.is_empty() {
            d.extend_rules.unwrap_or_default()
        } else {
            args.extend_rules.clone()
        },
        spec_version: args.spec_version.clone().or(d.spec_version),
    }
}
