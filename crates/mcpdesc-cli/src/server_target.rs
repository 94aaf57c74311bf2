//! How the commands that talk to a live MCP server (`probe-server`, `init`,
//! `check-server`) are told where it is and how long to wait for it.

use std::ffi::OsString;
use std::time::Duration;

use anyhow::Result;

use mcpdesc_live::{Target, Timeouts};

#[derive(Debug, clap::Args)]
pub(crate) struct ServerTargetArgs {
    /// Talk to the Streamable HTTP endpoint at this URL instead of starting COMMAND.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub url: Option<String>,
    /// How long to wait for each answer of the server, in milliseconds.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub timeout_ms: u64,
    /// How long to wait for the first answer of each fresh connection (it includes the
    /// server's start-up), in milliseconds.
    #[arg(long, value_name = "N", default_value_t = 30_000)]
    pub startup_timeout_ms: u64,
    /// How long the whole command may take, in milliseconds: every wait for the server ends
    /// by then, whatever is left to ask.
    #[arg(long, value_name = "N", default_value_t = 300_000)]
    pub deadline_ms: u64,
    /// The server's command and its arguments, after `--`; it speaks MCP on standard input
    /// and output.
    #[arg(last = true, value_name = "COMMAND", required_unless_present = "url")]
    pub command: Vec<OsString>,
}

impl ServerTargetArgs {
    /// The server: `--url`, else the command after `--`.
    pub(crate) fn target(&self) -> Result<Target> {
        match (&self.url, self.command.split_first()) {
            (Some(url), _) => Ok(Target::Http { url: url.clone() }),
            (None, Some((command, rest))) => Ok(Target::Stdio {
                command: command.clone(),
                args: rest.to_vec(),
            }),
            (None, None) => anyhow::bail!("give the server's command after `--`, or --url"),
        }
    }

    pub(crate) fn timeouts(&self) -> Timeouts {
        let given = Duration::from_millis(self.deadline_ms);
        Timeouts {
            startup: Duration::from_millis(self.startup_timeout_ms),
            request: Duration::from_millis(self.timeout_ms),
            overall: Some((std::time::Instant::now() + given, given)),
        }
    }
}
