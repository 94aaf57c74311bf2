//! `Options::extend_rules`: house rules on top of the embedded catalogue.

use mcpdesc_embed::{Error, Input, Options, Validator};

const DOC: &str = r#"{"mcpdesc": "0.8.0", "info": {"name": "demo", "version": "1.0.0"},
  "protocolVersions": ["2025-11-25"],
  "tools": [{"name": "get_weather", "description": "d", "inputSchema": {"type": "object"}}]}"#;

const HOUSE: &str = "house-rules:
  name: Acme house rules
  owners: [{name: acme, docs-url: \"https://acme.example/rules/{id}\"}]
rules:
  - id: acme.tool.name-prefix
    given: [\"$.tools[*].name\"]
    then: [{check: pattern, regex: \"^acme_\"}]
    message: tool names start with `acme_`
";

#[test]
fn house_rules_run_on_top_of_the_release_that_judges_the_document() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("acme.yaml"), HOUSE).unwrap();
    let v = Validator::new(&Options {
        extend_rules: vec![tmp.path().to_path_buf()],
        ..Options::default()
    })
    .unwrap();
    let out = v.validate(&Input::text(DOC)).unwrap();
    assert_eq!(out.release, "0.8.0");
    let found: Vec<(&str, &str, Option<&str>)> = out
        .diagnostics
        .iter()
        .map(|d| (d.rule.as_str(), d.severity, d.doc_url.as_deref()))
        .collect();
    assert_eq!(
        found,
        [(
            "acme.tool.name-prefix",
            "warning",
            Some("https://acme.example/rules/acme.tool.name-prefix")
        )]
    );
}

#[test]
fn a_problem_of_a_house_rule_file_is_an_error_at_its_position() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("acme.yaml"),
        HOUSE.replace("owners: [{", "owner: [{"),
    )
    .unwrap();
    let err = Validator::new(&Options {
        extend_rules: vec![tmp.path().to_path_buf()],
        ..Options::default()
    })
    .unwrap_err();
    let Error::Rules { problems } = err else {
        panic!("{err:?}");
    };
    let shown: Vec<String> = problems
        .iter()
        .map(|p| format!("{}:{}:{}: {}", p.file, p.line, p.column, p.message))
        .collect();
    assert_eq!(
        shown,
        ["acme.yaml:3:3: unknown field `owner`; did you mean `owners`?"]
    );
}
