//! The mistakes a rule maintainer makes are reported at their position, with the name
//! probably meant: misspelt check functions, options, surfaces, protocol versions, rule ids
//! of the base release and members; free text where a surface name goes; relative paths
//! that climb above the document root; files outside the rules directory.

use mcpdesc_core::RuleSet;

const CATALOGUE: &str = "catalogue:
  name: Test
  spec-versions: [\"1.0.0\"]
  protocol-versions: [2025-03-26, 2025-06-18]
  scope:
    root: $.versions
    member: versions
    declarations: [\"$.items[*]\"]
surfaces:
  ItemEntry:
    summary: An item.
    description: [\"$.items[*]\"]
";

/// A valid rule file; each test changes one line of it.
const RULE: &str = "rules:
  - id: mcpdesc.a.b
    title: T
    description: D
    requirement: R
    owner: mcpdesc
    surface: {text: S}
    path: p
    kind: structural
    level: must
    status: internal
    enforcement: internal
    applicability: {2025-03-26: applies, 2025-06-18: applies}
    required-by: {spec: Test 1.0.0, sections: [\"1\"]}
    based-on: {tier: 2, label: L, detail: D}
    examples: {}
    given: [\"$.items[*]\"]
    then:
      - check: required
        fields: [x]
    message: m
";

fn problems(files: &[(&str, &str)]) -> Vec<String> {
    let set = RuleSet::from_files(
        files
            .iter()
            .map(|(p, t)| ((*p).to_owned(), (*t).to_owned()))
            .collect(),
    );
    match set.compile() {
        Ok(_) => Vec::new(),
        Err(e) => e.problems.iter().map(|p| p.to_string()).collect(),
    }
}

/// The problems of the catalogue with `RULE` changed by `edits` (each replaces one text).
fn with(edits: &[(&str, &str)]) -> Vec<String> {
    let mut rule = RULE.to_owned();
    for (from, to) in edits {
        assert!(rule.contains(from), "no `{from}` in the rule");
        rule = rule.replacen(from, to, 1);
    }
    problems(&[("catalogue.yaml", CATALOGUE), ("a.yaml", &rule)])
}

#[test]
fn the_rule_as_written_loads() {
    assert_eq!(with(&[]), Vec::<String>::new());
}

#[test]
fn a_misspelt_check_function() {
    assert_eq!(
        with(&[("check: required", "check: requird")]),
        ["a.yaml:19:16: unknown check function `requird`; did you mean `required`?"]
    );
    // Nothing close: every function, as before.
    let found = with(&[("check: required", "check: no-such-check")]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with(
            "a.yaml:19:16: unknown check function `no-such-check`; known: required, forbidden, type,"
        ),
        "{found:?}"
    );
}

#[test]
fn a_misspelt_check_option() {
    assert_eq!(
        with(&[("fields: [x]", "feilds: [x]")]),
        ["a.yaml:20:17: required: unknown field `feilds`; did you mean `fields`?"]
    );
    assert_eq!(
        with(&[(
            "      - check: required\n        fields: [x]",
            "      - check: version-range\n        snice: 2025-06-18"
        )]),
        ["a.yaml:20:16: version-range: unknown field `snice`; did you mean `since`?"]
    );
}

#[test]
fn a_misspelt_member() {
    // Of a rule.
    assert_eq!(
        with(&[("    path: p\n", "    paht: p\n")]),
        ["a.yaml:8:5: unknown field `paht`; did you mean `path`?"]
    );
    assert_eq!(
        with(&[("    then:\n", "    given_traffic: []\n    then:\n")]),
        ["a.yaml:18:5: unknown field `given_traffic`; did you mean `given-traffic`?"]
    );
    // Of a condition, in a rule and in a check.
    assert_eq!(
        with(&[(
            "    then:\n",
            "    when: {path: x, exist: true}\n    then:\n"
        )]),
        ["a.yaml:18:21: unknown field `exist`; did you mean `exists`?"]
    );
    assert_eq!(
        with(&[(
            "        fields: [x]\n",
            "        fields: [x]\n        when: {pth: x, exists: true}\n"
        )]),
        ["a.yaml:21:15: unknown field `pth`; did you mean `path`?"]
    );
    // Of an enumeration.
    assert_eq!(
        with(&[("kind: structural", "kind: structual")]),
        ["a.yaml:9:5: unknown variant `structual`; did you mean `structural`?"]
    );
    // Nothing close: serde's list, as before.
    let found = with(&[("    path: p\n", "    path: p\n    colour: red\n")]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("a.yaml:9:5: unknown field `colour`, expected one of `id`, `title`"),
        "{found:?}"
    );
    // Of the catalogue, a surface, and the top level.
    let catalogue = CATALOGUE.replace("  spec-versions:", "  spec-version:");
    assert_eq!(
        problems(&[("catalogue.yaml", &catalogue)]),
        ["catalogue.yaml:3:3: unknown field `spec-version`; did you mean `spec-versions`?"]
    );
    let catalogue = CATALOGUE.replace(
        "    summary: An item.",
        "    summary: An item.\n    descripton: []",
    );
    assert_eq!(
        problems(&[("catalogue.yaml", &catalogue), ("a.yaml", RULE)]),
        ["catalogue.yaml:12:5: unknown field `descripton`; did you mean `description`?"]
    );
    let rule = RULE.replace("rules:", "rule:");
    assert_eq!(
        problems(&[("catalogue.yaml", CATALOGUE), ("a.yaml", &rule)]),
        ["a.yaml:1:1: unknown top-level key `rule`; did you mean `rules`?"]
    );
}

#[test]
fn a_misspelt_protocol_version() {
    assert_eq!(
        with(&[("{2025-03-26: applies", "{2025-03-62: applies")]),
        [
            "a.yaml:13:20: the applicability table does not name 2025-03-26; name them, or give a `default` or a `since`/`until` range",
            "a.yaml:13:33: unknown protocol version `2025-03-62`; did you mean `2025-03-26`?",
        ]
    );
    assert_eq!(
        with(&[(
            "    then:\n",
            "    when: {version: {since: 2025-6-18}}\n    then:\n"
        )]),
        ["a.yaml:18:29: unknown protocol version `2025-6-18`; did you mean `2025-06-18`?"]
    );
    assert_eq!(
        with(&[(
            "    then:\n",
            "    when: {version: {in: [2025-03-26, 2025-06-81]}}\n    then:\n"
        )]),
        ["a.yaml:18:39: unknown protocol version `2025-06-81`; did you mean `2025-06-18`?"]
    );
    assert_eq!(
        with(&[(
            "      - check: required\n        fields: [x]",
            "      - check: version-range\n        until: 2025-06-19"
        )]),
        ["a.yaml:20:16: version-range: unknown protocol version `2025-06-19`; did you mean `2025-06-18`?"]
    );
    // Nothing close: every version.
    assert_eq!(
        with(&[(
            "      - check: required\n        fields: [x]",
            "      - check: version-range\n        since: draft"
        )]),
        ["a.yaml:20:16: version-range: unknown protocol version `draft`; the catalogue has 2025-03-26, 2025-06-18"]
    );
    let catalogue = CATALOGUE.replace(
        "  scope:",
        "  legacy-protocol-versions: [2025-3-26]\n  scope:",
    );
    assert_eq!(
        problems(&[("catalogue.yaml", &catalogue), ("a.yaml", RULE)]),
        ["catalogue.yaml:5:30: unknown protocol version `2025-3-26`; did you mean `2025-03-26`?"]
    );
}

#[test]
fn a_surface_name_that_names_no_surface() {
    // With a subject, the surface is targeted.
    assert_eq!(
        with(&[
            ("surface: {text: S}", "surface: ItemEntri"),
            ("    given: [\"$.items[*]\"]\n", "    subject: \"@\"\n"),
        ]),
        ["a.yaml:7:14: a rule with a `subject` targets its surface, and there is no surface `ItemEntri`; did you mean `ItemEntry`?"]
    );
    assert_eq!(
        with(&[("    given: [\"$.items[*]\"]\n", "    subject: \"@\"\n")]),
        ["a.yaml:7:14: a rule with a `subject` targets its surface: name a surface of the map, not free text"]
    );
    // Without one, a bare string is a surface name too; free text says so.
    assert_eq!(
        with(&[("surface: {text: S}", "surface: Item entry")]),
        ["a.yaml:7:14: there is no surface `Item entry`; did you mean `ItemEntry`? (free text that names no surface is written `{text: ...}`)"]
    );
    assert_eq!(
        with(&[("surface: {text: S}", "surface: Capabilities Object")]),
        ["a.yaml:7:14: there is no surface `Capabilities Object`: name a surface of the map (ItemEntry), or declare free text as `{text: ...}`"]
    );
    assert_eq!(
        with(&[("surface: {text: S}", "surface: ItemEntry")]),
        Vec::<String>::new()
    );
    assert_eq!(
        with(&[("surface: {text: S}", "surface: {txt: S}")]),
        ["a.yaml:7:5: a surface name, or free text declared as `{text: ...}`"]
    );
}

#[test]
fn a_relative_path_above_the_document_root() {
    // `$.items[*]` is at depth 2: `^^` is the root, `^^^` above it.
    assert_eq!(
        with(&[(
            "      - check: required\n        fields: [x]",
            "      - check: reference\n        to: ^^.names[*]\n      - check: reference\n        to: ^^^.names[*]"
        )]),
        ["a.yaml:22:13: `^^^.names[*]` climbs 3 levels above the rule's node, which is at depth 2, so it is above the document root and selects nothing"]
    );
    assert_eq!(
        with(&[("        fields: [x]\n", "        fields: [x]\n        at: ^^^\n")]),
        ["a.yaml:21:13: `^^^` climbs 3 levels above the rule's node, which is at depth 2, so it is above the document root and selects nothing"]
    );
    assert_eq!(
        with(&[("    then:\n", "    when: {path: ^^^.x, exists: true}\n    then:\n")]),
        ["a.yaml:18:18: `^^^.x` climbs 3 levels above the rule's node, which is at depth 2, so it is above the document root and selects nothing"]
    );
    // From the nodes of `at`, one level up.
    assert_eq!(
        with(&[(
            "      - check: required\n        fields: [x]",
            "      - check: unique\n        at: ^\n        items: ^^[*]"
        )]),
        ["a.yaml:21:16: `^^[*]` climbs 2 levels above the check's subject (the nodes of its `at`), which is at depth 1 at most, so it is above the document root and selects nothing"]
    );
    // A descendant segment: any depth, nothing reported.
    assert_eq!(
        with(&[
            ("given: [\"$.items[*]\"]", "given: [\"$..items\"]"),
            (
                "        fields: [x]\n",
                "        fields: [x]\n        at: ^^^^^\n"
            ),
        ]),
        Vec::<String>::new()
    );
}

#[test]
fn a_file_outside_the_rules_directory() {
    let schema = "{\"type\": \"object\"}";
    let check = |file: &str| {
        let rule = RULE.replace(
            "      - check: required\n        fields: [x]",
            &format!("      - check: json-schema\n        schema-file: \"{file}\""),
        );
        problems(&[
            ("catalogue.yaml", CATALOGUE),
            ("a.yaml", &rule),
            ("schemas/item.json", schema),
        ])
    };
    assert_eq!(check("schemas/item.json"), Vec::<String>::new());
    assert_eq!(
        check("../item.json"),
        ["a.yaml:20:22: json-schema: `../item.json` is outside the rules directory: rule files may only read files inside their release's rules directory, named by their path relative to it"]
    );
    assert_eq!(
        check("../rules/schemas/item.json"),
        ["a.yaml:20:22: json-schema: `../rules/schemas/item.json` is outside the rules directory: rule files may only read files inside their release's rules directory, named by their path relative to it; did you mean `schemas/item.json`?"]
    );
    assert_eq!(
        check("/home/me/rules/schemas/item.json"),
        ["a.yaml:20:22: json-schema: `/home/me/rules/schemas/item.json` is outside the rules directory: rule files may only read files inside their release's rules directory, named by their path relative to it; did you mean `schemas/item.json`?"]
    );
    assert_eq!(
        check("schemas/itme.json"),
        ["a.yaml:20:22: json-schema: no schema file `schemas/itme.json` in the rules directory; did you mean `schemas/item.json`?"]
    );
    assert_eq!(
        check("schemas/other.json"),
        ["a.yaml:20:22: json-schema: no schema file `schemas/other.json` in the rules directory"]
    );
}

const EXTENSION: &str = "catalogue:
  release: 1.1.0
  extends: 1.0.0
retire:
  - id: mcpdesc.a.c
    reason: Gone.
applicability:
  - id: mcpdesc.a.bb
    reason: Narrower.
    applicability: {2025-03-26: not-applicable, 2025-06-18: applies}
";

#[test]
fn a_misspelt_rule_of_the_base() {
    let found = problems(&[
        ("base/catalogue.yaml", CATALOGUE),
        ("base/a.yaml", RULE),
        ("next/catalogue.yaml", EXTENSION),
    ]);
    assert_eq!(
        found,
        [
            "next/catalogue.yaml:5:9: cannot retire rule `mcpdesc.a.c`: release 1.0.0 has no such rule; did you mean `mcpdesc.a.b`?",
            "next/catalogue.yaml:8:9: cannot change the applicability of rule `mcpdesc.a.bb`: release 1.0.0 has no such rule; did you mean `mcpdesc.a.b`?",
        ]
    );
}
