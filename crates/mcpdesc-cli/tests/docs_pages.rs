//! `mcpdesc docs`: pages generated from the rule files for every release, and the check of the
//! committed ones.

mod support;

use std::path::Path;

use serde_json::Value;
use support::{copy_dir, mcpdesc, mcpdesc_in, rules_list, workspace};

#[test]
fn committed_rule_pages_are_current() {
    // With the embedded catalogue and the default directory, and with the rules directory.
    for run in [
        mcpdesc(["docs", "--check"]),
        mcpdesc(["docs", "--rules", "rules", "--out", "docs/rules", "--check"]),
    ] {
        assert_eq!(
            run.code,
            Some(0),
            "docs/rules is not current; run `mcpdesc docs`:\n{}",
            run.output()
        );
    }
    let root = workspace().join("docs/rules");
    assert!(root.join("README.md").is_file());
    assert!(root.join("0.8.0/README.md").is_file());
    assert!(
        !root.join("mcp").exists() && !root.join("mcpdesc").exists(),
        "pages live below their release"
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
    serde_json::to_string_pretty(&doc.root().pointer(pointer).unwrap()).unwrap()
}

#[test]
fn elicitation_protocol_version_page_has_every_section_from_the_rule_file() {
    let tmp = generate_copy();
    let id = "mcp.elicitation.protocol-version";
    let r = rule(id);
    let page =
        std::fs::read_to_string(tmp.path().join(format!("docs/rules/0.8.0/mcp/{id}.md"))).unwrap();

    // The sections of the reference page, in order.
    let headings = [
        "## Requirement",
        "## Details",
        "## Release history",
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
        "**Release:** 0.8.0".to_owned(),
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
                "Source: [{fixture}](../../../../spec-fixtures/{fixture}) · Selected: `{pointer}`"
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
        "[`rules/{file}`](../../../../rules/{file}#L{line}), line {line}.",
        line = src["line"]
    )));

    // Since which release it exists.
    assert!(
        page.contains("\n## Release history\n\n* Since 0.8.0.\n"),
        "{page}"
    );
    // The page names where it is published.
    assert!(page.contains(&format!("source: \"docs/rules/0.8.0/mcp/{id}.md\"")));

    // The indexes list it with its level.
    let read = |p: &str| std::fs::read_to_string(tmp.path().join(p)).unwrap();
    let index = read("docs/rules/0.8.0/README.md");
    assert!(index.contains(&format!("[`{id}`](mcp/{id}.md)")));
    assert!(
        !index.contains("## Changes from"),
        "a first release changes nothing"
    );
    let owner = read("docs/rules/0.8.0/mcp/README.md");
    assert!(owner.contains(&format!("[`{id}`]({id}.md)")));
    // The list of releases links the release's index.
    let releases = read("docs/rules/README.md");
    let count = rules_list(&workspace().join("rules"))["rules"]
        .as_array()
        .unwrap()
        .len();
    assert!(
        releases.contains(&format!(
            "| [0.8.0](0.8.0/README.md) | MCP Description 0.8.0, the current published release of \
             the specification. | 0.8.0 | — | {count} |"
        )),
        "{releases}"
    );
}

#[test]
fn check_names_stale_missing_and_extra_pages_and_generation_repairs_them() {
    let tmp = generate_copy();
    let root = tmp.path();
    let check = || mcpdesc_in(root, ["docs", "--rules", "rules", "--check"]);
    assert_eq!(check().code, Some(0));

    let pages = root.join("docs/rules/0.8.0");
    let page = pages.join("mcp/mcp.elicitation.protocol-version.md");
    let text = std::fs::read_to_string(&page).unwrap();
    std::fs::write(
        &page,
        text.replace("## Requirement\n", "## Requirement (edited)\n"),
    )
    .unwrap();
    std::fs::remove_file(pages.join("mcpdesc/README.md")).unwrap();
    std::fs::write(pages.join("mcpdesc/mcpdesc.gone.old-rule.md"), &text).unwrap();
    std::fs::write(pages.join("mcpdesc/hand-written.md"), "# Notes\n").unwrap();
    // A page of the layout without releases.
    let unversioned = root.join("docs/rules/mcp");
    std::fs::create_dir_all(&unversioned).unwrap();
    std::fs::write(
        unversioned.join("mcp.elicitation.protocol-version.md"),
        &text,
    )
    .unwrap();

    let run = check();
    assert_eq!(run.code, Some(1), "{}", run.output());
    let out = &run.stdout;
    assert!(out.contains("stale: docs/rules/0.8.0/mcp/mcp.elicitation.protocol-version.md"));
    assert!(
        out.contains("-## Requirement (edited)\n+## Requirement\n"),
        "{out}"
    );
    assert!(out.contains("missing: docs/rules/0.8.0/mcpdesc/README.md"));
    assert!(out.contains("extra: docs/rules/0.8.0/mcpdesc/mcpdesc.gone.old-rule.md"));
    assert!(!out.contains("hand-written.md"));
    assert!(out.contains("extra: docs/rules/mcp/mcp.elicitation.protocol-version.md"));
    assert!(out.contains("1 stale, 1 missing, 2 extra"));

    let regen = mcpdesc_in(root, ["docs", "--rules", "rules"]);
    assert_eq!(regen.code, Some(0), "{}", regen.output());
    assert!(regen
        .stdout
        .contains("removed docs/rules/0.8.0/mcpdesc/mcpdesc.gone.old-rule.md"));
    assert_eq!(check().code, Some(0));
    assert!(pages.join("mcpdesc/hand-written.md").exists());
    assert!(!unversioned.exists(), "a directory left empty is removed");

    // Generation is deterministic: a second run writes nothing.
    let again = mcpdesc_in(root, ["docs", "--rules", "rules"]);
    assert!(
        again.stdout.contains(" 0 page(s) written, 0 removed"),
        "{}",
        again.stdout
    );
}

const FICTIONAL: &str = "crates/mcpdesc-core/tests/releases/fictional";

#[test]
fn pages_of_a_release_that_extends_another_say_what_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_string_lossy().into_owned();
    let args = [
        "docs", "--rules", "rules", "--rules", FICTIONAL, "--out", &out,
    ];
    let run = mcpdesc(args);
    assert_eq!(run.code, Some(0), "{}", run.output());
    let read = |p: &str| {
        std::fs::read_to_string(tmp.path().join(p)).unwrap_or_else(|e| panic!("{p}: {e}"))
    };
    let new = "0.9.0-fictional.1";

    // The list of releases, oldest first.
    let releases = read("README.md");
    let at = |needle: &str| {
        releases
            .find(needle)
            .unwrap_or_else(|| panic!("{needle}\n{releases}"))
    };
    assert!(at("| [0.8.0](0.8.0/README.md) |") < at(&format!("| [{new}]({new}/README.md) |")));
    assert!(releases.contains(
        "| A fictional release extending 0.8.0, used to test release extensions. | \
         (>=0.9.0-fictional.1, <0.10.0) | [0.8.0](0.8.0/README.md) |"
    ));

    // The release index lists each change relative to its base.
    let index = read(&format!("{new}/README.md"));
    assert!(index.contains("It extends [0.8.0](../0.8.0/README.md)."));
    for row in [
        "| [`mcpdesc.info.description-required`](mcpdesc/mcpdesc.info.description-required.md) | added | — |",
        "| [`mcpdesc.info.version-semver`](mcpdesc/mcpdesc.info.version-semver.md) | replaced | The fictional release makes Semantic Versioning",
        "| [`mcpdesc.tags.reference-declared`](mcpdesc/mcpdesc.tags.reference-declared.md) | retired | The fictional release lets primitives carry tags",
        "| [`mcpdesc.tags.unique-names`](mcpdesc/mcpdesc.tags.unique-names.md) | applicability changed | The fictional release requires distinct tag names",
    ] {
        assert!(index.contains(row), "missing `{row}`\n{index}");
    }
    assert!(!read("0.8.0/README.md").contains("## Changes from"));

    // Each rule page says since when the rule exists and what changed.
    let added = read(&format!(
        "{new}/mcpdesc/mcpdesc.info.description-required.md"
    ));
    assert!(added.contains(&format!("**Release:** {new}")));
    assert!(added.contains(&format!("## Release history\n\n* Since {new}.\n\n")));
    let replaced = read(&format!("{new}/mcpdesc/mcpdesc.info.version-semver.md"));
    assert!(replaced.contains(
        "* Since [0.8.0](../../0.8.0/mcpdesc/mcpdesc.info.version-semver.md).\n\
         * 0.9.0-fictional.1, replaced: The fictional release makes Semantic Versioning"
    ));
    assert!(replaced.contains("**Severity:** error"));
    assert!(replaced.contains(&format!(
        "source: \"docs/rules/{new}/mcpdesc/mcpdesc.info.version-semver.md\""
    )));
    let narrowed = read(&format!("{new}/mcpdesc/mcpdesc.tags.unique-names.md"));
    assert!(narrowed.contains(
        "* 0.9.0-fictional.1, applicability changed: The fictional release requires distinct \
         tag names only from MCP 2025-06-18 on."
    ));
    // The base release's page of the replaced rule is unchanged by the later release.
    let base = read("0.8.0/mcpdesc/mcpdesc.info.version-semver.md");
    assert!(
        base.contains("## Release history\n\n* Since 0.8.0.\n\n"),
        "{base}"
    );
    assert!(base.contains("**Severity:** warning"));

    // The retired rule keeps a page in the later release, leading to its last one.
    let retired = read(&format!("{new}/mcpdesc/mcpdesc.tags.reference-declared.md"));
    assert!(retired.contains(&format!(
        "`mcpdesc.tags.reference-declared` was retired in release {new}"
    )));
    assert!(retired.contains("The fictional release lets primitives carry tags"));
    let last = "../../0.8.0/mcpdesc/mcpdesc.tags.reference-declared.md";
    assert!(retired.contains(&format!(
        "It last existed in release 0.8.0: [its page there]({last})."
    )));
    assert!(tmp
        .path()
        .join(format!("{new}/mcpdesc"))
        .join(last)
        .is_file());
    assert!(retired.contains(&format!("* {new}, retired: ")));
    // The index names it among the changes only, not among the rules the release checks.
    assert_eq!(
        index
            .matches("(mcpdesc/mcpdesc.tags.reference-declared.md)")
            .count(),
        1
    );

    // The check covers every release.
    let check = [&args[..], &["--check"]].concat();
    assert_eq!(mcpdesc(&check).code, Some(0));
    let page = tmp
        .path()
        .join(format!("{new}/mcpdesc/mcpdesc.tags.unique-names.md"));
    std::fs::write(&page, narrowed.replace("applicability changed", "changed")).unwrap();
    let run = mcpdesc(&check);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(run.stdout.contains(&format!(
        "stale: {out}/{new}/mcpdesc/mcpdesc.tags.unique-names.md"
    )));
    assert!(run.stdout.contains("1 stale, 0 missing, 0 extra"));
}

/// Release 0.9.0-rc.3 as the specification site publishes it (its two example rules, its
/// fixtures and the site's page templates), kept with the tests.
const SITE_RELEASE: &str = "crates/mcpdesc-cli/tests/data/releases/0.9.0-rc.3";

fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// A page the specification site published, from `../shared/reference/example-rule-pages`
/// beside the workspace; `None` (after printing why) when it is absent outside CI.
fn published_page(name: &str) -> Option<String> {
    let path = workspace()
        .join("../shared/reference/example-rule-pages")
        .join(name);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if in_ci() => panic!(
            "published page {} cannot be read ({e}); it is required when CI is set",
            path.display()
        ),
        Err(e) => {
            eprintln!(
                "skipped: published page {} cannot be read ({e})",
                path.display()
            );
            None
        }
    }
}

/// Generates the pages of `release_dir` (with the shipped 0.8.0 it extends) into `out`.
fn generate_release(release_dir: &Path, out: &Path) {
    let run = mcpdesc([
        "docs".as_ref(),
        "--rules".as_ref(),
        release_dir.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(run.code, Some(0), "{}", run.output());
}

#[test]
fn a_release_with_the_sites_layout_reproduces_its_published_markdown_page() {
    let tmp = tempfile::tempdir().unwrap();
    generate_release(&workspace().join(SITE_RELEASE), tmp.path());
    // `pages.file`: the owner prefix dropped, dots as hyphens.
    let page = std::fs::read_to_string(
        tmp.path()
            .join("0.9.0-rc.3/mcpdesc/tool-interaction-elicitation-consistency.md"),
    )
    .unwrap();
    assert!(page.contains(
        "source: \"https://mcpdesc.org/docs/rules/0.9.0-rc.3/mcpdesc/tool-interaction-elicitation-consistency/\"\n"
    ));
    // The base release keeps its own layout.
    let base = std::fs::read_to_string(
        tmp.path()
            .join("0.8.0/mcpdesc/mcpdesc.tool.interaction.elicitation-consistency.md"),
    )
    .unwrap();
    assert!(base.contains(pages_marker()));
    assert!(!page.contains(pages_marker()));

    let Some(published) = published_page("mcpdesc.tool.interaction.elicitation-consistency.md")
    else {
        return;
    };
    // Lines where the published page is itself inconsistent, with why; every other line must
    // be the same.
    let allowed: &[(&str, &str)] = &[(
        "  * 1. Tools: [req-interaction-elicitation-response](https://mcpdesc.org/docs/specification/0.9.0-rc.3/tools#req-interaction-elicitation-response)",
        "both requirements are in section 9. Tools (the line above says `9\\. Tools`); `1.` is \
         the site's Markdown renumbering the unescaped list text, so the page says `9\\. Tools`",
    )];
    let ours: Vec<&str> = page.lines().collect();
    let theirs: Vec<&str> = published.lines().collect();
    assert_eq!(ours.len(), theirs.len(), "line count differs:\n{page}");
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        if a != b {
            assert!(
                allowed.iter().any(|(line, _)| line == b),
                "line {} differs:\n  generated: {a}\n  published: {b}",
                i + 1
            );
        }
    }
    assert_eq!(page.ends_with('\n'), published.ends_with('\n'));
}

#[test]
fn a_second_template_reproduces_the_sites_published_text_page() {
    // The same release rendered with the site's text template, one file per rule id.
    let tmp = tempfile::tempdir().unwrap();
    let releases = workspace().join(SITE_RELEASE).join("..");
    copy_dir(&releases, tmp.path());
    let catalogue = tmp.path().join("0.9.0-rc.3/catalogue.yaml");
    let text = std::fs::read_to_string(&catalogue).unwrap();
    let text = text
        .replace("template: pages/rule.md.j2", "template: pages/rule.txt.j2")
        .replace(
            "file: \"{release}/{owner}/{name|dots-to-hyphens}.md\"",
            "file: \"{release}/{id}.txt\"",
        );
    assert!(text.contains("rule.txt.j2") && text.contains("{id}.txt"));
    std::fs::write(&catalogue, text).unwrap();
    let out = tmp.path().join("out");
    generate_release(&tmp.path().join("0.9.0-rc.3"), &out);
    let page = std::fs::read_to_string(out.join("0.9.0-rc.3/mcp.elicitation.protocol-version.txt"))
        .unwrap();
    assert!(page.starts_with("Elicitation forms and URL flows"));
    let Some(published) = published_page("mcp.elicitation.protocol-version.txt") else {
        return;
    };
    assert_eq!(page, published);
}

fn pages_marker() -> &'static str {
    "<!-- Generated by `mcpdesc docs` from the rule files. Edit the rule file, not this page. -->"
}

#[test]
fn problems_of_a_pages_block_are_load_errors_at_their_members() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release");
    std::fs::create_dir_all(dir.join("pages")).unwrap();
    std::fs::write(dir.join("pages/broken.md.j2"), "{% if rule.id %}\nno end\n").unwrap();
    let write = |pages: &str| {
        std::fs::write(
            dir.join("catalogue.yaml"),
            format!("catalogue:\n  release: 0.9.0-rc.9\n  extends: 0.8.0\n  pages:\n{pages}"),
        )
        .unwrap();
    };
    let out = tmp.path().join("out");
    let docs = || {
        mcpdesc([
            "docs".as_ref(),
            "--rules".as_ref(),
            dir.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
        ])
    };
    for (pages, expected) in [
        (
            "    template: pages/broken.md.j2\n",
            "catalogue.yaml:5:15: template `pages/broken.md.j2` does not parse: line 2",
        ),
        (
            "    template: pages/absent.md.j2\n",
            "catalogue.yaml:5:15: template file `pages/absent.md.j2` not found",
        ),
        (
            "    url: https://example.org/{release}/{rule}/\n",
            "catalogue.yaml:5:10: unknown placeholder `{rule}`",
        ),
        (
            "    file: \"{release}/{id|upper}.md\"\n",
            "catalogue.yaml:5:11: unknown transform `upper`",
        ),
        (
            "    file: ../{id}.md\n",
            "catalogue.yaml:5:11: a page file is a relative path below the output directory",
        ),
        (
            "    front-matter: {title: \"{{ rule.title \"}\n",
            "catalogue.yaml:5:27: the value template does not parse: line 1",
        ),
        (
            "    omit: [severity, banner]\n",
            "catalogue.yaml:5:22: unknown variant `banner`",
        ),
        (
            "    colour: blue\n",
            "catalogue.yaml:5:5: unknown field `colour`",
        ),
    ] {
        write(pages);
        let run = docs();
        assert_eq!(run.code, Some(2), "{pages}\n{}", run.output());
        assert!(
            run.stderr.contains(expected),
            "{pages}: expected `{expected}`\n{}",
            run.output()
        );
        assert!(!out.exists(), "nothing is written");
    }

    // A template that parses but names a member the context does not have fails on the
    // first page it renders; no page is written.
    std::fs::write(dir.join("pages/typo.md.j2"), "{{ rule.titel }}\n").unwrap();
    write("    template: pages/typo.md.j2\n");
    let run = docs();
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert!(
        run.stderr.contains("release 0.9.0-rc.9, rule ")
            && run
                .stderr
                .contains("the page template: line 1: undefined value"),
        "{}",
        run.output()
    );
    assert!(!out.exists(), "nothing is written");
}
