//! Shared by the command-line tests: running the built binary, copying trees, listing documents.

#![allow(dead_code)]

pub(crate) mod live_check;
pub(crate) mod live_servers;
pub(crate) mod lsp;
pub(crate) mod registries;

use std::path::{Path, PathBuf};
use std::process::Command;

pub(crate) fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The outcome of one run of the binary.
pub(crate) struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Both streams, for assertion messages.
    pub(crate) fn output(&self) -> String {
        format!("{}\n--- stderr ---\n{}", self.stdout, self.stderr)
    }
}

/// Runs `mcpdesc ARGS` in `dir`.
pub(crate) fn mcpdesc_in<I, S>(dir: &Path, args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    mcpdesc_in_workspace(dir, None, args)
}

/// Runs `mcpdesc ARGS` in `dir` as a workflow step of a checkout at `workspace` would (none:
/// outside any workflow), which `--format github` makes its paths relative to.
pub(crate) fn mcpdesc_in_workspace<I, S>(dir: &Path, workspace: Option<&Path>, args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpdesc"));
    command.current_dir(dir).env_remove("GITHUB_WORKSPACE");
    if let Some(workspace) = workspace {
        command.env("GITHUB_WORKSPACE", workspace);
    }
    let out = command.args(args).output().unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `mcpdesc ARGS` in the workspace with `input` on its standard input.
pub(crate) fn mcpdesc_stdin<I, S>(args: I, input: &str) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    use std::io::Write as _;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpdesc"))
        .current_dir(workspace())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(input.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The diagnostics' rule ids of the first file of a `--format json` report.
pub(crate) fn rule_ids(report: &serde_json::Value) -> Vec<String> {
    report["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap().to_owned())
        .collect()
}

/// Runs `mcpdesc ARGS` in the workspace.
pub(crate) fn mcpdesc<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    mcpdesc_in(&workspace(), args)
}

pub(crate) fn copy_dir(from: &Path, to: &Path) {
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

/// Every document below `dir` (`*.json`, `*.yaml`, `*.yml`, sidecars excluded), sorted.
pub(crate) fn documents(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let p = entry.path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                stack.push(p);
            } else if !name.ends_with(".expected.yaml")
                && [".json", ".yaml", ".yml", ".ndjson", ".jsonl"]
                    .iter()
                    .any(|e| name.ends_with(e))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// `{"rules": [...]}` of `mcpdesc rules list --format json --rules DIR`.
pub(crate) fn rules_list(rules: &Path) -> serde_json::Value {
    let run = mcpdesc([
        "rules".as_ref(),
        "list".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        "--rules".as_ref(),
        rules.as_os_str(),
    ]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    serde_json::from_str(&run.stdout).unwrap()
}
