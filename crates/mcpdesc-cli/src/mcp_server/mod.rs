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
use mcpdesc_core::{Engine, Selection};
use mcpdesc_project::config::{self, Config, Discovery};
use rmcp::ServiceExt as _;

use crate::cli::RulesArgs;
use crate::exit::ExitCode;
use crate::rule_patterns::{self, Origin};

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
    /// The configuration's `select`, `ignore` and `protocol-versions`, as `validate` applies them.
    selection: Selection,
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
    let selection = match selection(&engine, config.as_deref())? {
        Ok(selection) => selection,
        Err(unmatched) => {
            for line in unmatched {
                eprintln!("error: {line}");
            }
            return Ok(ExitCode::from(2));
        }
    };
    // A capture that never says its version is judged in the first one configured.
    let traffic_version = config
        .as_deref()
        .and_then(|c| c.defaults.protocol_versions.as_ref())
        .and_then(|v| v.first().cloned());
    let engine = engine
        .with_selection(selection.clone())
        .with_traffic_version(traffic_version);
    let state = Arc::new(State {
        engine,
        selection,
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

/// The rules and protocol versions the configuration file selects; its patterns that match
/// no rule come back as `Err` lines, a usage error as in `validate`.
fn selection(engine: &Engine, config: Option<&Config>) -> Result<Result<Selection, Vec<String>>> {
    let Some(config) = config else {
        return Ok(Ok(Selection::default()));
    };
    let d = &config.defaults;
    let file = config.dir.join(config::FILE_NAME).display().to_string();
    let select = d.select.clone().unwrap_or_default();
    let ignore = d.ignore.clone().unwrap_or_default();
    let versions = d.protocol_versions.clone().unwrap_or_default();
    let selection =
        mcpdesc_project::findings::selection(engine.catalogue(), &select, &ignore, &versions)
            .map_err(anyhow::Error::msg)?;
    let mut patterns = Origin::config("select", &select, &file);
    patterns.extend(Origin::config("ignore", &ignore, &file));
    let unmatched = rule_patterns::unmatched(engine, &selection, &patterns);
    Ok(if unmatched.is_empty() {
        Ok(selection)
    } else {
        Err(unmatched)
    })
}

impl State {
    /// The rule pages, rendered on first use.
    fn pages(&self) -> &resources::Pages {
        self.pages
            .get_or_init(|| resources::Pages::render(&self.engine))
    }
}
