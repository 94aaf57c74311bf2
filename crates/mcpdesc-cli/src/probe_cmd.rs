//! `mcpdesc probe-server`: starts (or connects to) an MCP server, negotiates each protocol
//! version and prints what the server offers in each, as JSON.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, Result};

use crate::live::{self, Recorder, Target, Timeouts};

#[derive(Debug, clap::Args)]
pub struct ProbeServerArgs {
    /// Probe the Streamable HTTP endpoint at this URL instead of starting a command.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub url: Option<String>,
    /// A protocol version to negotiate; repeatable [default: every version the catalogue
    /// knows].
    #[arg(long = "protocol-version", value_name = "VERSION")]
    pub protocol_versions: Vec<String>,
    /// Write every message exchanged to FILE as a capture (newline-delimited JSON records,
    /// see docs/traffic.md), for `mcpdesc validate`.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// How long to wait for each answer of the server, in milliseconds.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub timeout_ms: u64,
    /// How long to wait for the first answer of each fresh connection (it includes the
    /// server's start-up), in milliseconds.
    #[arg(long, value_name = "N", default_value_t = 30_000)]
    pub startup_timeout_ms: u64,
    /// The server's command and its arguments, after `--`; it speaks MCP on standard input
    /// and output.
    #[arg(last = true, value_name = "COMMAND", required_unless_present = "url")]
    pub command: Vec<OsString>,
}

pub fn run(args: ProbeServerArgs) -> Result<ExitCode> {
    let target = match (&args.url, args.command.split_first()) {
        (Some(url), _) => Target::Http { url: url.clone() },
        (None, Some((command, rest))) => Target::Stdio {
            command: command.clone(),
            args: rest.to_vec(),
        },
        (None, None) => anyhow::bail!("give the server's command after `--`, or --url"),
    };
    let engine = mcpdesc_core::Engine::embedded()?;
    let cat = engine.catalogue();
    let Some(live_def) = cat.def.live.as_ref() else {
        anyhow::bail!(
            "the catalogue has no `live` section: it does not say how to talk to a server"
        );
    };
    let versions = if args.protocol_versions.is_empty() {
        cat.versions
            .iter()
            .map(|(_, name)| name.to_owned())
            .collect()
    } else {
        args.protocol_versions.clone()
    };
    let timeouts = Timeouts {
        startup: Duration::from_millis(args.startup_timeout_ms),
        request: Duration::from_millis(args.timeout_ms),
    };
    let mut recorder = Recorder::default();
    let probed = live::probe_recording(live_def, &target, &versions, &timeouts, &mut recorder);
    // Written also when the probe failed: the capture shows what the server did.
    if let Some(path) = &args.record {
        std::fs::write(path, recorder.as_bytes())
            .with_context(|| format!("cannot write the capture to {}", path.display()))?;
    }
    let reports = probed?;
    let mut json = serde_json::to_string_pretty(&reports)?;
    json.push('\n');
    crate::output::emit(&json)?;
    Ok(if reports.iter().all(|r| r.errors.is_empty()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
