#!/usr/bin/env bash
# Installs Neovim (Debian's `neovim` package) for the editor test
# crates/mcpdesc-cli/tests/neovim.rs. Does nothing when `nvim` is already on PATH.
#
# Exit status: 0 when `nvim` is available afterwards; 3 when the Debian package registry cannot
# be reached (no apt-get, `apt-get update` cannot fetch, no installable `neovim` candidate, or
# the download of the package fails to connect), so that callers can tell "no registry" from
# "installation failed" (any other non-zero status).
set -euo pipefail

if command -v nvim >/dev/null 2>&1; then
  exit 0
fi

unreachable=3
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-neovim: nvim is not on PATH and there is no apt-get to install Debian's neovim package" >&2
  exit "$unreachable"
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
  else
    echo "install-neovim: not root, and sudo is missing or asks for a password; cannot install Debian's neovim package" >&2
    exit 1
  fi
fi

# apt-get prints these when a repository cannot be reached (it may still exit 0 after `update`).
network_failure='Failed to fetch|Some index files failed to download|Temporary failure resolving|Could not resolve|Could not connect|Unable to connect|Network is unreachable'
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

export DEBIAN_FRONTEND=noninteractive
echo "install-neovim: nvim is not on PATH; installing Debian's neovim package" >&2
update_status=0
"${as_root[@]}" apt-get update >"$log" 2>&1 || update_status=$?
cat "$log" >&2
candidate="$(apt-cache policy neovim 2>/dev/null | sed -n 's/^ *Candidate: *//p' || true)"
if [ -z "$candidate" ] || [ "$candidate" = "(none)" ]; then
  if [ "$update_status" -ne 0 ] || grep -Eq "$network_failure" "$log"; then
    echo "install-neovim: the Debian package registry cannot be reached (apt-get update failed)" >&2
  else
    echo "install-neovim: the package registry offers no neovim package (apt-cache policy neovim: no candidate)" >&2
  fi
  exit "$unreachable"
fi

install_status=0
"${as_root[@]}" apt-get install -y --no-install-recommends neovim >"$log" 2>&1 || install_status=$?
cat "$log" >&2
if [ "$install_status" -ne 0 ]; then
  if grep -Eq "$network_failure" "$log"; then
    echo "install-neovim: downloading neovim $candidate failed: the Debian package registry cannot be reached" >&2
    exit "$unreachable"
  fi
  echo "install-neovim: apt-get install neovim failed (exit $install_status)" >&2
  exit "$install_status"
fi

if ! command -v nvim >/dev/null 2>&1; then
  echo "install-neovim: neovim $candidate was installed but nvim is not on PATH" >&2
  exit 1
fi
echo "install-neovim: installed $(nvim --version | head -n 1)" >&2
