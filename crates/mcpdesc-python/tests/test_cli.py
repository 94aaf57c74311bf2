"""The ``mcpdesc`` command the wheel installs: the same command line as the standalone binary,
run by the console script (and by ``python -m mcpdesc``) in the interpreter's process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import mcpdesc
from mcpdesc import _cli

from conftest import BAD_TOOL, VALID, WORKSPACE

# The console script pip wrote beside the interpreter of the environment.
SCRIPT = Path(sys.executable).parent / ("mcpdesc.exe" if os.name == "nt" else "mcpdesc")
BAD_TOOL_JSON = json.dumps(
    {
        **VALID,
        "tools": [{"name": "demo_tool", "bogus": 1, "inputSchema": {"type": "object"}}],
    }
)


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NO_COLOR": "1"},
    )


def test_the_wheel_installs_the_console_script() -> None:
    assert SCRIPT.is_file(), f"no console script at {SCRIPT}"
    assert os.access(SCRIPT, os.X_OK)


def test_version_is_the_package_version() -> None:
    done = run("--version")
    assert (done.returncode, done.stdout, done.stderr) == (0, f"mcpdesc {mcpdesc.__version__}\n", "")


def test_a_valid_document_exits_0() -> None:
    done = run("validate", str(WORKSPACE / "docs/examples/weather-server.yaml"))
    assert done.returncode == 0, done
    assert "0 invalid" in done.stdout


def test_an_invalid_document_exits_1_with_its_finding(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(BAD_TOOL, encoding="utf-8")
    done = run("validate", str(bad))
    assert done.returncode == 1, done
    assert f"{bad}:5:5: error[mcpdesc.tool.closed]" in done.stdout


def test_a_usage_error_exits_2_with_clap_s_message() -> None:
    done = run("validate", "--no-such-option", "x.yaml")
    assert done.returncode == 2, done
    assert "unexpected argument '--no-such-option'" in done.stderr
    assert "Usage: mcpdesc validate" in done.stderr
    assert "Traceback" not in done.stderr


def test_standard_input_is_read_for_a_dash() -> None:
    valid = run("validate", "-", stdin=json.dumps(VALID))
    assert valid.returncode == 0, valid
    invalid = run("validate", "-", stdin=BAD_TOOL_JSON)
    assert invalid.returncode == 1, invalid
    assert "error[mcpdesc.tool.closed]" in invalid.stdout


def test_python_dash_m_runs_the_same_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mcpdesc", "--version"], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout) == (0, f"mcpdesc {mcpdesc.__version__}\n"), done


def test_a_reader_that_stops_early_ends_the_output_quietly_as_with_the_binary() -> None:
    # Far more than a pipe holds: the command meets a closed pipe, and exits 0 without a
    # message (Python's handling of SIGPIPE would otherwise kill it or print a traceback).
    child = subprocess.Popen(
        [str(SCRIPT), "rules", "list", "--format", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdout is not None and child.stderr is not None
    assert child.stdout.read(16)
    child.stdout.close()
    assert child.wait(timeout=120) == 0
    assert child.stderr.read() == b""


def _lsp(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


@pytest.mark.skipif(os.name == "nt", reason="POSIX signals")
def test_the_language_server_answers_and_ctrl_c_ends_it() -> None:
    child = subprocess.Popen(
        [str(SCRIPT), "server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        initialize = {"processId": None, "capabilities": {}}
        child.stdin.write(_lsp({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize}))
        child.stdin.flush()
        header = child.stdout.readline()
        assert header.startswith(b"Content-Length: "), header
        length = int(header.split(b":")[1])
        assert child.stdout.readline() == b"\r\n"
        answer = json.loads(child.stdout.read(length))
        assert answer["id"] == 1 and "capabilities" in answer["result"], answer
        # The server runs in native code, where Python's own SIGINT handler would never run:
        # Ctrl-C must end the process as it ends the binary.
        child.send_signal(signal.SIGINT)
        assert child.wait(timeout=30) == -signal.SIGINT
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdin.close()
        child.stdout.close()
        assert child.stderr is not None
        child.stderr.close()


def test_the_mcp_server_answers_a_session_and_ends_with_its_input() -> None:
    """``mcpdesc mcp``, as an agent launches it from the installed package."""
    child = subprocess.Popen(
        [str(SCRIPT), "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert child.stdin is not None and child.stdout is not None

    def ask(message: dict[str, object]) -> dict[str, object]:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(json.dumps(message).encode() + b"\n")
        child.stdin.flush()
        return json.loads(child.stdout.readline())

    try:
        params = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        }
        answer = ask({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
        assert answer["result"]["protocolVersion"] == "2025-06-18", answer
        child.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        tools = ask({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        names = {t["name"] for t in tools["result"]["tools"]}
        assert "validate_description" in names, names
        call = {"name": "validate_description", "arguments": {"text": BAD_TOOL_JSON}}
        result = ask({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call})["result"]
        assert result["structuredContent"]["valid"] is False, result
        child.stdin.close()
        assert child.wait(timeout=30) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()
        assert child.stderr is not None
        child.stderr.close()


def test_in_process_the_command_returns_its_status_and_puts_python_s_handlers_back(
    capfd: pytest.CaptureFixture[str],
) -> None:
    before = signal.getsignal(signal.SIGINT)
    assert _cli.main(["--version"]) == 0
    assert capfd.readouterr().out == f"mcpdesc {mcpdesc.__version__}\n"
    assert _cli.main(["validate", "--no-such-option", "x.yaml"]) == 2
    assert "unexpected argument" in capfd.readouterr().err
    assert signal.getsignal(signal.SIGINT) is before


def test_from_another_thread_the_command_runs_and_leaves_the_handlers_alone(
    capfd: pytest.CaptureFixture[str],
) -> None:
    before = signal.getsignal(signal.SIGINT)
    status: list[int] = []
    worker = threading.Thread(target=lambda: status.append(_cli.main(["--version"])))
    worker.start()
    worker.join(timeout=60)
    assert status == [0]
    assert capfd.readouterr().out == f"mcpdesc {mcpdesc.__version__}\n"
    assert signal.getsignal(signal.SIGINT) is before
