//! Validates a description with the embedded catalogue plus Acme's house rules, whose rule
//! `acme.tool.name-prefix` calls a check function defined here.
//!
//! ```text
//! cargo run --manifest-path examples/acme-checks/Cargo.toml -- examples/acme-checks/example.json
//! ```
//!
//! Exit status: 0 when the document has no error, 1 when it has one or more, 2 when the rules
//! or the document cannot be read.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use mcpdesc_core::{CheckNode, CustomCheck, Findings};
use mcpdesc_core::{Diagnostic, Engine, Severity};

/// The options a rule gives `check: name-prefix`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct NamePrefixOptions {
    /// What every name starts with.
    prefix: String,
}

/// A string starts with the rule's `prefix`.
struct NamePrefix;

impl CustomCheck for NamePrefix {
    const NAME: &'static str = "name-prefix";
    const PARAMS: &'static [&'static str] = &["prefix"];
    type Options = NamePrefixOptions;

    fn run(&self, options: &NamePrefixOptions, node: CheckNode<'_>, out: &mut Findings<'_>) {
        let Some(name) = node.value().as_str() else {
            return;
        };
        if !name.starts_with(&options.prefix) {
            out.at_node().with("prefix", options.prefix.clone());
        }
    }
}

fn main() -> ExitCode {
    let Some(document) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: acme-checks DOCUMENT");
        return ExitCode::from(2);
    };
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
    let engine = match Engine::builder()
        .house_rules(rules)
        .check(NamePrefix)
        .build()
    {
        Ok(engine) => engine,
        Err(e) => {
            eprint!("{e}");
            return ExitCode::from(2);
        }
    };
    let report = match engine.validate_file(&document) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    for d in &report.diagnostics {
        println!("{}", line(&document, d));
    }
    if report.has(Severity::Error) || report.load_error.is_some() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// One diagnostic as `file:line:column: severity rule: message`. Stands in for the
/// library's `Display` of a diagnostic until it has one; then the call above becomes
/// `println!("{d}")`.
fn line(document: &Path, d: &Diagnostic) -> String {
    format!(
        "{}:{}:{}: {} {}: {}",
        document.display(),
        d.line,
        d.column,
        d.severity.as_str(),
        d.rule,
        d.message
    )
}
