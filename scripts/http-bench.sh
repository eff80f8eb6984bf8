#!/usr/bin/env bash
# HTTP load and the other lab benchmarks against a real Quire server on loopback, with wrk
# (Debian's `wrk` package) driving guarded PATCH writes and GETs, 1 and 16 connections,
# SQLite FULL and NORMAL. The figures go to stdout as Markdown (and to $1 when given); the
# latest ones are in BENCHMARKS.md, "Lab benchmarks".
#
#   scripts/http-bench.sh [OUT.md]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! command -v wrk >/dev/null; then
  echo "http-bench: wrk is needed (Debian: apt-get install wrk)" >&2
  exit 1
fi

args=(bench)
if (($# > 0)); then
  args+=(--out "$1")
fi
cargo run --quiet --release -p quire-lab -- "${args[@]}"
