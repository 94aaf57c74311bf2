//! SARIF 2.1.0: every rule as a reporting descriptor, every finding as a result with a
//! physical location (file, line, column) and its JSON Pointer as a logical location.

use std::collections::BTreeSet;

use anyhow::Result;
use mcpdesc_core::{Catalogue, Diagnostic, Rule, Severity};
use serde_json::{json, Map, Value};

use super::{safe, FileResult, RenderContext};
use mcpdesc_project::suppress::cli_rules;

const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A relative path as a URI reference: `/`-separated, reserved characters percent-encoded.
fn uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The reporting descriptor of `rule` as release `cat` has it.
fn descriptor(cat: &Catalogue, rule: &Rule, ctx: &RenderContext<'_>) -> Value {
    let d = &rule.def;
    let mut help = d.requirement.trim().to_owned();
    if let Some(h) = &d.help {
        help = format!("{help}\n\n{}", h.trim());
    }
    // Only an absolute URI comes back, as `helpUri` requires.
    let url = ctx.docs.url(cat, &d.id);
    let mut v = json!({
        "id": d.id,
        "shortDescription": {"text": d.title},
        "fullDescription": {"text": d.description.trim()},
        "help": {"text": help},
        "defaultConfiguration": {"level": level(rule.severity)},
        "properties": {
            "owner": d.owner.as_str(),
            "surface": d.surface.text(),
            "kind": d.kind.as_str(),
            "level": d.level.as_str(),
            "status": d.status.as_str(),
            "enforcement": d.enforcement.as_str(),
            "applicability": rule.applicability.iter()
                .map(|(k, a)| (k.clone(), json!(a.as_str())))
                .collect::<Map<_, _>>(),
            "tags": [d.owner.as_str(), d.kind.as_str()],
        },
    });
    if let Some(url) = url {
        v["helpUri"] = json!(url);
        v["properties"]["docUrl"] = json!(url);
    }
    v
}

/// Every rule of the release that judged the documents (the default release when they were
/// judged by several), then the rules of other releases that reported findings.
fn descriptors(results: &[FileResult], ctx: &RenderContext<'_>) -> Vec<Value> {
    let judged: BTreeSet<&str> = results
        .iter()
        .filter_map(|r| r.release.as_deref())
        .collect();
    let main = match (judged.len(), results.iter().find(|r| r.release.is_some())) {
        (1, Some(r)) => ctx.catalogue_of(r),
        _ => ctx.catalogue,
    };
    let mut rules: Vec<Value> = main
        .rules
        .iter()
        .map(|r| descriptor(main, r, ctx))
        .collect();
    let mut seen: BTreeSet<String> = main.rules.iter().map(|r| r.def.id.clone()).collect();
    for r in results {
        let cat = ctx.catalogue_of(r);
        for d in &r.diagnostics {
            if let Some(rule) = cat.rule(&d.rule).filter(|_| !seen.contains(&d.rule)) {
                seen.insert(d.rule.clone());
                rules.push(descriptor(cat, rule, ctx));
            }
        }
    }
    for r in cli_rules() {
        rules.push(json!({
            "id": r.id,
            "shortDescription": {"text": r.title},
            "fullDescription": {"text": r.description},
            "help": {"text": r.description},
            "defaultConfiguration": {"level": level(r.severity)},
            "properties": {"owner": "mcpdesc-cli", "tags": ["mcpdesc-cli"]},
        }));
    }
    rules
}

fn result(r: &FileResult, d: &Diagnostic, index: Option<usize>, ctx: &RenderContext<'_>) -> Value {
    let mut physical = json!({"artifactLocation": {"uri": uri(&r.path)}});
    if d.line > 0 {
        physical["region"] = json!({"startLine": d.line, "startColumn": d.column.max(1)});
    }
    let mut v = json!({
        "ruleId": d.rule,
        "level": level(d.severity),
        "message": {"text": d.message},
        "locations": [{
            "physicalLocation": physical,
            "logicalLocations": [{"fullyQualifiedName": d.pointer, "kind": "element"}],
        }],
        "partialFingerprints": {"mcpdescFinding/v1": format!("{}|{}|{}", d.rule, d.pointer, d.message)},
        "properties": {"pointer": d.pointer, "versions": d.versions},
    });
    if let Some(i) = index {
        v["ruleIndex"] = json!(i);
    }
    if let Some(url) = ctx.doc_url(r, &d.rule) {
        v["properties"]["docUrl"] = json!(url);
    }
    v
}

/// One run of the `mcpdesc` driver over every input.
pub(crate) fn sarif(results: &[FileResult], ctx: &RenderContext<'_>) -> Result<String> {
    let rules = descriptors(results, ctx);
    let index_of = |id: &str| rules.iter().position(|r| r["id"] == id);
    let mut out = Vec::new();
    let mut notifications = Vec::new();
    for r in results {
        if let Some(e) = r.unclaimed_load_error() {
            let mut physical = json!({"artifactLocation": {"uri": uri(&r.path)}});
            if e.line > 0 {
                physical["region"] = json!({"startLine": e.line, "startColumn": e.column.max(1)});
            }
            notifications.push(json!({
                "level": "error",
                "message": {"text": format!("{}: {}", r.path, e.message)},
                "locations": [{"physicalLocation": physical}],
                "descriptor": {"id": e.code},
            }));
        }
        for d in &r.diagnostics {
            out.push(result(r, d, index_of(&d.rule), ctx));
        }
    }
    let artifacts: Vec<Value> = results
        .iter()
        .map(|r| json!({"location": {"uri": uri(&r.path)}}))
        .collect();
    let io_failed = results.iter().any(|r| r.io_error);
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "mcpdesc",
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "invocations": [{
                "executionSuccessful": !io_failed,
                "toolExecutionNotifications": notifications,
            }],
            // Columns count characters (Unicode code points), not UTF-16 units.
            "columnKind": "unicodeCodePoints",
            "artifacts": artifacts,
            "results": out,
            "properties": {"profile": ctx.profile()},
        }],
    });
    Ok(safe::to_json_pretty(&log)? + "\n")
}
