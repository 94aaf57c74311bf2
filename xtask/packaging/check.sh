#!/usr/bin/env bash
# Packages the workspace's crates as a registry would receive them, and uses them as a project
# outside this workspace would:
#   1. `cargo package` of every crate but the build automation, each verified by a build from
#      its packaged files (the engine's catalogue included);
#   2. `cargo publish --dry-run` of the crates bound for crates.io (the language packages'
#      native modules go to PyPI and npm instead);
#   3. the example embedder examples/acme-checks, copied out of the repository and built
#      against the packaged engine through `[patch]`, validates its sample description with the
#      embedded catalogue, its own check and its `acme.*` house rule, and must print exactly the
#      diagnostics its test expects;
#   4. `cargo install` of the packaged command line, its dependencies on the workspace's other
#      crates pointed at their packaged files through `[patch]`, into a scratch root; the
#      installed `mcpdesc` must pass the example description (exit 0) and fail an invalid one
#      (exit 1).
#
#   xtask/packaging/check.sh
#
# Exit status: 0 when all of it passes; 3 when crates.io cannot be reached to resolve the
# packages' dependencies; any other non-zero status on a failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
offline='failed to get .* as a dependency|failed to query replaced source registry|Couldn.t resolve host|failed to download|network failure|spurious network error'

# run_or_unreachable WHAT COMMAND...: runs COMMAND; when it fails because crates.io cannot be
# reached, exits with 3, else with COMMAND's status.
run_or_unreachable() {
  local what="$1" log status=0
  shift
  log="$(mktemp)"
  "$@" 2>&1 | tee "$log" >&2 || status=${PIPESTATUS[0]}
  if [ "$status" -ne 0 ]; then
    if grep -Eq "$offline" "$log"; then
      echo "packaging: $what: crates.io cannot be reached" >&2
      rm -f "$log"
      exit 3
    fi
    echo "packaging: $what failed (exit $status)" >&2
    rm -f "$log"
    exit "$status"
  fi
  rm -f "$log"
}

rm -rf target/package/*.crate
# Cargo unpacks the packages of its verification registry once per registry path and reuses
# them on later runs from the same checkout, whatever the packages hold now. None of these
# crates comes from crates.io, so every unpacked copy is from an earlier run.
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
rm -rf "$cargo_home"/registry/src/*/mcpdesc-*-[0-9]* "$cargo_home"/registry/cache/*/mcpdesc-*-[0-9]*.crate
run_or_unreachable "cargo package" cargo package --workspace --exclude xtask --locked
run_or_unreachable "cargo publish --dry-run" \
  cargo publish --dry-run --workspace --exclude xtask --no-verify --locked

scratch="$(mktemp -d "${TMPDIR:-/tmp}/mcpdesc-packaging.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
for crate in target/package/*.crate; do
  tar -xzf "$crate" -C "$scratch"
done
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)"

# The example as its own project: its manifest names the engine by version, as an embedder's
# does; the patch points that name at the packaged files instead of this repository.
example="$scratch/acme-checks"
cp -R examples/acme-checks "$example"
rm -rf "$example/target"
sed -i "s|^mcpdesc-core = { path = .*|mcpdesc-core = { path = \"$scratch/mcpdesc-core-$version\" }|;
        s|^mcpdesc-document = { path = .*|mcpdesc-document = { path = \"$scratch/mcpdesc-document-$version\" }|" \
  "$example/Cargo.toml"
grep -q "$scratch/mcpdesc-core-$version" "$example/Cargo.toml" || {
  echo "packaging: the example's manifest has no [patch] entry for mcpdesc-core to point at the package" >&2
  exit 1
}
status=0
output="$(cd "$example" && CARGO_TARGET_DIR="$root/target" \
  cargo run --quiet -- example.json)" || status=$?
expected="$(cat "$example/expected-output.txt")"  # as the example's own test expects
echo "$output" >&2
if [ "$output" != "$expected" ]; then
  echo "packaging: the example built from the packaged engine printed something else than expected-output.txt:" >&2
  diff <(echo "$expected") <(echo "$output") >&2 || true
  exit 1
fi
if [ "$status" -ne 1 ]; then
  echo "packaging: the example exited with $status, not 1 (its sample breaks a rule)" >&2
  exit 1
fi

# The command line as `cargo install mcpdesc-cli` will build it once its dependencies are on
# crates.io: from the packaged crate and its lock file, each workspace crate it needs taken
# from its package.
# A debug build into the workspace's target directory, where `cargo package` verified every
# crate: the dependencies from crates.io are built already, the packaged crates (new paths
# each run) are built again.
cli="$scratch/mcpdesc-cli-$version"
patches=()
needed=(mcpdesc-cli)
while [ "${#needed[@]}" -gt 0 ]; do
  crate="${needed[0]}"
  needed=("${needed[@]:1}")
  for dependency in $(sed -n 's/^\[\(build-\)\{0,1\}dependencies\.\(mcpdesc-[a-z-]*\)\]$/\2/p' \
    "$scratch/$crate-$version/Cargo.toml" | sort -u); do
    entry="patch.crates-io.$dependency.path=\"$scratch/$dependency-$version\""
    case " ${patches[*]} " in
      *" $entry "*) ;;
      *)
        patches+=("$entry")
        needed+=("$dependency")
        ;;
    esac
  done
done
config=()
for entry in "${patches[@]}"; do
  config+=(--config "$entry")
done
started=$SECONDS
run_or_unreachable "cargo install of the packaged mcpdesc-cli" \
  cargo install "${config[@]}" --locked --path "$cli" --root "$scratch/installed" --debug \
  --target-dir "$root/target"
echo "packaging: cargo install of the packaged mcpdesc-cli took $((SECONDS - started)) s" >&2
installed="$scratch/installed/bin/mcpdesc"
status=0
"$installed" validate docs/examples/weather-server.yaml >&2 || status=$?
if [ "$status" -ne 0 ]; then
  echo "packaging: the installed mcpdesc exited with $status, not 0, on docs/examples/weather-server.yaml" >&2
  exit 1
fi
printf '%s\n' 'mcpdesc: 0.8.0' 'info: {name: demo, version: 1.0.0}' 'tools:' '  - name: demo_tool' \
  '    bogus: 1' '    inputSchema: {type: object}' "protocolVersions: ['2025-11-25']" >"$scratch/invalid.yaml"
status=0
output="$("$installed" validate "$scratch/invalid.yaml")" || status=$?
echo "$output" >&2
if [ "$status" -ne 1 ] || ! grep -q 'error\[mcpdesc.tool.closed\]' <<<"$output"; then
  echo "packaging: the installed mcpdesc exited with $status on an invalid description, not 1 with its finding" >&2
  exit 1
fi
echo "packaging: every crate packaged and verified; the example runs on the packaged engine; the packaged command line installs and validates" >&2
