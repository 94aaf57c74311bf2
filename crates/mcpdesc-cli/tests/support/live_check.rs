//! `init` and `check-server` against a live server, over standard input and
//! output or Streamable HTTP, and the hand edit of a written description that must give
//! exactly three findings.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{mcpdesc, Run};

/// How to reach a server: its command, or the URL of its Streamable HTTP endpoint.
pub(crate) enum Server {
    Stdio(Vec<PathBuf>),
    Http(String),
}

impl Server {
    /// The arguments that name the server, last on the command line.
    fn args(&self) -> Vec<OsString> {
        match self {
            Server::Stdio(command) => std::iter::once(OsString::from("--"))
                .chain(command.iter().map(|c| c.clone().into_os_string()))
                .collect(),
            Server::Http(url) => vec!["--url".into(), url.into()],
        }
    }
}

/// One finding of a `check-server --format json` report.
#[derive(Debug, Clone)]
pub(crate) struct Finding {
    pub rule: String,
    pub pointer: String,
    pub message: String,
    pub versions: Vec<String>,
}

/// A `check-server --format json` run.
pub(crate) struct Checked {
    pub run: Run,
    /// Every finding on the description (the first file of the report).
    pub findings: Vec<Finding>,
}

impl Checked {
    /// The findings of the comparison with the server (`mcpdesc-live.*`).
    pub(crate) fn live(&self) -> Vec<&Finding> {
        self.findings
            .iter()
            .filter(|f| f.rule.starts_with("mcpdesc-live."))
            .collect()
    }

    /// `(rule, pointer)` of the live findings.
    pub(crate) fn live_pointers(&self) -> Vec<(String, String)> {
        self.live()
            .into_iter()
            .map(|f| (f.rule.clone(), f.pointer.clone()))
            .collect()
    }

    /// The rules of the other findings on the description, each once, sorted.
    pub(crate) fn other_rules(&self) -> Vec<&str> {
        let mut rules: Vec<&str> = self
            .findings
            .iter()
            .filter(|f| !f.rule.starts_with("mcpdesc-live."))
            .map(|f| f.rule.as_str())
            .collect();
        rules.sort_unstable();
        rules.dedup();
        rules
    }
}

/// `check-server DESCRIPTION --format json FLAGS` against `server`.
pub(crate) fn check(description: &Path, flags: &[&OsStr], server: &Server) -> Checked {
    let mut args: Vec<OsString> = vec![
        "check-server".into(),
        description.into(),
        "--format".into(),
        "json".into(),
    ];
    args.extend(flags.iter().map(|f| f.to_os_string()));
    args.extend(server.args());
    let run = mcpdesc(args);
    let report: Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.output()));
    let findings = report["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| Finding {
            rule: d["rule"].as_str().unwrap().to_owned(),
            pointer: d["pointer"].as_str().unwrap().to_owned(),
            message: d["message"].as_str().unwrap().to_owned(),
            versions: d["versions"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|v| v.as_str().unwrap().to_owned())
                .collect(),
        })
        .collect();
    Checked { run, findings }
}

/// `init --format json --out DIR/description.json` from `server`.
pub(crate) fn init_json(dir: &Path, server: &Server) -> PathBuf {
    let out = dir.join("description.json");
    let mut args: Vec<OsString> = vec![
        "init".into(),
        "--format".into(),
        "json".into(),
        "--out".into(),
        out.clone().into_os_string(),
    ];
    args.extend(server.args());
    let run = mcpdesc(args);
    assert_eq!(run.code, Some(0), "{}", run.output());
    out
}

pub(crate) fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Renames the first tool declaration, adds a property to the input schema of the next
/// tool declaration with another name, and removes one capability from one capability
/// declaration; returns the pointers the three findings must have.
pub(crate) fn edit(path: &Path) -> (PathBuf, [String; 3]) {
    let mut d = read_json(path);
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

/// A description written from `server` checks clean against it; after [`edit`], exactly
/// the three findings of the edit, at its pointers.
pub(crate) fn assert_round_trip(dir: &Path, server: &Server) {
    let written = init_json(dir, server);
    let c = check(&written, &[], server);
    assert!(c.live().is_empty(), "{:?}\n{}", c.live(), c.run.output());
    assert_eq!(c.run.code, Some(0), "{}", c.run.output());

    let (edited, pointers) = edit(&written);
    let c = check(&edited, &[], server);
    assert_eq!(c.run.code, Some(1), "{}", c.run.output());
    let live = c.live_pointers();
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
    found.sort_unstable();
    let mut expected: Vec<&str> = pointers.iter().map(String::as_str).collect();
    expected.sort_unstable();
    assert_eq!(found, expected, "{}", c.run.output());
}
