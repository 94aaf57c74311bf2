//! `mcpdesc init --from-server`: writes a starting description from what a live server
//! reports in each protocol version it negotiates, checked by the rules before it is
//! written.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context as _, Result};
use mcpdesc_core::{Document, Format, Limits, Severity};

use crate::live::{self, Target, Timeouts};
use crate::render::safe;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    Yaml,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// Describe a running server: start COMMAND (or connect to --url) and describe what it
    /// reports.
    #[arg(long, required = true)]
    pub from_server: bool,
    /// Connect to the Streamable HTTP endpoint at this URL instead of starting a command.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub url: Option<String>,
    /// A protocol version to negotiate; repeatable [default: every version the catalogue
    /// knows]. Only the versions the server agrees to are described.
    #[arg(long = "protocol-version", value_name = "VERSION")]
    pub protocol_versions: Vec<String>,
    /// Write the description to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Replace the --out file if it exists.
    #[arg(long, requires = "out")]
    pub force: bool,
    #[arg(long, value_enum, default_value_t = OutputFormat::Yaml)]
    pub format: OutputFormat,
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

pub fn run(args: InitArgs) -> Result<ExitCode> {
    let target = match (&args.url, args.command.split_first()) {
        (Some(url), _) => Target::Http { url: url.clone() },
        (None, Some((command, rest))) => Target::Stdio {
            command: command.clone(),
            args: rest.to_vec(),
        },
        (None, None) => bail!("give the server's command after `--`, or --url"),
    };
    // Refused before the server is started: probing can take a while.
    if let Some(out) = &args.out {
        if out.exists() && !args.force {
            bail!("{} exists; give --force to replace it", out.display());
        }
    }
    let engine = mcpdesc_core::Engine::embedded()?;
    let cat = engine.catalogue();
    let Some(live_def) = cat.def.live.as_ref() else {
        bail!("the catalogue has no `live` section: it does not say how to talk to a server");
    };
    let versions = if args.protocol_versions.is_empty() {
        cat.versions.iter().map(|(_, n)| n.to_owned()).collect()
    } else {
        args.protocol_versions.clone()
    };
    let timeouts = Timeouts {
        startup: Duration::from_millis(args.startup_timeout_ms),
        request: Duration::from_millis(args.timeout_ms),
    };
    let reports = live::probe(live_def, &target, &versions, &timeouts)?;
    for r in &reports {
        // What the description cannot show: the author should know it is incomplete.
        if let Some(why) = &r.refusal {
            eprintln!("note: MCP {}: {}", r.requested, safe::escape(why));
        }
        for e in &r.errors {
            eprintln!("warning: MCP {}: {}", r.requested, safe::escape(e));
        }
    }
    let draft = crate::init::draft(&engine, &reports)?;
    let (text, format) = match args.format {
        OutputFormat::Yaml => {
            let body = crate::init::to_yaml(&draft.document)
                .context("cannot write the description as YAML")?;
            (header(&target, &draft.versions) + &body, Format::Yaml)
        }
        OutputFormat::Json => {
            let mut json = serde_json::to_string_pretty(&draft.document)?;
            json.push('\n');
            (json, Format::Json)
        }
    };
    let name = args
        .out
        .as_ref()
        .map_or_else(|| "<stdout>".to_owned(), |p| p.display().to_string());
    // The text is checked as written, so that a writing mistake is caught as well.
    let parsed = Document::parse_str(&text, format, &Limits::default())
        .with_context(|| format!("the description written for {name} does not read back"))?;
    if parsed.value() != &draft.document {
        bail!("the description written for {name} reads back as a different document");
    }
    let report = engine.validate_document(&parsed);
    // Written even when it has errors: the author fixes it from there.
    match &args.out {
        Some(path) => std::fs::write(path, &text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => crate::output::emit(&text)?,
    }
    for d in &report.diagnostics {
        eprintln!(
            "{}:{}:{}: {}[{}] {}",
            safe::escape(&name),
            d.line,
            d.column,
            d.severity.as_str(),
            d.rule,
            safe::escape(&d.message)
        );
    }
    Ok(if report.has(Severity::Error) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// A comment naming the server and the versions described. No date: the same server gives
/// the same file.
fn header(target: &Target, versions: &[String]) -> String {
    let server = target.describe().replace(['\n', '\r'], " ");
    format!(
        "# Generated by `mcpdesc init --from-server` from what\n#   {}\n# reported for MCP {}.\n# A starting point: review every entry and add what a server cannot report.\n",
        safe::escape(&server),
        versions.join(", ")
    )
}
