//! `mcpdesc test`: sidecars, folder conventions, examples, registry checks, output formats,
//! `--bless`, `--rule`, exit codes.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;
use support::{copy_dir, mcpdesc, rules_list, workspace, Run};

const CATALOGUE: &str = r#"catalogue:
  name: Mini Description
  spec-versions: ["0.8.0"]
  protocol-versions: [2025-06-18, 2025-11-25]
  scope:
    root: $.protocolVersions
    member: protocolVersions
    declarations: []
  fixtures: ../fixtures
"#;

const INFO_RULES: &str = r#"rules:
  - id: mcpdesc.info.name
    title: Name the server
    description: Every server has a name.
    requirement: "`info` has a `name`."
    owner: mcpdesc
    surface: {text: Info Object}
    path: info
    kind: structural
    level: must
    status: internal
    enforcement: internal
    applicability: {2025-06-18: applies, 2025-11-25: applies}
    required-by: {spec: Mini Description 0.8.0, sections: ["5.1"]}
    based-on: {tier: 2, label: Normative text, detail: Section 5.1 lists the fields.}
    examples:
      valid: [{fixture: expected-valid/ok.json, pointer: /info}]
      invalid: [{fixture: expected-invalid/no-name.json, pointer: /info}]
    given: ["$.info"]
    then:
      - check: required
        fields: [name]
    message: "`info` has no `{field}`"
  - id: mcpdesc.info.description
    title: Describe the server
    description: Every server says what it does.
    requirement: "`info` has a `description`."
    owner: mcpdesc
    surface: {text: Info Object}
    path: info
    kind: structural
    level: should
    status: internal
    enforcement: internal
    applicability: {2025-06-18: applies, 2025-11-25: warns}
    required-by: {spec: Mini Description 0.8.0, sections: ["5.2"]}
    based-on: {tier: 2, label: Normative text, detail: Section 5.2 recommends it.}
    examples:
      valid: [{fixture: expected-valid/ok.json, pointer: /info}]
      invalid: [{fixture: expected-warning/no-description.yaml, pointer: /info}]
    given: ["$.info"]
    then:
      - check: required
        fields: [description]
    message: "`info` has no `{field}`"
"#;

/// A small catalogue with its own fixtures: `<tmp>/rules`, `<tmp>/fixtures`.
fn mini() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    for (path, text) in [
        ("rules/catalogue.yaml", CATALOGUE),
        ("rules/info.yaml", INFO_RULES),
        (
            "fixtures/expected-valid/ok.json",
            r#"{"info": {"name": "a", "description": "d"}, "protocolVersions": ["2025-11-25"]}"#,
        ),
        (
            "fixtures/expected-invalid/no-name.json",
            r#"{"info": {"description": "d"}, "protocolVersions": ["2025-06-18", "2025-11-25"]}"#,
        ),
        (
            "fixtures/expected-warning/no-description.yaml",
            "info:\n  name: a\nprotocolVersions: [2025-06-18]\n",
        ),
    ] {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    tmp
}

fn test_cmd(root: &Path, extra: &[&str]) -> Run {
    let mut args: Vec<std::ffi::OsString> = vec!["test".into()];
    args.push(root.join("fixtures").into());
    args.push("--rules".into());
    args.push(root.join("rules").into());
    args.extend(extra.iter().map(Into::into));
    mcpdesc(args)
}

fn last_line(s: &str) -> &str {
    s.lines().last().unwrap_or_default()
}

fn assert_summary(run: &Run, passed: usize, failed: usize) {
    assert_eq!(
        last_line(&run.stdout),
        format!("{passed} passed, {failed} failed"),
        "{}",
        run.output()
    );
}

#[test]
fn bless_creates_exact_sidecars_and_they_then_guard_the_fixtures() {
    let tmp = mini();
    let root = tmp.path();
    // 3 fixtures + 4 examples + 5 registry checks.
    let first = test_cmd(root, &[]);
    assert_eq!(first.code, Some(0), "{}", first.output());
    assert_summary(&first, 12, 0);
    assert!(first.stdout.contains("3 fixture(s) have no sidecar"));

    let blessed = test_cmd(root, &["--bless"]);
    assert_eq!(blessed.code, Some(0), "{}", blessed.output());
    assert!(blessed.stdout.contains("blessed 3 sidecar(s)"));
    let read = |p: &str| std::fs::read_to_string(root.join("fixtures").join(p)).unwrap();
    assert_eq!(read("expected-valid/ok.expected.yaml"), "[]\n");
    assert_eq!(
        read("expected-invalid/no-name.expected.yaml"),
        "- {rule: mcpdesc.info.name, pointer: /info, severity: error, versions: [2025-06-18, 2025-11-25]}\n"
    );
    assert_eq!(
        read("expected-warning/no-description.expected.yaml"),
        "- {rule: mcpdesc.info.description, pointer: /info, severity: warning, versions: [2025-06-18]}\n"
    );

    // A behaviour change now fails with a diff naming the rule.
    let rules = root.join("rules/info.yaml");
    let text = std::fs::read_to_string(&rules).unwrap();
    std::fs::write(
        &rules,
        text.replacen(
            "applicability: {2025-06-18: applies, 2025-11-25: applies}",
            "applicability: {2025-06-18: applies, 2025-11-25: warns}",
            1,
        ),
    )
    .unwrap();
    let changed = test_cmd(root, &[]);
    assert_eq!(changed.code, Some(1), "{}", changed.output());
    assert!(changed.stdout.contains("FAIL "), "{}", changed.stdout);
    assert!(
        changed.stdout.contains(
            "-- {rule: mcpdesc.info.name, pointer: /info, severity: error, versions: [2025-06-18, 2025-11-25]}"
        ),
        "{}",
        changed.stdout
    );
    assert!(
        changed.stdout.contains(
            "+- {rule: mcpdesc.info.name, pointer: /info, severity: error, versions: [2025-06-18]}"
        ),
        "{}",
        changed.stdout
    );
    assert!(changed.stdout.contains(
        "+- {rule: mcpdesc.info.name, pointer: /info, severity: warning, versions: [2025-11-25]}"
    ));
    assert_summary(&changed, 11, 1);
}

#[test]
fn folder_conventions_apply_without_sidecars() {
    let tmp = mini();
    let root = tmp.path();
    // A valid document filed as invalid, and an invalid one filed as valid.
    std::fs::copy(
        root.join("fixtures/expected-valid/ok.json"),
        root.join("fixtures/expected-invalid/actually-fine.json"),
    )
    .unwrap();
    std::fs::write(
        root.join("fixtures/expected-valid/broken.json"),
        r#"{"info": {"name": "a", "description": "d"}, "protocolVersions": ["#,
    )
    .unwrap();
    let run = test_cmd(root, &[]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(run
        .stdout
        .contains("expected-invalid: expected at least one error, got none"));
    assert!(run
        .stdout
        .contains("expected-valid: expected no diagnostics, but the document does not load"));
    assert_summary(&run, 12, 2);
}

#[test]
fn examples_run_for_the_fixture_directory_or_when_asked() {
    let tmp = mini();
    let root = tmp.path();
    // Break an example: the valid fixture now lacks a description.
    std::fs::write(
        root.join("fixtures/expected-valid/ok.json"),
        r#"{"info": {"name": "a"}, "protocolVersions": ["2025-11-25"]}"#,
    )
    .unwrap();
    let run = test_cmd(root, &[]);
    assert_eq!(run.code, Some(1));
    assert!(
        run.stdout
            .contains("FAIL example mcpdesc.info.description (valid) expected-valid/ok.json#/info"),
        "{}",
        run.stdout
    );
    // A single fixture is not the fixture directory: no examples unless asked.
    let one = root.join("fixtures/expected-invalid/no-name.json");
    let mut args: Vec<std::ffi::OsString> = vec!["test".into(), one.clone().into()];
    args.extend(["--rules".into(), root.join("rules").into()]);
    let alone = mcpdesc(&args);
    assert_eq!(alone.code, Some(0), "{}", alone.output());
    assert_summary(&alone, 1, 0);
    args.push("--examples".into());
    let asked = mcpdesc(&args);
    assert_eq!(asked.code, Some(1));
    assert!(asked
        .stdout
        .contains("FAIL example mcpdesc.info.description"));
}

#[test]
fn registry_checks_name_the_rule() {
    let tmp = mini();
    let root = tmp.path();
    let rules = root.join("rules/info.yaml");
    let text = std::fs::read_to_string(&rules).unwrap();
    let text = text
        .replacen("sections: [\"5.2\"]", "sections: [\"§5.2\"]", 1)
        .replacen(
            "invalid: [{fixture: expected-invalid/no-name.json, pointer: /info}]",
            "invalid: [{fixture: expected-invalid/no-name.json, pointer: /nope}]",
            1,
        );
    std::fs::write(&rules, text).unwrap();
    let run = test_cmd(root, &[]);
    assert_eq!(run.code, Some(1));
    assert!(
        run.stdout.contains("FAIL registry section-references")
            && run
                .stdout
                .contains("mcpdesc.info.description (info.yaml:24): section reference `§5.2`"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("FAIL registry example-targets-exist"));
    assert!(run.stdout.contains(
        "invalid example pointer `/nope` does not exist in expected-invalid/no-name.json"
    ));
}

#[test]
fn json_and_junit_reports() {
    let tmp = mini();
    let root = tmp.path();
    std::fs::write(
        root.join("fixtures/expected-valid/ok.expected.yaml"),
        "- {rule: mcpdesc.info.name, pointer: /info, severity: error, versions: []}\n",
    )
    .unwrap();

    let json = test_cmd(root, &["--format", "json"]);
    assert_eq!(json.code, Some(1), "{}", json.output());
    assert_eq!(last_line(&json.stderr), "11 passed, 1 failed");
    let v: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(
        (v["passed"].as_u64(), v["failed"].as_u64()),
        (Some(11), Some(1))
    );
    let fixtures = v["fixtures"].as_array().unwrap();
    assert_eq!(fixtures.len(), 3);
    let ok = fixtures
        .iter()
        .find(|f| f["path"].as_str().unwrap().ends_with("ok.json"))
        .unwrap();
    assert_eq!(ok["passed"], false);
    assert_eq!(ok["sidecarState"], "differs");
    assert_eq!(ok["expected"][0]["rule"], "mcpdesc.info.name");
    assert_eq!(ok["actual"], serde_json::json!([]));
    assert_eq!(v["examples"].as_array().unwrap().len(), 4);
    assert_eq!(v["registry"].as_array().unwrap().len(), 5);

    let junit = test_cmd(root, &["--format", "junit"]);
    assert_eq!(junit.code, Some(1));
    let x = &junit.stdout;
    assert!(x.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "));
    assert!(
        x.contains("tests=\"12\" skipped=\"0\" failures=\"1\""),
        "{x}"
    );
    assert_eq!(x.matches("<testcase ").count(), 12);
    assert_eq!(x.matches("<failure ").count(), 1);
    assert!(x.contains("name=\"unique-ids: every rule id is defined once\" classname=\"registry\""));
    assert!(x.contains("-- {rule: mcpdesc.info.name"), "{x}");
    assert_eq!(x.matches("<testsuite ").count(), 3);
    assert!(x.trim_end().ends_with("</testsuites>"));
}

#[test]
fn rule_filter_selects_fixtures_and_examples_of_one_rule() {
    let tmp = mini();
    let root = tmp.path();
    let run = test_cmd(
        root,
        &["--rule", "mcpdesc.info.description", "--format", "json"],
    );
    assert_eq!(run.code, Some(0), "{}", run.output());
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let paths: Vec<&str> = v["fixtures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths.len(), 1, "{paths:?}");
    assert!(paths[0].ends_with("expected-warning/no-description.yaml"));
    assert!(v["examples"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["rule"] == "mcpdesc.info.description"));
    assert_eq!(v["examples"].as_array().unwrap().len(), 2);

    // A sidecar that still expects a rule keeps its fixture selected.
    std::fs::write(
        root.join("fixtures/expected-valid/ok.expected.yaml"),
        "- {rule: mcpdesc.info.description, pointer: /info, severity: warning, versions: []}\n",
    )
    .unwrap();
    let run = test_cmd(root, &["--rule", "mcpdesc.info.description"]);
    assert_eq!(run.code, Some(1));
    assert!(run.stdout.contains("ok.json"), "{}", run.stdout);
}

#[test]
fn malformed_sidecars_and_usage_errors() {
    let tmp = mini();
    let root = tmp.path();
    std::fs::write(
        root.join("fixtures/expected-valid/ok.expected.yaml"),
        "- {rule: x, pointer: /info, severity: fatal}\n",
    )
    .unwrap();
    let run = test_cmd(root, &[]);
    assert_eq!(run.code, Some(1));
    assert!(
        run.stdout.contains("malformed sidecar")
            && run.stdout.contains(":1:39: unknown severity `fatal`"),
        "{}",
        run.stdout
    );
    // --bless repairs it.
    assert_eq!(test_cmd(root, &["--bless"]).code, Some(0));
    assert_eq!(test_cmd(root, &[]).code, Some(0));

    let missing = mcpdesc(["test", "no/such/dir"]);
    assert_eq!(missing.code, Some(2), "{}", missing.output());
    let no_rules = mcpdesc(["test", "--rules", "no/such/rules", "spec-fixtures"]);
    assert_eq!(no_rules.code, Some(2));
    std::fs::write(root.join("rules/broken.yaml"), "rules: [{id: 1}]\n").unwrap();
    let broken = test_cmd(root, &[]);
    assert_eq!(broken.code, Some(2), "{}", broken.output());
    assert!(broken.stderr.contains("broken.yaml"));
    assert_eq!(mcpdesc(["test", "--format", "tap", "x"]).code, Some(2));
}

/// Maps rule ids to the rule file that defines them.
fn rule_files(rules: &Path) -> BTreeMap<String, String> {
    rules_list(rules)["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap().to_owned(),
                r["source"]["file"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn test_json(rules: &Path, fixtures: &Path, extra: &[&str]) -> (Run, Value) {
    let mut args: Vec<std::ffi::OsString> = vec!["test".into(), fixtures.into()];
    args.extend([
        "--rules".into(),
        rules.into(),
        "--format".into(),
        "json".into(),
    ]);
    args.extend(extra.iter().map(Into::into));
    let run = mcpdesc(args);
    let v = serde_json::from_str(&run.stdout).unwrap_or(Value::Null);
    (run, v)
}

fn is_catalogue_file(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|t| t.lines().any(|l| l.starts_with("catalogue:")))
}

/// Removes whatever keeps the copied corpus from passing (rule files that do not load,
/// fixtures filed under the wrong verdict, rules whose examples do not hold), so that the
/// scenario below tests the runner from a passing corpus whatever state the tree is in.
fn prune_until_passing(rules: &Path, fixtures: &Path) {
    for _ in 0..8 {
        let (run, v) = test_json(rules, fixtures, &["--bless"]);
        match run.code {
            Some(0) => return,
            Some(2) => {
                // Rule files that do not load: `  FILE:LINE:COL: message`.
                let mut removed = false;
                for line in run.stderr.lines() {
                    let Some(file) = line.trim().split(':').next() else {
                        continue;
                    };
                    let path = rules.join(file);
                    if file.ends_with(".yaml") && path.is_file() && !is_catalogue_file(&path) {
                        eprintln!("pruning {file}: it does not load");
                        std::fs::remove_file(path).unwrap();
                        removed = true;
                    }
                }
                assert!(removed, "cannot load the rules: {}", run.output());
            }
            _ => {
                let files = rule_files(rules);
                for f in v["fixtures"].as_array().unwrap() {
                    if f["passed"] == false {
                        let p = Path::new(f["path"].as_str().unwrap());
                        eprintln!("pruning fixture {}", p.display());
                        let _ = std::fs::remove_file(p);
                        let _ = std::fs::remove_file(f["sidecar"].as_str().unwrap());
                    }
                }
                let mut bad_rules: BTreeSet<String> = BTreeSet::new();
                for e in v["examples"].as_array().unwrap() {
                    if e["passed"] == false {
                        bad_rules.insert(e["rule"].as_str().unwrap().to_owned());
                    }
                }
                for r in v["registry"].as_array().unwrap() {
                    for f in r["failures"].as_array().unwrap() {
                        bad_rules.insert(f["rule"].as_str().unwrap().to_owned());
                    }
                }
                for id in bad_rules {
                    let path = rules.join(&files[&id]);
                    assert!(
                        !is_catalogue_file(&path),
                        "{id} is defined with the catalogue"
                    );
                    eprintln!(
                        "pruning {}: {id} fails its examples or registry checks",
                        files[&id]
                    );
                    let _ = std::fs::remove_file(path);
                }
            }
        }
    }
    panic!("the copied corpus does not settle into a passing state");
}

/// Copy `rules/` and `spec-fixtures/`, delete one rule file: the run fails naming the rule;
/// `--bless` accepts the new behaviour and the next run passes.
#[test]
fn deleting_a_rule_file_fails_naming_the_rule_until_blessed() {
    let tmp = tempfile::tempdir().unwrap();
    let rules = tmp.path().join("rules");
    let fixtures = tmp.path().join("spec-fixtures");
    copy_dir(&workspace().join("rules"), &rules);
    copy_dir(&workspace().join("spec-fixtures"), &fixtures);
    prune_until_passing(&rules, &fixtures);

    // Pick a rule file whose removal changes some sidecar but leaves every folder verdict
    // intact (another rule, or a load failure, still makes each invalid fixture invalid).
    let (run, v) = test_json(&rules, &fixtures, &[]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    let files = rule_files(&rules);
    let mut by_file: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (id, file) in &files {
        by_file.entry(file).or_default().insert(id);
    }
    let fixtures_json = v["fixtures"].as_array().unwrap();
    let entries = |f: &Value| -> Vec<(Option<String>, Option<String>)> {
        f["actual"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["rule"].as_str().map(str::to_owned),
                    e["severity"].as_str().map(str::to_owned),
                )
            })
            .collect()
    };
    let candidate = by_file.iter().find(|(file, ids)| {
        if is_catalogue_file(&rules.join(file)) {
            return false;
        }
        let survives = |rule: &Option<String>| rule.as_deref().is_none_or(|r| !ids.contains(r));
        let mentioned = fixtures_json.iter().any(|f| {
            entries(f)
                .iter()
                .any(|(r, _)| r.as_deref().is_some_and(|r| ids.contains(r)))
        });
        mentioned
            && fixtures_json.iter().all(|f| {
                let es = entries(f);
                match f["folder"].as_str() {
                    Some("expected-invalid") => es
                        .iter()
                        .any(|(r, s)| survives(r) && s.as_deref().is_none_or(|s| s == "error")),
                    Some("expected-warning") => es
                        .iter()
                        .any(|(r, s)| survives(r) && s.as_deref() == Some("warning")),
                    _ => true,
                }
            })
    });
    let Some((file, ids)) = candidate else {
        panic!("no rule file can be removed without changing a folder verdict");
    };

    eprintln!("removing {file}, which defines {ids:?}");
    std::fs::remove_file(rules.join(file)).unwrap();
    let mut args: Vec<std::ffi::OsString> = vec!["test".into(), fixtures.clone().into()];
    args.extend(["--rules".into(), rules.clone().into()]);
    let failing = mcpdesc(&args);
    assert_eq!(failing.code, Some(1), "{}", failing.output());
    assert!(
        ids.iter().any(|id| failing.stdout.contains(id)),
        "the output names none of {ids:?} from {file}:\n{}",
        failing.stdout
    );
    assert!(failing.stdout.contains("FAIL "));

    let mut bless = args.clone();
    bless.push("--bless".into());
    let blessed = mcpdesc(&bless);
    assert_eq!(blessed.code, Some(0), "{}", blessed.output());
    let again = mcpdesc(&args);
    assert_eq!(again.code, Some(0), "{}", again.output());
    assert!(last_line(&again.stdout).ends_with(" passed, 0 failed"));
}

#[test]
fn limit_flags_apply_to_test_and_diff() {
    let tmp = mini();
    let root = tmp.path();
    let run = test_cmd(root, &["--max-nodes", "3"]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(run.output().contains("max-nodes"), "{}", run.output());
    let roomy = test_cmd(root, &["--max-nodes", "1000"]);
    assert_eq!(roomy.code, Some(0), "{}", roomy.output());

    // Without the info rules the old catalogue's findings disappear, unless no document
    // loads at all under the limit.
    let new_rules = root.join("new-rules");
    std::fs::create_dir_all(&new_rules).unwrap();
    std::fs::copy(
        root.join("rules/catalogue.yaml"),
        new_rules.join("catalogue.yaml"),
    )
    .unwrap();
    let diff = |extra: &[&str]| {
        let mut args: Vec<std::ffi::OsString> = vec![
            "diff".into(),
            "--base-rules".into(),
            root.join("rules").into(),
            "--rules".into(),
            new_rules.clone().into(),
            root.join("fixtures").into(),
            "--format".into(),
            "json".into(),
        ];
        args.extend(extra.iter().map(Into::into));
        let run = mcpdesc(args);
        assert_eq!(run.code, Some(0), "{}", run.output());
        serde_json::from_str::<Value>(&run.stdout).unwrap()
    };
    let unlimited = diff(&[]);
    let limited = diff(&["--max-nodes", "3"]);
    let affected = |v: &Value| v["affected"].as_array().map_or(0, Vec::len);
    assert!(affected(&unlimited) > 0, "{unlimited}");
    assert_eq!(affected(&limited), 0, "{limited}");
}
