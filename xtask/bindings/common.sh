# What the build, test and bench scripts of the language packages share; sourced, not run.

# Exit status of a script when a package registry cannot be reached.
unreachable=3
# What pip and npm print when their registry cannot be reached.
pip_offline='NewConnectionError|ConnectTimeoutError|ReadTimeoutError|Temporary failure in name resolution|Name or service not known|Network is unreachable|Connection refused|Max retries exceeded|Could not fetch URL|ProxyError|SSLError'
npm_offline='ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|network request to|request to https?://[^ ]* failed|This is a problem related to network connectivity|getaddrinfo|socket hang up|self.signed certificate|UNABLE_TO_GET_ISSUER_CERT'

# run_or_unreachable OFFLINE WHAT COMMAND...
# Runs COMMAND with its output on stderr. When it fails, the script exits: with status 3 when
# the output matches OFFLINE (the registry cannot be reached), else with COMMAND's status.
run_or_unreachable() {
  local offline="$1" what="$2" log status=0
  shift 2
  log="$(mktemp)"
  "$@" >"$log" 2>&1 || status=$?
  cat "$log" >&2
  if [ "$status" -ne 0 ]; then
    if grep -Eq "$offline" "$log"; then
      rm -f "$log"
      echo "$what: the package registry cannot be reached" >&2
      exit "$unreachable"
    fi
    rm -f "$log"
    echo "$what failed (exit $status)" >&2
    exit "$status"
  fi
  rm -f "$log"
}

# built_artifact GIVEN DIR PATTERN BUILD
# The absolute path of GIVEN, or else of the newest DIR/PATTERN; exits naming BUILD, the script
# that makes it, when there is none.
built_artifact() {
  local given="$1" dir="$2" pattern="$3" build="$4"
  if [ -z "$given" ]; then
    given="$(ls -t "$dir"/$pattern 2>/dev/null | head -n 1 || true)"
  fi
  if [ -z "$given" ] || [ ! -f "$given" ]; then
    echo "no package${given:+ at $given}; run $build first" >&2
    exit 1
  fi
  echo "$(cd "$(dirname "$given")" && pwd)/$(basename "$given")"
}

# scratch_dir PREFIX KEEP
# Sets `scratch` to a new temporary directory, removed when the script exits unless the
# environment variable named KEEP is set (then its path is printed).
scratch_dir() {
  scratch="$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")"
  keep_variable="$2"
  trap 'if [ -n "${!keep_variable:-}" ]; then echo "kept $scratch" >&2; else rm -rf "$scratch"; fi' EXIT
}

# reinstall_when_changed STAMP ARTIFACT COMMAND...
# Runs COMMAND (an install of ARTIFACT) unless STAMP records that ARTIFACT's content is
# installed already; then records it.
reinstall_when_changed() {
  local stamp="$1" artifact="$2" signature
  shift 2
  signature="$(sha256sum "$artifact" | cut -d' ' -f1)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$signature" ]; then
    "$@" >&2
    echo "$signature" >"$stamp"
  fi
}

# pinned_venv PYTHON VENV REQUIREMENTS WHAT
# Creates the virtual environment VENV with PYTHON when it is missing, and installs the pins
# of REQUIREMENTS (`name==version` lines only) unless every one is installed already; exits
# with status 3 when PyPI cannot be reached (see run_or_unreachable, WHAT naming the step).
pinned_venv() {
  local python="$1" venv="$2" requirements="$3" what="$4"
  local pinned='import sys, importlib.metadata as m
for line in open(sys.argv[1]):
    name, _, version = line.strip().partition("==")
    if name and m.version(name) != version:
        sys.exit(1)'
  if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
  fi
  if ! "$venv/bin/python" -c "$pinned" "$requirements" 2>/dev/null; then
    run_or_unreachable "$pip_offline" "$what" \
      "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --retries 2 \
      --timeout 30 -r "$requirements"
  fi
}
