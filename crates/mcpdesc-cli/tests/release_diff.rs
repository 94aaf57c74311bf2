//! `mcpdesc diff` between two releases: the fictional release 0.9.0-fictional.1 extends 0.8.0
//! with one change of each kind, and a corpus of one document per kind shows that each change
//! has its effect, and only that effect, however the two releases are chosen.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::Path;

use serde_json::{json, Value};
use support::{mcpdesc, mcpdesc_in, workspace, Run};

const FICTIONAL: &str = "crates/mcpdesc-core/tests/releases/fictional";
const NEW: &str = "0.9.0-fictional.1";

const ADDED: &str = "mcpdesc.info.description-required";
const REPLACED: &str = "mcpdesc.info.version-semver";
const RETIRED: &str = "mcpdesc.tags.reference-declared";
const NARROWED: &str = "mcpdesc.tags.unique-names";

/// One document per kind of change, and one that no change touches. All but the first have
/// an `info.description`, so that the added rule concerns the first alone.
const CORPUS: &[(&str, &str)] = &[
    (
        "added.json",
        r#"{
  "mcpdesc": "0.8.0",
  "info": {"name": "weather", "version": "1.2.0"},
  "protocolVersions": ["2025-06-18", "2025-11-25"]
}"#,
    ),
    (
        "replaced.json",
        r#"{
  "mcpdesc": "0.8.0",
  "info": {"name": "weather", "version": "2024.06", "description": "Forecasts."},
  "protocolVersions": ["2025-06-18", "2025-11-25"]
}"#,
    ),
    (
        "retired.json",
        r#"{
  "mcpdesc": "0.8.0",
  "info": {"name": "writer", "version": "1.0.0", "description": "Writing prompts."},
  "protocolVersions": ["2025-11-25"],
  "tags": [{"name": "writing"}],
  "prompts": [{"name": "outline", "tags": ["writing", "planning"]}]
}"#,
    ),
    (
        "narrowed.json",
        r#"{
  "mcpdesc": "0.8.0",
  "info": {"name": "library", "version": "1.0.0", "description": "Searches books."},
  "protocolVersions": ["2025-03-26", "2025-11-25"],
  "tags": [{"name": "search"}, {"name": "search", "description": "Second entry"}]
}"#,
    ),
    (
        "clean.json",
        r#"{
  "mcpdesc": "0.8.0",
  "info": {"name": "clock", "version": "3.1.4", "description": "Tells the time."},
  "protocolVersions": ["2025-06-18", "2025-11-25"]
}"#,
    ),
];

fn corpus() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for (name, text) in CORPUS {
        std::fs::write(tmp.path().join(name), text).unwrap();
    }
    tmp
}

/// `mcpdesc diff ARGS CORPUS` in the workspace.
fn diff(args: &[&str], corpus: &Path, json: bool) -> Run {
    let mut all: Vec<OsString> = vec!["diff".into()];
    all.extend(args.iter().map(OsString::from));
    if json {
        all.extend(["--format".into(), "json".into()]);
    }
    all.push(corpus.into());
    mcpdesc(all)
}

fn diff_json(args: &[&str], corpus: &Path) -> Value {
    let run = diff(args, corpus, true);
    assert_eq!(run.code, Some(0), "{}", run.output());
    serde_json::from_str(&run.stdout).unwrap()
}

/// (rule, pointer, severity, versions) of a diagnostic in the report.
type Finding = (String, String, String, Vec<String>);

fn finding(d: &Value) -> Finding {
    let s = |k: &str| d[k].as_str().unwrap().to_owned();
    let versions = d["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    (s("rule"), s("pointer"), s("severity"), versions)
}

fn f(rule: &str, pointer: &str, severity: &str, versions: &[&str]) -> Finding {
    (
        rule.to_owned(),
        pointer.to_owned(),
        severity.to_owned(),
        versions.iter().map(|v| (*v).to_owned()).collect(),
    )
}

fn file_name(document: &Value) -> String {
    Path::new(document.as_str().unwrap())
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// Appeared and vanished findings of each affected document, by file name.
type ByDocument = BTreeMap<String, (Vec<Finding>, Vec<Finding>)>;

fn by_document(v: &Value) -> ByDocument {
    v["affected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let list = |k: &str| d[k].as_array().unwrap().iter().map(finding).collect();
            (
                file_name(&d["document"]),
                (list("appeared"), list("vanished")),
            )
        })
        .collect()
}

/// Appeared and vanished (document, finding) of each rule of `byRule`.
type ByRule = BTreeMap<String, (Vec<(String, Finding)>, Vec<(String, Finding)>)>;

fn by_rule(v: &Value) -> ByRule {
    v["byRule"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(rule, ri)| {
            let list = |k: &str| {
                ri[k]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| (file_name(&d["document"]), finding(d)))
                    .collect()
            };
            (rule.clone(), (list("appeared"), list("vanished")))
        })
        .collect()
}

/// (document, old verdict, new verdict) of every verdict change.
fn verdicts(v: &Value) -> BTreeSet<(String, String, String)> {
    v["verdictChanges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                file_name(&d["document"]),
                d["old"].as_str().unwrap().to_owned(),
                d["new"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The ids of the rules of one kind of change.
fn ids(v: &Value, kind: &str) -> Vec<String> {
    v["changes"][kind]
        .as_array()
        .unwrap_or_else(|| panic!("no list `{kind}` in {}", v["changes"]))
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}

fn expected_by_document() -> ByDocument {
    let both = ["2025-06-18", "2025-11-25"];
    BTreeMap::from([
        (
            "added.json".to_owned(),
            (vec![f(ADDED, "/info", "error", &both)], vec![]),
        ),
        (
            "replaced.json".to_owned(),
            (
                vec![f(REPLACED, "/info/version", "error", &both)],
                vec![f(REPLACED, "/info/version", "warning", &both)],
            ),
        ),
        (
            "retired.json".to_owned(),
            (
                vec![],
                vec![f(RETIRED, "/prompts/0/tags/1", "error", &["2025-11-25"])],
            ),
        ),
        (
            "narrowed.json".to_owned(),
            (
                vec![f(NARROWED, "/tags/1/name", "error", &["2025-11-25"])],
                vec![f(
                    NARROWED,
                    "/tags/1/name",
                    "error",
                    &["2025-03-26", "2025-11-25"],
                )],
            ),
        ),
    ])
}

const BY_RELEASE: &[&str] = &[
    "--base-spec-version",
    "0.8.0",
    "--spec-version",
    NEW,
    "--rules",
    FICTIONAL,
];

#[test]
fn each_kind_of_change_has_its_effect_and_only_that() {
    let tmp = corpus();
    let v = diff_json(BY_RELEASE, tmp.path());

    assert_eq!(v["base"], "0.8.0");
    assert_eq!(v["new"], NEW);
    assert_eq!(v["documents"], 5);
    let ch = &v["changes"];
    assert_eq!(ch["basis"], "history");

    // Rule changes: one of each kind, nothing else.
    assert_eq!(ids(&v, "added"), [ADDED]);
    assert_eq!(ids(&v, "replaced"), [REPLACED]);
    assert_eq!(ids(&v, "applicabilityChanged"), [NARROWED]);
    assert_eq!(
        ch["retired"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap())
            .collect::<Vec<_>>(),
        [RETIRED]
    );
    assert_eq!(ch["removed"], json!([]));
    assert_eq!(ch["changed"], json!([]));

    assert_eq!(ch["added"][0]["since"], NEW);
    assert_eq!(ch["added"][0]["severity"], "error");

    let replaced = &ch["replaced"][0];
    assert_eq!(replaced["reasons"].as_array().unwrap().len(), 1);
    assert_eq!(replaced["reasons"][0]["kind"], "replaced");
    assert_eq!(replaced["reasons"][0]["release"], NEW);
    assert!(replaced["reasons"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("a version in another scheme is an error instead of a warning"));
    let fields = replaced["fields"].as_array().unwrap();
    assert!(
        fields.contains(&json!({"field": "level", "old": "should", "new": "must"})),
        "{replaced}"
    );
    assert!(
        fields.contains(&json!({"field": "effective severity", "old": "warning", "new": "error"})),
        "{replaced}"
    );

    let narrowed = &ch["applicabilityChanged"][0];
    assert_eq!(narrowed["reasons"][0]["kind"], "applicability changed");
    assert!(narrowed["reasons"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("distinct tag names only from MCP 2025-06-18 on"));
    assert_eq!(
        narrowed["table"],
        json!([
            {"version": "2024-11-05", "old": "applies", "new": "not-applicable"},
            {"version": "2025-03-26", "old": "applies", "new": "not-applicable"},
            {"version": "2025-06-18", "old": "applies", "new": "applies"},
            {"version": "2025-11-25", "old": "applies", "new": "applies"},
            {"version": "2026-07-28", "old": "applies", "new": "applies"},
        ])
    );

    let retired = &ch["retired"][0];
    assert_eq!(retired["release"], NEW);
    assert_eq!(retired["severity"], "error");
    assert!(retired["reason"]
        .as_str()
        .unwrap()
        .contains("tags that the root catalogue does not list"));

    // Findings: exactly the expected ones, per document and per rule; the clean document
    // is not affected.
    assert_eq!(by_document(&v), expected_by_document());
    let mut expected_rules: ByRule = BTreeMap::new();
    for (doc, (appeared, vanished)) in expected_by_document() {
        for x in appeared {
            let e = expected_rules.entry(x.0.clone()).or_default();
            e.0.push((doc.clone(), x));
        }
        for x in vanished {
            let e = expected_rules.entry(x.0.clone()).or_default();
            e.1.push((doc.clone(), x));
        }
    }
    assert_eq!(by_rule(&v), expected_rules);
    assert_eq!(
        verdicts(&v),
        BTreeSet::from([
            ("added.json".into(), "valid".into(), "invalid".into()),
            ("replaced.json".into(), "warning".into(), "invalid".into()),
            ("retired.json".into(), "invalid".into(), "valid".into()),
        ])
    );
    let narrowed_doc = v["affected"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| file_name(&d["document"]) == "narrowed.json")
        .unwrap();
    assert_eq!(narrowed_doc["oldVerdict"], "invalid");
    assert_eq!(narrowed_doc["newVerdict"], "invalid");
}

#[test]
fn the_markdown_names_the_releases_and_the_reasons() {
    let tmp = corpus();
    let run = diff(BY_RELEASE, tmp.path(), false);
    assert_eq!(run.code, Some(0), "{}", run.output());
    let md = run.stdout;
    for needle in [
        "## Rule change impact: 0.8.0 → 0.9.0-fictional.1",
        "### Rules added",
        &format!("- `{ADDED}` — "),
        "added in 0.9.0-fictional.1",
        "### Rules replaced or amended",
        &format!("#### `{REPLACED}` — "),
        "- Replaced in 0.9.0-fictional.1",
        "a version in another scheme is an error instead of a warning.",
        "| `level` | should | must |",
        "### Applicability changed",
        &format!("#### `{NARROWED}` — "),
        "- Applicability changed in 0.9.0-fictional.1",
        "requires distinct tag names only from MCP 2025-06-18 on.",
        "| 2024-11-05 | applies | not-applicable | changed |",
        "| 2025-06-18 | applies | applies | |",
        "### Rules retired",
        &format!("- `{RETIRED}` — "),
        "Retired in 0.9.0-fictional.1",
        "lets primitives carry tags that the root catalogue does not list.",
        "### Documents whose verdict changed",
        &format!("#### `{NARROWED}` (+1 −1)"),
        &format!("#### `{RETIRED}` (+0 −1)"),
    ] {
        assert!(md.contains(needle), "no {needle:?} in\n{md}");
    }
    // An applicability change is reported as that alone.
    assert!(!md.contains("### Rules changed"), "{md}");
    assert!(!md.contains("### Rules removed"), "{md}");
    assert!(!md.contains("`applicability.2024-11-05`"), "{md}");
    assert!(!md.contains("clean.json"), "{md}");
}

#[test]
fn releases_chosen_by_version_or_by_directory_give_the_same_findings() {
    let tmp = corpus();
    let by_release = diff_json(BY_RELEASE, tmp.path());
    let forms: &[&[&str]] = &[
        &[
            "--base-rules",
            "rules",
            "--rules",
            FICTIONAL,
            "--spec-version",
            NEW,
        ],
        &[
            "--base-rules",
            "rules",
            "--base-spec-version",
            "0.8.0",
            "--rules",
            "rules",
            "--rules",
            FICTIONAL,
            "--spec-version",
            NEW,
        ],
    ];
    for form in forms {
        let v = diff_json(form, tmp.path());
        assert_eq!(v["base"], "0.8.0", "{form:?}");
        assert_eq!(v["new"], NEW, "{form:?}");
        assert_eq!(by_document(&v), by_document(&by_release), "{form:?}");
        assert_eq!(by_rule(&v), by_rule(&by_release), "{form:?}");
        assert_eq!(verdicts(&v), verdicts(&by_release), "{form:?}");
        for kind in [
            "added",
            "replaced",
            "applicabilityChanged",
            "removed",
            "changed",
        ] {
            assert_eq!(ids(&v, kind), ids(&by_release, kind), "{form:?} {kind}");
        }
        assert_eq!(v["changes"]["retired"][0]["id"], RETIRED, "{form:?}");
    }

    // From another directory, relative paths resolve against it.
    let run = mcpdesc_in(
        &workspace().join("crates"),
        [
            OsString::from("diff"),
            "--base-spec-version".into(),
            "0.8.0".into(),
            "--spec-version".into(),
            NEW.into(),
            "--rules".into(),
            "mcpdesc-core/tests/releases/fictional".into(),
            "--format".into(),
            "json".into(),
            tmp.path().into(),
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.output());
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(by_document(&v), expected_by_document());

    // Directories alone compare each set's default release, here 0.8.0 on both sides.
    let run = diff(
        &["--base-rules", "rules", "--rules", FICTIONAL],
        tmp.path(),
        true,
    );
    assert_eq!(run.code, Some(0), "{}", run.output());
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!((&v["base"], &v["new"]), (&json!("0.8.0"), &json!("0.8.0")));
    assert_eq!(v["affected"], json!([]));
    assert!(run.stderr.contains("--spec-version"), "{}", run.output());
}

#[test]
fn comparing_with_an_older_release_falls_back_to_definitions() {
    let tmp = corpus();
    let v = diff_json(
        &[
            "--base-spec-version",
            NEW,
            "--spec-version",
            "0.8.0",
            "--rules",
            FICTIONAL,
        ],
        tmp.path(),
    );
    assert_eq!((&v["base"], &v["new"]), (&json!(NEW), &json!("0.8.0")));
    assert_eq!(v["changes"]["basis"], "definitions");
    assert_eq!(ids(&v, "added"), [RETIRED]);
    assert_eq!(ids(&v, "removed"), [ADDED]);
    assert_eq!(ids(&v, "changed"), [REPLACED, NARROWED]);
    for kind in ["replaced", "applicabilityChanged", "retired"] {
        assert_eq!(v["changes"][kind], json!([]), "{kind}");
    }
    // Every finding swaps sides.
    let swapped: ByDocument = expected_by_document()
        .into_iter()
        .map(|(d, (a, b))| (d, (b, a)))
        .collect();
    assert_eq!(by_document(&v), swapped);
}

#[test]
fn an_unserved_version_exits_2_with_the_supported_versions() {
    let tmp = corpus();
    for args in [
        &[
            "--base-spec-version",
            "0.8.0",
            "--spec-version",
            "9.9.9",
            "--rules",
            FICTIONAL,
        ][..],
        &[
            "--base-spec-version",
            "0.7.0",
            "--spec-version",
            NEW,
            "--rules",
            FICTIONAL,
        ][..],
        &["--base-spec-version", "not-a-version", "--rules", FICTIONAL][..],
    ] {
        let run = diff(args, tmp.path(), true);
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.output());
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.output());
        assert!(
            run.stderr
                .contains("supported: 0.8.0, (>=0.9.0-fictional.1, <0.10.0)"),
            "{args:?}: {}",
            run.output()
        );
    }
    // Without any base, there is nothing to compare with.
    let run = diff(&["--rules", FICTIONAL], tmp.path(), false);
    assert_eq!(run.code, Some(2), "{}", run.output());
}

/// A release that adds a protocol revision and amends one rule: the diff over the whole
/// fixture corpus says so in a screenful, the messages that list versions as rewordings.
#[test]
fn a_new_protocol_revision_diffs_on_one_screen() {
    const NEXT: &[&str] = &[
        "--base-spec-version",
        "0.8.0",
        "--rules",
        "crates/mcpdesc-core/tests/releases/next-revision",
        "--spec-version",
        "0.8.1",
    ];
    let corpus = Path::new("spec-fixtures");
    let run = diff(NEXT, corpus, false);
    assert_eq!(run.code, Some(0), "{}", run.output());
    let md = &run.stdout;
    for needle in [
        "### Protocol versions added",
        "- `2026-12-15`, as `2026-07-28`: 200 rules take it as they take `2026-07-28`, with no other change.",
        "#### `mcp.capabilities.logging-deprecated` — ",
        "- Amended in 0.8.1 (`catalogue.yaml:11`): MCP 2026-12-15 brings server logging back",
        "| 2026-12-15 | (absent) | not-applicable | changed |",
        "### Diagnostics reworded",
        "| `mcp.wire.known-protocol-version` | `2026-07-28);` | `2026-07-28, 2026-12-15);` | 4 in 4 documents |",
        "| `mcp.tool.result.result-type` | `2026-07-28` | `2026-07-28 to 2026-12-15` | 1 in 1 document |",
        "No diagnostic appeared or vanished but for the rewordings above.",
    ] {
        assert!(md.contains(needle), "no {needle:?} in\n{md}");
    }
    // No rule is listed as changed or replaced: one amendment, and the version added.
    assert!(!md.contains("### Rules changed"), "{md}");
    assert!(!md.contains("### Rules replaced"), "{md}");
    let lines = md.lines().count();
    assert!(lines <= 64, "{lines} lines:\n{md}");

    // The JSON report keeps every appeared and vanished finding: a rewording is both.
    let rules = by_rule(&diff_json(NEXT, corpus));
    let (appeared, vanished) = &rules["mcp.wire.known-protocol-version"];
    assert_eq!((appeared.len(), vanished.len()), (4, 4));
}
