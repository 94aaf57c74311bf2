#!/usr/bin/env bash
# Installs the real MCP servers that the live probe tests start, at pinned versions:
#   node_modules/   @modelcontextprotocol/server-everything (package-lock.json)
#   .venv/          the official Python SDK `mcp` (requirements.txt), for python-server.py
#
#   bash xtask/live-servers/install.sh
#
# The pins are those of xtask/record-captures, so the live tests probe the same
# implementations the committed captures were recorded from. Needs Node (20+),
# python3 (3.10+) and access to the npm registry and PyPI. A second run with
# everything in place only checks the installation.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

# `npm ci` deletes and rewrites node_modules, which takes seconds; skip it when the
# installed tree already has every locked version (npm keeps a copy of the lock there).
locked='const a = require("./package-lock.json").packages,
              b = require("./node_modules/.package-lock.json").packages;
        for (const k of Object.keys(a)) if (k && (!b[k] || b[k].version !== a[k].version)) process.exit(1);'
if ! node -e "$locked" 2>/dev/null; then
  npm ci --no-audit --no-fund --loglevel=error
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
# requirements.txt holds `name==version` pins only.
pinned='import sys, importlib.metadata as m
for line in open("requirements.txt"):
    name, _, version = line.strip().partition("==")
    if name and m.version(name) != version:
        sys.exit(1)'
if ! .venv/bin/python -c "$pinned" 2>/dev/null; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
fi

test -f node_modules/@modelcontextprotocol/server-everything/dist/index.js
.venv/bin/python -c "$pinned"
