//! The example of an embedder's own check and house rules (`examples/acme-checks`) builds
//! against this crate and reports its example document's one violation.

use std::path::PathBuf;
use std::process::Command;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn the_acme_example_reports_its_one_violation() {
    let root = workspace();
    // The workspace's target directory, so that the dependencies built for the workspace are
    // reused rather than built again.
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let out = Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--manifest-path"])
        .arg(root.join("examples/acme-checks/Cargo.toml"))
        .arg("--")
        .arg("example.json")
        .current_dir(root.join("examples/acme-checks"))
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The same file the packaging check holds the example to, when it is built from the
    // packaged crates.
    let expected = std::fs::read_to_string(root.join("examples/acme-checks/expected-output.txt"))
        .expect("the example's expected output");
    assert_eq!(stdout, expected, "{stderr}");
    assert_eq!(out.status.code(), Some(1), "{stderr}");
}
