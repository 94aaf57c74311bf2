//! House rules: added, re-scoped and disabled rules on top of whichever release judges a
//! document, their defaults, owners, custom checks, and every load error at file:line:column.

use mcpdesc_core::{CheckNode, CustomCheck, Findings};
use mcpdesc_core::{Engine, Format, RuleSet};

const CATALOGUE: &str = "catalogue:
  name: Test
  spec-versions: [\"1.0.0\"]
  protocol-versions: [v1, v2]
  docs-url: https://example.org/{release}/{owner}/{id}.md
  scope:
    root: $.versions
    member: versions
    declarations: [\"$.items[*]\"]
rules:
  - id: mcpdesc.item.name-required
    title: T
    description: D
    requirement: R
    owner: mcpdesc
    surface: {text: S}
    path: name
    kind: structural
    level: must
    status: stable
    enforcement: internal
    applicability: applies
    required-by: {spec: Test 1.0.0, sections: [\"1\"]}
    based-on: {tier: 2, label: L, detail: D}
    examples: {}
    given: [\"$.items[*]\"]
    then:
      - check: required
        fields: [name]
    message: \"an item has a {field}\"
";

const DOC: &str = r#"{"versions": ["v1", "v2"], "items": [{"name": "x_tool"}, {"title": "t"}]}"#;

fn set(house: &str) -> RuleSet {
    RuleSet::from_files(vec![("catalogue.yaml".into(), CATALOGUE.into())])
        .with_house_rule_files(vec![("house.yaml".into(), house.into())])
}

fn problems_of(set: RuleSet) -> Vec<String> {
    match set.compile() {
        Ok(_) => Vec::new(),
        Err(e) => e.problems.iter().map(|p| p.to_string()).collect(),
    }
}

fn problems(house: &str) -> Vec<String> {
    problems_of(set(house))
}

/// Each finding as `rule pointer severity message`.
fn findings(set: RuleSet) -> Vec<String> {
    let engine = Engine::from_rule_set(&set).expect("rules compile");
    engine
        .validate_str(DOC, Format::Json)
        .diagnostics
        .iter()
        .map(|d| {
            format!(
                "{} {} {} {}",
                d.rule,
                d.pointer,
                d.severity.as_str(),
                d.message
            )
        })
        .collect()
}

const HEADER: &str = "house-rules:\n  name: Acme house rules\n  owners: [acme]\n";

#[test]
fn a_house_rule_needs_five_lines_and_takes_the_defaults() {
    let house = format!(
        "{HEADER}rules:
  - id: acme.item.name-prefix
    given: [\"$.items[*].name\"]
    then: [{{check: pattern, regex: \"^acme_\"}}]
    message: item names start with `acme_`
"
    );
    assert_eq!(
        findings(set(&house)),
        [
            "acme.item.name-prefix /items/0/name warning item names start with `acme_`",
            "mcpdesc.item.name-required /items/1 error an item has a name",
        ]
    );
    let releases = set(&house).compile().unwrap();
    let cat = releases.default_release();
    let rule = cat.rule("acme.item.name-prefix").unwrap();
    assert_eq!(rule.def.owner.as_str(), "acme");
    assert_eq!(rule.def.level.as_str(), "should");
    assert_eq!(rule.def.status.as_str(), "stable");
    assert_eq!(rule.def.required_by.spec, "Acme house rules");
    assert!(rule.applicability.values().all(|a| a.as_str() == "applies"));
    assert_eq!(cat.house, ["Acme house rules"]);
}

#[test]
fn house_rules_rescope_and_disable_rules_of_the_release() {
    let rescoped = format!(
        "{HEADER}rescope:
  - id: mcpdesc.item.name-required
    level: should
    given: [\"$.items[0]\"]
"
    );
    // The item without a name is no longer read; the first item has one.
    assert_eq!(findings(set(&rescoped)), Vec::<String>::new());
    let warned =
        format!("{HEADER}rescope:\n  - id: mcpdesc.item.name-required\n    level: should\n");
    assert_eq!(
        findings(set(&warned)),
        ["mcpdesc.item.name-required /items/1 warning an item has a name"]
    );
    let disabled = format!("{HEADER}disable: [mcpdesc.item.name-required]\n");
    assert_eq!(findings(set(&disabled)), Vec::<String>::new());
    let off = format!(
        "{HEADER}rescope:\n  - id: mcpdesc.item.name-required\n    applicability: {{v1: applies, v2: not-applicable}}\n"
    );
    let engine = Engine::from_rule_set(&set(&off)).unwrap();
    let report = engine.validate_str(DOC, Format::Json);
    assert_eq!(report.diagnostics.len(), 1);
    assert_eq!(report.diagnostics[0].versions, ["v1"]);
}

#[test]
fn every_problem_of_a_house_rule_file_is_at_its_line_and_column() {
    let house = format!(
        "{HEADER}rules:
  - id: acme.item.a
    given: [\"$.items[*\"]
    then: [{{check: patern, regex: x}}]
    message: m
  - id: acme.item.a
    given: [\"$.items[*]\"]
    applicability: {{v3: applies, default: applies}}
    then: [{{check: pattern, regx: x}}]
    message: m
  - id: mcpdesc.item.name-required
    given: [\"$.items[*]\"]
    then: [{{check: flag}}]
    message: m
  - id: acem.item.b
    given: [\"$.items[*]\"]
    then: [{{check: flag}}]
    message: m
  - id: acme.item.c
    given: [\"$.items[*]\"]
    then: [{{check: flag}}]
    message: m
  - id: acme.item.c
    given: [\"$.items[*]\"]
    then: [{{check: flag}}]
    message: m
rescope:
  - id: mcpdesc.item.name-requird
    level: may
disable: [mcpdesc.item.nope]
"
    );
    // The path parser's own words are its business; the position and the path are ours.
    let found: Vec<String> = problems(&house)
        .into_iter()
        .map(|p| match p.find("`: ") {
            Some(i) if p.contains("invalid JSONPath") => p[..i + 1].to_owned(),
            _ => p,
        })
        .collect();
    assert_eq!(
        found,
        [
            "house.yaml:6:13: invalid JSONPath `$.items[*`",
            "house.yaml:7:20: unknown check function `patern`; did you mean `pattern`?",
            "house.yaml:11:25: unknown protocol version `v3`; the catalogue has v1, v2",
            "house.yaml:12:35: pattern: unknown field `regx`; did you mean `regex`?",
            "house.yaml:14:9: rule `mcpdesc.item.name-required` is a rule of the judging release; change it with `rescope`, or turn it off with `disable`",
            "house.yaml:18:9: owner `acem` is not declared by this rule set (list it in `owners`); did you mean `acme`?",
            "house.yaml:26:9: duplicate rule id `acme.item.c`; first defined at house.yaml:22:5",
            "house.yaml:31:9: cannot re-scope rule `mcpdesc.item.name-requird`: no loaded release has it; did you mean `mcpdesc.item.name-required`?",
            "house.yaml:33:11: cannot disable rule `mcpdesc.item.nope`: no loaded release has it",
        ]
    );
}

#[test]
fn a_house_rule_set_has_one_header_and_known_keys() {
    assert_eq!(
        problems("rules: []\n"),
        ["house rules: no rule file of this house-rules directory has the `house-rules` header"]
    );
    assert_eq!(
        problems(&format!("{HEADER}rule: []\n")),
        ["house.yaml:4:1: unknown top-level key `rule`; did you mean `rules`?"]
    );
    assert_eq!(
        problems("house-rules:\n  name: A\n  owners: [acme, mcp, Acme]\n"),
        ["house.yaml:3:23: owner `Acme` is not a lowercase name (a letter, then letters and digits)"]
    );
}

#[test]
fn an_owner_a_catalogue_does_not_declare_is_refused_and_a_declared_one_loads() {
    let rule = |owner: &str| {
        CATALOGUE
            .replace(
                "mcpdesc.item.name-required",
                &format!("{owner}.item.name-required"),
            )
            .replace("owner: mcpdesc", &format!("owner: {owner}"))
    };
    let load =
        |text: String| problems_of(RuleSet::from_files(vec![("catalogue.yaml".into(), text)]));
    assert_eq!(
        load(rule("acme")),
        ["catalogue.yaml:15:12: owner `acme` is not declared by this rule set (list it in `owners`); declared: `mcp`, `mcpdesc`"]
    );
    let declared = rule("acme").replace("  docs-url:", "  owners: [acme]\n  docs-url:");
    assert_eq!(load(declared), Vec::<String>::new());
}

#[test]
fn house_rules_on_the_embedded_catalogue_keep_its_page_links() {
    let house = "house-rules:
  name: Acme
  owners: [{name: acme, docs-url: \"https://acme.example/rules/{id}\"}]
rules:
  - id: acme.tool.name-prefix
    given: [\"$.tools[*].name\"]
    then: [{check: pattern, regex: \"^acme_\"}]
    message: tool names start with `acme_`
";
    let set = RuleSet::embedded().with_house_rule_files(vec![("h.yaml".into(), house.into())]);
    let engine = Engine::from_rule_set(&set).unwrap();
    let doc = r#"{"mcpdesc": "0.8.0", "info": {"name": "demo", "version": "1.0.0"},
        "protocolVersions": ["2025-11-25"],
        "tools": [{"name": "get_weather", "description": "d", "inputSchema": {"type": "object"}}]}"#;
    let report = engine.validate_str(doc, Format::Json);
    assert_eq!(report.release, "0.8.0");
    let ids: Vec<&str> = report.diagnostics.iter().map(|d| d.rule.as_str()).collect();
    assert_eq!(ids, ["acme.tool.name-prefix"], "{:?}", report.diagnostics);
    let cat = engine
        .releases()
        .for_value(&serde_json::json!({"mcpdesc": "0.8.0"}));
    assert_eq!(
        report.diagnostics[0].url.as_deref(),
        Some("https://acme.example/rules/acme.tool.name-prefix")
    );
    let docs = mcpdesc_core::DocUrls::new(None);
    assert_eq!(
        docs.url(cat, "acme.tool.name-prefix").as_deref(),
        Some("https://acme.example/rules/acme.tool.name-prefix")
    );
    let plain = Engine::embedded().unwrap();
    let plain_cat = plain.releases().default_release();
    let built_in = plain_cat.rules[0].id().to_owned();
    assert_eq!(docs.url(cat, &built_in), docs.url(plain_cat, &built_in));
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PrefixOptions {
    prefix: String,
}

struct NamePrefix;

impl CustomCheck for NamePrefix {
    const NAME: &'static str = "name-prefix";
    const PARAMS: &'static [&'static str] = &["prefix"];
    type Options = PrefixOptions;

    fn run(&self, options: &PrefixOptions, node: CheckNode<'_>, out: &mut Findings<'_>) {
        if node
            .value()
            .as_str()
            .is_some_and(|s| !s.starts_with(&options.prefix))
        {
            out.at_node().with("prefix", options.prefix.clone());
        }
    }
}

fn custom(house: &str) -> RuleSet {
    set(house)
        .with_checks(mcpdesc_core::internal::checks::CheckRegistry::new().register(NamePrefix))
}

#[test]
fn a_registered_check_is_called_like_a_built_in_one() {
    let house = format!(
        "{HEADER}rules:
  - id: acme.item.name-prefix
    given: [\"$.items[*].name\"]
    then: [{{check: name-prefix, prefix: acme_}}]
    message: item names start with `{{prefix}}`
"
    );
    assert_eq!(
        findings(custom(&house)),
        [
            "acme.item.name-prefix /items/0/name warning item names start with `acme_`",
            "mcpdesc.item.name-required /items/1 error an item has a name",
        ]
    );
}

#[test]
fn a_registered_check_has_its_options_checked_at_load() {
    let house = format!(
        "{HEADER}rules:
  - id: acme.item.a
    given: [\"$.items[*].name\"]
    then: [{{check: name-prefix, prefx: acme_}}]
    message: m
  - id: acme.item.b
    given: [\"$.items[*].name\"]
    then: [{{check: name-prefix, prefix: 3}}]
    message: m
  - id: acme.item.c
    given: [\"$.items[*].name\"]
    then: [{{check: name-prefx, prefix: a}}]
    message: m
"
    );
    assert_eq!(
        problems_of(custom(&house)),
        [
            "house.yaml:7:40: name-prefix: unknown field `prefx`; did you mean `prefix`?",
            "house.yaml:11:41: name-prefix: invalid type: integer `3`, expected a string",
            "house.yaml:15:20: unknown check function `name-prefx`; did you mean `name-prefix`?",
        ]
    );
    // Without the registration the name is unknown, as any misspelt check.
    assert!(problems(&house)
        .iter()
        .any(|p| p.contains("unknown check function `name-prefix`")));
}

#[test]
fn a_release_that_extends_another_declares_the_owners_of_the_rules_it_adds() {
    let rule = CATALOGUE
        .split("rules:\n")
        .nth(1)
        .unwrap()
        .replace("mcpdesc.item.name-required", "acme.item.name-required")
        .replace("owner: mcpdesc", "owner: acme");
    let next = |owners: &str| {
        format!("catalogue:\n  release: 1.1.0\n  extends: 1.0.0\n{owners}rules:\n{rule}")
    };
    let load = |text: String| {
        problems_of(RuleSet::from_files(vec![
            ("catalogue.yaml".into(), CATALOGUE.into()),
            ("next/catalogue.yaml".into(), text),
        ]))
    };
    assert_eq!(
        load(next("")),
        ["next/catalogue.yaml:9:12: owner `acme` is not declared by this rule set (list it in `owners`); declared: `mcp`, `mcpdesc`"]
    );
    assert_eq!(load(next("  owners: [acme]\n")), Vec::<String>::new());
}
