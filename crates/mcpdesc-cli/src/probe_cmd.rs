//! `mcpdesc probe-server`: starts (or connects to) an MCP server, negotiates each protocol
//! version and prints what the server offers in each, as JSON.

use std::path::PathBuf;
use crate::exit::ExitCode;

use anyhow::{Context as _, Result};

use mcpdesc_live::{self as live, Recorder};

#[derive(Debug, clap::Args)]
pub(crate) struct ProbeServerArgs {
    #[command(flatten)]
    pub server: crate::server_target::ServerTargetArgs,
    /// A protocol version to negotiate; repeatable [default: every version the catalogue
    /// knows].
    #[arg(long = "protocol-version", value_name = "VERSION")]
    pub protocol_versions: Vec<String>,
    /// Write every message exchanged to FILE as a capture (newline-delimited JSON records,
    /// see docs/traffic.md), for `mcpdesc validate`.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
}

pub(crate) fn run(args: ProbeServerArgs) -> Result<ExitCode> {
    let target = args.server.target()?;
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
    let timeouts = args.server.timeouts();
    let mut recorder = Recorder::default();
    let probed = live::probe_recording(live_def, &target, &versions, &timeouts, &mut recorder);
    // Written also when the probe failed: the capture shows what the server did.
    if let Some(path) = &args.record {
        std::fs::write(path, recorder.as_bytes())
            .with_context(|| format!("cannot write the capture to {}", path.display()))?;
    }
    let reports = probed?;
    // What a server names its tools may hold terminal and bidirectional controls.
    let mut json = crate::render::safe::to_json_pretty(&reports)?;
    json.push('\n');
    crate::output::emit(&json)?;
    Ok(if reports.iter().all(|r| r.errors.is_empty()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
