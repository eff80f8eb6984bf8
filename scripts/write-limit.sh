#!/usr/bin/env bash
# A small write against its physical limit (issue 17): one no-op HTTP round trip (GET /healthz,
# one keep-alive connection) plus one 4 KiB write + fdatasync on the database's disk, measured
# beside Quire's guarded PATCH (200-character replace_text, synchronous=FULL, one connection)
# and its throughput with 8 connections on 8 Notes, alternated round by round in one run.
# The figures go to stdout as Markdown (and to $1 when given); the latest are in BENCHMARKS.md.
#
#   scripts/write-limit.sh [OUT.md]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! command -v wrk >/dev/null; then
  echo "write-limit: wrk is needed (Debian: apt-get install wrk)" >&2
  exit 1
fi

args=(limit)
if (($# > 0)); then
  args+=(--out "$1")
fi
cargo run --quiet --release -p quire-lab -- "${args[@]}"
