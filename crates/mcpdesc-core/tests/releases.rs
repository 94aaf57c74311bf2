//! Releases side by side: a document is judged by the release it declares, a release that
//! extends another changes only what it says, and broken extension data is reported with
//! its position before any document is read.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use mcpdesc_core::internal::rules::releases::ChangeKind;
use mcpdesc_core::{Document, Engine, Format, RuleSet};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fictional() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/releases/fictional")
}

const FICTIONAL: &str = "0.9.0-fictional.1";

/// The shipped rules and the fictional release, loaded together.
fn engine() -> Engine {
    Engine::from_dirs(&[workspace().join("rules"), fictional()]).expect("both releases load")
}

fn doc(spec: &str, info: &str) -> String {
    format!(
        r#"{{"mcpdesc": "{spec}", "info": {info}, "protocolVersions": ["2025-06-18", "2025-11-25"]}}"#
    )
}

fn versions(engine: &Engine) -> Vec<String> {
    engine
        .releases()
        .versions()
        .iter()
        .map(|v| v.to_string())
        .collect()
}

const NO_DESCRIPTION: &str = r#"{"name": "weather", "version": "1.2.0"}"#;

fn rules_of(engine: &Engine, text: &str) -> Vec<String> {
    engine
        .validate_str(text, Format::Json)
        .diagnostics
        .iter()
        .map(|d| d.rule.clone())
        .collect()
}

#[test]
fn each_document_is_judged_by_the_release_it_declares() {
    let engine = engine();
    assert_eq!(versions(&engine), ["0.8.0", FICTIONAL]);
    assert_eq!(engine.catalogue().release.version.to_string(), "0.8.0");

    let old = doc("0.8.0", NO_DESCRIPTION);
    let new = doc(FICTIONAL, NO_DESCRIPTION);
    let value: serde_json::Value = serde_json::from_str(&new).unwrap();
    assert_eq!(
        engine
            .catalogue_for(Document::from_value(&value).root())
            .release
            .version
            .to_string(),
        FICTIONAL
    );
    assert_eq!(
        rules_of(&engine, &old),
        Vec::<String>::new(),
        "0.8.0 needs no description"
    );
    assert_eq!(
        rules_of(&engine, &new),
        ["mcpdesc.info.description-required"]
    );
    // A range serves later versions of the fictional line too.
    assert_eq!(
        rules_of(&engine, &doc("0.9.3", NO_DESCRIPTION)),
        ["mcpdesc.info.description-required"]
    );
}

#[test]
fn a_version_no_release_serves_gets_one_diagnostic_listing_the_supported_ones() {
    let report = engine().validate_str(&doc("0.7.0", NO_DESCRIPTION), Format::Json);
    assert_eq!(report.diagnostics.len(), 1, "{:?}", report.diagnostics);
    let d = &report.diagnostics[0];
    assert_eq!(d.rule, "mcpdesc.version.mcpdesc-value");
    assert_eq!(d.pointer, "/mcpdesc");
    assert!(
        d.message.contains("0.8.0, (>=0.9.0-fictional.1, <0.10.0)"),
        "{}",
        d.message
    );
}

#[test]
fn the_override_judges_every_document_by_one_release() {
    let new = doc(FICTIONAL, NO_DESCRIPTION);
    let as_old = engine().with_spec_version(Some("0.8.0")).unwrap();
    assert_eq!(rules_of(&as_old, &new), Vec::<String>::new());
    let old = doc("0.8.0", NO_DESCRIPTION);
    let as_new = engine().with_spec_version(Some(FICTIONAL)).unwrap();
    assert_eq!(
        rules_of(&as_new, &old),
        ["mcpdesc.info.description-required"]
    );
    // A version no release serves is still reported under the override.
    assert_eq!(
        rules_of(
            &as_new,
            &doc(
                "0.7.0",
                r#"{"name": "w", "version": "1.0.0", "description": "d"}"#
            )
        ),
        ["mcpdesc.version.mcpdesc-value"]
    );
    let err = engine().with_spec_version(Some("0.7.0")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "no catalogue serves specification version `0.7.0`; supported: 0.8.0, (>=0.9.0-fictional.1, <0.10.0)"
    );
}

#[test]
fn an_extension_changes_only_what_it_says_and_shares_the_rest() {
    let engine = engine();
    let set = engine.releases();
    let (base, ext) = (&set.releases()[0], &set.releases()[1]);
    assert_eq!(ext.release.extends.as_ref().unwrap().to_string(), "0.8.0");
    assert_eq!(ext.rules.len(), base.rules.len(), "one added, one retired");
    let id = |r: &Arc<mcpdesc_core::Rule>| r.id().to_owned();
    let base_ids: Vec<String> = base.rules.iter().map(id).collect();
    let ext_ids: Vec<String> = ext.rules.iter().map(id).collect();
    assert!(!ext_ids.contains(&"mcpdesc.tags.reference-declared".to_owned()));
    assert!(!base_ids.contains(&"mcpdesc.info.description-required".to_owned()));
    let mut unchanged = 0;
    for r in &base.rules {
        let Some(e) = ext.rules.iter().find(|e| e.id() == r.id()) else {
            continue;
        };
        match r.id() {
            "mcpdesc.info.version-semver" => {
                assert_eq!(e.history.changes.len(), 1);
                assert_eq!(e.history.changes[0].kind, ChangeKind::Replaced);
                assert_eq!(e.history.since.to_string(), "0.8.0");
                assert_eq!(e.history.defined_in.to_string(), FICTIONAL);
                assert_eq!(e.severity, mcpdesc_core::Severity::Error);
                assert_eq!(r.severity, mcpdesc_core::Severity::Warning);
            }
            "mcpdesc.tags.unique-names" => {
                assert_eq!(e.history.changes[0].kind, ChangeKind::Applicability);
                assert_eq!(e.history.defined_in.to_string(), "0.8.0");
                assert_eq!(e.def.message, r.def.message);
                assert_ne!(e.evaluated, r.evaluated);
            }
            _ => {
                // Inherited rules are the base's compiled rules, not copies.
                assert!(Arc::ptr_eq(r, e), "{} was copied", r.id());
                unchanged += 1;
            }
        }
    }
    assert_eq!(unchanged, base.rules.len() - 3);
    let added = ext
        .rules
        .iter()
        .find(|r| r.id() == "mcpdesc.info.description-required");
    assert_eq!(added.unwrap().history.since.to_string(), FICTIONAL);
    assert_eq!(ext.retired.len(), 1);
    assert_eq!(ext.retired[0].rule.id(), "mcpdesc.tags.reference-declared");
    assert_eq!(ext.retired[0].release.to_string(), FICTIONAL);
}

#[test]
fn the_fictional_release_extends_the_embedded_base_on_its_own() {
    let alone = Engine::from_dir(fictional()).expect("the base comes from the embedded rules");
    assert_eq!(versions(&alone), ["0.8.0", FICTIONAL]);
}

/// The problems of a rules directory made of `files`, as `file:line:column: message`.
fn problems(files: &[(&str, &str)]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    problems_in(dir.path())
}

fn problems_in(dir: &Path) -> Vec<String> {
    let set = RuleSet::from_dir(dir).expect("readable");
    match set.compile() {
        Ok(_) => Vec::new(),
        Err(e) => e.problems.iter().map(|p| p.to_string()).collect(),
    }
}

const RELEASE: &str = "catalogue:\n  release: 0.9.0\n  extends: 0.8.0\n";

#[test]
fn broken_extension_data_is_reported_where_it_is_written() {
    let changes = "\
replace:
  - reason: no such rule
    rule:
      id: mcpdesc.nothing.here
      title: t
      description: d
      requirement: r
      owner: mcpdesc
      surface: {text: Info Object}
      path: info
      kind: structural
      level: must
      status: internal
      enforcement: internal
      applicability: {2024-11-05: applies, 2025-03-26: applies, 2025-06-18: applies, 2025-11-25: applies, 2026-07-28: applies}
      required-by: {spec: MCP Description 0.9.0, sections: [\"5\"]}
      based-on: {tier: 2, label: l, detail: d}
      examples: {}
      given: [\"$.info\"]
      then: [{check: type, is: object}]
      message: m
retire:
  - id: mcpdesc.tags.no-such-rule
    reason: gone
  - id: mcpdesc.info.closed
    reason: \"\"
applicability:
  - id: mcpdesc.tags.unique-names
    reason: narrower
    applicability: {2024-11-05: applies, 2099-01-01: applies}
  - id: mcpdesc.info.closed
    reason: twice
    applicability: {2024-11-05: applies, 2025-03-26: applies, 2025-06-18: applies, 2025-11-25: applies, 2026-07-28: applies}
";
    assert_eq!(
        problems(&[("catalogue.yaml", RELEASE), ("changes.yaml", changes)]),
        [
            "changes.yaml:4:11: cannot replace rule `mcpdesc.nothing.here`: release 0.8.0 has no such rule",
            "changes.yaml:23:9: cannot retire rule `mcpdesc.tags.no-such-rule`: release 0.8.0 has no such rule",
            "changes.yaml:26:13: say why in `reason`",
            "changes.yaml:30:20: the applicability table does not name 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28; name them, or give a `default` or a `since`/`until` range",
            "changes.yaml:30:54: unknown protocol version `2099-01-01`; the catalogue has 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28",
            "changes.yaml:31:9: rule `mcpdesc.info.closed` is already changed by this release at changes.yaml:25:9",
        ]
    );
}

#[test]
fn adding_a_rule_the_base_has_is_a_problem() {
    let base = workspace().join("rules/info.yaml");
    let text = std::fs::read_to_string(base).unwrap();
    // The first rule of info.yaml, added again.
    let first = text.split("\n\n").next().unwrap();
    assert_eq!(
        problems(&[("catalogue.yaml", RELEASE), ("info.yaml", first)]),
        ["info.yaml:2:9: rule `mcpdesc.info.required-fields` is a rule of release 0.8.0; change it with `replace` or `applicability`"]
    );
}

#[test]
fn unknown_bases_and_cycles_are_reported_at_extends() {
    assert_eq!(
        problems(&[(
            "catalogue.yaml",
            "catalogue:\n  release: 0.9.0\n  extends: 0.5.0\n"
        )]),
        ["catalogue.yaml:3:12: extends release 0.5.0, which is not loaded; releases: 0.9.0"]
    );
    let cycle = problems(&[
        (
            "a/catalogue.yaml",
            "catalogue:\n  release: 1.0.0\n  extends: 2.0.0\n",
        ),
        (
            "b/catalogue.yaml",
            "catalogue:\n  release: 2.0.0\n  extends: 1.0.0\n",
        ),
    ]);
    assert_eq!(
        cycle,
        [
            "a/catalogue.yaml:3:12: releases extend each other in a cycle: 1.0.0 → 2.0.0 → 1.0.0",
            "b/catalogue.yaml:3:12: releases extend each other in a cycle: 2.0.0 → 1.0.0 → 2.0.0",
        ]
    );
}

#[test]
fn release_identity_problems_are_positioned() {
    assert_eq!(
        problems(&[
            (
                "catalogue.yaml",
                "catalogue:\n  release: 0.9.0\n  extends: 0.8.0\n"
            ),
            (
                "again/catalogue.yaml",
                "catalogue:\n  release: 0.9.0\n  extends: 0.8.0\n"
            ),
        ]),
        ["catalogue.yaml:1:1: release 0.9.0 is defined twice; first in again/catalogue.yaml"]
    );
    assert_eq!(
        problems(&[(
            "catalogue.yaml",
            "catalogue:\n  release: 0.8.0-old\n  extends: 0.8.0\n"
        )]),
        ["catalogue.yaml:2:12: release 0.8.0-old extends release 0.8.0, which is not older"]
    );
    assert_eq!(
        problems(&[(
            "catalogue.yaml",
            "catalogue:\n  release: 0.9.0\n  extends: 0.8.0\n  spec-versions: [\">=0.9\", \"zero\"]\n"
        )]),
        ["catalogue.yaml:4:28: `zero` is neither a semantic version nor a version range: unexpected character 'z' while parsing major version number"]
    );
}

#[test]
fn a_whole_catalogue_cannot_replace_or_retire() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("rules");
    copy_dir(&workspace().join("rules"), &rules);
    std::fs::write(
        rules.join("extra.yaml"),
        "retire:\n  - id: mcpdesc.info.closed\n    reason: gone\n",
    )
    .unwrap();
    assert_eq!(
        problems_in(&rules),
        ["extra.yaml:1:1: `retire` changes a rule of the release this one extends, and this release extends none (`catalogue.extends`)"]
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn one_directory_holds_several_releases() {
    // As the embedded rules directory would: a release in a subdirectory of another's.
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("rules");
    copy_dir(&workspace().join("rules"), &rules);
    copy_dir(&fictional(), &rules.join("releases/fictional"));
    let engine = Engine::from_dir(&rules).expect("both releases load");
    assert_eq!(versions(&engine), ["0.8.0", FICTIONAL]);
    let base = &engine.releases().releases()[0];
    assert!(
        base.rule("mcpdesc.info.description-required").is_none(),
        "the subdirectory's files belong to its own release"
    );
    assert_eq!(
        rules_of(&engine, &doc(FICTIONAL, NO_DESCRIPTION)),
        ["mcpdesc.info.description-required"]
    );
}
