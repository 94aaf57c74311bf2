//! The pre-commit hook of this repository, tried with the real pre-commit from PyPI by
//! `xtask/pre-commit/test.sh`: in a sample repository the hook fails naming the invalid
//! description, and names neither the valid one nor the other JSON and YAML there. Skipped,
//! with the reason printed, only when PyPI cannot be reached.

mod support;

use std::io::Write as _;

use support::registries::{run_script, REGISTRY_UNREACHABLE};

#[test]
fn the_hook_fails_on_the_invalid_description_only() {
    let run = run_script("xtask/pre-commit/test.sh");
    let log = run.log;
    match run.code {
        Some(0) => {
            // The build time of the hook's environment, for whoever watches CI's duration.
            let took = log
                .lines()
                .find(|l| l.starts_with("pre-commit try-repo took"));
            let _ = writeln!(std::io::stderr(), "{}", took.unwrap_or_default());
        }
        Some(REGISTRY_UNREACHABLE) => {
            // Straight to the standard error stream, which the test harness does not capture,
            // so the skip shows in a plain `cargo test` run.
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED the pre-commit hook test: PyPI cannot be reached:\n{log}"
            );
        }
        _ => panic!("the pre-commit hook misbehaves ({}):\n{log}", run.status),
    }
}
