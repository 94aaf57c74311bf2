//! `mcpdesc server` in a real editor: headless Neovim (Debian's `neovim` package, 0.7.2 on
//! Debian 12) opens a description with a known problem through its built-in LSP client, picks
//! a quick fix from the code-action menu as a person would, and the diagnostic disappears.
//!
//! `nvim` is installed by `xtask/editor-tests/install-neovim.sh` when it is missing. The tests
//! are skipped, with the reason printed, only when the Debian package registry cannot be
//! reached; under `CI=true` even that fails.

mod support;

use std::io::{Read, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::registries::REGISTRY_UNREACHABLE;

const FIXTURE: &str = "spec-fixtures/expected-invalid/elicitation-before-2025-06-18.json";
const ELICITATION_RULE: &str = "mcp.elicitation.protocol-version";
const LEGACY_RULE: &str = "mcpdesc.conformance.legacy-incomplete";
/// How long the whole editor session may take before it is killed.
const SESSION_TIMEOUT: Duration = Duration::from_secs(60);
/// How long the script waits for any one thing (diagnostics, the code-action menu).
const STEP_TIMEOUT_MS: u64 = 20_000;

/// The script Neovim runs. It uses only what Neovim 0.7.2 has: `vim.lsp.start_client` and
/// `vim.lsp.buf_attach_client` (`vim.lsp.start` is 0.8+), `vim.diagnostic.get`, and
/// `vim.lsp.buf.code_action()`, whose menu is `vim.ui.select`. Replacing `vim.ui.select` is the
/// documented way to drive that menu: the replacement sees the same items and titles a person
/// would and picks the first title starting with `action_prefix`. Neovim then applies the
/// chosen action's WorkspaceEdit to the buffer and sends `didChange` itself.
const SCRIPT: &str = r#"
local cfg = vim.fn.json_decode(table.concat(vim.fn.readfile(vim.env.MCPDESC_NVIM_TEST), "\n"))
local result = { nvim = tostring(vim.version().major) .. "." .. vim.version().minor .. "." .. vim.version().patch,
                 published = {}, notified = {} }

local function code_of(d)
  return d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
end

local function simplified(diags)
  local out = {}
  for _, d in ipairs(diags) do
    table.insert(out, { code = code_of(d), lnum = d.lnum, col = d.col, message = d.message,
                        severity = d.severity, source = d.source })
  end
  table.sort(out, function(a, b) return (a.code or "") < (b.code or "") end)
  return out
end

local function main()
  vim.lsp.set_log_level("debug")
  result.log_path = vim.lsp.get_log_path()
  vim.notify = function(msg, level)
    table.insert(result.notified, { message = tostring(msg), level = level })
  end
  -- Keep a record of every publication Neovim receives, then let Neovim handle it as usual.
  local publish = vim.lsp.handlers["textDocument/publishDiagnostics"]
  vim.lsp.handlers["textDocument/publishDiagnostics"] = function(err, res, ctx, config)
    local codes = {}
    for _, d in ipairs((res and res.diagnostics) or {}) do table.insert(codes, d.code) end
    table.insert(result.published, { version = res and res.version, codes = codes })
    return publish(err, res, ctx, config)
  end

  vim.cmd("edit " .. vim.fn.fnameescape(cfg.document))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.bo[bufnr].filetype = "json"
  local client_id = vim.lsp.start_client({
    name = "mcpdesc",
    cmd = { cfg.server, "server" },
    cmd_cwd = cfg.root,
    root_dir = cfg.root,
  })
  assert(client_id, "vim.lsp.start_client failed")
  assert(vim.lsp.buf_attach_client(bufnr, client_id), "vim.lsp.buf_attach_client failed")

  local function find(code)
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if code_of(d) == code then return d end
    end
  end
  local function wait_for(what, predicate, interval)
    if not vim.wait(cfg.timeout_ms, predicate, interval or 20) then
      error("timed out waiting for " .. what .. "; diagnostics: "
            .. vim.inspect(simplified(vim.diagnostic.get(bufnr))))
    end
  end

  wait_for(cfg.rule .. " to be reported", function() return find(cfg.rule) ~= nil end)
  result.before = simplified(vim.diagnostic.get(bufnr))

  -- Put the cursor on the finding and open the code-action menu there.
  local d = find(cfg.rule)
  vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col })
  local picked = nil
  vim.ui.select = function(items, opts, on_choice)
    result.offered = {}
    local index = nil
    for i, item in ipairs(items) do
      local title = opts.format_item and opts.format_item(item) or tostring(item)
      table.insert(result.offered, title)
      if index == nil and vim.startswith(title, cfg.action_prefix) then index = i end
    end
    picked = index and result.offered[index] or false
    on_choice(index and items[index] or nil, index)
  end
  vim.lsp.buf.code_action()
  wait_for("the code-action menu", function() return picked ~= nil end)
  if not picked then
    error("no code action starting with " .. cfg.action_prefix .. " among " .. vim.inspect(result.offered))
  end
  result.picked = picked

  wait_for(cfg.rule .. " to go away", function() return find(cfg.rule) == nil end)
  result.after = simplified(vim.diagnostic.get(bufnr))
  result.text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
  vim.cmd("write")
end

local ok, err = xpcall(main, debug.traceback)
result.ok = ok
if not ok then result.error = tostring(err) end
vim.fn.writefile({ vim.fn.json_encode(result) }, cfg.result)
vim.cmd("qa!")
"#;

/// Whether `nvim` can be run, installing it first when it is missing. `Err` is the reason the
/// test is skipped (the package registry cannot be reached); any other failure panics.
fn neovim() -> Result<(), String> {
    static READY: OnceLock<Result<(), String>> = OnceLock::new();
    READY
        .get_or_init(|| {
            if nvim_version().is_some() {
                return Ok(());
            }
            let run = support::registries::run_script("xtask/editor-tests/install-neovim.sh");
            let log = run.log;
            match run.code {
                Some(0) => {}
                Some(REGISTRY_UNREACHABLE) => return Err(log),
                _ => panic!("installing Neovim failed ({}):\n{log}", run.status),
            }
            assert!(
                nvim_version().is_some(),
                "Neovim was installed but `nvim --version` does not run:\n{log}"
            );
            Ok(())
        })
        .clone()
}

fn nvim_version() -> Option<String> {
    let out = Command::new("nvim").arg("--version").output().ok()?;
    out.status.success().then(|| {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned()
    })
}

/// Returns false, after saying why, when the test cannot run here.
fn have_neovim(test: &str) -> bool {
    match neovim() {
        Ok(()) => true,
        Err(reason) => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI=true: Neovim is required but could not be installed:\n{reason}"
            );
            // Straight to the standard error stream, which the test harness does not capture,
            // so the skip shows in a plain `cargo test` run.
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED {test}: nvim is not installed and the Debian package registry cannot be reached:\n{reason}"
            );
            false
        }
    }
}

/// What one editor session saw, and where its logs are.
struct Session {
    _dir: tempfile::TempDir,
    result: Value,
    document: PathBuf,
    transcript: String,
}

impl Session {
    fn diagnostics(&self, when: &str) -> &[Value] {
        self.result[when]
            .as_array()
            .unwrap_or_else(|| panic!("no `{when}` diagnostics\n{}", self.transcript))
    }

    fn codes(&self, when: &str) -> Vec<&str> {
        self.diagnostics(when)
            .iter()
            .map(|d| d["code"].as_str().unwrap_or_default())
            .collect()
    }

    /// The document as Neovim wrote it after applying the action, parsed.
    fn saved(&self) -> Value {
        let text = std::fs::read_to_string(&self.document).unwrap();
        assert_eq!(
            text.trim_end(),
            self.result["text"].as_str().unwrap_or_default(),
            "the saved file is the buffer's text\n{}",
            self.transcript
        );
        serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("not JSON after the edit: {e}\n{text}\n{}", self.transcript))
    }
}

/// Opens a copy of the fixture in headless Neovim, waits for `ELICITATION_RULE`, picks the code
/// action whose title starts with `action_prefix` and waits for the diagnostic to go.
fn run_session(action_prefix: &str) -> Session {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(&root).unwrap();
    let document = root.join("elicitation-before-2025-06-18.json");
    std::fs::copy(support::workspace().join(FIXTURE), &document).unwrap();
    let xdg = |name: &str| {
        let p = dir.path().join("xdg").join(name);
        std::fs::create_dir_all(&p).unwrap();
        p
    };
    let (cache, config, data, state) = (xdg("cache"), xdg("config"), xdg("data"), xdg("state"));
    let script = dir.path().join("session.lua");
    std::fs::write(&script, SCRIPT).unwrap();
    let result_path = dir.path().join("result.json");
    let cfg = dir.path().join("session.json");
    let settings = json!({
        "server": env!("CARGO_BIN_EXE_mcpdesc"),
        "root": root,
        "document": document,
        "result": result_path,
        "rule": ELICITATION_RULE,
        "action_prefix": action_prefix,
        "timeout_ms": STEP_TIMEOUT_MS,
    });
    std::fs::write(&cfg, settings.to_string()).unwrap();

    let started = Instant::now();
    let mut child = Command::new("nvim")
        .args(["--headless", "--clean", "-n", "-i", "NONE", "-S"])
        .arg(&script)
        .current_dir(&root)
        .env("MCPDESC_NVIM_TEST", &cfg)
        .env("XDG_CACHE_HOME", &cache)
        .env("XDG_CONFIG_HOME", &config)
        .env("XDG_DATA_HOME", &data)
        .env("XDG_STATE_HOME", &state)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn nvim");
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = r.read_to_end(&mut s);
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > SESSION_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let elapsed = started.elapsed();
    let result: Option<Value> = std::fs::read_to_string(&result_path)
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok());
    let lsp_log = result
        .as_ref()
        .and_then(|r| r["log_path"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| cache.join("nvim/lsp.log"));
    let transcript = format!(
        "nvim exit: {}\nelapsed: {elapsed:?}\n--- result ---\n{}\n--- nvim stdout ---\n{}\n--- nvim stderr ---\n{}\n--- LSP log ({}) ---\n{}",
        status.map_or("killed after the timeout".to_owned(), |s| s.to_string()),
        result
            .as_ref()
            .map_or("(none written)".to_owned(), |r| serde_json::to_string_pretty(r).unwrap()),
        stdout.join().unwrap(),
        stderr.join().unwrap(),
        lsp_log.display(),
        read_or_missing(&lsp_log),
    );
    let Some(result) = result else {
        panic!("Neovim wrote no result\n{transcript}");
    };
    assert_eq!(
        result["ok"], true,
        "the Neovim session failed\n{transcript}"
    );
    eprintln!(
        "{} session with {:?} took {elapsed:?}",
        result["nvim"], action_prefix
    );
    Session {
        _dir: dir,
        result,
        document,
        transcript,
    }
}

fn read_or_missing(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| format!("(unreadable: {e})"))
}

fn assert_reported_before(s: &Session) {
    assert_eq!(
        s.codes("before"),
        [ELICITATION_RULE, LEGACY_RULE],
        "{}",
        s.transcript
    );
    let d = s
        .diagnostics("before")
        .iter()
        .find(|d| d["code"] == ELICITATION_RULE)
        .unwrap();
    assert_eq!((&d["lnum"], &d["col"]), (&json!(12), &json!(8)), "{d}");
    assert_eq!(d["source"], "mcpdesc", "{d}");
    assert_eq!(d["severity"], 1, "an error: {d}");
    assert!(
        d["message"].as_str().unwrap().ends_with("(MCP 2025-03-26)"),
        "{d}"
    );
    let offered: Vec<&str> = s.result["offered"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(
        offered,
        [
            "Limit `/tools/0/elicitations/0` to MCP 2025-06-18 (protocolVersions)",
            "Suppress mcp.elicitation.protocol-version here (x-mcpdesc-suppress)",
        ],
        "{}",
        s.transcript
    );
}

#[test]
fn neovim_suppresses_a_finding_from_the_code_action_menu() {
    if !have_neovim("neovim_suppresses_a_finding_from_the_code_action_menu") {
        return;
    }
    let s = run_session("Suppress");
    assert_reported_before(&s);
    assert_eq!(
        s.result["picked"],
        "Suppress mcp.elicitation.protocol-version here (x-mcpdesc-suppress)"
    );
    assert_eq!(s.codes("after"), [LEGACY_RULE], "{}", s.transcript);
    assert!(
        s.result["text"]
            .as_str()
            .unwrap()
            .contains("x-mcpdesc-suppress"),
        "{}",
        s.transcript
    );
    let saved = s.saved();
    let entries = saved["x-mcpdesc-suppress"]
        .as_array()
        .expect("a suppression list");
    assert_eq!(entries.len(), 1, "{saved:#}");
    assert_eq!(entries[0]["rule"], ELICITATION_RULE, "{saved:#}");
    assert_eq!(
        entries[0]["pointer"], "/tools/0/elicitations/0",
        "{saved:#}"
    );
}

#[test]
fn neovim_applies_the_rules_fix_from_the_code_action_menu() {
    if !have_neovim("neovim_applies_the_rules_fix_from_the_code_action_menu") {
        return;
    }
    let s = run_session("Limit");
    assert_reported_before(&s);
    assert_eq!(
        s.result["picked"],
        "Limit `/tools/0/elicitations/0` to MCP 2025-06-18 (protocolVersions)"
    );
    assert_eq!(s.codes("after"), [LEGACY_RULE], "{}", s.transcript);
    let saved = s.saved();
    assert_eq!(
        saved["tools"][0]["elicitations"][0]["protocolVersions"],
        json!(["2025-06-18"]),
        "{saved:#}"
    );
    assert!(saved.get("x-mcpdesc-suppress").is_none(), "{saved:#}");
}
