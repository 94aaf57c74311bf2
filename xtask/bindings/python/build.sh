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

pinned_venv "$python" "$tools" "$here/requirements-build.txt" "python build: installing maturin"

mkdir -p "$wheels"
# Only the wheel of this build is left, so that test.sh and bench.sh cannot pick up an old one.
rm -f "$wheels"/mcpdesc-*.whl
CARGO_TARGET_DIR="$bindings" "$tools/bin/maturin" build --release \
  --manifest-path "$root/crates/mcpdesc-python/Cargo.toml" \
  --interpreter "$(command -v "$python")" \
  --out "$wheels" >&2

built_artifact "" "$wheels" "mcpdesc-*.whl" "maturin (it reported success)"
