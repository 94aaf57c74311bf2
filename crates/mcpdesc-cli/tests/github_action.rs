//! The GitHub Action's run step (`action/run.sh`, called by `action.yml`) run as a workflow
//! runs it: `GITHUB_WORKSPACE`, the `INPUT_*` variables, a job summary file and a working
//! directory below the workspace. Annotations must name files relative to the workspace,
//! which is what GitHub matches them against.

use std::path::{Path, PathBuf};
use std::process::Command;

const VALID: &str =
    "mcpdesc: 0.8.0\ninfo:\n  name: a\n  version: 1.0.0\nprotocolVersions: [\"2025-11-25\"]\n";
const INVALID: &str = "mcpdesc: 0.8.0\ninfo:\n  version: 1.0.0\nprotocolVersions: []\n";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A checkout with a service below the root holding one valid and one invalid description
/// among unrelated JSON.
fn workspace() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(d, "services/api/specs/good.yaml", VALID);
    write(d, "services/api/specs/bad.yaml", INVALID);
    write(d, "services/api/package.json", r#"{"name": "api"}"#);
    write(d, "package.json", r#"{"name": "root"}"#);
    tmp
}

struct Step {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    summary: String,
}

fn run_step(workspace: &Path, env: &[(&str, &str)]) -> Step {
    let summary = workspace.join("step-summary.md");
    let out = Command::new("bash")
        .arg(root().join("action/run.sh"))
        // Steps of a composite action start in the workspace.
        .current_dir(workspace)
        .env("MCPDESC", env!("CARGO_BIN_EXE_mcpdesc"))
        .env("GITHUB_WORKSPACE", workspace)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    Step {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        summary: std::fs::read_to_string(summary).unwrap_or_default(),
    }
}

#[test]
fn annotations_name_files_relative_to_the_workspace() {
    let ws = workspace();
    let step = run_step(
        ws.path(),
        &[
            ("INPUT_PATHS", "specs"),
            ("INPUT_WORKING_DIRECTORY", "services/api"),
            ("INPUT_ARGS", ""),
        ],
    );
    assert_eq!(step.code, Some(1), "{}\n{}", step.stdout, step.stderr);
    let annotations: Vec<&str> = step
        .stdout
        .lines()
        .filter(|l| l.starts_with("::"))
        .collect();
    assert!(!annotations.is_empty(), "{}", step.stdout);
    for a in &annotations {
        assert!(
            a.starts_with("::error file=services/api/specs/bad.yaml,line=")
                && a.contains(",col=")
                && !a.contains("line=0"),
            "{a}"
        );
    }
    assert!(
        step.stdout.contains("Checked 2 files: 1 invalid"),
        "{}",
        step.stdout
    );
    assert!(step.summary.contains("### mcpdesc"), "{}", step.summary);
    assert!(
        step.summary.contains("Checked 2 files: 1 invalid"),
        "{}",
        step.summary
    );
}

#[test]
fn a_directory_walk_leaves_other_json_alone_and_args_pass_through() {
    let ws = workspace();
    let step = run_step(
        ws.path(),
        &[
            ("INPUT_PATHS", ". services"),
            ("INPUT_ARGS", "--select mcpdesc.info.*"),
        ],
    );
    assert_eq!(step.code, Some(1), "{}\n{}", step.stdout, step.stderr);
    assert!(!step.stdout.contains("package.json"), "{}", step.stdout);
    assert!(
        step.stdout.lines().any(|l| l
            .starts_with("::error file=services/api/specs/bad.yaml,line=")
            && l.contains("title=mcpdesc.info.")),
        "{}",
        step.stdout
    );
    assert!(
        !step.stdout.contains("protocol-versions"),
        "--select was not passed on: {}",
        step.stdout
    );
}

#[test]
fn a_sarif_report_is_written_when_asked() {
    let ws = workspace();
    let step = run_step(
        ws.path(),
        &[
            ("INPUT_PATHS", "services"),
            ("INPUT_SARIF_FILE", "mcpdesc.sarif"),
        ],
    );
    assert_eq!(step.code, Some(1), "{}\n{}", step.stdout, step.stderr);
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ws.path().join("mcpdesc.sarif")).unwrap())
            .unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(!results.is_empty());
}

#[test]
fn a_clean_run_passes() {
    let ws = workspace();
    std::fs::remove_file(ws.path().join("services/api/specs/bad.yaml")).unwrap();
    let step = run_step(ws.path(), &[]);
    assert_eq!(step.code, Some(0), "{}\n{}", step.stdout, step.stderr);
    assert!(!step.stdout.contains("::"), "{}", step.stdout);
    assert!(
        step.summary.contains("Checked 1 file: 0 invalid"),
        "{}",
        step.summary
    );
}

#[test]
fn the_action_passes_every_input_to_the_run_step() {
    let action = std::fs::read_to_string(root().join("action.yml")).unwrap();
    assert!(action.contains("using: composite"));
    assert!(action.contains("\"$GITHUB_ACTION_PATH/action/run.sh\""));
    for input in ["paths", "args", "working-directory", "sarif-file"] {
        let var = format!(
            "INPUT_{}: ${{{{ inputs.{input} }}}}",
            input.to_uppercase().replace('-', "_")
        );
        assert!(action.contains(&var), "missing `{var}`");
        assert!(
            action.contains(&format!("\n  {input}:\n")),
            "input {input} undeclared"
        );
    }
    let install = root().join("crates/mcpdesc-cli");
    assert!(install.join("Cargo.toml").is_file());
    assert!(action.contains("--path \"$GITHUB_ACTION_PATH/crates/mcpdesc-cli\""));
}
