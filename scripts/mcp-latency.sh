#!/usr/bin/env bash
# An MCP tool call's round trip (read_note_tab on a small Note, over loopback) from three
# clients: the official Python SDK, the official TypeScript SDK, and plain httpx posting
# JSON-RPC. A benchmark, not a test: BENCHMARKS.md has its figures.
#
#   bash scripts/mcp-latency.sh                       # builds and measures target/release
#   bash scripts/mcp-latency.sh --bin A --bin B ...   # measures each binary given, in turn
#   options: --calls N (default 500, after --warmup N, default 50)
#
# Needs python3 (a venv with mcp and httpx is made under target/) and node + npm (the
# TypeScript SDK is installed into scripts/mcp-latency/node_modules).
set -euo pipefail
cd "$(dirname "$0")/.."

calls=500
warmup=50
bins=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bins+=("$2"); shift 2 ;;
    --calls) calls=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
if [ ${#bins[@]} -eq 0 ]; then
  cargo build --release -p quire-server --bin quire-server
  bins=("${CARGO_TARGET_DIR:-target}/release/quire-server")
fi

here=scripts/mcp-latency
venv=${CARGO_TARGET_DIR:-target}/mcp-latency-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q -r "$here/requirements.txt"
fi
if [ ! -d "$here/node_modules/@modelcontextprotocol/sdk" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi

echo "| binary | client | p50 (ms) | p99 (ms) |"
echo "|---|---|---:|---:|"
for bin in "${bins[@]}"; do
  dir=$(mktemp -d)
  token=$("$bin" token create --db "$dir/q.db" --name latency \
    --scope notes:read --scope notes:write 2>/dev/null)
  mkfifo "$dir/out"
  "$bin" serve --db "$dir/q.db" --listen 127.0.0.1:0 >"$dir/out" 2>"$dir/log" &
  pid=$!
  # A client that fails ends the script: the server goes with it.
  trap 'kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
  exec 3<"$dir/out"
  # The server's first line on stdout, once it is bound: "listening on http://ADDR".
  read -r first <&3
  base=${first#listening on }
  auth=(-H "Authorization: Bearer $token" -H "Content-Type: application/json")
  note=$(curl -sf "${auth[@]}" -d '{"title": "Latency"}' "$base/notes" |
    "$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["id"])')
  curl -sf "${auth[@]}" -X PATCH "$base/notes/$note" -o /dev/null \
    -d '{"expected_version": 1, "changes": [{"op": "replace_text", "tab_id": "markdown", "text": "A small Note, read by an agent."}]}'
  curl -sf "${auth[@]}" -X PUT "$base/notes/$note/agent-access" -o /dev/null -d '{"approved": true}'
  for client in "$venv/bin/python $here/py_sdk.py" "node $here/ts_sdk.mjs" "$venv/bin/python $here/httpx_client.py"; do
    read -r name p50 p99 < <($client "$base/mcp" "$token" "$note" "$calls" "$warmup")
    echo "| $bin | $name | $p50 | $p99 |"
  done
  kill "$pid"
  wait "$pid" || true
  trap - EXIT
  exec 3<&-
  rm -rf "$dir"
done
