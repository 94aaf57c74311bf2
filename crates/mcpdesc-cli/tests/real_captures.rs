//! The real captures: recorded afresh from the official SDKs (installed from the npm registry
//! and PyPI at the pinned versions), every new recording shows no problem that the committed
//! capture of the same name does not document in its sidecar.
//!
//! The committed captures themselves are checked against their sidecars by `mcpdesc test`
//! (`spec_fixtures.rs`); this test proves that the recorder still works and that the
//! findings are the implementations' behaviour, not an accident of one recording. It is skipped,
//! with the reason printed, only when a registry cannot be reached.

mod support;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use serde_json::Value;
use support::registries::registries_unreachable;
use support::{mcpdesc, workspace};

/// The captures in `dir`, sorted.
fn captures(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ndjson"))
        .collect();
    out.sort();
    out
}

/// The rule ids of a sidecar.
fn sidecar_rules(path: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split("rule: ").nth(1))
        .filter_map(|r| r.split(',').next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn fresh_recordings_show_only_documented_problems() {
    if let Some(why) = registries_unreachable() {
        eprintln!("skipping the live recording: {why}");
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let ws = workspace();
    let script = ws.join("xtask/record-captures/record.sh");
    let run = Command::new("timeout")
        .arg("900")
        .arg("bash")
        .arg(&script)
        .env("MCPDESC_CAPTURE_OUT", out.path())
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "record.sh failed:\n{}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let committed = ws.join("spec-fixtures/traffic/real");
    let fresh = captures(out.path());
    let names = |paths: &[std::path::PathBuf]| -> BTreeSet<String> {
        paths
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    };
    let expected = captures(&committed);
    assert_eq!(
        names(&fresh),
        names(&expected),
        "the same implementations and versions"
    );
    for capture in &fresh {
        let report = mcpdesc([
            "validate".as_ref(),
            "--format".as_ref(),
            "json".as_ref(),
            capture.as_os_str(),
        ]);
        let v: Value = serde_json::from_str(&report.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", report.output()));
        let found: BTreeSet<String> = v["files"][0]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["rule"].as_str().unwrap().to_owned())
            .collect();
        let stem = capture.file_stem().unwrap().to_string_lossy().into_owned();
        let documented = sidecar_rules(&committed.join(format!("{stem}.expected.yaml")));
        let undocumented: Vec<_> = found.difference(&documented).collect();
        assert!(
            undocumented.is_empty(),
            "{stem}: a fresh recording finds {undocumented:?}, which its committed sidecar does not document:\n{}",
            report.stdout
        );
    }
}
