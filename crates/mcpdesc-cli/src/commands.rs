//! What each subcommand does.

use std::process::ExitCode;

use anyhow::Result;
use mcpdesc_core::Engine;

use crate::cli::{Cli, Command, Format, RulesArgs, RulesCommand, ValidateArgs};
use crate::render;

pub fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Validate(args) => validate(args),
        Command::Rules {
            command: RulesCommand::List { rules, format },
        } => {
            let engine = engine(&rules)?;
            print!("{}", render::rules_list(engine.catalogue(), format)?);
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn engine(args: &RulesArgs) -> Result<Engine> {
    let engine = match &args.rules {
        Some(dir) => Engine::from_dir(dir),
        None => Engine::embedded(),
    };
    engine.map_err(|e| anyhow::anyhow!("{e}"))
}

fn validate(args: ValidateArgs) -> Result<ExitCode> {
    let engine = engine(&args.rules)?;
    let mut results = Vec::new();
    for path in &args.files {
        let report = engine.validate_file(path)?;
        results.push(render::FileResult {
            path: path.display().to_string(),
            report,
        });
    }
    let out = match args.format {
        Format::Text => render::text(&results),
        Format::Json => render::json(&results)?,
    };
    print!("{out}");
    let failed = results.iter().any(|r| !r.report.is_valid());
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
