#!/usr/bin/env bash
# Builds the release wheel of the Python package `mcpdesc` (crates/mcpdesc-python) with
# maturin, pinned by requirements-build.txt in a tools virtual environment at
# target/bindings/python-tools. Cargo builds into target/bindings, shared with the Node
# package build.
#
#   xtask/bindings/python/build.sh        # prints the wheel's path last
#
# Exit status: 0 with the wheel built; 3 when maturin is missing and PyPI cannot be reached
# to install it; any other non-zero status when the build fails.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
source "$here/../common.sh"
cd "$root"

bindings="$root/target/bindings"
tools="$bindings/python-tools"
wheels="$bindings/wheels"
python="${PYTHON:-python3}"

# requirements files hold `name==version` pins only.
pinned='import sys, importlib.metadata as m
for line in open(sys.argv[1]):
    name, _, version = line.strip().partition("==")
    if name and m.version(name) != version:
        sys.exit(1)'

if [ ! -x "$tools/bin/python" ]; then
  "$python" -m venv "$tools"
fi
if ! "$tools/bin/python" -c "$pinned" "$here/requirements-build.txt" 2>/dev/null; then
  run_or_unreachable "$pip_offline" "python build: installing maturin" \
    "$tools/bin/python" -m pip install --disable-pip-version-check --retries 2 --timeout 30 \
    -r "$here/requirements-build.txt"
fi

mkdir -p "$wheels"
# Only the wheel of this build is left, so that test.sh and bench.sh cannot pick up an old one.
rm -f "$wheels"/mcpdesc-*.whl
CARGO_TARGET_DIR="$bindings" "$tools/bin/maturin" build --release \
  --manifest-path "$root/crates/mcpdesc-python/Cargo.toml" \
  --interpreter "$(command -v "$python")" \
  --out "$wheels" >&2

built_artifact "" "$wheels" "mcpdesc-*.whl" "maturin (it reported success)"
