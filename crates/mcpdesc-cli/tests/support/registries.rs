//! Whether the package registries that the live tests install from can be reached: the
//! one reason such a test may skip.

use std::process::Command;

/// Why the npm registry or PyPI cannot be reached, if one cannot.
pub(crate) fn registries_unreachable() -> Option<String> {
    let npm = Command::new("timeout")
        .args(["60", "npm", "ping", "--loglevel=error"])
        .output();
    match npm {
        Ok(o) if o.status.success() => {}
        Ok(o) => {
            return Some(format!(
                "npm registry: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            ))
        }
        Err(e) => return Some(format!("npm: {e}")),
    }
    let pypi = Command::new("timeout")
        .args([
            "60",
            "python3",
            "-m",
            "pip",
            "index",
            "versions",
            "mcp",
            "--disable-pip-version-check",
        ])
        .output();
    match pypi {
        Ok(o) if o.status.success() => None,
        Ok(o) => Some(format!(
            "PyPI: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Some(format!("pip: {e}")),
    }
}

/// What the repository's install and test scripts exit with when a package registry cannot be
/// reached.
pub(crate) const REGISTRY_UNREACHABLE: i32 = 3;

/// How one of the repository's scripts ended.
pub(crate) struct ScriptRun {
    /// Its exit status; `None` when a signal ended it.
    pub code: Option<i32>,
    /// Its standard output and error, one after the other.
    pub log: String,
    /// How it ended, for messages.
    pub status: std::process::ExitStatus,
}

/// Runs the script at `relative` in the workspace with bash, standard input closed; panics
/// when bash cannot be started.
pub(crate) fn run_script(relative: &str) -> ScriptRun {
    let script = super::workspace().join(relative);
    let out = Command::new("bash")
        .arg(&script)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    ScriptRun {
        code: out.status.code(),
        log: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        status: out.status,
    }
}
