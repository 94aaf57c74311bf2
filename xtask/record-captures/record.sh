#!/usr/bin/env bash
# Records real MCP stdio traffic between official SDK implementations into
# spec-fixtures/traffic/real/, one capture per implementation per protocol
# version it negotiates, and writes PROVENANCE.md next to them.
#
#   bash xtask/record-captures/record.sh
#
# With MCPDESC_CAPTURE_OUT=DIR the captures go to DIR instead, and the committed
# fixtures are left alone (the test suite records afresh this way and checks
# that new recordings show no problem the committed sidecars do not list).
#
# Needs Node (20+), python3 (3.10+) and access to the npm registry and PyPI
# only: versions are pinned in package-lock.json and requirements.txt, and the
# recorded servers are kept off the network (see ts-client.mjs).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${MCPDESC_CAPTURE_OUT:-$repo/spec-fixtures/traffic/real}"
logs="$here/.logs"
cd "$here"

echo "== installing pinned packages"
npm ci --no-audit --no-fund --loglevel=error
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
py="$here/.venv/bin/python"

mkdir -p "$out" "$logs"
rm -f "$out"/ts-sdk-everything-*.ndjson "$out"/python-sdk-*.ndjson "$out"/PROVENANCE.md
manifest="$(mktemp)"
trap 'rm -f "$manifest"' EXIT

# Runs one recording; its stderr (client and server diagnostics) goes to a log.
record() {
  local name="$1" version="$2"
  shift 2
  echo "-- $name"
  if ! "$@" >"$logs/$name.log" 2>&1; then
    echo "recording $name failed; last lines of $logs/$name.log:" >&2
    tail -n 30 "$logs/$name.log" >&2
    exit 1
  fi
  # The command as it can be re-run from this directory.
  local cmd="${*//$here\//}"
  printf '%s\t%s\t%s\n' "$name" "$version" "${cmd//$repo\//../../}" >>"$manifest"
}

# Every version each SDK lists is recorded, so a new SDK release adds its
# versions without changes here.
ts_versions="$(node -e 'import("@modelcontextprotocol/sdk/types.js").then(m => console.log(m.SUPPORTED_PROTOCOL_VERSIONS.join(" ")))')"
py_versions="$("$py" -c 'from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS as h, MODERN_PROTOCOL_VERSIONS as m; print(*h, *m)')"

echo "== TypeScript SDK + server-everything: $ts_versions"
for v in $ts_versions; do
  name="ts-sdk-everything-$v.ndjson"
  record "$name" "$v" node ts-client.mjs --version "$v" --capture "$out/$name" \
    --python "$py" --tap tap.py --server node_modules/@modelcontextprotocol/server-everything/dist/index.js
done

echo "== Python SDK: $py_versions"
for v in $py_versions; do
  name="python-sdk-$v.ndjson"
  record "$name" "$v" "$py" python-client.py --version "$v" --capture "$out/$name" --tap tap.py
done

echo "== writing PROVENANCE.md"
"$py" write-provenance.py "$out" "$manifest"
wc -l "$out"/*.ndjson
if [ -z "${MCPDESC_CAPTURE_OUT:-}" ]; then
  "$py" mutate.py  # re-derive spec-fixtures/traffic/expected-invalid/mutations/ from the new captures; then re-bless and review their sidecars
fi
