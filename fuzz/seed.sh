#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with seed inputs from our spec fixtures, the rule catalogue and
# (when present) the upstream conformance corpus. Run before `cargo fuzz run`; the corpus
# directories are not committed.
set -euo pipefail
cd "$(dirname "$0")"
root=..
conformance="${MCPDESC_CONFORMANCE_DIR:-$root/../shared/conformance/mcpdesc-0.8.0}"
mkdir -p corpus/json_loader corpus/yaml_loader corpus/rule_loader corpus/validate

sources=("$root/spec-fixtures")
[ -d "$conformance" ] && sources+=("$conformance")

n=0
while IFS= read -r -d '' f; do
  n=$((n + 1))
  case "$f" in
    *.json)
      cp "$f" "corpus/json_loader/seed-$n"
      { printf '\x00'; cat "$f"; } > "corpus/validate/seed-$n" ;;
    *.ndjson|*.jsonl)
      # The JSON target also reads every input as a traffic capture.
      cp "$f" "corpus/json_loader/seed-$n"
      { printf '\x02'; cat "$f"; } > "corpus/validate/seed-$n" ;;
    *.yaml|*.yml)
      cp "$f" "corpus/yaml_loader/seed-$n"
      { printf '\x01'; cat "$f"; } > "corpus/validate/seed-$n" ;;
  esac
done < <(find "${sources[@]}" -type f \( -name '*.json' -o -name '*.ndjson' -o -name '*.jsonl' -o -name '*.yaml' -o -name '*.yml' \) -size -256k -print0)

for f in "$root"/rules/*.yaml; do
  b=$(basename "$f" .yaml)
  { printf '\x00'; cat "$f"; } > "corpus/rule_loader/rules-$b"
  cp "$f" "corpus/yaml_loader/rules-$b"
done
{ printf '\x01'; cat "$root/rules/catalogue.yaml"; } > corpus/rule_loader/catalogue

for t in json_loader yaml_loader rule_loader validate; do
  echo "$t: $(ls corpus/$t | wc -l) seeds"
done
