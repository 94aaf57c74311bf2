//! The command line with several releases: each document judged by the release it declares,
//! `--spec-version` overriding it, the resolved catalogue of each release, and each release's
//! fixtures run against its own catalogue.

mod support;

use support::{mcpdesc, mcpdesc_stdin, rule_ids};

const FICTIONAL_DIR: &str = "crates/mcpdesc-core/tests/releases/fictional";
const FICTIONAL: &str = "0.9.0-fictional.1";

fn doc(spec: &str) -> String {
    format!(
        r#"{{"mcpdesc": "{spec}", "info": {{"name": "w", "version": "1.0.0"}}, "protocolVersions": ["2025-11-25"]}}"#
    )
}

fn validate(extra: &[&str], spec: &str) -> (Option<i32>, Vec<String>, String) {
    let mut args = vec!["validate", "--format", "json", "--rules", FICTIONAL_DIR];
    args.extend_from_slice(extra);
    args.push("-");
    let run = mcpdesc_stdin(&args, &doc(spec));
    let report: serde_json::Value = match serde_json::from_str(&run.stdout) {
        Ok(v) => v,
        Err(_) => return (run.code, Vec::new(), run.output()),
    };
    (run.code, rule_ids(&report), run.output())
}

#[test]
fn the_declared_version_chooses_the_release() {
    let (code, rules, out) = validate(&[], "0.8.0");
    assert_eq!((code, rules), (Some(0), vec![]), "{out}");
    let (code, rules, out) = validate(&[], FICTIONAL);
    assert_eq!(
        (code, rules),
        (
            Some(1),
            vec!["mcpdesc.info.description-required".to_owned()]
        ),
        "{out}"
    );
    let (code, rules, out) = validate(&[], "0.7.0");
    assert_eq!(
        (code, rules),
        (Some(1), vec!["mcpdesc.version.mcpdesc-value".to_owned()]),
        "{out}"
    );
    assert!(
        out.contains("supported versions: 0.8.0, (>=0.9.0-fictional.1, <0.10.0)"),
        "{out}"
    );
}

#[test]
fn spec_version_overrides_the_document() {
    let (code, rules, out) = validate(&["--spec-version", "0.8.0"], FICTIONAL);
    assert_eq!((code, rules), (Some(0), vec![]), "{out}");
    let (code, rules, out) = validate(&["--spec-version", FICTIONAL], "0.8.0");
    assert_eq!(
        (code, rules),
        (
            Some(1),
            vec!["mcpdesc.info.description-required".to_owned()]
        ),
        "{out}"
    );
    let (code, _, out) = validate(&["--spec-version", "0.7.0"], "0.8.0");
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains(
            "no catalogue serves specification version `0.7.0`; supported: 0.8.0, (>=0.9.0-fictional.1, <0.10.0)"
        ),
        "{out}"
    );
    // The embedded catalogue alone serves 0.8.0 only.
    let run = mcpdesc_stdin(
        ["validate", "--spec-version", FICTIONAL, "-"],
        &doc("0.8.0"),
    );
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert!(run.stderr.contains("supported: 0.8.0"), "{}", run.output());
}

fn listed(args: &[&str]) -> serde_json::Value {
    let mut all = vec![
        "rules",
        "list",
        "--format",
        "json",
        "--rules",
        FICTIONAL_DIR,
    ];
    all.extend_from_slice(args);
    let run = mcpdesc(&all);
    assert_eq!(run.code, Some(0), "{}", run.output());
    serde_json::from_str(&run.stdout).unwrap()
}

fn ids(list: &serde_json::Value) -> Vec<String> {
    list["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn rules_list_prints_the_resolved_catalogue_of_a_release() {
    let old = listed(&["--spec-version", "0.8.0"]);
    let new = listed(&["--spec-version", FICTIONAL]);
    let (old_ids, new_ids) = (ids(&old), ids(&new));
    assert_eq!(old_ids.len(), new_ids.len());
    assert!(old_ids.contains(&"mcpdesc.tags.reference-declared".to_owned()));
    assert!(!new_ids.contains(&"mcpdesc.tags.reference-declared".to_owned()));
    assert!(new_ids.contains(&"mcpdesc.info.description-required".to_owned()));
    let find = |list: &serde_json::Value, id: &str| {
        list["rules"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .cloned()
            .unwrap()
    };
    let semver_old = find(&old, "mcpdesc.info.version-semver");
    let semver_new = find(&new, "mcpdesc.info.version-semver");
    assert_eq!(semver_old["severity"], "warning");
    assert_eq!(semver_new["severity"], "error");
    let narrowed = find(&new, "mcpdesc.tags.unique-names");
    assert_eq!(narrowed["applicability"]["2025-03-26"], "not-applicable");
    assert_eq!(
        find(&old, "mcpdesc.tags.unique-names")["applicability"]["2025-03-26"],
        "applies"
    );
    assert_eq!(new["release"], FICTIONAL);
    assert_eq!(new["extends"], "0.8.0");
    assert_eq!(new["specVersions"][0], ">=0.9.0-fictional.1, <0.10.0");
    assert_eq!(new["retired"][0]["id"], "mcpdesc.tags.reference-declared");
    assert_eq!(new["retired"][0]["release"], FICTIONAL);
    assert_eq!(old["retired"].as_array().unwrap().len(), 0);
    assert_eq!(semver_new["history"]["since"], "0.8.0");
    assert_eq!(semver_new["history"]["definedIn"], FICTIONAL);
    assert_eq!(semver_new["history"]["changes"][0]["kind"], "replaced");
    assert_eq!(
        narrowed["history"]["changes"][0]["kind"],
        "applicability changed"
    );
    assert_eq!(
        find(&new, "mcpdesc.info.description-required")["history"]["since"],
        FICTIONAL
    );
    // Without --spec-version: the default release, the newest that is not a pre-release.
    assert_eq!(ids(&listed(&[])), old_ids);
}

#[test]
fn test_runs_each_release_corpus_against_its_own_catalogue() {
    let run = mcpdesc(["test", "--rules", FICTIONAL_DIR, "--format", "json"]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let releases_of = |key: &str| {
        let mut r: Vec<String> = report[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["release"].as_str().unwrap().to_owned())
            .collect();
        r.sort();
        r.dedup();
        r
    };
    assert_eq!(releases_of("examples"), ["0.8.0", FICTIONAL]);
    assert_eq!(releases_of("registry"), ["0.8.0", FICTIONAL]);
    // The fictional release's examples are those of the rules it defines.
    let fictional_examples: Vec<&str> = report["examples"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["release"] == FICTIONAL)
        .map(|e| e["rule"].as_str().unwrap())
        .collect();
    assert_eq!(
        fictional_examples,
        [
            "mcpdesc.info.version-semver",
            "mcpdesc.info.version-semver",
            "mcpdesc.info.description-required",
            "mcpdesc.info.description-required"
        ]
    );
    let only = mcpdesc([
        "test",
        "--rules",
        FICTIONAL_DIR,
        "--spec-version",
        FICTIONAL,
    ]);
    assert_eq!(only.code, Some(0), "{}", only.output());
    assert!(
        only.stdout.ends_with("12 passed, 0 failed\n"),
        "{}",
        only.stdout
    );
}

#[test]
fn a_fixture_judged_by_the_wrong_release_fails_its_test() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = dir.path().join("expected-valid");
    std::fs::create_dir_all(&fixtures).unwrap();
    // Valid under 0.8.0, invalid under the fictional release that requires a description.
    std::fs::write(fixtures.join("no-description.json"), doc(FICTIONAL)).unwrap();
    let run = mcpdesc([
        "test".as_ref(),
        "--rules".as_ref(),
        FICTIONAL_DIR.as_ref(),
        dir.path().as_os_str(),
    ]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(
        run.stdout.contains("mcpdesc.info.description-required"),
        "{}",
        run.stdout
    );
}
