//! `mcpdesc diff`: two rule directories that differ in one rule; the report names exactly
//! the rule change, the affected documents and the diagnostics that appeared or vanished.

mod support;

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;
use support::{copy_dir, documents, mcpdesc, rules_list, workspace};

const RULE: &str = "mcpdesc.info.required-fields";

/// Rewrites the first `level: must` of rule `id` in `dir` to `level: should`.
fn relax(dir: &Path, id: &str) {
    let list = rules_list(dir);
    let r = list["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no rule {id}"));
    assert_eq!(r["level"], "must");
    let file = dir.join(r["source"]["file"].as_str().unwrap());
    let text = std::fs::read_to_string(&file).unwrap();
    let start = text.find(&format!("id: {id}\n")).unwrap();
    let at = start + text[start..].find("level: must").unwrap();
    let changed = format!("{}level: should{}", &text[..at], &text[at + 11..]);
    std::fs::write(file, changed).unwrap();
}

/// (document, pointer, severity) of every diagnostic of `rule` under `rules`.
fn diagnostics(
    rules: &Path,
    docs: &[std::path::PathBuf],
    rule: &str,
) -> Vec<(String, String, String)> {
    let mut args: Vec<std::ffi::OsString> = vec![
        "validate".into(),
        "--format".into(),
        "json".into(),
        "--rules".into(),
        rules.into(),
    ];
    args.extend(docs.iter().map(|d| d.clone().into_os_string()));
    let run = mcpdesc(&args);
    assert!(run.code.is_some_and(|c| c < 2), "{}", run.output());
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let mut out = Vec::new();
    for f in v["files"].as_array().unwrap() {
        for d in f["diagnostics"].as_array().unwrap() {
            if d["rule"] == rule {
                out.push((
                    f["path"].as_str().unwrap().to_owned(),
                    d["pointer"].as_str().unwrap().to_owned(),
                    d["severity"].as_str().unwrap().to_owned(),
                ));
            }
        }
    }
    out
}

#[test]
fn a_level_change_reports_exactly_the_affected_documents_and_diagnostics() {
    let tmp = tempfile::tempdir().unwrap();
    let (old, new) = (tmp.path().join("old"), tmp.path().join("new"));
    copy_dir(&workspace().join("rules"), &old);
    copy_dir(&workspace().join("rules"), &new);
    relax(&new, RULE);
    let corpus = workspace().join("spec-fixtures");
    let docs = documents(&corpus);

    let before = diagnostics(&old, &docs, RULE);
    assert!(!before.is_empty(), "no fixture exercises {RULE}");
    assert!(before.iter().all(|(_, _, s)| s == "error"));
    let expected_docs: BTreeSet<String> = before.iter().map(|(d, _, _)| d.clone()).collect();

    let mut args: Vec<std::ffi::OsString> =
        vec!["diff".into(), "--base-rules".into(), old.clone().into()];
    args.extend([
        "--rules".into(),
        new.clone().into(),
        "--format".into(),
        "json".into(),
    ]);
    args.push(corpus.clone().into());
    let run = mcpdesc(&args);
    assert_eq!(run.code, Some(0), "{}", run.output());
    let v: Value = serde_json::from_str(&run.stdout).unwrap();

    // The catalogue diff: one rule changed, its level and effective severity.
    let ch = &v["changes"];
    assert_eq!(ch["added"], serde_json::json!([]));
    assert_eq!(ch["removed"], serde_json::json!([]));
    assert_eq!(ch["catalogue"], serde_json::json!([]));
    let changed = ch["changed"].as_array().unwrap();
    assert_eq!(changed.len(), 1, "{ch}");
    assert_eq!(changed[0]["id"], RULE);
    assert_eq!(
        changed[0]["fields"],
        serde_json::json!([
            {"field": "level", "old": "must", "new": "should"},
            {"field": "effective severity", "old": "error", "new": "warning"},
        ])
    );

    // Exactly the documents with a diagnostic of that rule, nothing else.
    assert_eq!(v["documents"].as_u64().unwrap() as usize, docs.len());
    let affected = v["affected"].as_array().unwrap();
    let names: BTreeSet<String> = affected
        .iter()
        .map(|d| d["document"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, expected_docs);
    let mut vanished = Vec::new();
    let mut appeared = Vec::new();
    for d in affected {
        let doc = d["document"].as_str().unwrap().to_owned();
        for x in d["vanished"].as_array().unwrap() {
            assert_eq!(x["rule"], RULE);
            vanished.push((
                doc.clone(),
                x["pointer"].as_str().unwrap().to_owned(),
                x["severity"].as_str().unwrap().to_owned(),
            ));
        }
        for x in d["appeared"].as_array().unwrap() {
            assert_eq!(x["rule"], RULE);
            appeared.push((
                doc.clone(),
                x["pointer"].as_str().unwrap().to_owned(),
                x["severity"].as_str().unwrap().to_owned(),
            ));
        }
        // A document whose only errors were this rule's is now only warned about.
        let errors_left = has_other_errors(&old, Path::new(&doc), RULE);
        let expected_after = if errors_left { "invalid" } else { "warning" };
        assert_eq!(d["oldVerdict"], "invalid");
        assert_eq!(d["newVerdict"], expected_after, "{doc}");
    }
    vanished.sort();
    appeared.sort();
    let mut expected_vanished = before.clone();
    expected_vanished.sort();
    assert_eq!(vanished, expected_vanished);
    let expected_appeared: Vec<_> = expected_vanished
        .iter()
        .map(|(d, p, _)| (d.clone(), p.clone(), "warning".to_owned()))
        .collect();
    assert_eq!(appeared, expected_appeared);

    // The same diagnostics, grouped by rule.
    let by_rule = v["byRule"].as_object().unwrap();
    assert_eq!(by_rule.keys().collect::<Vec<_>>(), vec![RULE]);
    assert_eq!(
        by_rule[RULE]["vanished"].as_array().unwrap().len(),
        before.len()
    );
    assert_eq!(
        by_rule[RULE]["appeared"].as_array().unwrap().len(),
        before.len()
    );
    let verdicts = v["verdictChanges"].as_array().unwrap();
    assert!(verdicts
        .iter()
        .all(|d| d["old"] == "invalid" && d["new"] == "warning"));

    // The Markdown report says the same for a pull request.
    args.truncate(args.len() - 3);
    args.push(corpus.into());
    let md = mcpdesc(&args);
    assert_eq!(md.code, Some(0), "{}", md.output());
    let text = md.stdout;
    assert!(text.contains(&format!("#### `{RULE}`\n")));
    assert!(text.contains("| `level` | must | should |"), "{text}");
    assert!(text.contains(&format!(
        "#### `{RULE}` (+{} −{})",
        before.len(),
        before.len()
    )));
    assert!(text.contains("### Documents whose verdict changed"));
}

/// Whether `doc` has an error of some rule other than `rule` under `rules` (or fails to load).
fn has_other_errors(rules: &Path, doc: &Path, rule: &str) -> bool {
    let mut args: Vec<std::ffi::OsString> = vec![
        "validate".into(),
        "--format".into(),
        "json".into(),
        "--rules".into(),
        rules.into(),
    ];
    args.push(doc.into());
    let run = mcpdesc(&args);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let f = &v["files"][0];
    f.get("loadError").is_some()
        || f["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["rule"] != rule && d["severity"] == "error")
}

#[test]
fn identical_catalogues_report_nothing() {
    let run = mcpdesc([
        "diff",
        "--base-rules",
        "rules",
        "--rules",
        "rules",
        "spec-fixtures",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert!(run
        .stdout
        .contains("No rule changes and no change in any document."));
    assert_eq!(
        mcpdesc(["diff", "--base-rules", "no/such/dir", "spec-fixtures"]).code,
        Some(2)
    );
}
