#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with seed inputs from our spec fixtures, the rule catalogue and
# (when present) the upstream conformance corpus; the LSP frames and server output of
# `lsp_framing` and `live_reader` are built with jq. Run before `cargo fuzz run`; the corpus
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

# The language server's framing and the live client's reader: messages built with jq.
if command -v jq > /dev/null; then
  mkdir -p corpus/lsp_framing corpus/live_reader

  # One LSP frame with `body` (read from standard input), headers ending in `eol`.
  frame() {
    local body eol="${1:-\r\n}"
    body=$(cat)
    printf "Content-Length: %d$eol$eol%s" "$(printf '%s' "$body" | wc -c)" "$body"
  }
  # The first byte of an lsp_framing input chooses the message ceiling: 0x00 is 4096 bytes,
  # 0x80 + n is 8n bytes.
  init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}'

  n=0
  while IFS= read -r -d '' f; do
    n=$((n + 1))
    case "$f" in *.json) lang=json ;; *) lang=yaml ;; esac
    jq -Rsc --arg uri "file:///seed-$n.$lang" --arg lang "$lang" \
      '{jsonrpc:"2.0",method:"textDocument/didOpen",params:{textDocument:{uri:$uri,languageId:$lang,version:1,text:.}}}' \
      < "$f" | { printf '\x00'; frame; } > "corpus/lsp_framing/open-$n"
  done < <(find "$root/spec-fixtures" -type f \( -name '*.json' -o -name '*.yaml' \) -size -16k -print0)

  # A whole session, with CRLF and with bare LF line ends, and under a small ceiling.
  for eol in '\r\n' '\n'; do
    session=$(
      printf '%s' "$init" | frame "$eol"
      printf '\r\n'
      printf '{"jsonrpc":"2.0","method":"initialized","params":{}}' | frame "$eol"
      head -c 3000 "$root/rules/catalogue.yaml" |
        jq -Rsc '{jsonrpc:"2.0",method:"textDocument/didOpen",params:{textDocument:{uri:"file:///a.yaml",languageId:"yaml",version:1,text:.}}}' |
        frame "$eol"
      printf '{"jsonrpc":"2.0","id":2,"method":"shutdown"}' | frame "$eol"
      printf '{"jsonrpc":"2.0","method":"exit"}' | frame "$eol"
    )
    tag=$([ "$eol" = '\n' ] && echo lf || echo crlf)
    { printf '\x00%s' "$session"; } > "corpus/lsp_framing/session-$tag"
    { printf '\x90%s' "$session"; } > "corpus/lsp_framing/session-$tag-small"
  done

  # Malformed headers and bodies, each followed by a good frame.
  good=$(printf '%s' "$init" | frame)
  bad=(
    'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 2\r\n\r\n{}'
    'Content-Length: x\r\n\r\n'
    'Content-Length: -1\r\n\r\n'
    'Content-Length: 9223372036854775807\r\n\r\n'
    'Content-Length: 18446744073709551616\r\n\r\n'
    'Content-Length: 5000\r\n\r\n'
    'content-length:2\n\n[]'
    'Content-Length 2\r\n\r\n{}'
    'no headers at all\r\n\r\n'
    'X-Other: 1\r\n\r\n'
    'Content-Length: 9\r\n\r\n{not json'
    'Content-Length: 35\r\n\r\n{"jsonrpc":"2.0","id":7,"method":3}'
    'Content-Length: 10\r\n\r\n{}'
  )
  i=0
  for b in "${bad[@]}"; do
    i=$((i + 1))
    { printf '\x00'; printf "$b"; printf '%s' "$good"; } > "corpus/lsp_framing/bad-$i"
  done
  { printf '\x00'; for i in $(seq 40); do printf 'X-Header-%d: %d\r\n' "$i" "$i"; done
    printf 'Content-Length: 2\r\n\r\n{}%s' "$good"; } > corpus/lsp_framing/bad-many-headers
  { printf '\x00X-Long: '; head -c 9000 /dev/zero | tr '\0' a
    printf '\r\nContent-Length: 2\r\n\r\n{}%s' "$good"; } > corpus/lsp_framing/bad-long-header

  # What a server writes: its messages one a line (stdio), as server-sent events (HTTP, one
  # compact and one pretty-printed over several `data:` lines), and the first server messages
  # alone.
  n=0
  while IFS= read -r -d '' f; do
    n=$((n + 1))
    jq -Rc 'fromjson? | .msg // empty' < "$f" > "corpus/live_reader/lines-$n"
    {
      printf 'id: 0\ndata: \n\n'
      jq -Rc 'fromjson? | .msg // empty' < "$f" |
        awk 'NR <= 8 { printf "id: %d\nevent: message\ndata: %s\n\n", NR, $0 }'
    } > "corpus/live_reader/sse-$n"
    # jq's pretty output closes each message with a `}` or `]` of its own at the line start.
    jq -R 'fromjson? | .msg // empty' < "$f" | sed -e 's/^/data: /' -e 's/^data: []}]$/&\n/' |
      awk 'NR <= 300' > "corpus/live_reader/sse-pretty-$n"
    k=0
    while IFS= read -r m; do
      k=$((k + 1))
      printf '%s' "$m" > "corpus/live_reader/msg-$n-$k"
    done < <(jq -Rc 'fromjson? | select(.dir == "s2c") | .msg // empty' < "$f" | awk 'NR <= 16')
  done < <(find "$root/spec-fixtures/traffic" -type f -name '*.ndjson' -print0)
  # Messages nested to either side of 127 levels (the deepest serde_json reads) and of 256 (ours).
  for d in 126 127 128 254 255 256 300; do
    printf '{"jsonrpc":"2.0","id":1,"result":%s1%s}' \
      "$(printf '%*s' "$d" '' | tr ' ' '[')" "$(printf '%*s' "$d" '' | tr ' ' ']')" \
      > "corpus/live_reader/deep-$d"
  done
else
  echo "jq not found: corpus/lsp_framing and corpus/live_reader are not seeded" >&2
fi

for t in json_loader yaml_loader rule_loader validate lsp_framing live_reader; do
  [ -d "corpus/$t" ] || continue
  echo "$t: $(ls corpus/$t | wc -l) seeds"
done
