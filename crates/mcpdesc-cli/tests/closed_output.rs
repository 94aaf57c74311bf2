//! A reader that stops reading early (`mcpdesc rules list | head -1`) ends the command quietly,
//! without a panic.

use std::io::Read as _;
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
