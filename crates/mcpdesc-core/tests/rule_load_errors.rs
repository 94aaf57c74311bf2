//! Every kind of rule-file problem is reported with file:line:column, all together.

use mcpdesc_core::RuleSet;

const CATALOGUE: &str = "catalogue:
  name: Test
  spec-versions: [\"1.0.0\"]
  protocol-versions: [v1, v2]
  scope:
    root: $.versions
    member: versions
    declarations: [\"$.items[*]\"]
";

fn rule(id: &str, extra: &str, given: &str, then: &str) -> String {
    format!(
        "  - id: {id}
    title: T
    description: D
    requirement: R
    owner: mcpdesc
    surface: {{text: S}}
    path: p
    kind: structural
    level: must
    status: internal
    enforcement: internal
    applicability:
      v1: applies
      v2: applies
{extra}    required-by: {{spec: Test 1.0.0, sections: [\"1\"]}}
    based-on: {{tier: 2, label: L, detail: D}}
    examples: {{}}
    given: [\"{given}\"]
    then:
{then}
    message: \"m {{field}}\"
"
    )
}

fn problems(files: Vec<(&str, String)>) -> Vec<String> {
    let set = RuleSet::from_files(files.into_iter().map(|(p, t)| (p.to_owned(), t)).collect());
    match set.compile() {
        Ok(_) => Vec::new(),
        Err(e) => e.problems.iter().map(|p| p.to_string()).collect(),
    }
}

#[test]
fn a_valid_set_compiles() {
    let rules = format!(
        "rules:\n{}",
        rule(
            "mcpdesc.a.b",
            "",
            "$.items[*]",
            "      - check: required\n        fields: [x]"
        )
    );
    assert_eq!(
        problems(vec![
            ("catalogue.yaml", CATALOGUE.into()),
            ("a.yaml", rules)
        ]),
        Vec::<String>::new()
    );
}

#[test]
fn all_problems_are_reported_with_positions() {
    let mut rules = String::from("rules:\n");
    rules += &rule(
        "mcpdesc.a.unknown-check",
        "",
        "$.items[*]",
        "      - check: no-such-check",
    );
    rules += &rule(
        "mcpdesc.a.bad-path",
        "",
        "$.items[",
        "      - check: required\n        fields: [x]",
    );
    rules += &rule(
        "mcpdesc.a.bad-version",
        "      v9: applies\n",
        "$",
        "      - check: required\n        fields: [x]",
    );
    rules += &rule(
        "mcpdesc.a.bad-path",
        "",
        "$",
        "      - check: required\n        fields: [x]",
    );
    rules += &rule(
        "mcpdesc.a.bad-option",
        "",
        "$",
        "      - check: required\n        feilds: [x]",
    );
    rules += &rule(
        "mcpdesc.a.bad-regex",
        "",
        "$",
        "      - check: pattern\n        regex: \"(\"",
    );
    let mut extra = rule(
        "mcpdesc.a.unknown-field",
        "",
        "$",
        "      - check: required\n        fields: [x]",
    );
    extra = extra.replace("    title: T\n", "    title: T\n    colour: red\n");
    let yaml_error = "rules:\n  - id: [unclosed\n".to_owned();
    let found = problems(vec![
        ("catalogue.yaml", CATALOGUE.into()),
        ("a.yaml", rules),
        (
            "b.yaml",
            format!("rules:\n{}", extra.trim_start_matches("rules:\n")),
        ),
        ("c.yaml", yaml_error),
    ]);
    let expect = [
        ("a.yaml:", "unknown check function `no-such-check`"),
        ("a.yaml:", "invalid JSONPath"),
        ("a.yaml:", "unknown protocol version `v9`"),
        ("a.yaml:", "duplicate rule id `mcpdesc.a.bad-path`"),
        ("a.yaml:", "feilds"),
        ("a.yaml:", "regex"),
        ("b.yaml:", "unknown field `colour`"),
        ("c.yaml:", "YAML syntax error"),
    ];
    for (file, text) in expect {
        assert!(
            found
                .iter()
                .any(|p| p.starts_with(file) && p.contains(text)),
            "no problem `{text}` in {file}; got:\n{}",
            found.join("\n")
        );
    }
    for p in &found {
        let mut parts = p.splitn(4, ':');
        let (_, line, col) = (parts.next(), parts.next().unwrap(), parts.next().unwrap());
        assert!(
            line.parse::<u32>().unwrap() > 0 && col.parse::<u32>().unwrap() > 0,
            "{p}"
        );
    }
    let dup = found
        .iter()
        .find(|p| p.contains("duplicate rule id"))
        .unwrap();
    assert!(dup.contains("first defined at a.yaml:"), "{dup}");
    let unknown = found.iter().find(|p| p.contains("colour")).unwrap();
    assert!(
        unknown.starts_with("b.yaml:4:5:"),
        "unknown member points at its key: {unknown}"
    );
}

#[test]
fn a_catalogue_is_required_once() {
    let found = problems(vec![("a.yaml", "rules: []\n".into())]);
    assert!(
        found
            .iter()
            .any(|p| p.contains("no rule file defines the `catalogue`")),
        "{found:?}"
    );
    let found = problems(vec![
        ("a.yaml", CATALOGUE.into()),
        ("b.yaml", CATALOGUE.into()),
    ]);
    assert!(
        found.iter().any(|p| p.contains("a second `catalogue`")),
        "{found:?}"
    );
}

#[test]
fn message_placeholders_are_checked() {
    let r = rule(
        "mcpdesc.a.b",
        "",
        "$",
        "      - check: required\n        fields: [x]",
    )
    .replace("m {field}", "m {nope}");
    let found = problems(vec![
        ("catalogue.yaml", CATALOGUE.into()),
        ("a.yaml", format!("rules:\n{r}")),
    ]);
    assert!(
        found
            .iter()
            .any(|p| p.contains("unknown placeholder(s) nope")),
        "{found:?}"
    );
}

/// A problem of a whole directory names the directory and no position: there is no line in
/// it to point at.
#[test]
fn a_directory_problem_names_the_directory() {
    let empty = tempfile::tempdir().unwrap();
    let shown = empty.path().display().to_string();
    let problems: Vec<String> = match RuleSet::from_dir(empty.path()).and_then(|s| s.compile()) {
        Ok(_) => panic!("an empty directory has no catalogue"),
        Err(e) => e.problems.iter().map(|p| p.to_string()).collect(),
    };
    assert_eq!(
        problems,
        [format!("{shown}: no rule file defines the `catalogue`")]
    );
    let missing = empty.path().join("missing");
    let problems: Vec<String> = match RuleSet::from_dir(&missing) {
        Ok(_) => panic!("a missing directory cannot be read"),
        Err(e) => e.problems.iter().map(|p| p.to_string()).collect(),
    };
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with(&format!("{}: cannot read", missing.display())),
        "{problems:?}"
    );
}
