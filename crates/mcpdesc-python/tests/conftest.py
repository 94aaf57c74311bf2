"""What the package tests share: where the workspace is, the documents they validate, and a
reader for the fixture sidecars (``*.expected.yaml``).

The tests run against the installed wheel from a temporary directory that
``xtask/bindings/python/test.sh`` points at the checkout with ``MCPDESC_WORKSPACE``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml


def _workspace() -> Path:
    named = os.environ.get("MCPDESC_WORKSPACE")
    candidate = Path(named) if named else Path(__file__).resolve().parents[3]
    if not (candidate / "spec-fixtures").is_dir():
        raise RuntimeError(f"no workspace at {candidate} (set MCPDESC_WORKSPACE to the checkout of mcpdesc)")
    return candidate


WORKSPACE = _workspace()
RULES = WORKSPACE / "rules"
FICTIONAL = WORKSPACE / "crates/mcpdesc-core/tests/releases/fictional"
FICTIONAL_RELEASE = "0.9.0-fictional.1"

# A tool with a member the closed Tool object does not define: `bogus` on line 5, column 5.
BAD_TOOL = (
    "mcpdesc: 0.8.0\n"
    "info: {name: demo, version: 1.0.0}\n"
    "tools:\n"
    "  - name: demo_tool\n"
    "    bogus: 1\n"
    "    inputSchema: {type: object}\n"
    "protocolVersions: ['2025-11-25']\n"
)

VALID: dict[str, Any] = {
    "mcpdesc": "0.8.0",
    "info": {"name": "demo", "version": "1.0.0"},
    "protocolVersions": ["2025-11-25"],
}

# One initialize handshake in MCP 2025-06-18.
CAPTURE_MESSAGES: list[dict[str, Any]] = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"},
        },
    },
    {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "serverInfo": {"name": "s", "version": "1"},
        },
    },
]
CAPTURE = "".join(json.dumps(m) + "\n" for m in CAPTURE_MESSAGES)


def many_tools(count: int) -> dict[str, Any]:
    """A description with ``count`` tools, each with its own input schema."""
    tools = [
        {
            "name": f"tool_{i}",
            "title": f"Tool {i}",
            "description": f"Does thing number {i}",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": f"The query of tool {i}"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 100 + i},
                },
                "required": ["query"],
            },
            "annotations": {"readOnlyHint": i % 2 == 0},
        }
        for i in range(count)
    ]
    return {**VALID, "capabilities": [{"tools": {"listChanged": False}}], "tools": tools}


# --- sidecars -----------------------------------------------------------------------------

Entry = dict[str, Any]


def read_sidecar(path: Path) -> list[Entry]:
    """The recorded findings of a fixture: ``- {rule, pointer, severity, versions}`` or
    ``- {load-error: CODE}`` entries, in the canonical order of :func:`as_sidecar`."""
    entries = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    if not isinstance(entries, list):
        raise ValueError(f"{path}: a sidecar is a list")
    for entry in entries:
        if "versions" in entry:
            entry["versions"] = [str(v) for v in entry["versions"]]
    return canonical(entries)


def canonical(entries: list[Entry]) -> list[Entry]:
    head = [e for e in entries if "load-error" in e]
    rest = sorted((e for e in entries if "load-error" not in e), key=_key)
    return head + rest


def as_sidecar(diagnostics: Any, load_error: Any = None) -> list[Entry]:
    """Findings as sidecar entries, in one canonical order."""
    entries = sorted(
        (
            {"rule": d.rule, "pointer": d.pointer, "severity": d.severity, "versions": list(d.versions)}
            for d in diagnostics
        ),
        key=_key,
    )
    if load_error is not None:
        entries.insert(0, {"load-error": load_error.code})
    return entries


def _key(entry: Entry) -> str:
    return json.dumps([entry["rule"], entry["pointer"], entry["severity"], entry["versions"]])


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    return tmp_path
