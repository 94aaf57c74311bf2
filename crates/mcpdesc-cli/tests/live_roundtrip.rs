//! A description written by `init --from-server` checks clean against the server it came
//! from; a copy edited by hand (one tool renamed, one schema changed, one capability dropped)
//! gives exactly those three findings. Against the official `server-everything` and a
//! server written with the official Python SDK.
//!
//! The tests skip, with the reason printed, only when the install of the servers fails
//! because a package registry cannot be reached.

mod support;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde_json::Value;
use support::live_servers::{everything_stdio, python_sdk_server, real_servers_installed};
use support::{mcpdesc, Run};

/// `check-server DESCRIPTION --format json -- COMMAND`: the run and its live findings
/// (`mcpdesc-live.*`) as `(rule, pointer)`.
fn check(description: &Path, command: &[PathBuf]) -> (Run, Vec<(String, String)>) {
    let mut args: Vec<&OsStr> = vec![
        "check-server".as_ref(),
        description.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
        "--".as_ref(),
    ];
    args.extend(command.iter().map(|c| c.as_os_str()));
    let run = mcpdesc(args);
    let report: Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.output()));
    let live = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["diagnostics"].as_array().unwrap().iter())
        .filter(|d| d["rule"].as_str().unwrap().starts_with("mcpdesc-live."))
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_owned(),
                d["pointer"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    (run, live)
}

fn init_json(dir: &Path, command: &[PathBuf]) -> PathBuf {
    let out = dir.join("description.json");
    let mut args: Vec<&OsStr> = vec![
        "init".as_ref(),
        "--from-server".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
        "--".as_ref(),
    ];
    args.extend(command.iter().map(|c| c.as_os_str()));
    let run = mcpdesc(args);
    assert_eq!(run.code, Some(0), "{}", run.output());
    out
}

/// Renames the first tool declaration, adds a property to the input schema of the next
/// tool declaration with another name, and removes one capability from one capability
/// declaration; returns the pointers the three findings must have.
fn edit(path: &Path) -> (PathBuf, [String; 3]) {
    let mut d: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let tools = d["tools"].as_array_mut().unwrap();
    let first = tools[0]["name"].as_str().unwrap().to_owned();
    tools[0]["name"] = Value::from(format!("{first}-renamed"));
    let other = tools
        .iter()
        .position(|t| {
            t["name"] != first.as_str() && t["name"] != format!("{first}-renamed").as_str()
        })
        .expect("a second tool");
    tools[other]["inputSchema"]["properties"]["added_by_hand"] =
        serde_json::json!({"type": "string"});
    // Preferably a capability no collection depends on, from the first declaration that
    // has one: one finding, whatever the server declares in other versions.
    let caps = d["capabilities"].as_array_mut().unwrap();
    let (decl, name) = ["logging", "completions", "prompts", "tools"]
        .into_iter()
        .find_map(|n| caps.iter().position(|c| c.get(n).is_some()).map(|i| (i, n)))
        .unwrap();
    caps[decl].as_object_mut().unwrap().remove(name);
    let edited = path.with_file_name("edited.json");
    std::fs::write(&edited, serde_json::to_string_pretty(&d).unwrap()).unwrap();
    (
        edited,
        [
            "/tools/0/name".to_owned(),
            format!("/tools/{other}/inputSchema"),
            "/capabilities".to_owned(),
        ],
    )
}

fn roundtrip(command: &[PathBuf]) {
    let dir = tempfile::tempdir().unwrap();
    let written = init_json(dir.path(), command);
    let (run, live) = check(&written, command);
    assert!(live.is_empty(), "{live:?}\n{}", run.output());
    assert_eq!(run.code, Some(0), "{}", run.output());

    let (edited, pointers) = edit(&written);
    let (run, live) = check(&edited, command);
    assert_eq!(run.code, Some(1), "{}", run.output());
    let rules: Vec<&str> = live.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(
        rules,
        [
            "mcpdesc-live.capability-undescribed",
            "mcpdesc-live.entry-renamed",
            "mcpdesc-live.member-differs"
        ],
        "{live:?}"
    );
    let mut found: Vec<&str> = live.iter().map(|(_, p)| p.as_str()).collect();
    found.sort();
    let mut expected: Vec<&str> = pointers.iter().map(String::as_str).collect();
    expected.sort();
    assert_eq!(found, expected, "{}", run.output());
}

#[test]
fn server_everything_round_trip() {
    if !real_servers_installed() {
        return;
    }
    roundtrip(&everything_stdio());
}

#[test]
fn python_sdk_server_round_trip() {
    if !real_servers_installed() {
        return;
    }
    roundtrip(&python_sdk_server());
}
