#!/usr/bin/env bash
# Tests the packed Node package `mcpdesc` as a user gets it: a fresh npm project (a copy of
# xtask/bindings/node/test-project, whose lock pins the MCP SDK, zod, TypeScript and the Node
# types) installs the tarball built by build.sh, runs the `node:test` suites of
# crates/mcpdesc-node/tests against the installed package, and type-checks the typed usage
# sample against its type definitions with `tsc --strict`.
#
#   xtask/bindings/node/test.sh [TARBALL]    # default: the tarball in target/bindings/npm
#
# MCPDESC_KEEP_TEST_PROJECT=1 keeps the temporary project and prints where it is.
#
# Exit status: 0 when every test passes; 3 when the npm registry cannot be reached to install
# the test dependencies; any other non-zero status when a test or the installation fails.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
source "$here/../common.sh"
crate="$root/crates/mcpdesc-node"

tarball="$(built_artifact "${1:-}" "$root/target/bindings/npm" "mcpdesc-*.tgz" xtask/bindings/node/build.sh)"
scratch_dir mcpdesc-node-test MCPDESC_KEEP_TEST_PROJECT
project="$scratch"

# Runs npm in the test project; a failure to reach the registry exits with status 3.
npm_in_project() {
  (cd "$project" && run_or_unreachable "$npm_offline" "node test: npm $1" \
    npm "$@" --no-audit --no-fund --prefer-offline --loglevel=error)
}

cp "$here/test-project/package.json" "$here/test-project/package-lock.json" "$project/"
npm_in_project ci
# The package under test, from its tarball, beside the pinned dependencies.
npm_in_project install --no-save "$tarball"

mkdir "$project/tests"
cp "$crate"/tests/*.mjs "$crate"/tests/*.ts "$project/tests/"
cd "$project"

installed="$(node -p 'require.resolve("mcpdesc")')"
case "$installed" in
  "$project/node_modules/mcpdesc/"*) ;;
  *)
    echo "node test: mcpdesc resolves to $installed, not to the installed package" >&2
    exit 1
    ;;
esac
echo "node test: testing $(node -p 'require("mcpdesc/package.json").version') from $tarball in $project" >&2

status=0
MCPDESC_WORKSPACE="$root" node --test --test-reporter=spec tests/*.test.mjs || status=$?

# The typed usage sample, against the definitions of the installed package.
tsc_status=0
node_modules/.bin/tsc --noEmit --strict --exactOptionalPropertyTypes --noUncheckedIndexedAccess \
  --module nodenext --moduleResolution nodenext --target es2022 --types node \
  tests/typed-usage.ts || tsc_status=$?
if [ "$tsc_status" -ne 0 ]; then
  echo "node test: tsc --strict found errors in tests/typed-usage.ts against the installed index.d.ts" >&2
else
  echo "node test: tests/typed-usage.ts type-checks against the installed package" >&2
fi

# The typings bring the definitions they need: a project that declares nothing but TypeScript
# type-checks code using them with --strict and without skipLibCheck.
bare="$project/bare"
mkdir "$bare"
cp "$here/test-project/bare.package.json" "$bare/package.json"
(cd "$bare" && run_or_unreachable "$npm_offline" "node test: npm install (bare project)" \
  npm install --no-audit --no-fund --prefer-offline --loglevel=error "typescript@$(node -p 'require("typescript/package.json").version')" "$tarball")
cat >"$bare/usage.ts" <<'TS'
import { validate, type Report } from "mcpdesc";
const report: Report = validate(new URL("file:///nonexistent.yaml"));
const first: string | undefined = report.diagnostics[0]?.rule;
console.log(first, report.release);
TS
bare_status=0
(cd "$bare" && node_modules/.bin/tsc --noEmit --strict --module nodenext --moduleResolution nodenext \
  --target es2022 usage.ts) || bare_status=$?
if [ "$bare_status" -ne 0 ]; then
  echo "node test: a project with only TypeScript cannot type-check against the package's typings" >&2
else
  echo "node test: the typings type-check in a project that declares only TypeScript" >&2
fi

if [ "$status" -ne 0 ] || [ "$tsc_status" -ne 0 ] || [ "$bare_status" -ne 0 ]; then
  exit 1
fi
