//! `mcpdesc docs`: pages generated from the rule files, and the check of the committed ones.

mod support;

use std::path::Path;

use serde_json::Value;
use support::{copy_dir, mcpdesc, mcpdesc_in, rules_list, workspace};

#[test]
fn committed_rule_pages_are_current() {
    let run = mcpdesc(["docs", "--rules", "rules", "--out", "docs/rules", "--check"]);
    assert_eq!(
        run.code,
        Some(0),
        "docs/rules is not current; run `mcpdesc docs --rules rules`:\n{}",
        run.output()
    );
}

/// Generates pages for a copy of the workspace rules and fixtures, laid out as in the
/// repository, and returns (temp dir, workspace-relative root of the copy).
fn generate_copy() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&workspace().join("rules"), &tmp.path().join("rules"));
    copy_dir(
        &workspace().join("spec-fixtures"),
        &tmp.path().join("spec-fixtures"),
    );
    let run = mcpdesc_in(tmp.path(), ["docs", "--rules", "rules"]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    tmp
}

fn rule(id: &str) -> Value {
    rules_list(&workspace().join("rules"))["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no rule {id}"))
        .clone()
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The node an example points at, read as the engine reads the fixture (a capture is the
/// document of its messages).
fn selected_json(fixture: &Path, pointer: &str) -> String {
    use mcpdesc_core::{Document, Format, Limits};
    let bytes = std::fs::read(fixture).unwrap();
    let format = Format::from_path(&fixture.to_string_lossy());
    let doc = Document::parse(&bytes, format, &Limits::default()).unwrap();
    serde_json::to_string_pretty(doc.value().pointer(pointer).unwrap()).unwrap()
}

#[test]
fn elicitation_protocol_version_page_has_every_section_from_the_rule_file() {
    let tmp = generate_copy();
    let id = "mcp.elicitation.protocol-version";
    let r = rule(id);
    let page = std::fs::read_to_string(tmp.path().join(format!("docs/rules/mcp/{id}.md"))).unwrap();

    // The sections of the reference page, in order.
    let headings = [
        "## Requirement",
        "## Details",
        "## Protocol version applicability",
        "## Required by",
        "## Based on",
        "## Examples",
        "## Rule source",
    ];
    let mut at = 0;
    for h in headings {
        let found = page[at..]
            .find(&format!("\n{h}\n"))
            .unwrap_or_else(|| panic!("missing or out of order: {h}\n{page}"));
        at += found + 1;
    }

    let text = |k: &str| one_line(r[k].as_str().unwrap());
    assert!(page.contains(&format!(
        "title: {}",
        serde_json::to_string(&text("title")).unwrap()
    )));
    assert!(page.contains(&format!("# {}\n", text("title"))));
    assert!(page.contains(&text("description")));
    assert!(page.contains(&text("requirement")));

    for line in [
        format!("**Rule ID:** `{id}`"),
        format!("**Owner:** {}", r["owner"].as_str().unwrap()),
        format!(
            "**Surface:** {} · **Path:** `{}`",
            text("surface"),
            text("path")
        ),
        format!("**Kind:** {}", text("kind")),
        format!("**Requirement level:** {}", text("level")),
        format!(
            "**Status:** {} · **Enforcement:** {}",
            text("status"),
            text("enforcement")
        ),
    ] {
        assert!(page.contains(&line), "missing `{line}`\n{page}");
    }

    // One column per protocol version, each cell from the applicability table.
    let table: Vec<&str> = page
        .lines()
        .skip_while(|l| *l != "## Protocol version applicability")
        .filter(|l| l.starts_with('|'))
        .take(3)
        .collect();
    let cells = |l: &str| -> Vec<String> {
        l.trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_owned())
            .collect()
    };
    let app = r["applicability"].as_object().unwrap();
    assert_eq!(cells(table[0]), app.keys().cloned().collect::<Vec<_>>());
    assert_eq!(
        cells(table[2]),
        app.values()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    );

    let rb = &r["required-by"];
    assert!(page.contains(rb["spec"].as_str().unwrap()));
    for s in rb["sections"].as_array().unwrap() {
        assert!(page.contains(s.as_str().unwrap()));
    }
    for req in rb["requirements"].as_array().unwrap() {
        assert!(page.contains(req["anchor"].as_str().unwrap()));
        if let Some(url) = req["url"].as_str() {
            assert!(page.contains(&format!("]({url})")));
        }
    }
    let b = &r["based-on"];
    assert!(page.contains(&format!(
        "**Tier {} — {}:** {}",
        b["tier"],
        one_line(b["label"].as_str().unwrap()),
        one_line(b["detail"].as_str().unwrap())
    )));
    for s in b["sources"].as_array().unwrap() {
        assert!(page.contains(&format!(
            "[{}]({})",
            s["text"].as_str().unwrap(),
            s["url"].as_str().unwrap()
        )));
    }
    for n in r["notes"].as_array().into_iter().flatten() {
        assert!(page.contains(n.as_str().unwrap().trim()));
    }

    // Every example: its fixture, its pointer and the selected JSON, pretty-printed.
    let fixtures = tmp.path().join("spec-fixtures");
    for kind in ["valid", "invalid"] {
        let examples = r["examples"][kind].as_array().unwrap();
        let heading = if kind == "valid" {
            "### Valid example"
        } else {
            "### Invalid example"
        };
        assert_eq!(
            page.matches(&format!("{heading}\n")).count(),
            examples.len()
        );
        for ex in examples {
            let fixture = ex["fixture"].as_str().unwrap();
            let pointer = ex["pointer"].as_str().unwrap();
            let source = format!(
                "Source: [{fixture}](../../../spec-fixtures/{fixture}) · Selected: `{pointer}`"
            );
            assert!(page.contains(&source), "missing `{source}`\n{page}");
            let json = selected_json(&fixtures.join(fixture), pointer);
            assert!(
                page.contains(&format!("{source}\n\n```json\n{json}\n```\n")),
                "the {kind} example {fixture}#{pointer} does not show the selected JSON\n{page}"
            );
        }
    }
    let src = &r["source"];
    let file = src["file"].as_str().unwrap();
    assert!(page.contains(&format!(
        "[`rules/{file}`](../../../rules/{file}#L{line}), line {line}.",
        line = src["line"]
    )));

    // The indexes list it with its level.
    let index = std::fs::read_to_string(tmp.path().join("docs/rules/README.md")).unwrap();
    assert!(index.contains(&format!("[`{id}`](mcp/{id}.md)")));
    let owner = std::fs::read_to_string(tmp.path().join("docs/rules/mcp/README.md")).unwrap();
    assert!(owner.contains(&format!("[`{id}`]({id}.md)")));
}

#[test]
fn check_names_stale_missing_and_extra_pages_and_generation_repairs_them() {
    let tmp = generate_copy();
    let root = tmp.path();
    let check = || mcpdesc_in(root, ["docs", "--rules", "rules", "--check"]);
    assert_eq!(check().code, Some(0));

    let pages = root.join("docs/rules");
    let page = pages.join("mcp/mcp.elicitation.protocol-version.md");
    let text = std::fs::read_to_string(&page).unwrap();
    std::fs::write(
        &page,
        text.replace("## Requirement\n", "## Requirement (edited)\n"),
    )
    .unwrap();
    std::fs::remove_file(pages.join("mcpdesc/README.md")).unwrap();
    std::fs::write(pages.join("mcpdesc/mcpdesc.gone.old-rule.md"), text).unwrap();
    std::fs::write(pages.join("mcpdesc/hand-written.md"), "# Notes\n").unwrap();

    let run = check();
    assert_eq!(run.code, Some(1), "{}", run.output());
    let out = &run.stdout;
    assert!(out.contains("stale: docs/rules/mcp/mcp.elicitation.protocol-version.md"));
    assert!(
        out.contains("-## Requirement (edited)\n+## Requirement\n"),
        "{out}"
    );
    assert!(out.contains("missing: docs/rules/mcpdesc/README.md"));
    assert!(out.contains("extra: docs/rules/mcpdesc/mcpdesc.gone.old-rule.md"));
    assert!(!out.contains("hand-written.md"));
    assert!(out.contains("1 stale, 1 missing, 1 extra"));

    let regen = mcpdesc_in(root, ["docs", "--rules", "rules"]);
    assert_eq!(regen.code, Some(0), "{}", regen.output());
    assert!(regen
        .stdout
        .contains("removed docs/rules/mcpdesc/mcpdesc.gone.old-rule.md"));
    assert_eq!(check().code, Some(0));
    assert!(pages.join("mcpdesc/hand-written.md").exists());

    // Generation is deterministic: a second run writes nothing.
    let again = mcpdesc_in(root, ["docs", "--rules", "rules"]);
    assert!(
        again.stdout.contains(" 0 page(s) written, 0 removed"),
        "{}",
        again.stdout
    );
}
