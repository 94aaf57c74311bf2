//! `check_server`: what `check-server` does, for a server started from a command or reached
//! at a URL, within a fixed time; the server started is ended before the result returns.

use std::ffi::OsString;
use std::time::Duration;

use mcpdesc_core::Format;
use mcpdesc_live::{self as live, Recorder, Target, Timeouts};

use super::results::ValidationResult;
use super::State;
use crate::cli::{Cli, Command};
use crate::render::FileResult;

/// How long one check may take in all.
const DEADLINE: Duration = Duration::from_secs(120);
const STARTUP: Duration = Duration::from_secs(30);
const REQUEST: Duration = Duration::from_secs(10);

/// Checks the server at `command` or `url` (exactly one), against the description at
/// `description` when given, else validating only the traffic of a probe in every
/// protocol version the catalogue knows.
pub(crate) fn check(
    state: &State,
    command: Option<&[String]>,
    url: Option<&str>,
    description: Option<&str>,
) -> Result<ValidationResult, String> {
    let target = match (command, url) {
        (Some([]), None) => return Err("`command` is empty; give the server's program".into()),
        (Some([program, args @ ..]), None) => Target::Stdio {
            command: program.into(),
            args: args.iter().map(OsString::from).collect(),
        },
        (None, Some(url)) => Target::Http {
            url: url.to_owned(),
        },
        (Some(_), Some(_)) => return Err("give either `command` or `url`, not both".into()),
        (None, None) => return Err("give the server's `command` or its `url`".into()),
    };
    match description {
        Some(path) => against_description(state, &target, path),
        None => traffic_only(state, &target),
    }
}

/// `check-server DESCRIPTION`, its arguments built as a user would type them so that the
/// tool and the command cannot drift apart.
fn against_description(
    state: &State,
    target: &Target,
    path: &str,
) -> Result<ValidationResult, String> {
    let mut argv: Vec<OsString> = vec!["mcpdesc".into(), "check-server".into()];
    // A path that starts with `-` would be read as an option.
    argv.push(if path.starts_with('-') {
        format!("./{path}").into()
    } else {
        path.into()
    });
    argv.push(format!("--deadline-ms={}", DEADLINE.as_millis()).into());
    argv.push(format!("--startup-timeout-ms={}", STARTUP.as_millis()).into());
    argv.push(format!("--timeout-ms={}", REQUEST.as_millis()).into());
    for dir in &state.rules.rules {
        argv.push("--rules".into());
        argv.push(dir.into());
    }
    for dir in &state.rules.extend_rules {
        argv.push("--extend-rules".into());
        argv.push(dir.into());
    }
    if let Some(v) = &state.rules.spec_version {
        argv.push(format!("--spec-version={v}").into());
    }
    match target {
        Target::Http { url } => argv.push(format!("--url={url}").into()),
        Target::Stdio { command, args } => {
            argv.push("--".into());
            argv.push(command.clone());
            argv.extend(args.iter().cloned());
        }
    }
    let cli = <Cli as clap::Parser>::try_parse_from(argv).map_err(|e| e.to_string())?;
    let Command::CheckServer(args) = cli.command else {
        return Err("internal error: not a check-server command line".into());
    };
    match crate::check_cmd::check(&args) {
        Ok(Ok(checked)) => Ok(ValidationResult::of(checked.results)),
        Ok(Err(unmatched)) => Err(unmatched.join("\n")),
        Err(e) => Err(format!("{e:#}")),
    }
}

/// A probe in every protocol version the catalogue knows, its traffic validated.
fn traffic_only(state: &State, target: &Target) -> Result<ValidationResult, String> {
    let engine = &state.engine;
    let cat = engine.catalogue();
    let Some(live_def) = cat.def.live.as_ref() else {
        return Err(
            "the catalogue has no `live` section: it does not say how to talk to a server".into(),
        );
    };
    let versions: Vec<String> = cat.versions.iter().map(|(_, n)| n.to_owned()).collect();
    let timeouts = Timeouts {
        startup: STARTUP,
        request: REQUEST,
        overall: Some((std::time::Instant::now() + DEADLINE, DEADLINE)),
    };
    let mut recorder = Recorder::default();
    live::probe_recording(live_def, target, &versions, &timeouts, &mut recorder)
        .map_err(|e| e.to_string())?;
    let report = engine.validate_bytes(recorder.as_bytes(), Format::Capture);
    Ok(ValidationResult::of(vec![FileResult {
        path: "traffic".into(),
        source: None,
        diagnostics: report.diagnostics,
        load_error: report.load_error,
        io_error: false,
        suppressed: 0,
        baselined: 0,
        release: Some(report.release),
    }]))
}
