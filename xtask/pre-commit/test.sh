#!/usr/bin/env bash
# Tries this repository's pre-commit hook (.pre-commit-hooks.yaml) with the real pre-commit
# from PyPI, as a user gets it: `pre-commit try-repo <this repository> mcpdesc --all-files`
# in a sample repository holding a valid and an invalid description, an excluded one under
# node_modules/ and other people's JSON and YAML. The hook must fail naming the invalid
# description and nothing else.
#
#   xtask/pre-commit/test.sh
#
# try-repo takes the committed HEAD (plus changes to tracked files, through a temporary
# commit): what is tested is what a user of that commit would get. pre-commit is installed
# (requirements.txt) into target/pre-commit/venv. try-repo installs the hook's environment
# afresh in a temporary store each time, so the release build of the command inside it goes
# to target/bindings (CARGO_TARGET_DIR, which maturin honours), where the release builds of
# the Python and Node packages leave the dependencies it shares with them; a second run
# compiles only what changed. The time the run took is printed.
#
# Exit status: 0 when the hook behaves; 3 when PyPI cannot be reached (the reason printed);
# 1 when it misbehaves.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$root/xtask/bindings/common.sh"

work="$root/target/pre-commit"
venv="$work/venv"
python="${PYTHON:-python3}"
mkdir -p "$work"

pinned_venv "$python" "$venv" "$here/requirements.txt" "installing pre-commit"

# Where pre-commit keeps its log; try-repo's environments are temporary whatever this says.
export PRE_COMMIT_HOME="$work/home"
export CARGO_TARGET_DIR="$root/target/bindings"
# The hook's environment builds with cargo in release mode; without this pre-commit would
# colour its output for a terminal that is not there.
export PRE_COMMIT_COLOR=never

scratch_dir mcpdesc-pre-commit KEEP_PRE_COMMIT_SAMPLE
sample="$scratch/sample"
mkdir -p "$sample/specs" "$sample/node_modules/dep" "$sample/.github/workflows"
cat >"$sample/specs/good.yaml" <<'YAML'
mcpdesc: 0.8.0
info:
  name: good
  version: 1.0.0
protocolVersions: ["2025-11-25"]
YAML
cat >"$sample/specs/bad.json" <<'JSON'
{"mcpdesc": "0.8.0", "info": {"version": "1.0.0"}, "protocolVersions": []}
JSON
cp "$sample/specs/bad.json" "$sample/node_modules/dep/vendored.json"
echo '{"name": "sample", "version": "1.0.0", "private": true}' >"$sample/package.json"
echo '{"compilerOptions": {"strict": true}}' >"$sample/tsconfig.json"
printf 'openapi: 3.1.0\ninfo:\n  title: API\n  version: 1.0.0\npaths: {}\n' >"$sample/openapi.yaml"
printf 'name: ci\non: push\njobs: {}\n' >"$sample/.github/workflows/ci.yml"
git -C "$sample" init --quiet
git -C "$sample" add -A

start=$(date +%s)
status=0
(cd "$sample" && "$venv/bin/pre-commit" try-repo "$root" mcpdesc --all-files) >"$scratch/out" 2>&1 ||
  status=$?
elapsed=$(($(date +%s) - start))
cat "$scratch/out"
echo "pre-commit try-repo took ${elapsed}s (exit $status)"

failures=()
if grep -Eq "$pip_offline" "$scratch/out" && ! grep -q 'specs/bad.json' "$scratch/out"; then
  echo "installing the hook's environment: the package registry cannot be reached" >&2
  exit "$unreachable"
fi
[ "$status" -eq 1 ] || failures+=("the hook should fail (exit 1), not exit $status")
grep -q '^mcpdesc\.*Failed$' "$scratch/out" || failures+=("the hook did not report Failed")
grep -q 'specs/bad.json:' "$scratch/out" || failures+=("specs/bad.json is not named")
for other in specs/good.yaml package.json tsconfig.json openapi.yaml ci.yml node_modules; do
  if grep -q "$other" "$scratch/out"; then
    failures+=("$other is named")
  fi
done
if [ "${#failures[@]}" -gt 0 ]; then
  printf 'pre-commit hook: %s\n' "${failures[@]}" >&2
  exit 1
fi
echo "pre-commit hook: ok"
