//! The rule page links printed with findings lead to pages that exist: with a base URL where
//! the pages this repository ships under `docs/rules/<release>/` are published, the page of
//! the release that judged each document. Without one there is no link at all, since the
//! catalogue's `docs-url` is a path inside the repository. Also: the links inside the
//! generated pages resolve.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;
use support::{documents, mcpdesc, rules_list, workspace, Run};

const FICTIONAL: &str = "crates/mcpdesc-core/tests/releases/fictional";
const FICTIONAL_FIXTURES: &str = "crates/mcpdesc-core/tests/releases/fictional-fixtures";

/// Where the tests say the rule pages are published.
const BASE: &str = "https://docs.example.com/rules/";

fn json(run: &Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.output()))
}

/// Every document of a fixture directory, as arguments relative to the workspace.
fn fixture_args(dir: &str) -> Vec<String> {
    let root = workspace();
    documents(&root.join(dir))
        .iter()
        .filter(|p| {
            // Directory expansion reads descriptions; captures need their extension.
            let name = p.to_string_lossy();
            name.ends_with(".json") || name.ends_with(".yaml") || name.ends_with(".yml")
        })
        .map(|p| {
            p.strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

/// `validate ARGS... FILES...` (findings exit 1).
fn validate(args: &[&str], files: &[String]) -> Run {
    let mut all: Vec<String> = vec!["validate".into(), "--no-config".into()];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    all.extend(files.iter().cloned());
    let run = mcpdesc(&all);
    assert!(matches!(run.code, Some(0 | 1)), "{}", run.output());
    run
}

/// The SARIF descriptors' links, by rule id: the link of every rule of the judging release,
/// computed as for every other output format.
fn descriptor_links(sarif: &Value) -> Vec<(String, String)> {
    sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        // The command line's own rules have no rule page.
        .filter(|r| r["properties"]["owner"] != "mcpdesc-cli")
        .map(|r| {
            let id = r["id"].as_str().unwrap().to_owned();
            let url = r["properties"]["docUrl"]
                .as_str()
                .unwrap_or_else(|| panic!("{id} has no link"))
                .to_owned();
            (id, url)
        })
        .collect()
}

/// Every link of every output format for `files`: `docUrl` (JSON, SARIF), the text `docs:`
/// lines, and the last line of GitHub and JUnit messages.
fn finding_links(args: &[&str], files: &[String]) -> BTreeSet<String> {
    let mut links = BTreeSet::new();
    let with = |format: &str| {
        let mut a = args.to_vec();
        a.extend(["--format", format]);
        validate(&a, files)
    };
    let report = json(&with("json"));
    for f in report["files"].as_array().unwrap() {
        for d in f["diagnostics"].as_array().unwrap() {
            let url = d["docUrl"]
                .as_str()
                .unwrap_or_else(|| panic!("no docUrl: {d}"));
            links.insert(url.to_owned());
        }
    }
    assert!(!links.is_empty(), "the fixtures report findings");
    let sarif = json(&with("sarif"));
    for r in sarif["runs"][0]["results"].as_array().unwrap() {
        if let Some(url) = r["properties"]["docUrl"].as_str() {
            assert!(links.contains(url), "SARIF link {url} is not the JSON one");
        }
    }
    let text = with("text").stdout;
    let printed: BTreeSet<String> = text
        .lines()
        .filter_map(|l| l.split_once("= docs: ").map(|(_, u)| u.to_owned()))
        .collect();
    assert_eq!(printed, links, "text and JSON print the same links");
    let github = with("github").stdout;
    for l in github.lines().filter(|l| l.starts_with("::")) {
        let url = l.rsplit("%0A").next().unwrap();
        assert!(links.contains(url), "GitHub link {url}");
    }
    let junit = with("junit").stdout;
    for url in junit.split("&#10;").skip(1) {
        let url = url.split('<').next().unwrap();
        assert!(links.contains(url), "JUnit link {url}");
    }
    links
}

/// The file a published link names below `root` (`BASE...` → `<root>/...`).
fn page_for(link: &str, root: &Path) -> PathBuf {
    let rel = link
        .strip_prefix(BASE)
        .unwrap_or_else(|| panic!("{link} is not a page below {BASE}"));
    root.join(rel)
}

#[test]
fn every_default_link_is_a_committed_page() {
    let pages = workspace().join("docs/rules");
    let ids: BTreeSet<String> = rules_list(&workspace().join("rules"))["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();

    // The link of every rule of the embedded catalogue.
    let files = ["spec-fixtures/expected-valid/minimal.json".to_owned()];
    let sarif = json(&validate(
        &["--format", "sarif", "--docs-base-url", BASE],
        &files,
    ));
    let links = descriptor_links(&sarif);
    assert_eq!(
        links
            .iter()
            .map(|(id, _)| id.clone())
            .collect::<BTreeSet<_>>(),
        ids
    );
    for (id, link) in &links {
        assert!(
            link.starts_with(&format!("{BASE}0.8.0/")) && link.ends_with(&format!("/{id}.md")),
            "{link}"
        );
        let page = page_for(link, &pages);
        assert!(page.is_file(), "{id}: {link} is not a committed page");
    }

    // The links printed with real findings, in every format.
    for link in finding_links(&["--docs-base-url", BASE], &fixture_args("spec-fixtures")) {
        assert!(page_for(&link, &pages).is_file(), "{link}");
    }

    // Without a base the repository path is not printed as a link.
    let run = validate(&["--format", "json"], &fixture_args("spec-fixtures"));
    assert!(!run.stdout.contains("docUrl"), "{}", run.output());

    // `rules show` prints the same link.
    let show = mcpdesc([
        "rules",
        "show",
        "--docs-base-url",
        BASE,
        "mcpdesc.info.version-semver",
    ]);
    assert!(
        show.stdout.contains(&format!(
            "{BASE}0.8.0/mcpdesc/mcpdesc.info.version-semver.md"
        )),
        "{}",
        show.output()
    );
}

#[test]
fn findings_of_a_later_release_link_to_its_pages() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("rules-pages");
    let out_arg = out.to_string_lossy().into_owned();
    let gen = mcpdesc(["docs", "--rules", FICTIONAL, "--out", &out_arg]);
    assert_eq!(gen.code, Some(0), "{}", gen.output());

    // Every rule of the later release, as a document of that release is judged.
    let files = [format!("{FICTIONAL_FIXTURES}/expected-valid/minimal.json")];
    let sarif = json(&validate(
        &[
            "--rules",
            FICTIONAL,
            "--format",
            "sarif",
            "--docs-base-url",
            BASE,
        ],
        &files,
    ));
    let links = descriptor_links(&sarif);
    assert!(links
        .iter()
        .any(|(id, _)| id == "mcpdesc.info.description-required"));
    for (id, link) in &links {
        assert!(
            link.starts_with(&format!("{BASE}0.9.0-fictional.1/")),
            "{link}"
        );
        assert!(page_for(link, &out).is_file(), "{id}: {link}");
    }

    // Its findings, in every format.
    let links = finding_links(
        &["--rules", FICTIONAL, "--docs-base-url", BASE],
        &fixture_args(&format!("{FICTIONAL_FIXTURES}/expected-invalid")),
    );
    assert!(links.contains(&format!(
        "{BASE}0.9.0-fictional.1/mcpdesc/mcpdesc.info.version-semver.md"
    )));
    for link in &links {
        assert!(
            link.starts_with(&format!("{BASE}0.9.0-fictional.1/")),
            "{link}"
        );
        assert!(page_for(link, &out).is_file(), "{link}");
    }

    // A document of the earlier release, validated with both loaded, links to that release.
    let earlier = validate(
        &[
            "--rules",
            FICTIONAL,
            "--format",
            "json",
            "--docs-base-url",
            BASE,
        ],
        &["spec-fixtures/expected-warning/info-version-not-semver.json".to_owned()],
    );
    let url = json(&earlier)["files"][0]["diagnostics"][0]["docUrl"].clone();
    assert_eq!(
        url,
        format!("{BASE}0.8.0/mcpdesc/mcpdesc.info.version-semver.md").as_str(),
        "{}",
        earlier.output()
    );

    // A link to any rule of the earlier release still resolves with the later release in it,
    // retired rules included.
    for entry in std::fs::read_dir(workspace().join("docs/rules/0.8.0/mcpdesc")).unwrap() {
        let name = entry.unwrap().file_name();
        assert!(
            out.join("0.9.0-fictional.1/mcpdesc").join(&name).is_file(),
            "{name:?}"
        );
    }
}

/// The relative link targets of a Markdown page (anchors removed; URLs skipped).
fn relative_links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        let Some(end) = rest.find(')') else { break };
        let target = &rest[..end];
        if !target.contains("://") && !target.starts_with('#') {
            out.push(target.split('#').next().unwrap().to_owned());
        }
        rest = &rest[end..];
    }
    out
}

fn assert_links_resolve(dir: &Path) {
    let mut stack = vec![dir.to_path_buf()];
    let mut checked = 0;
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            for link in relative_links(&text) {
                let target = p.parent().unwrap().join(&link);
                assert!(target.exists(), "{}: {link} does not resolve", p.display());
                checked += 1;
            }
        }
    }
    assert!(checked > 0);
}

#[test]
fn links_in_the_committed_pages_resolve() {
    assert_links_resolve(&workspace().join("docs/rules"));
}

#[test]
fn links_in_the_pages_of_a_later_release_resolve() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_string_lossy().into_owned();
    let run = mcpdesc([
        "docs", "--rules", "rules", "--rules", FICTIONAL, "--out", &out,
    ]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert_links_resolve(tmp.path());
}
