#!/usr/bin/env bash
# The run step of the GitHub Action (action.yml at the repository root): validates the
# given paths with `mcpdesc validate --format github`, so that findings become annotations
# on the pull request, writes the summary line to the job summary and, when asked, a SARIF
# report for code scanning. It reads what the workflow passes as environment variables:
#
#   INPUT_PATHS              files, directories or globs, separated by white space [.]
#   INPUT_ARGS               further arguments of `mcpdesc validate`, separated by white space
#   INPUT_WORKING_DIRECTORY  where to run, relative to GITHUB_WORKSPACE [.]
#   INPUT_SARIF_FILE         where to write a SARIF report too (relative to the working
#                            directory); none by default
#   MCPDESC                  the command to run [mcpdesc]
#
# Exit status: that of `mcpdesc validate` (0 valid, 1 findings at the failing level, 2 usage
# or I/O errors).
set -uo pipefail

mcpdesc="${MCPDESC:-mcpdesc}"
workspace="${GITHUB_WORKSPACE:-$PWD}"
cd "$workspace/${INPUT_WORKING_DIRECTORY:-.}" || exit 2

# Word splitting on white space only: no glob is expanded here, mcpdesc expands them itself
# (honouring .gitignore and the excludes).
read -r -d '' -a paths <<<"${INPUT_PATHS:-.}" || true
read -r -d '' -a args <<<"${INPUT_ARGS:-}" || true
if [ "${#paths[@]}" -eq 0 ]; then
  paths=(.)
fi

out="$(mktemp)"
trap 'rm -f "$out"' EXIT
"$mcpdesc" validate --format github --no-progress ${args[@]+"${args[@]}"} -- "${paths[@]}" >"$out"
status=$?
cat "$out"

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  {
    echo "### mcpdesc"
    echo
    # The last line of the github format is the summary; the annotations are on the diff.
    grep -v '^::' "$out" | tail -n 1
  } >>"$GITHUB_STEP_SUMMARY"
fi

if [ -n "${INPUT_SARIF_FILE:-}" ]; then
  # The SARIF run repeats the check: its findings are the same, its exit status is ignored,
  # and the annotations above decide the step.
  "$mcpdesc" validate --format sarif --no-progress ${args[@]+"${args[@]}"} -- "${paths[@]}" \
    >"$INPUT_SARIF_FILE"
  if [ ! -s "$INPUT_SARIF_FILE" ]; then
    echo "::error::mcpdesc wrote no SARIF report to $INPUT_SARIF_FILE" >&2
    status=2
  fi
fi
exit "$status"
