//! SARIF 2.1.0: every rule as a reporting descriptor, every finding as a result with a
//! physical location (file, line, column) and its JSON Pointer as a logical location.

use anyhow::Result;
use mcpdesc_core::{Diagnostic, Severity};
use serde_json::{json, Map, Value};

use super::{FileResult, RenderContext};
use crate::suppress::CLI_RULES;

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

fn descriptors(ctx: &RenderContext<'_>) -> Vec<Value> {
    let mut rules: Vec<Value> = ctx
        .catalogue
        .rules
        .iter()
        .map(|r| {
            let d = &r.def;
            let mut help = d.requirement.trim().to_owned();
            if let Some(h) = &d.help {
                help = format!("{help}\n\n{}", h.trim());
            }
            let mut v = json!({
                "id": d.id,
                "shortDescription": {"text": d.title},
                "fullDescription": {"text": d.description.trim()},
                "help": {"text": help},
                "defaultConfiguration": {"level": level(r.severity)},
                "properties": {
                    "owner": d.owner.as_str(),
                    "surface": d.surface,
                    "kind": d.kind.as_str(),
                    "level": d.level.as_str(),
                    "status": d.status.as_str(),
                    "enforcement": d.enforcement.as_str(),
                    "applicability": d.applicability.iter()
                        .map(|(k, a)| (k.clone(), json!(a.as_str())))
                        .collect::<Map<_, _>>(),
                    "tags": [d.owner.as_str(), d.kind.as_str()],
                },
            });
            if let Some(url) = ctx.docs.url(ctx.catalogue, &d.id) {
                v["helpUri"] = json!(url);
            }
            v
        })
        .collect();
    for r in CLI_RULES {
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

fn result(path: &str, d: &Diagnostic, index: Option<usize>, ctx: &RenderContext<'_>) -> Value {
    let mut physical = json!({"artifactLocation": {"uri": uri(path)}});
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
    if let Some(url) = ctx.docs.url(ctx.catalogue, &d.rule) {
        v["properties"]["docUrl"] = json!(url);
    }
    v
}

/// One run of the `mcpdesc` driver over every input.
pub fn sarif(results: &[FileResult], ctx: &RenderContext<'_>) -> Result<String> {
    let rules = descriptors(ctx);
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
            out.push(result(&r.path, d, index_of(&d.rule), ctx));
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
            "artifacts": artifacts,
            "results": out,
            "properties": {"profile": ctx.profile()},
        }],
    });
    Ok(serde_json::to_string_pretty(&log)? + "\n")
}
