#!/usr/bin/env bash
# Tests the Python package `mcpdesc` as a user gets it: a fresh virtual environment installs
# the wheel built by build.sh with pip, beside the pinned test dependencies
# (requirements-test.txt: pytest, the MCP Python SDK, mypy, PyYAML); pytest runs the suites
# of crates/mcpdesc-python/tests from a copy outside the source tree, against the installed
# package, and mypy --strict checks the installed package and the typed usage sample.
#
#   xtask/bindings/python/test.sh [WHEEL]    # default: the wheel in target/bindings/wheels
#
# MCPDESC_KEEP_TEST_ENV=1 keeps the temporary environment and prints where it is.
#
# Exit status: 0 when every test passes; 3 when PyPI cannot be reached to install the test
# dependencies; any other non-zero status when a test or the installation fails.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
source "$here/../common.sh"
crate="$root/crates/mcpdesc-python"
python="${PYTHON:-python3}"

wheel="$(built_artifact "${1:-}" "$root/target/bindings/wheels" "mcpdesc-*.whl" xtask/bindings/python/build.sh)"
scratch_dir mcpdesc-python-test MCPDESC_KEEP_TEST_ENV
venv="$scratch/venv"
"$python" -m venv "$venv"
pip=("$venv/bin/python" -m pip install --disable-pip-version-check --retries 2 --timeout 30)

run_or_unreachable "$pip_offline" "python test: pip install -r requirements-test.txt" \
  "${pip[@]}" -r "$here/requirements-test.txt"
# The package under test, from its wheel, with no index: it has no dependencies.
run_or_unreachable "$pip_offline" "python test: pip install $wheel" "${pip[@]}" --no-index "$wheel"

# The tests run from a copy: nothing beside them can shadow the installed package.
mkdir "$scratch/tests"
cp "$crate"/tests/*.py "$scratch/tests/"
cd "$scratch"

installed="$("$venv/bin/python" -c 'import mcpdesc, os; print(os.path.dirname(mcpdesc.__file__))')"
case "$installed" in
  "$venv/"*) ;;
  *)
    echo "python test: mcpdesc imports from $installed, not from the installed wheel" >&2
    exit 1
    ;;
esac
echo "python test: testing mcpdesc $("$venv/bin/python" -c 'import mcpdesc; print(mcpdesc.__version__)') from $wheel in $venv" >&2

status=0
MCPDESC_WORKSPACE="$root" "$venv/bin/python" -m pytest -p no:cacheprovider -q -rs tests || status=$?

# The installed package and the typed usage sample, against the installed types.
mypy_status=0
for target in "-p mcpdesc" tests/test_typed_usage.py; do
  # shellcheck disable=SC2086 # `-p mcpdesc` is two words
  "$venv/bin/python" -m mypy --strict --no-incremental --python-version 3.10 $target || mypy_status=$?
done
if [ "$mypy_status" -ne 0 ]; then
  echo "python test: mypy --strict found errors in the installed package or tests/test_typed_usage.py" >&2
else
  echo "python test: tests/test_typed_usage.py type-checks against the installed package" >&2
fi

if [ "$status" -ne 0 ] || [ "$mypy_status" -ne 0 ]; then
  exit 1
fi
