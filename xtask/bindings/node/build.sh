#!/usr/bin/env bash
# Builds the release package of the Node package `mcpdesc` (crates/mcpdesc-node): the native
# addon with the napi-rs CLI (pinned, with TypeScript, by the package's package-lock.json),
# then the npm tarball. Cargo builds into target/bindings, shared with the Python wheel build.
#
#   xtask/bindings/node/build.sh        # prints the tarball's path last
#
# The package is assembled in target/bindings/node/package (the package's files and the addon
# for this platform) and packed into target/bindings/npm/, so the source tree holds no build
# output.
#
# Exit status: 0 with the tarball built; 3 when the napi-rs CLI is not installed and the npm
# registry cannot be reached to install it; any other non-zero status when the build fails.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
source "$here/../common.sh"
crate="$root/crates/mcpdesc-node"
bindings="$root/target/bindings"
addon="$bindings/node/addon"
staging="$bindings/node/package"
tarballs="$bindings/npm"

for tool in node npm cargo; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "node build: $tool is required" >&2
    exit 1
  fi
done

cd "$crate"
# `npm ci` deletes and rewrites node_modules; skip it when the installed tree already has
# every locked version (npm keeps a copy of the lock there).
locked='const a = require("./package-lock.json").packages,
              b = require("./node_modules/.package-lock.json").packages;
        for (const k of Object.keys(a)) if (k && !a[k].optional && (!b[k] || b[k].version !== a[k].version)) process.exit(1);'
if ! node -e "$locked" 2>/dev/null; then
  run_or_unreachable "$npm_offline" "node build: npm ci (the napi-rs CLI)" \
    npm ci --no-audit --no-fund --loglevel=error
fi

rm -rf "$addon"
mkdir -p "$addon"
# napi-rs writes the type definitions it generates from the Rust code next to the addon; the
# package ships its own (index.d.ts), written for the JavaScript API rather than the native one.
# No `--strip`: it adds to RUSTFLAGS, and dependencies compiled with other RUSTFLAGS are not
# shared with the other release builds of the engine in target/bindings. The packaged copy of
# the addon is stripped of its debug information below instead.
CARGO_TARGET_DIR="$bindings" node_modules/.bin/napi build --release --platform --no-js \
  --output-dir "$addon" --dts native.d.ts >&2

built=("$addon"/mcpdesc.*.node)
if [ ! -f "${built[0]}" ]; then
  echo "node build: napi build reported success but left no addon in $addon" >&2
  exit 1
fi

rm -rf "$staging"
mkdir -p "$staging"
cp package.json index.js index.mjs index.d.ts index.d.mts README.md "$staging/"
cp -R bin "$staging/"
cp "${built[@]}" "$staging/"
# The release profile keeps line tables for the CLI's backtraces; the package ships without
# them (a fifth of the size), its symbols kept.
if command -v strip >/dev/null 2>&1; then
  case "$(uname -s)" in
    Linux) strip --strip-debug "$staging"/mcpdesc.*.node ;;
    Darwin) strip -S "$staging"/mcpdesc.*.node ;;
  esac
else
  echo "node build: no strip on PATH; the addon keeps its debug information" >&2
fi

mkdir -p "$tarballs"
# Only the tarball of this build is left, so that test.sh and bench.sh cannot pick up an old one.
rm -f "$tarballs"/mcpdesc-*.tgz
(cd "$staging" && npm pack --pack-destination "$tarballs" --loglevel=error >&2)

built_artifact "" "$tarballs" "mcpdesc-*.tgz" "npm pack (it reported success)"
