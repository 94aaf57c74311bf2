//! A reader that stops reading early (`mcpdesc rules list | head -1`) ends the command quietly,
//! without a panic.

use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Stdio};

mod support;

fn first_bytes_then_close(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpdesc"))
        .args(args)
        .current_dir(support::workspace())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (child.wait().unwrap().code(), stderr)
}

#[test]
fn a_closed_standard_output_is_not_an_error() {
    for args in [
        &["rules", "list"][..],
        &["rules", "list", "--format", "json"],
        &["completions", "fish"],
        &["docs", "--check", "--out", "target/no-such-pages"],
        &["test", "spec-fixtures", "--format", "json"],
        &[
            "validate",
            "--format",
            "json",
            "spec-fixtures/expected-invalid",
        ],
    ] {
        let (code, stderr) = first_bytes_then_close(args);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(matches!(code, Some(0 | 1)), "{args:?}: {code:?} {stderr}");
    }
}

/// A report that cannot be written (a full disk) is an error with exit code 2, not a crash,
/// for the commands that print generated text as well as for `validate`.
#[test]
fn an_unwritable_standard_output_is_an_error_not_a_crash() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        eprintln!("skipped: this system has no /dev/full");
        return;
    }
    let pages = tempfile::tempdir().unwrap();
    let out = pages.path().to_string_lossy().into_owned();
    let commands: [Vec<&str>; 4] = [
        vec!["completions", "zsh"],
        vec!["docs", "--out", &out],
        vec!["rules", "list"],
        vec!["explain", "mcpdesc-cli.unused-suppression"],
    ];
    for args in commands {
        let run = Command::new(env!("CARGO_BIN_EXE_mcpdesc"))
            .args(&args)
            .stdout(std::fs::File::create(full).unwrap())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    }
}
