//! `mcpdesc check-server`: validates a description, probes its server in every protocol
//! version the description declares, and reports where the two disagree, together with
//! the traffic rules' findings on every message exchanged.

use crate::exit::ExitCode;
use std::path::PathBuf;

use anyhow::{bail, Context as _, Result};
use mcpdesc_core::{Diagnostic, Document, Engine, Format, Limits, Report};
use serde_json::Value;

use crate::cli::RulesArgs;
use crate::render::{DocUrls, FileResult, OutputFormat, RenderContext};
use crate::report::Delivery;
use crate::report_args::ReportArgs;
use crate::rule_patterns::{self, Origin};
use mcpdesc_live::compare::{self, Description};
use mcpdesc_live::{self as live, calls, Recorder};
use mcpdesc_project::config::{self, ColorWhen, FailOn};
use mcpdesc_project::findings::Policy;

#[derive(Debug, clap::Args)]
pub(crate) struct CheckServerArgs {
    /// The MCP Description of the server (JSON or YAML).
    #[arg(value_name = "DESCRIPTION")]
    pub description: PathBuf,
    #[command(flatten)]
    pub server: crate::server_target::ServerTargetArgs,
    /// Write every message exchanged to FILE as a capture (see docs/traffic.md); the traffic
    /// findings are then reported under this path.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Also run the description's examples against the server (tool examples are calls of
    /// the tool, so they can have side effects) and compare each result's shape with the
    /// example's.
    #[arg(long)]
    pub call_examples: bool,

    #[command(flatten)]
    pub report: ReportArgs,
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub limits: crate::limit_args::LimitArgs,
}

pub(crate) fn run(args: CheckServerArgs) -> Result<ExitCode> {
    let report = &args.report;
    let delivery = Delivery {
        format: report.format.unwrap_or(OutputFormat::Text),
        color: report.color.unwrap_or(ColorWhen::Auto),
        output_file: report.output_file.clone(),
        verbosity: report.verbosity(),
        statistics: report.statistics,
        max_warnings: report.max_warnings,
    };
    delivery.check()?;
    let Checked { engine, results } = match check(&args)? {
        Ok(checked) => checked,
        Err(unmatched) => {
            for line in unmatched {
                eprintln!("error: {line}");
            }
            return Ok(ExitCode::from(2));
        }
    };
    let ctx = RenderContext {
        catalogue: engine.catalogue(),
        releases: engine.releases(),
        docs: DocUrls::new(report.docs_base_url.as_deref()),
        strict: report.strict,
        fail_on: report.fail_on.unwrap_or(FailOn::Error).severity(),
        color: false,
        summary: true,
    };
    crate::report::deliver(&results, ctx, &delivery)
}

/// What `check-server` found: the description's results, then the traffic's.
pub(crate) struct Checked {
    pub engine: Engine,
    pub results: Vec<FileResult>,
}

/// Validates the description, probes the server and compares the two; the rule patterns
/// that match no rule come back as `Err` lines (a usage error).
pub(crate) fn check(args: &CheckServerArgs) -> Result<Result<Checked, Vec<String>>> {
    let report = &args.report;
    let target = args.server.target()?;
    let engine = args.rules.engine()?.with_limits(args.limits.limits());
    let selection = mcpdesc_project::findings::selection(
        engine.catalogue(),
        &report.select,
        &report.ignore,
        &report.protocol_versions,
    )
    .map_err(anyhow::Error::msg)?;
    let mut patterns = Origin::flag("select", &report.select);
    patterns.extend(Origin::flag("ignore", &report.ignore));
    let unmatched = rule_patterns::unmatched(&engine, &selection, &patterns);
    if !unmatched.is_empty() {
        return Ok(Err(unmatched));
    }
    let engine = engine.with_selection(selection.clone());
    let limits = engine.limits().clone();

    let path = &args.description;
    let display = path.display().to_string();
    let format = match Format::from_path(&display) {
        // A description is never a capture, whatever its name.
        Format::Capture => Format::Json,
        other => other,
    };
    let bytes = crate::inputs::read_document(path, limits.max_input_bytes)
        .with_context(|| format!("cannot read {display}"))?;
    let checked = engine.validate_bytes(&bytes, format);
    let text = mcpdesc_project::findings::source_text(bytes);
    let policy = Policy {
        catalogue: engine.catalogue(),
        selection: &selection,
        config: None,
        strict: report.strict,
    };
    let abs = config::absolute(path);

    let mut results = Vec::new();
    match Document::parse_str(&text, format, &limits) {
        // Nothing to compare: reported as `validate` reports it.
        Err(_) => results.push(file_result(display.clone(), text, checked, Vec::new())),
        Ok(doc) => {
            let cat = engine.catalogue_for(doc.root());
            let Some(live_def) = cat.def.live.as_ref() else {
                bail!(
                    "the catalogue has no `live` section: it does not say how to talk to a server"
                );
            };
            let versions = versions(cat, &doc, &report.protocol_versions)?;
            let timeouts = args.server.timeouts();
            let mut recorder = Recorder::default();
            let resolved = cat.resolve_references(doc.root(), &limits);
            let planner = calls::planner(cat, live_def, &resolved);
            let no_calls = |_: &str| Vec::new();
            let plans: &dyn Fn(&str) -> Vec<calls::PlannedCall> = if args.call_examples {
                &planner
            } else {
                &no_calls
            };
            let probed = live::probe_calling(
                live_def,
                &target,
                &versions,
                &timeouts,
                &mut recorder,
                plans,
            );
            // What the server sent is now a document as large as the capture: from here on
            // it is handled as one (freed memory given back at once).
            crate::allocator::prepare_for_document(recorder.as_bytes().len() as u64);
            // Written also when the probe failed: the capture shows what the server did.
            if let Some(record) = &args.record {
                std::fs::write(record, recorder.as_bytes())
                    .with_context(|| format!("cannot write the capture to {}", record.display()))?;
            }
            let reports = projected(&engine, live_def, probed?);
            let mut found = compare::compare(
                cat,
                live_def,
                &Description {
                    doc: &doc,
                    resolved: &resolved,
                },
                &reports,
            );
            if args.call_examples {
                found.extend(example_findings(&doc, &reports, plans));
            }
            found.retain(|d| selection.includes(&d.rule));
            results.push(file_result(display.clone(), text, checked, found));

            let capture = String::from_utf8_lossy(recorder.as_bytes()).into_owned();
            let traffic = engine.validate_bytes(recorder.as_bytes(), Format::Capture);
            let name = match &args.record {
                Some(record) => record.display().to_string(),
                None => format!("{display}#traffic"),
            };
            results.push(file_result(name, capture, traffic, Vec::new()));
        }
    }
    for r in &mut results {
        let text = r.source.clone();
        let format = if r.path == display {
            format
        } else {
            Format::Capture
        };
        r.suppressed += policy.apply(&mut r.diagnostics, &abs, text.as_deref(), format, &limits);
        sort(&mut r.diagnostics);
    }
    Ok(Ok(Checked { engine, results }))
}

/// The server's reports in description terms: each version's entries and capabilities as
/// the description `init` would write has them for that version. What a
/// server sends that no description may declare for the version (a member the version
/// lacks, say) is left out there, so it is not reported as a difference here either; the
/// traffic rules judge what the server sent.
pub(crate) fn projected(
    engine: &Engine,
    live_def: &live::LiveDef,
    mut reports: Vec<live::ServerReport>,
) -> Vec<live::ServerReport> {
    let Ok(draft) = mcpdesc_live::init::draft(engine, &reports) else {
        return reports;
    };
    let compact = Document::from_value(&draft.document);
    let cat = engine.catalogue_for(compact.root());
    // The draft writes what its declarations share once, in components; the server's
    // entries are whole.
    let resolved = cat.resolve_references(compact.root(), &Limits::default());
    let root = &resolved;
    let scopes = cat.scopes(compact.root());
    let member = cat.def.scope.member.as_str();
    let in_scope = |coll: &str, v| -> Vec<Value> {
        root.get(coll)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
            .filter(|(i, _)| scopes.scope_of(&format!("/{coll}/{i}")).contains(v))
            .map(|(_, e)| {
                let mut e = e.clone();
                if let Some(o) = e.as_object_mut() {
                    o.remove(member);
                }
                e
            })
            .collect()
    };
    for report in reports.iter_mut().filter(|r| r.negotiated.is_some()) {
        let Some(v) = cat.versions.parse(&report.requested) else {
            continue;
        };
        for list in &live_def.lists {
            if report.lists.contains_key(&list.collection) {
                report
                    .lists
                    .insert(list.collection.clone(), in_scope(&list.collection, v));
            }
        }
        let mut caps = serde_json::Map::new();
        for decl in in_scope(&live_def.capabilities, v) {
            if let Value::Object(o) = decl {
                caps.extend(o);
            }
        }
        report.capabilities = Some(Value::Object(caps));
    }
    reports
}

/// The findings of the example calls of every version, one per example and finding with the
/// versions it holds for.
fn example_findings(
    doc: &Document<'_>,
    reports: &[live::ServerReport],
    plans: &dyn Fn(&str) -> Vec<calls::PlannedCall>,
) -> Vec<mcpdesc_core::Diagnostic> {
    let mut out: Vec<mcpdesc_core::Diagnostic> = Vec::new();
    for report in reports.iter().filter(|r| r.negotiated.is_some()) {
        for f in calls::findings(&plans(&report.requested), &report.calls) {
            let rule = if f.failed {
                live::rules::EXAMPLE_FAILED
            } else {
                live::rules::EXAMPLE_DIFFERS
            };
            let message = crate::render::safe::escape(&f.message).into_owned();
            if let Some(d) = out
                .iter_mut()
                .find(|d| d.rule == rule && d.pointer == f.pointer && d.message == message)
            {
                d.versions.push(report.requested.clone());
                continue;
            }
            let pos = doc.position(&f.pointer);
            let severity = mcpdesc_project::suppress::cli_rules()
                .find(|r| r.id == rule)
                .map_or(mcpdesc_core::Severity::Error, |r| r.severity);
            out.push(
                mcpdesc_core::Diagnostic::new(rule.to_owned(), severity, message)
                    .at(f.pointer, pos.line, pos.column)
                    .for_versions(vec![report.requested.clone()]),
            );
        }
    }
    out
}

/// The protocol versions to check: those the description declares, narrowed to `asked`.
fn versions(
    cat: &mcpdesc_core::Catalogue,
    doc: &Document<'_>,
    asked: &[String],
) -> Result<Vec<String>> {
    let declared = cat.versions.names(cat.scopes(doc.root()).root());
    if declared.is_empty() {
        bail!(
            "the description declares no protocol version (`{}`) to check the server in",
            cat.def.scope.member
        );
    }
    if let Some(v) = asked.iter().find(|v| !declared.contains(v)) {
        bail!(
            "the description does not declare protocol version {v}; it declares {}",
            declared.join(", ")
        );
    }
    Ok(declared
        .into_iter()
        .filter(|v| asked.is_empty() || asked.contains(v))
        .collect())
}

fn file_result(path: String, source: String, report: Report, more: Vec<Diagnostic>) -> FileResult {
    let mut diagnostics = report.diagnostics;
    diagnostics.extend(more);
    FileResult {
        path,
        source: Some(source),
        diagnostics,
        load_error: report.load_error,
        io_error: false,
        suppressed: 0,
        baselined: 0,
        release: Some(report.release),
    }
}

fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        (a.line, a.column, &a.pointer, &a.rule, &a.message)
            .cmp(&(b.line, b.column, &b.pointer, &b.rule, &b.message))
    });
}
