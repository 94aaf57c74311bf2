//! Evaluation limits carried by the engine: exceeding one is an error naming the limit and
//! its flag, and the document is not valid.

use mcpdesc_core::{Engine, Format, Limits};

fn doc(extra: &str) -> String {
    format!(
        r#"{{"mcpdesc": "0.8.0", "info": {{"name": "x", "version": "1.0.0"}},
            "protocolVersions": ["2025-11-25"], {extra}}}"#
    )
}

fn engine(limits: Limits) -> Engine {
    Engine::embedded().expect("catalogue").with_limits(limits)
}

fn limit_messages(engine: &Engine, text: &str) -> Vec<String> {
    let report = engine.validate_str(text, Format::Json);
    report
        .diagnostics
        .iter()
        .filter(|d| d.rule == "mcpdesc.serialization.input-limits")
        .map(|d| d.message.clone())
        .collect()
}

#[test]
fn schema_limits() {
    let text = doc(r#""tools": [
        {"name": "a", "inputSchema": {"type": "object", "title": "A"}},
        {"name": "b", "inputSchema": {"type": "object", "title": "B"}}]"#);
    assert!(limit_messages(&engine(Limits::default()), &text).is_empty());
    let tight = engine({
        let mut limits = Limits::default();
        limits.max_schemas = 1;
        limits
    });
    let found = limit_messages(&tight, &text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("max-schemas (1)") && found[0].contains("--max-schemas"));
    assert!(!tight.validate_str(&text, Format::Json).is_valid());
    let small = engine({
        let mut limits = Limits::default();
        limits.max_schema_bytes = 8;
        limits
    });
    let found = limit_messages(&small, &text);
    assert!(found[0].contains("--max-schema-bytes"), "{found:?}");
}

#[test]
fn reference_chain_limit() {
    let mut schemas = String::new();
    for i in 0..100 {
        schemas.push_str(&format!(
            r##""S{i}": {{"$componentRef": "#/components/schemas/S{}"}}, "##,
            i + 1
        ));
    }
    schemas.push_str(r#""S100": {"type": "object"}"#);
    let text = doc(&format!(
        r##""components": {{"schemas": {{{schemas}}}}},
            "tools": [{{"name": "t", "inputSchema": {{"$componentRef": "#/components/schemas/S0"}}}}]"##
    ));
    let found = limit_messages(&engine(Limits::default()), &text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("max-reference-chain (64)"));
    let roomy = engine({
        let mut limits = Limits::default();
        limits.max_reference_chain = 200;
        limits
    });
    assert!(limit_messages(&roomy, &text).is_empty());
}

#[test]
fn substitution_copies_are_bounded_by_max_nodes() {
    // Many references to one large component: the copies substitution would make are
    // counted against `max-nodes`.
    let big: Vec<String> = (0..200)
        .map(|i| format!(r#""p{i}": {{"type": "string"}}"#))
        .collect();
    let tools: Vec<String> = (0..50)
        .map(|i| {
            format!(r##"{{"name": "t{i}", "inputSchema": {{"$componentRef": "#/components/schemas/Big"}}}}"##)
        })
        .collect();
    let text = doc(&format!(
        r#""components": {{"schemas": {{"Big": {{"type": "object", "properties": {{{}}}}}}}}},
            "tools": [{}]"#,
        big.join(", "),
        tools.join(", ")
    ));
    let tight = engine({
        let mut limits = Limits::default();
        limits.max_nodes = 5_000;
        limits
    });
    let found = limit_messages(&tight, &text);
    assert!(
        found.iter().any(|m| m.contains("max-nodes (5000)")),
        "{found:?}"
    );
    assert!(limit_messages(&engine(Limits::default()), &text).is_empty());
}

#[test]
fn depth_is_capped() {
    let e = engine({
        let mut limits = Limits::default();
        limits.max_depth = u32::MAX;
        limits
    });
    assert_eq!(e.limits().max_depth, Limits::DEPTH_CEILING);
}
