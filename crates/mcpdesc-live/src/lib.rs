//! Talking MCP to a running server: start it (or connect to it) over stdio or Streamable
//! HTTP, negotiate each protocol version in turn, and list what it offers, keeping every
//! message as a capture; and drafting a description from what it reported ([`init`]).
//!
//! The session code never judges the server: the reports are plain data, which [`compare`]
//! lines up with a description, and the capture is for the traffic rules.

pub mod calls;
pub mod compare;
mod http;
pub mod init;
mod record;
mod session;
mod stdio;
mod transport;

// The transports' modules name it from the crate root, so that they can be compiled alone.
pub use mcpdesc_project::live_rules as rules;
use mcpdesc_project::safe;

use std::ffi::OsString;
use std::time::Duration;

pub use record::Recorder;
pub use rules::RULES;
pub use session::ServerReport;

use session::Ids;
use transport::Transport;

/// Where the server is.
#[derive(Debug, Clone)]
pub enum Target {
    /// A command to start, speaking MCP on its standard input and output.
    Stdio {
        /// The program to run.
        command: OsString,
        /// Its arguments.
        args: Vec<OsString>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        /// The endpoint's `http://` or `https://` URL.
        url: String,
    },
}

impl Target {
    /// The target as a user would type it, for messages.
    pub fn describe(&self) -> String {
        match self {
            Target::Stdio { command, args } => std::iter::once(command)
                .chain(args)
                .map(|a| a.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(" "),
            Target::Http { url } => url.clone(),
        }
    }
}

/// How long to wait for the server.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// For the first answer of a fresh connection, which includes the server's start-up
    /// (interpreters and package runners can take seconds to load).
    pub startup: Duration,
    /// For every other answer.
    pub request: Duration,
    /// When the whole command must be done, and how long it was given: every wait ends by
    /// then, so that a server paging slowly through a thousand pages cannot take hours.
    pub overall: Option<(std::time::Instant, Duration)>,
}

impl Timeouts {
    /// When a wait of `timeout` that starts now must end.
    pub fn deadline(&self, timeout: Duration) -> std::time::Instant {
        let own = std::time::Instant::now() + timeout;
        match self.overall {
            Some((end, _)) => own.min(end),
            None => own,
        }
    }

    /// The overall deadline, once it has passed.
    pub fn overall_passed(&self) -> Option<Duration> {
        self.overall
            .filter(|(end, _)| std::time::Instant::now() >= *end)
            .map(|(_, given)| given)
    }
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            startup: Duration::from_secs(30),
            request: Duration::from_secs(10),
            overall: None,
        }
    }
}

pub use mcpdesc_core::internal::rules::file::LiveDef;

/// A situation in which nothing about the server can be reported.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// The server's command could not be started.
    #[error("cannot start `{command}`: {error}")]
    Spawn {
        /// The program, lossily decoded.
        command: String,
        /// Why it could not be started.
        error: std::io::Error,
    },
    /// The HTTP target is not an `http://` or `https://` URL.
    #[error("`{url}` is not an http:// or https:// URL")]
    BadUrl {
        /// The URL as given.
        url: String,
    },
    /// The server said nothing at all before its first connection failed, so no other version
    /// was tried.
    #[error("`{target}` never answered: {reason}")]
    NoAnswer {
        /// The target, as a user would type it.
        target: String,
        /// Why the first connection ended.
        reason: String,
    },
}

/// Probes the server once per version (a fresh process or HTTP connection each time: a
/// stdio server serves one handshake per process) and reports what each negotiation found.
pub fn probe(
    live: &LiveDef,
    target: &Target,
    versions: &[String],
    timeouts: &Timeouts,
) -> Result<Vec<ServerReport>, LiveError> {
    probe_recording(live, target, versions, timeouts, &mut Recorder::default())
}

/// [`probe`], appending every message exchanged to `recorder` (also when it fails, so that
/// the capture shows what went wrong).
pub fn probe_recording(
    live: &LiveDef,
    target: &Target,
    versions: &[String],
    timeouts: &Timeouts,
    recorder: &mut Recorder,
) -> Result<Vec<ServerReport>, LiveError> {
    probe_calling(live, target, versions, timeouts, recorder, &|_| Vec::new())
}

/// [`probe_recording`], also making the calls `calls(version)` plans once the lists are
/// fetched (the examples of `--call-examples`); each report holds their outcomes.
pub fn probe_calling(
    live: &LiveDef,
    target: &Target,
    versions: &[String],
    timeouts: &Timeouts,
    recorder: &mut Recorder,
    calls: &dyn Fn(&str) -> Vec<calls::PlannedCall>,
) -> Result<Vec<ServerReport>, LiveError> {
    if let Target::Http { url } = target {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(LiveError::BadUrl { url: url.clone() });
        }
    }
    // Ids stay unique across the whole capture, so that one file of several sessions pairs
    // every response with its own request.
    let mut ids = Ids::default();
    let mut reports = Vec::with_capacity(versions.len());
    for version in versions {
        let was_cut = recorder.cut().is_some();
        let mut transport = connect(target, *timeouts)?;
        let mut outcome = session::run(
            live,
            transport.as_mut(),
            recorder,
            &mut ids,
            version,
            timeouts,
            &calls(version),
        );
        transport.close();
        if let (false, Some(note)) = (was_cut, recorder.cut()) {
            outcome.report.errors.push(note);
        }
        // A server that says nothing at all before failing the first time is not running
        // an MCP server; repeating that for every version would only multiply the wait.
        if reports.is_empty() && !outcome.heard_from_server {
            if let Some(reason) = outcome.fatal {
                return Err(LiveError::NoAnswer {
                    target: target.describe(),
                    reason,
                });
            }
        }
        reports.push(outcome.report);
    }
    Ok(reports)
}

fn connect(target: &Target, timeouts: Timeouts) -> Result<Box<dyn Transport>, LiveError> {
    match target {
        Target::Stdio { command, args } => {
            let child =
                stdio::StdioTransport::spawn(command, args).map_err(|error| LiveError::Spawn {
                    command: command.to_string_lossy().into_owned(),
                    error,
                })?;
            Ok(Box::new(child))
        }
        Target::Http { url } => Ok(Box::new(http::HttpTransport::new(url, timeouts))),
    }
}
