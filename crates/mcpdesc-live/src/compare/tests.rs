use std::collections::BTreeMap;

use mcpdesc_core::{Engine, Format, Limits};
use serde_json::{json, Value};

use super::*;

fn engine() -> Engine {
    Engine::embedded().unwrap()
}

/// A report in which the server agreed to `version` and offers `tools` and `caps`.
fn served(version: &str, caps: Value, tools: Value) -> ServerReport {
    let mut lists = BTreeMap::new();
    lists.insert("tools".to_owned(), tools.as_array().unwrap().clone());
    ServerReport {
        requested: version.into(),
        negotiated: Some(version.into()),
        capabilities: Some(caps),
        lists,
        ..ServerReport::default()
    }
}

fn run(text: &str, reports: &[ServerReport]) -> Vec<Diagnostic> {
    let engine = engine();
    let doc = Document::parse_str(text, Format::Json, &Limits::default()).unwrap();
    let cat = engine.catalogue_for(doc.root());
    let resolved = cat.resolve_references(doc.root(), &Limits::default());
    let live = cat.def.live.as_ref().unwrap();
    compare(
        cat,
        live,
        &Description {
            doc: &doc,
            resolved: &resolved,
        },
        reports,
    )
}

fn rules(found: &[Diagnostic]) -> Vec<(&str, &str)> {
    found
        .iter()
        .map(|d| (d.rule.as_str(), d.pointer.as_str()))
        .collect()
}

const DOC: &str = r##"{
  "mcpdesc": "0.8.0",
  "info": {"name": "t", "version": "1.0.0"},
  "protocolVersions": ["2025-06-18", "2025-11-25"],
  "capabilities": [{"tools": {}, "x-note": 1}],
  "components": {"schemas": {"Obj": {"type": "object", "properties": {"a": {"type": "string"}}}}},
  "tools": [
    {"name": "a", "inputSchema": {"$componentRef": "#/components/schemas/Obj"}},
    {"name": "b", "inputSchema": {"type": "object"}, "protocolVersions": ["2025-11-25"]}
  ]
}"##;

fn tools() -> Value {
    json!([
        {"name": "a", "inputSchema": {"properties": {"a": {"type": "string"}}, "type": "object"}},
        {"name": "b", "inputSchema": {"type": "object"}}
    ])
}

#[test]
fn equal_after_references_and_in_any_member_order() {
    let reports = [
        served("2025-06-18", json!({"tools": {}}), json!([tools()[0]])),
        served("2025-11-25", json!({"tools": {}}), tools()),
    ];
    assert_eq!(run(DOC, &reports), []);
}

#[test]
fn an_entry_out_of_scope_is_undescribed_and_merged_findings_list_their_versions() {
    let reports = [
        served("2025-06-18", json!({"tools": {}}), json!([{"name": "c"}])),
        served("2025-11-25", json!({"tools": {}}), json!([{"name": "c"}])),
    ];
    let found = run(DOC, &reports);
    assert_eq!(
        rules(&found),
        [
            ("mcpdesc-live.entry-undescribed", "/tools"),
            ("mcpdesc-live.entry-missing", "/tools/0"),
            ("mcpdesc-live.entry-missing", "/tools/1"),
        ]
    );
    assert_eq!(found[0].versions, ["2025-06-18", "2025-11-25"]);
    assert!(
        found[0].message.contains(r#"{"name":"c"}"#),
        "{}",
        found[0].message
    );
    assert_eq!(found[2].versions, ["2025-11-25"]);
    assert_eq!(found[1].line, 8);
}

#[test]
fn members_differ_on_values_and_on_presence() {
    let reports = [served(
        "2025-11-25",
        json!({"tools": {}}),
        json!([
            {"name": "a", "inputSchema": {"type": "object"}},
            {"name": "b", "inputSchema": {"type": "object"}, "title": "B"}
        ]),
    )];
    let found = run(DOC, &reports);
    assert_eq!(
        rules(&found),
        [
            ("mcpdesc-live.member-differs", "/tools/0/inputSchema"),
            ("mcpdesc-live.member-differs", "/tools/1"),
        ]
    );
    assert!(found[0].message.contains(r#"{"type":"object"}"#));
    assert!(
        found[1].message.contains("`title` \"B\""),
        "{}",
        found[1].message
    );
}

#[test]
fn capabilities_on_one_side_only() {
    let reports = [served("2025-06-18", json!({"prompts": {}}), json!([]))];
    let found = run(DOC, &reports);
    let caps: Vec<_> = rules(&found)
        .into_iter()
        .filter(|(r, _)| r.contains("capability"))
        .collect();
    assert_eq!(
        caps,
        [
            ("mcpdesc-live.capability-undescribed", "/capabilities"),
            ("mcpdesc-live.capability-missing", "/capabilities/0/tools"),
        ]
    );
}

#[test]
fn a_refused_version_points_at_its_declaration() {
    let refused = ServerReport {
        requested: "2025-11-25".into(),
        refusal: Some("refused 2025-11-25, offered 2025-06-18".into()),
        ..ServerReport::default()
    };
    let found = run(DOC, &[refused]);
    assert_eq!(
        rules(&found),
        [("mcpdesc-live.version-refused", "/protocolVersions/1")]
    );
    assert!(found[0].message.contains("offered 2025-06-18"));
}

#[test]
fn a_failed_list_is_a_server_error_and_not_compared() {
    let method = engine().catalogue().def.live.as_ref().unwrap().lists[0]
        .method
        .clone();
    let mut report = served("2025-06-18", json!({"tools": {}}), json!([]));
    report
        .errors
        .push(format!("{method}: Internal error (-32603)"));
    let found = run(DOC, &[report]);
    assert_eq!(rules(&found), [("mcpdesc-live.server-error", "")]);
}
