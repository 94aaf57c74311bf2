//! The real MCP servers that `xtask/live-servers/install.sh` installs at pinned versions.

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::registries::registries_unreachable;
use super::workspace;

pub(crate) fn servers_dir() -> PathBuf {
    workspace().join("xtask/live-servers")
}

/// Installs the real servers once per test binary; `false` (with the reason printed) when
/// a registry cannot be reached, the one reason a test of them may skip.
pub(crate) fn real_servers_installed() -> bool {
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

fn everything_js() -> PathBuf {
    servers_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

/// `node …/server-everything/dist/index.js stdio`.
pub(crate) fn everything_stdio() -> Vec<PathBuf> {
    vec![
        PathBuf::from("node"),
        everything_js(),
        PathBuf::from("stdio"),
    ]
}

/// server-everything in Streamable HTTP mode on a free loopback port, stopped when dropped
/// however the test ends.
pub(crate) struct EverythingHttp {
    child: Child,
    pub url: String,
}

impl Drop for EverythingHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts server-everything in Streamable HTTP mode and waits until it listens.
pub(crate) fn everything_http() -> EverythingHttp {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = EverythingHttp {
        child: Command::new("node")
            .arg(everything_js())
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
        url: format!("http://127.0.0.1:{port}/mcp"),
    };
    let up = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            up.elapsed() < Duration::from_secs(30),
            "server-everything did not listen on port {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    server
}

/// The server built with the official Python SDK, in its virtual environment.
pub(crate) fn python_sdk_server() -> Vec<PathBuf> {
    let dir = servers_dir();
    vec![dir.join(".venv/bin/python"), dir.join("python-server.py")]
}
