//! `mcpdesc init`: the description written from the official `server-everything` and from a
//! Python SDK server validates, under the strict profile too, covers the negotiated versions
//! and lists what the probe lists; against the fake server
//! (`tests/data/fake-mcp-server.py`), entries that differ by version carry the scopes of the
//! versions that listed them, and what their declarations share is written once.
//!
//! The tests of real servers skip, with the reason printed, only when the install fails
//! because a package registry cannot be reached.

mod support;

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use mcpdesc_core::{Document, Format, Limits};
use serde_json::{json, Value};
use support::live_servers::{everything_stdio, python_sdk_server, real_servers_installed};
use support::{mcpdesc, Run};

const LEGACY: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const MODERN: &str = "2026-07-28";
/// The one warning a description covering the legacy versions always has: the rules say
/// their validation is incomplete.
const LEGACY_WARNING: &str = "mcpdesc.conformance.legacy-incomplete";

fn fake_server(flags: &str) -> Vec<PathBuf> {
    vec![
        PathBuf::from("python3"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fake-mcp-server.py"),
        PathBuf::from(flags),
    ]
}

/// `init FLAGS -- COMMAND`.
fn init(flags: &[&OsStr], command: &[PathBuf]) -> Run {
    let mut args: Vec<&OsStr> = vec!["init".as_ref()];
    args.extend(flags);
    args.push("--".as_ref());
    args.extend(command.iter().map(|c| c.as_os_str()));
    mcpdesc(args)
}

/// `init` writing to `dir/description.yaml`; the run and the file.
fn init_to_file(dir: &Path, command: &[PathBuf]) -> (Run, PathBuf) {
    let out = dir.join("description.yaml");
    let run = init(&["--out".as_ref(), out.as_os_str()], command);
    (run, out)
}

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    let format = if path.extension() == Some("json".as_ref()) {
        Format::Json
    } else {
        Format::Yaml
    };
    Document::parse_str(&text, format, &Limits::default())
        .unwrap_or_else(|e| panic!("{e}:\n{text}"))
        .to_value()
}

/// `(severity, rule)` of every finding of `mcpdesc validate` on `path`.
fn findings(path: &Path) -> Vec<(String, String)> {
    let run = mcpdesc([
        "validate".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        path.as_os_str(),
    ]);
    let v: Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.output()));
    v["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["severity"].as_str().unwrap().to_owned(),
                d["rule"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The exit status of `mcpdesc validate --strict` on `path`.
fn strict_status(path: &Path) -> Option<i32> {
    let run = mcpdesc(["validate".as_ref(), "--strict".as_ref(), path.as_os_str()]);
    run.code
}

/// No errors, and no warning but the legacy one, which the strict profile leaves a warning.
fn assert_clean(path: &Path) {
    assert_eq!(
        strict_status(path),
        Some(0),
        "{}",
        std::fs::read_to_string(path).unwrap()
    );
    let found = findings(path);
    let unexpected: Vec<_> = found
        .iter()
        .filter(|(severity, rule)| severity == "error" || rule != LEGACY_WARNING)
        .collect();
    assert!(
        unexpected.is_empty(),
        "{unexpected:#?}\n{}",
        std::fs::read_to_string(path).unwrap()
    );
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect()
}

/// The names of every tool the probe lists, in any version.
fn probed_tool_names(command: &[PathBuf]) -> BTreeSet<String> {
    let mut args: Vec<&OsStr> = vec!["probe-server".as_ref(), "--".as_ref()];
    args.extend(command.iter().map(|c| c.as_os_str()));
    let run = mcpdesc(args);
    let reports: Vec<Value> =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.output()));
    reports
        .iter()
        .filter_map(|r| r["lists"]["tools"].as_array())
        .flatten()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

fn tool_names(doc: &Value) -> BTreeSet<String> {
    doc["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

/// Every declaration's own scope lies within the root's.
fn assert_scopes_within_root(doc: &Value) {
    let root: BTreeSet<&str> = strings(&doc["protocolVersions"]).into_iter().collect();
    for collection in [
        "capabilities",
        "tools",
        "resources",
        "resourceTemplates",
        "prompts",
    ] {
        for decl in doc[collection].as_array().into_iter().flatten() {
            if let Some(scope) = decl.get("protocolVersions") {
                assert!(
                    strings(scope).iter().all(|v| root.contains(v)),
                    "{collection}: {decl}"
                );
            }
        }
    }
}

/// The description of a real server: written, clean, and covering what the probe saw.
fn assert_describes(command: &[PathBuf], versions: &[&str], server_name: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let (run, out) = init_to_file(tmp.path(), command);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert_clean(&out);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.starts_with("# Generated by `mcpdesc init` from what"),
        "{text}"
    );
    let doc = read(&out);
    assert_eq!(doc["mcpdesc"], "0.8.0");
    assert_eq!(doc["info"]["name"], server_name);
    assert_eq!(strings(&doc["protocolVersions"]), versions);
    assert_eq!(tool_names(&doc), probed_tool_names(command));
    assert_scopes_within_root(&doc);
    assert_written_once(&doc);
}

/// No two declarations of one entry hold the same schema: a schema they share is a
/// component, unless a reference to it would be longer.
fn assert_written_once(doc: &Value) {
    let tools = doc["tools"].as_array().unwrap();
    for (i, a) in tools.iter().enumerate() {
        for b in &tools[i + 1..] {
            if a["name"] != b["name"] {
                continue;
            }
            for member in ["inputSchema", "outputSchema"] {
                let (Some(x), Some(y)) = (a.get(member), b.get(member)) else {
                    continue;
                };
                assert!(
                    x != y || x.get("$componentRef").is_some() || x.to_string().len() < 60,
                    "{} repeats its {member}: {x}",
                    a["name"]
                );
            }
        }
    }
}

#[test]
fn server_everything_over_stdio() {
    if !real_servers_installed() {
        return;
    }
    // Its SDK does not implement the 2026-07-28 discovery, so that version is not described.
    assert_describes(&everything_stdio(), &LEGACY, "mcp-servers/everything");
}

#[test]
fn python_sdk_server_over_stdio() {
    if !real_servers_installed() {
        return;
    }
    let all: Vec<&str> = LEGACY.iter().copied().chain([MODERN]).collect();
    assert_describes(&python_sdk_server(), &all, "live-demo-python");
}

/// The tool entries with `name`, as `(scope, description)`; `None` for no scope of its own.
fn variants(doc: &Value, name: &str) -> Vec<(Option<Vec<String>>, Value)> {
    doc["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["name"] == name)
        .map(|t| {
            let scope = t.get("protocolVersions").map(|s| {
                strings(s)
                    .into_iter()
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            });
            (scope, t["description"].clone())
        })
        .collect()
}

fn owned(versions: &[&str]) -> Option<Vec<String>> {
    Some(versions.iter().map(|v| (*v).to_owned()).collect())
}

#[test]
fn entries_are_scoped_to_the_versions_that_list_them() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("description.json");
    let run = init(
        &[
            "--format".as_ref(),
            "json".as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
        ],
        &fake_server("tidy+versioned-tools"),
    );
    assert_eq!(run.code, Some(0), "{}", run.output());
    // It refuses 2024-11-05 (offering another version): only agreed versions count.
    assert!(
        run.stderr.contains("refused 2024-11-05"),
        "{}",
        run.output()
    );
    assert_clean(&out);
    let doc = read(&out);
    assert_eq!(
        strings(&doc["protocolVersions"]),
        ["2025-03-26", "2025-06-18", "2025-11-25", MODERN]
    );
    assert_eq!(variants(&doc, "stable"), [(None, json!("Always there."))]);
    assert_eq!(
        variants(&doc, "added"),
        [(owned(&["2025-06-18", "2025-11-25", MODERN]), Value::Null)]
    );
    assert_eq!(
        variants(&doc, "retired"),
        [(owned(&["2025-03-26"]), Value::Null)]
    );
    assert_eq!(
        variants(&doc, "changed"),
        [
            (owned(&["2025-03-26", "2025-06-18"]), json!("Old wording.")),
            (owned(&["2025-11-25", MODERN]), json!("New wording.")),
        ]
    );
    // The same capabilities in every version: one declaration, in the root scope.
    assert_eq!(doc["capabilities"].as_array().unwrap().len(), 1);
    assert!(doc["capabilities"][0].get("protocolVersions").is_none());
}

#[test]
fn members_a_version_lacks_are_left_out_of_its_entry() {
    // `title` exists from 2025-06-18 on, so the 2025-03-26 entry of a tool the server lists
    // with a title in every version has none.
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("description.json");
    let run = init(
        &[
            "--format".as_ref(),
            "json".as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
            "--protocol-version".as_ref(),
            "2025-03-26".as_ref(),
            "--protocol-version".as_ref(),
            "2025-06-18".as_ref(),
        ],
        &fake_server("tidy+versioned-tools+titled"),
    );
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert_clean(&out);
    let doc = read(&out);
    let stable: Vec<_> = doc["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["name"] == "stable")
        .collect();
    assert_eq!(stable.len(), 2, "{doc:#}");
    assert_eq!(stable[0]["protocolVersions"], json!(["2025-03-26"]));
    assert!(stable[0].get("title").is_none(), "{doc:#}");
    assert_eq!(stable[1]["protocolVersions"], json!(["2025-06-18"]));
    assert_eq!(stable[1]["title"], "Stable");
}

#[test]
fn only_the_versions_asked_for_are_described() {
    let run = init(
        &[
            "--format".as_ref(),
            "json".as_ref(),
            "--protocol-version".as_ref(),
            "2025-06-18".as_ref(),
        ],
        &fake_server("tidy+versioned-tools"),
    );
    assert_eq!(run.code, Some(0), "{}", run.output());
    let doc: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["protocolVersions"], json!(["2025-06-18"]));
    let scoped: Vec<_> = doc["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t.get("protocolVersions").is_some())
        .collect();
    assert!(scoped.is_empty(), "{scoped:#?}");
    assert_eq!(
        tool_names(&doc),
        ["added", "changed", "stable"].map(String::from).into()
    );
}

#[test]
fn an_existing_file_is_kept_unless_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("description.yaml");
    std::fs::write(&out, "keep me\n").unwrap();
    let run = init(&["--out".as_ref(), out.as_os_str()], &fake_server("tidy"));
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert!(run.stderr.contains("--force"), "{}", run.output());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep me\n");
    let run = init(
        &["--out".as_ref(), out.as_os_str(), "--force".as_ref()],
        &fake_server("tidy"),
    );
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert_eq!(read(&out)["info"]["name"], "fake");
}

#[test]
fn a_description_with_errors_is_written_and_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let (run, out) = init_to_file(tmp.path(), &fake_server("tidy+schemaless"));
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(
        run.stderr.contains("error[mcpdesc.tool.required]"),
        "{}",
        run.output()
    );
    let doc = read(&out);
    assert_eq!(doc["tools"][0]["name"], "tool-0");
}

#[test]
fn a_server_that_never_answers_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("description.yaml");
    let run = init(
        &[
            "--out".as_ref(),
            out.as_os_str(),
            "--startup-timeout-ms".as_ref(),
            "500".as_ref(),
        ],
        &fake_server("silent"),
    );
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert!(!out.exists());
}

#[test]
fn what_declarations_of_one_entry_share_is_written_once() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("description.json");
    let run = init(
        &[
            "--format".as_ref(),
            "json".as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
        ],
        &fake_server("tidy+versioned-tools+titled+described-schema"),
    );
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert_clean(&out);
    let doc = read(&out);
    let schema = json!({"type": "object", "required": ["query"],
                        "properties": {"query": {"type": "string", "description": "What to find."}}});
    let input_of = |name: &str| -> Vec<Value> {
        doc["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["name"] == name)
            .map(|t| t["inputSchema"].clone())
            .collect()
    };
    // `stable` (titled from 2025-06-18 on) and `changed` (reworded) have two declarations
    // each, and one schema, in the components.
    let reference = |name: &str| json!({"$componentRef": format!("#/components/schemas/{name}")});
    assert_eq!(
        input_of("stable"),
        [
            reference("stable.inputSchema"),
            reference("stable.inputSchema")
        ]
    );
    assert_eq!(
        input_of("changed"),
        [
            reference("changed.inputSchema"),
            reference("changed.inputSchema")
        ]
    );
    // One declaration: nothing to share.
    assert_eq!(input_of("added"), std::slice::from_ref(&schema));
    assert_eq!(
        doc["components"],
        json!({"schemas": {"stable.inputSchema": schema, "changed.inputSchema": schema}})
    );
    assert_written_once(&doc);
}

#[test]
fn a_fresh_description_passes_the_strict_profile_with_its_legacy_note() {
    // 2025-03-26 is a legacy revision: its validation is incomplete, which the description
    // is told as a warning, and which is no fault of it under the strict profile either.
    let tmp = tempfile::tempdir().unwrap();
    let (run, out) = init_to_file(tmp.path(), &fake_server("tidy+versioned-tools"));
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert_eq!(
        findings(&out),
        [("warning".to_owned(), LEGACY_WARNING.to_owned())]
    );
    let run = mcpdesc(["validate".as_ref(), "--strict".as_ref(), out.as_os_str()]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert!(
        run.stdout.contains(&format!("warning[{LEGACY_WARNING}]")),
        "{}",
        run.output()
    );
}

#[test]
fn the_server_command_needs_no_flag_and_the_old_flag_still_works() {
    for flags in [&[][..], &["--from-server"][..]] {
        let mut args: Vec<&OsStr> = vec!["init".as_ref()];
        args.extend(flags.iter().map(OsStr::new));
        args.extend(["--format", "json", "--"].map(OsStr::new));
        let command = fake_server("tidy");
        args.extend(command.iter().map(|c| c.as_os_str()));
        let run = mcpdesc(args);
        assert_eq!(run.code, Some(0), "{flags:?}: {}", run.output());
        let doc: Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(doc["info"]["name"], "fake");
    }
    // The old flag is accepted, not advertised.
    let help = mcpdesc(["init", "--help"]);
    assert!(!help.stdout.contains("--from-server"), "{}", help.output());
    // Without a server there is nothing to describe: a usage error.
    let run = mcpdesc(["init"]);
    assert_eq!(run.code, Some(2), "{}", run.output());
    assert!(run.stderr.contains("<COMMAND>"), "{}", run.output());
}
