//! The real MCP servers that `xtask/live-servers/install.sh` installs at pinned versions.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use super::registries::registries_unreachable;
use super::workspace;

pub fn servers_dir() -> PathBuf {
    workspace().join("xtask/live-servers")
}

/// Installs the real servers once per test binary; `false` (with the reason printed) when
/// a registry cannot be reached, the one reason a test of them may skip.
pub fn real_servers_installed() -> bool {
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    let outcome = INSTALLED.get_or_init(|| {
        let run = Command::new("timeout")
            .arg("900")
            .arg("bash")
            .arg(servers_dir().join("install.sh"))
            .output()
            .unwrap();
        if run.status.success() {
            return Ok(());
        }
        match registries_unreachable() {
            Some(why) => Err(why),
            None => panic!(
                "xtask/live-servers/install.sh failed:\n{}\n{}",
                String::from_utf8_lossy(&run.stdout),
                String::from_utf8_lossy(&run.stderr)
            ),
        }
    });
    match outcome {
        Ok(()) => true,
        Err(why) => {
            eprintln!("skipping the live servers: {why}");
            false
        }
    }
}

/// `node …/server-everything/dist/index.js stdio`.
pub fn everything_stdio() -> Vec<PathBuf> {
    vec![
        PathBuf::from("node"),
        servers_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
        PathBuf::from("stdio"),
    ]
}

/// The server built with the official Python SDK, in its virtual environment.
pub fn python_sdk_server() -> Vec<PathBuf> {
    let dir = servers_dir();
    vec![dir.join(".venv/bin/python"), dir.join("python-server.py")]
}
