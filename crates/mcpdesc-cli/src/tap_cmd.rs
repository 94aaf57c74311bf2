//! `mcpdesc tap`: a proxy between an MCP client and its server, over stdio (`-- COMMAND…`)
//! or Streamable HTTP (`--listen ADDR --upstream URL`). The traffic passes through
//! unchanged; each message is checked by the traffic rules beside it and the findings are
//! written as they happen.

use std::path::PathBuf;

use anyhow::Result;

use crate::exit::ExitCode;
use crate::render::OutputFormat;
use crate::tap_check::{Checker, Settings};

#[derive(Debug, clap::Args)]
pub(crate) struct TapArgs {
    /// The server command and its arguments, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
    /// Serve Streamable HTTP on ADDR (`127.0.0.1:0` picks a free port) and forward every
    /// request to `--upstream`, instead of running a stdio server.
    #[cfg(feature = "live")]
    #[arg(
        long,
        value_name = "ADDR",
        requires = "upstream",
        conflicts_with = "command"
    )]
    pub listen: Option<String>,
    /// The URL of the Streamable HTTP server the requests to `--listen` are forwarded to.
    #[cfg(feature = "live")]
    #[arg(long, value_name = "URL", requires = "listen")]
    pub upstream: Option<String>,
    /// Write the findings and the summary to FILE instead of standard error.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// Write every message exchanged to FILE as a capture (see docs/traffic.md).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// The findings' format: concise, text and github are written as findings happen; json,
    /// sarif and junit when the session ends.
    #[arg(long, value_enum, value_name = "FMT", default_value_t = OutputFormat::Concise)]
    pub format: OutputFormat,
    /// Also compare what the server says in the session (its handshake, the lists the
    /// client reads whole) with this MCP Description, as `check-server` does.
    #[cfg(feature = "live")]
    #[arg(long, value_name = "FILE")]
    pub description: Option<PathBuf>,
    /// Judge the messages before an `initialize` exchange (a client that reconnects, say) in
    /// this MCP protocol version [default: they are undated].
    #[arg(long, value_name = "VERSION")]
    pub protocol_version: Option<String>,
    #[command(flatten)]
    pub rules: crate::cli::RulesArgs,
    #[command(flatten)]
    pub limits: crate::limit_args::LimitArgs,
}

pub(crate) fn run(args: TapArgs) -> Result<ExitCode> {
    let engine = args
        .rules
        .engine()?
        .with_limits(args.limits.limits())
        .with_traffic_version(args.protocol_version.clone());
    #[cfg(feature = "live")]
    let description = args
        .description
        .as_deref()
        .map(|path| crate::tap_describe::Described::load(&engine, path))
        .transpose()?;
    let settings = Settings {
        engine,
        format: args.format,
        log: args.log,
        record: args.record,
        #[cfg(feature = "live")]
        description,
    };
    #[cfg(feature = "live")]
    if let (Some(listen), Some(upstream)) = (&args.listen, &args.upstream) {
        return crate::tap_http::run(listen, upstream, settings);
    }
    if args.command.is_empty() {
        anyhow::bail!("no server: give its command after `--` (or --listen and --upstream)");
    }
    crate::tap_stdio::run(&args.command, Checker::start(settings)?)
}
