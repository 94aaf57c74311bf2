//! The words and places of findings people meet first: a member left out, a member misspelt,
//! a schema keyword misspelt. Each finding must name the actual mistake, at the node that
//! holds it, and offer the name the author probably meant.

mod common;

use mcpdesc_core::Format;

/// A minimal valid document with `tools` spliced in and, when given, the root's
/// `protocolVersions` member written as `versions_member`.
fn doc(versions_member: &str, tools: &str) -> String {
    format!(
        r#"{{
  "mcpdesc": "0.8.0",
  "info": {{"name": "x", "version": "1.0.0"}},
  "{versions_member}": ["2025-11-25"],
  "tools": {tools}
}}"#
    )
}

/// Each finding as `rule pointer: message`.
fn findings(text: &str) -> Vec<String> {
    common::engine()
        .validate_str(text, Format::Json)
        .diagnostics
        .iter()
        .map(|d| format!("{} {}: {}", d.rule, d.pointer, d.message))
        .collect()
}

fn assert_has(found: &[String], expected: &str) {
    assert!(
        found.iter().any(|f| f == expected),
        "expected the finding\n  {expected}\namong\n  {}",
        found.join("\n  ")
    );
}

#[test]
fn a_tool_without_a_name_is_told_about_its_name_only() {
    let found = findings(&doc(
        "protocolVersions",
        r#"[{"description": "d", "inputSchema": {"type": "object"}}]"#,
    ));
    assert_has(
        &found,
        "mcpdesc.tool.required /tools/0: tool is missing `name`; add the name clients call it by",
    );
    assert!(
        !found.iter().any(|f| f.contains("inputSchema")),
        "a tool with an input schema is told about it: {found:#?}"
    );
}

#[test]
fn a_tool_without_an_input_schema_is_shown_the_empty_one() {
    let found = findings(&doc("protocolVersions", r#"[{"name": "t"}]"#));
    assert_has(
        &found,
        "mcpdesc.tool.required /tools/0: tool is missing `inputSchema`; add it (a Tool without \
         parameters uses `{\"type\": \"object\", \"additionalProperties\": false}`)",
    );
}

#[test]
fn a_misspelt_member_is_offered_the_closest_allowed_one() {
    let found = findings(&doc(
        "protocolVersion",
        r#"[{"name": "t", "descripton": "d", "inputschema": {"type": "object"}}]"#,
    ));
    // By edit distance (a letter dropped) and by a prefix.
    assert_has(
        &found,
        "mcpdesc.document.root-closed /protocolVersion: the root object has no member \
         `protocolVersion`; remove it or prefix an extension with `x-`; did you mean \
         `protocolVersions`?",
    );
    assert_has(
        &found,
        "mcpdesc.tool.closed /tools/0/descripton: tool member `descripton` is not defined; \
         remove it or rename it to an `x-` extension; did you mean `description`?",
    );
    // By case before anything else.
    assert_has(
        &found,
        "mcpdesc.tool.closed /tools/0/inputschema: tool member `inputschema` is not defined; \
         remove it or rename it to an `x-` extension; did you mean `inputSchema`?",
    );
}

#[test]
fn a_member_far_from_every_allowed_one_gets_no_guess() {
    let found = findings(&doc(
        "protocolVersions",
        r#"[{"name": "t", "inputSchema": {"type": "object"}, "zzzzzz": 1}]"#,
    ));
    assert_has(
        &found,
        "mcpdesc.tool.closed /tools/0/zzzzzz: tool member `zzzzzz` is not defined; remove it or \
         rename it to an `x-` extension",
    );
}

#[test]
fn a_guess_never_names_a_member_the_object_already_has() {
    let found = findings(&doc(
        "protocolVersions",
        r#"[{"name": "t", "description": "d", "descripton": "e", "inputSchema": {"type": "object"}}]"#,
    ));
    assert_has(
        &found,
        "mcpdesc.tool.closed /tools/0/descripton: tool member `descripton` is not defined; \
         remove it or rename it to an `x-` extension",
    );
}

#[test]
fn a_misspelt_schema_type_is_named_at_the_keyword_with_the_type_meant() {
    let text = doc(
        "protocolVersions",
        r#"[{"name": "t", "inputSchema": {"type": "object", "properties": {"x": {"type": "strin"}}}}]"#,
    );
    let report = common::engine().validate_str(&text, Format::Json);
    let found: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.rule == "mcp.tool.schema-valid-for-dialect")
        .collect();
    assert_eq!(found.len(), 1, "{:#?}", report.diagnostics);
    let d = found[0];
    assert_eq!(
        d.message,
        "tool schema is not a valid JSON Schema: `strin` at `/properties/x/type` is not a JSON \
         Schema type; did you mean `string`?"
    );
    // The finding is the schema's, as the corpus of the specification has it; its position is
    // the keyword at fault: line 5, where `"type": "strin"` is, not `inputSchema`.
    assert_eq!(d.pointer, "/tools/0/inputSchema");
    let line = text.lines().nth(d.line as usize - 1).unwrap();
    let from_column: String = line.chars().skip(d.column as usize - 1).collect();
    assert!(
        from_column.starts_with(r#""type": "strin""#),
        "{}:{} is at {from_column:?}",
        d.line,
        d.column
    );
}

#[test]
fn a_message_that_names_the_only_allowed_member_is_not_repeated() {
    let text = r#"{
  "mcpdesc": "0.8.0",
  "info": {"name": "x", "version": "1.0.0", "titel": "X"},
  "protocolVersions": ["2025-11-25"],
  "capabilities": [{"tools": {"listchanged": true}}]
}"#;
    let found = findings(text);
    assert_has(
        &found,
        "mcpdesc.info.closed /info/titel: `info` has no member `titel`; remove it or prefix an \
         extension with `x-`; did you mean `title`?",
    );
    assert_has(
        &found,
        "mcpdesc.capabilities.shape /capabilities/0/tools/listchanged: `listchanged` is not a \
         flag of this capability; only `listChanged` (and `x-*`) is defined",
    );
}
