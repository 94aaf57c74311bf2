//! The two walk-throughs of `docs/rule-format.md` (a new MCP revision; a release that amends
//! two rules), loaded from the page itself: each YAML block marked
//! `<!-- walk-through: NAME FILE -->` is appended to FILE of release NAME, and the release must
//! then load and behave as the page says.

use std::collections::BTreeMap;
use std::path::PathBuf;

use mcpdesc_core::{Diagnostic, Engine, Format};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// NAME → FILE → text, from the marked blocks of the page.
fn walk_throughs() -> BTreeMap<String, BTreeMap<String, String>> {
    let page = std::fs::read_to_string(workspace().join("docs/rule-format.md")).unwrap();
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut lines = page.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line
            .strip_prefix("<!-- walk-through: ")
            .and_then(|r| r.strip_suffix(" -->"))
        else {
            continue;
        };
        let (name, file) = rest.split_once(' ').expect("NAME FILE");
        assert_eq!(lines.next(), Some("```yaml"), "a YAML block follows {line}");
        let text = out
            .entry(name.to_owned())
            .or_default()
            .entry(file.to_owned())
            .or_default();
        for l in lines.by_ref().take_while(|l| *l != "```") {
            text.push_str(l);
            text.push('\n');
        }
    }
    out
}

fn write_release(name: &str) -> (tempfile::TempDir, PathBuf, usize) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(name);
    let mut lines = 0;
    for (file, text) in &walk_throughs()[name] {
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        lines += text.lines().filter(|l| !l.trim().is_empty()).count();
    }
    (tmp, dir, lines)
}

fn findings(engine: &Engine, doc: &str) -> Vec<Diagnostic> {
    engine.validate_str(doc, Format::Json).diagnostics
}

fn of<'a>(ds: &'a [Diagnostic], rule: &str) -> Vec<&'a Diagnostic> {
    ds.iter().filter(|d| d.rule == rule).collect()
}

#[test]
fn the_page_holds_both_walk_throughs() {
    let all = walk_throughs();
    assert_eq!(
        all.keys().collect::<Vec<_>>(),
        ["amend-two", "new-revision"],
        "{all:#?}"
    );
}

#[test]
fn a_new_revision_needs_its_schema_file_and_then_behaves_as_the_page_says() {
    let (_tmp, dir, lines) = write_release("new-revision");
    assert!(lines <= 40, "{lines} lines of YAML");

    // Without the protocol schema of the new revision, loading says where and what.
    let Err(err) = Engine::from_dirs(std::slice::from_ref(&dir)) else {
        panic!("no schema file: a load error");
    };
    let err = err.to_string();
    for needle in [
        "catalogue.yaml:6:7: rule `mcp.wire.message-schema`",
        "catalogue.yaml:6:7: rule `mcp.wire.result-schema`",
        "no schema file `schemas/mcp/2026-12-15.json` for protocol version `2026-12-15`",
    ] {
        assert!(err.contains(needle), "no {needle:?} in\n{err}");
    }
    let page = std::fs::read_to_string(workspace().join("docs/rule-format.md")).unwrap();
    let first = err
        .lines()
        .find(|l| l.contains("mcp.wire.message-schema"))
        .unwrap();
    assert!(
        page.contains(first),
        "the page shows the error as it is:\n{first}"
    );

    let schemas = dir.join("schemas/mcp");
    std::fs::create_dir_all(&schemas).unwrap();
    std::fs::copy(
        workspace().join("rules/schemas/mcp/2026-07-28.json"),
        schemas.join("2026-12-15.json"),
    )
    .unwrap();
    let engine = Engine::from_dirs(std::slice::from_ref(&dir)).expect("the release loads");
    let releases: Vec<String> = engine
        .releases()
        .versions()
        .iter()
        .map(|v| v.to_string())
        .collect();
    assert_eq!(releases, ["0.8.0", "0.8.1"]);

    let doc = |spec: &str| {
        format!(
            r#"{{"mcpdesc": "{spec}", "info": {{"name": "w", "version": "1.0.0"}},
               "protocolVersions": ["2026-07-28", "2026-12-15"],
               "capabilities": [{{"logging": {{}}}}]}}"#
        )
    };
    // 0.8.0 documents are still judged by 0.8.0, which does not know the revision.
    let old = findings(&engine, &doc("0.8.0"));
    assert!(
        old.iter().any(|d| d.message.contains("2026-12-15")),
        "{old:#?}"
    );
    // 0.8.1 knows it, and the amended rule holds for 2026-07-28 alone.
    let new = findings(&engine, &doc("0.8.1"));
    let logging = of(&new, "mcp.capabilities.logging-deprecated");
    assert_eq!(logging.len(), 1, "{new:#?}");
    assert_eq!(logging[0].versions, ["2026-07-28"]);
    assert!(
        new.iter()
            .filter(|d| d.rule != "mcp.capabilities.logging-deprecated")
            .all(|d| d.versions.iter().all(|v| v != "2026-07-28")
                || d.versions.iter().any(|v| v == "2026-12-15")),
        "every other finding holds for both revisions: {new:#?}"
    );
    let cat = engine
        .releases()
        .for_spec_version("0.8.1")
        .expect("0.8.1 is served");
    let rule = cat.rule("mcp.capabilities.logging-deprecated").unwrap();
    assert_eq!(
        rule.def.title,
        "Avoid the logging capability for MCP 2026-07-28"
    );
    assert_eq!(rule.history.changes.len(), 1);
    assert_eq!(rule.history.changes[0].kind.as_str(), "amended");
    assert!(
        page.contains(&format!(
            "amended in 0.8.1 (catalogue.yaml:{}): MCP 2026-12-15 brings server logging back",
            rule.history.changes[0].source.line
        )),
        "the page shows the history line as `rules show` prints it"
    );
}

#[test]
fn a_release_amending_two_rules_changes_those_and_nothing_else() {
    let (_tmp, dir, lines) = write_release("amend-two");
    assert!(lines <= 20, "{lines} lines of YAML");
    let engine = Engine::from_dirs(std::slice::from_ref(&dir)).expect("the release loads");
    let doc = |spec: &str| {
        format!(
            r#"{{"mcpdesc": "{spec}", "info": {{"name": "w", "version": "1.0.0"}},
               "protocolVersions": ["2025-03-26"],
               "tags": [{{"name": "search"}}, {{"name": "search"}}],
               "resources": [{{"name": "readme", "uri": "readme.md"}}]}}"#
        )
    };
    let old = findings(&engine, &doc("0.8.0"));
    let new = findings(&engine, &doc("0.8.2"));

    let uri = |ds: &[Diagnostic]| -> Vec<String> {
        of(ds, "mcpdesc.resource.uri-valid")
            .iter()
            .map(|d| d.severity.as_str().to_owned())
            .collect()
    };
    assert_eq!(uri(&old), ["warning"], "{old:#?}");
    assert_eq!(uri(&new), ["error"], "a `must` reports errors: {new:#?}");
    assert_eq!(of(&old, "mcpdesc.tags.unique-names").len(), 1, "{old:#?}");
    assert_eq!(
        of(&new, "mcpdesc.tags.unique-names").len(),
        0,
        "not applicable before 2025-06-18: {new:#?}"
    );
    // Every other finding is the same.
    let rest = |ds: &[Diagnostic]| -> Vec<(String, String, String)> {
        ds.iter()
            .filter(|d| {
                d.rule != "mcpdesc.resource.uri-valid" && d.rule != "mcpdesc.tags.unique-names"
            })
            .map(|d| {
                (
                    d.rule.clone(),
                    d.pointer.clone(),
                    d.message.replace("0.8.2", "0.8.0"),
                )
            })
            .collect()
    };
    assert_eq!(rest(&old), rest(&new));

    let cat = engine.releases().for_spec_version("0.8.2").unwrap();
    let tags = cat.rule("mcpdesc.tags.unique-names").unwrap();
    let table: Vec<(&str, &str)> = tags
        .applicability
        .iter()
        .map(|(v, a)| (v.as_str(), a.as_str()))
        .collect();
    assert_eq!(
        table,
        [
            ("2024-11-05", "not-applicable"),
            ("2025-03-26", "not-applicable"),
            ("2025-06-18", "applies"),
            ("2025-11-25", "applies"),
            ("2026-07-28", "applies"),
        ]
    );
    let uri_rule = cat.rule("mcpdesc.resource.uri-valid").unwrap();
    assert_eq!(
        uri_rule.def.requirement,
        "A Resource's `uri` is an absolute URI."
    );
    let base = engine.releases().for_spec_version("0.8.0").unwrap();
    let was = base.rule("mcpdesc.resource.uri-valid").unwrap();
    assert_eq!(
        uri_rule.def.description, was.def.description,
        "the rest is kept"
    );
    assert_eq!(uri_rule.def.given, was.def.given);
    assert_eq!(uri_rule.def.then, was.def.then);
}
