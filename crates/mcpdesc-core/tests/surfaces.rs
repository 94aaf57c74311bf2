//! One rule, every surface: a rule that targets an MCP surface judges every place the surface
//! occurs, in descriptions and in traffic, with no second rule.

use std::path::PathBuf;

use mcpdesc_core::{Engine, Selection};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../spec-fixtures")
}

fn only(rule: &str) -> Engine {
    Engine::embedded()
        .expect("the embedded catalogue compiles")
        .with_selection(Selection {
            select: vec![rule.to_owned()],
            ..Selection::default()
        })
}

/// URL-mode elicitation in MCP 2025-06-18, in a declaration, in an interaction step and in a
/// real elicitation/create request: one finding each, from the same rule, at the `mode`.
#[test]
fn elicitation_rule_judges_declarations_steps_and_messages() {
    let engine = only("mcp.elicitation.protocol-version");
    let cases = [
        (
            "expected-invalid/elicitation-url-before-2025-11-25.json",
            "/tools/0/elicitations/0/mode",
        ),
        (
            "expected-invalid/elicitation-step-mismatch.json",
            "/tools/0/interactionExamples/broken/steps/0/request/mode",
        ),
        (
            "traffic/expected-invalid/elicitation-url-2025-06-18.ndjson",
            "/messages/3/msg/params/mode",
        ),
    ];
    for (fixture, pointer) in cases {
        let report = engine
            .validate_file(fixtures().join(fixture))
            .expect("readable");
        let found: Vec<_> = report
            .diagnostics
            .iter()
            .map(|d| (d.rule.as_str(), d.pointer.as_str(), d.versions.clone()))
            .collect();
        assert_eq!(
            found,
            vec![(
                "mcp.elicitation.protocol-version",
                pointer,
                vec!["2025-06-18".to_owned()]
            )],
            "{fixture}"
        );
        assert!(report.diagnostics[0].line > 0, "{fixture}: positioned");
    }
}

/// The same rule judges a 2026-07-28 input_required elicitation entry (in scope, valid) and
/// every surface occurrence is listed among the paths the rule reads, per document kind.
#[test]
fn surface_rules_read_every_occurrence_of_their_surface() {
    let engine = Engine::embedded().expect("catalogue");
    let cat = engine.catalogue();
    let rule = cat
        .rule("mcp.elicitation.protocol-version")
        .expect("the seed rule");
    let surface = &cat.surfaces.0["ElicitRequest"];
    let reads: Vec<_> = rule.reads.iter().map(|(k, p)| (*k, p.clone())).collect();
    let expected: Vec<_> = surface.occurrences.clone();
    assert_eq!(reads, expected);
    use mcpdesc_core::DocumentKind;
    assert!(reads.iter().any(|(k, _)| *k == DocumentKind::Description));
    assert!(reads.iter().any(|(k, _)| *k == DocumentKind::Traffic));
    let report = only("mcp.elicitation.protocol-version")
        .validate_file(
            fixtures().join("traffic/expected-valid/input-required-elicitation-2026.ndjson"),
        )
        .expect("readable");
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
}

/// A capture's protocol version comes from the data: the handshake, a request's own
/// metadata, or the engine's default when the data says nothing.
#[test]
fn capture_versions_come_from_the_data_or_the_default() {
    let text = r#"[{"jsonrpc": "2.0", "id": 1, "method": "elicitation/create",
                   "params": {"mode": "url", "message": "m", "url": "https://example.com"}}]"#;
    let rule = "mcp.elicitation.protocol-version";
    let undated = only(rule).validate_bytes(text.as_bytes(), mcpdesc_core::Format::Capture);
    assert!(undated.diagnostics.is_empty(), "{:?}", undated.diagnostics);
    let dated = only(rule)
        .with_traffic_version(Some("2025-06-18".into()))
        .validate_bytes(text.as_bytes(), mcpdesc_core::Format::Capture);
    assert_eq!(dated.diagnostics.len(), 1, "{:?}", dated.diagnostics);
    assert_eq!(dated.diagnostics[0].pointer, "/messages/0/msg/params/mode");
    assert_eq!(dated.diagnostics[0].line, 2);
}

/// Framing problems are findings with line numbers, never a failed load.
#[test]
fn framing_problems_are_positioned_findings() {
    let text = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\nnot json at all\n{\"jsonrpc\":\"2.0\",\n\"id\":1,\"method\":\"ping\"}\n";
    let report = Engine::embedded()
        .expect("catalogue")
        .with_selection(Selection {
            select: vec!["mcp.stdio.*".into()],
            ..Selection::default()
        })
        .validate_bytes(text.as_bytes(), mcpdesc_core::Format::Capture);
    assert!(report.load_error.is_none());
    let found: Vec<_> = report
        .diagnostics
        .iter()
        .map(|d| (d.rule.as_str(), d.line))
        .collect();
    assert_eq!(
        found,
        vec![("mcp.stdio.not-json", 2), ("mcp.stdio.embedded-newline", 3)]
    );
}
