#!/usr/bin/env bash
# Times in-process validation with the Python package `mcpdesc`, installed from the wheel of
# build.sh into a persistent virtual environment at target/bindings/python-bench (reinstalled
# when the wheel changes), with crates/mcpdesc-python/bench/bench_validate.py:
#
#   xtask/bindings/python/bench.sh --runs N FILE...
#
# Prints one JSON line per file on stdout (see bench_validate.py), everything else on stderr.
# Builds the wheel first when there is none. Exit status: that of the benchmark, or 3 when the
# wheel must be built and PyPI cannot be reached to install maturin.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
source "$here/../common.sh"
venv="$root/target/bindings/python-bench"
python="${PYTHON:-python3}"

wheel="$(ls -t "$root"/target/bindings/wheels/mcpdesc-*.whl 2>/dev/null | head -n 1 || true)"
if [ -z "$wheel" ]; then
  echo "python bench: no wheel; building it" >&2
  wheel="$("$here/build.sh" | tail -n 1)"
fi

if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
# The package has no dependencies: installing its wheel needs no index.
reinstall_when_changed "$venv/.installed-wheel" "$wheel" \
  "$venv/bin/python" -m pip install --disable-pip-version-check --no-index --force-reinstall --quiet "$wheel"

# Run from the caller's directory, so that each file is reported as given; the script is run
# by path from the source tree, and `mcpdesc` imports from the environment (the script's own
# directory holds no package of that name).
exec "$venv/bin/python" "$root/crates/mcpdesc-python/bench/bench_validate.py" "$@"
