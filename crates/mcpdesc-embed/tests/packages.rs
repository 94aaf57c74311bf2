//! The Python and Node packages as their users get them: each is built in release by its
//! `xtask/bindings/<language>/build.sh` (the wheel with maturin, the npm tarball with the
//! napi-rs CLI), then its `test.sh` installs it into a fresh virtual environment or npm
//! project and runs the package's own suites (pytest, `node:test`) and its type check (mypy
//! `--strict`, `tsc --strict`) against the installed package.
//!
//! The scripts exit with status 3 when the package registry cannot be reached (to install the
//! build tools or the test dependencies); only then is a test skipped, with the reason printed,
//! and under `CI=true` even that fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

/// Exit status of the scripts when the package registry cannot be reached.
const REGISTRY_UNREACHABLE: i32 = 3;

/// One language package and how its test run reports.
struct Package {
    language: &'static str,
    /// What `build.sh` prints last: the artifact's extension.
    artifact: &'static str,
    /// A command that succeeds when the package registry answers.
    registry_probe: &'static [&'static str],
    /// The counts of tests passed and failed in the test run's transcript.
    counts: fn(&str) -> (Option<u64>, Option<u64>),
    /// The line `test.sh` prints when the typed usage sample type-checks.
    type_checked: &'static str,
    /// Fewer passing tests than this means the suites were not all found.
    at_least: u64,
}

const PYTHON: Package = Package {
    language: "python",
    artifact: ".whl",
    registry_probe: &[
        "python3",
        "-m",
        "pip",
        "index",
        "versions",
        "pip",
        "--disable-pip-version-check",
    ],
    counts: pytest_counts,
    type_checked: "test_typed_usage.py type-checks against the installed package",
    at_least: 200,
};

const NODE: Package = Package {
    language: "node",
    artifact: ".tgz",
    registry_probe: &["npm", "ping", "--loglevel=error"],
    counts: node_test_counts,
    type_checked: "typed-usage.ts type-checks against the installed package",
    at_least: 100,
};

/// `N passed` and `N failed` of pytest's closing line (`278 passed, 1 skipped in 3.2s`).
fn pytest_counts(report: &str) -> (Option<u64>, Option<u64>) {
    let closing = report
        .lines()
        .rev()
        .find(|l| l.contains(" passed") || l.contains(" failed") || l.contains("no tests ran"));
    let count = |label: &str| -> Option<u64> {
        let line = closing?;
        let words: Vec<&str> = line
            .split([' ', ',', '='])
            .filter(|w| !w.is_empty())
            .collect();
        words
            .windows(2)
            .find(|w| w[1] == label)
            .and_then(|w| w[0].parse().ok())
    };
    (count("passed"), Some(count("failed").unwrap_or(0)))
}

/// `ℹ tests N` and `ℹ fail N` of the `node:test` spec reporter's summary.
fn node_test_counts(report: &str) -> (Option<u64>, Option<u64>) {
    let count = |label: &str| -> Option<u64> {
        report
            .lines()
            .find_map(|l| l.trim().strip_prefix(label)?.trim().parse().ok())
    };
    (count("ℹ pass"), count("ℹ fail"))
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the workspace root")
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

fn transcript(output: &Output) -> String {
    format!(
        "--- stdout ---\n{}\n--- stderr ---\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

impl Package {
    fn script(&self, name: &str) -> String {
        format!("xtask/bindings/{}/{name}", self.language)
    }

    /// Runs one script from the workspace root, its output captured.
    fn run(&self, script: &str, args: &[&str]) -> Output {
        let root = workspace();
        let started = Instant::now();
        let output = Command::new("bash")
            .arg(root.join(script))
            .args(args)
            .current_dir(&root)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {script}: {e}"));
        eprintln!(
            "{script}: exit {:?} after {:.1} s",
            output.status.code(),
            started.elapsed().as_secs_f64()
        );
        output
    }

    fn registry_answers(&self) -> bool {
        Command::new("timeout")
            .arg("60")
            .args(self.registry_probe)
            .output()
            .is_ok_and(|o| o.status.success())
    }

    /// `Ok(output)` when the script succeeded; `Err(reason)` when it could not reach the
    /// registry. Any other failure panics with the script's output.
    fn passed(&self, script: &str, args: &[&str]) -> Result<Output, String> {
        let output = self.run(script, args);
        match output.status.code() {
            Some(0) => Ok(output),
            Some(REGISTRY_UNREACHABLE) => {
                assert!(
                    !self.registry_answers(),
                    "{script} exited with status 3 (registry unreachable), yet `{}` answers:\n{}",
                    self.registry_probe.join(" "),
                    transcript(&output)
                );
                Err(format!(
                    "{script}: the package registry cannot be reached\n{}",
                    transcript(&output)
                ))
            }
            _ => panic!(
                "{script} failed with {}:\n{}",
                output.status,
                transcript(&output)
            ),
        }
    }

    fn skip_or_fail(&self, reason: &str) {
        assert!(
            !in_ci(),
            "CI=true, where an unreachable registry fails the {} package test:\n{reason}",
            self.language
        );
        eprintln!("skipping the {} package test: {reason}", self.language);
    }

    /// Builds, installs and tests the package.
    fn check(&self) {
        let build = self.script("build.sh");
        let built = match self.passed(&build, &[]) {
            Ok(output) => output,
            Err(reason) => return self.skip_or_fail(&reason),
        };
        let stdout = String::from_utf8_lossy(&built.stdout);
        let artifact = stdout.lines().last().map(str::trim).unwrap_or_default();
        assert!(
            artifact.ends_with(self.artifact) && Path::new(artifact).is_file(),
            "{build} did not print the path of a {} last:\n{}",
            self.artifact,
            transcript(&built)
        );

        let tested = match self.passed(&self.script("test.sh"), &[artifact]) {
            Ok(output) => output,
            Err(reason) => return self.skip_or_fail(&reason),
        };
        // The suites ran and reported: a run that found no tests is not a pass.
        let report = transcript(&tested);
        let (passed, failed) = (self.counts)(&report);
        assert!(
            passed.is_some_and(|n| n >= self.at_least) && failed == Some(0),
            "test.sh passed without reporting at least {} passing tests (passed {passed:?}, failed {failed:?}):\n{report}",
            self.at_least
        );
        assert!(
            report.contains(self.type_checked),
            "test.sh did not type-check the typed usage sample:\n{report}"
        );
        eprintln!("{report}");
    }
}

#[test]
fn the_installed_python_package_passes_its_tests() {
    PYTHON.check();
}

#[test]
fn the_installed_node_package_passes_its_tests() {
    NODE.check();
}

#[test]
fn test_counts_are_read_from_the_runners_summaries() {
    assert_eq!(
        pytest_counts("....\n278 passed, 1 skipped in 3.23s\n"),
        (Some(278), Some(0))
    );
    assert_eq!(
        pytest_counts("== 2 failed, 276 passed, 1 skipped in 3.23s ==\nlater line\n"),
        (Some(276), Some(2))
    );
    assert_eq!(pytest_counts("no tests ran in 0.01s\n"), (None, Some(0)));
    assert_eq!(
        node_test_counts("ℹ tests 268\nℹ pass 267\nℹ fail 0\n"),
        (Some(267), Some(0))
    );
}
