#!/usr/bin/env bash
# Times in-process validation with the Node package `mcpdesc`, installed from the tarball of
# build.sh into a persistent project at target/bindings/node-bench (reinstalled when the
# tarball changes), with crates/mcpdesc-node/bench/bench-validate.mjs:
#
#   xtask/bindings/node/bench.sh --runs N FILE...
#
# Prints one JSON line per file on stdout (see bench-validate.mjs), everything else on stderr.
# Builds the tarball first when there is none. Exit status: that of the benchmark, or 3 when
# the package must be built and the npm registry cannot be reached.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
source "$here/../common.sh"
project="$root/target/bindings/node-bench"

tarball="$(ls -t "$root"/target/bindings/npm/mcpdesc-*.tgz 2>/dev/null | head -n 1 || true)"
if [ -z "$tarball" ]; then
  echo "node bench: no package tarball; building it" >&2
  tarball="$("$here/build.sh" | tail -n 1)"
fi

mkdir -p "$project"
install_tarball() {
  printf '{\n  "name": "mcpdesc-node-bench",\n  "private": true,\n  "type": "module"\n}\n' >"$project/package.json"
  rm -rf "$project/node_modules" "$project/package-lock.json"
  # The package has no dependencies: installing its tarball needs no registry.
  (cd "$project" && npm install --no-save --no-package-lock --offline --no-audit --no-fund \
    --loglevel=error "$tarball")
}
if [ ! -d "$project/node_modules/mcpdesc" ]; then
  rm -f "$project/.installed-tarball"
fi
reinstall_when_changed "$project/.installed-tarball" "$tarball" install_tarball
cp "$root/crates/mcpdesc-node/bench/bench-validate.mjs" "$project/bench-validate.mjs"

# Run from the caller's directory, so that each file is reported as given; `mcpdesc`
# resolves from the script's own location in the project.
exec node "$project/bench-validate.mjs" "$@"
