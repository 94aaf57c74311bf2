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
