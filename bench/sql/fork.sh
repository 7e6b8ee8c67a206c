#!/usr/bin/env bash
# fork.sh — the round trip of one bounded child on an idle process with the demo database open
# (tests/programs/bench_fork.c): a bare fork, a bounded execute of a one-row SELECT, an analysis
# that binds in the child. Reports median/p90 in µs; never asserted (shared cores swing).
#
#   BENCH_BUILD_DIR=build ITERATIONS=200 bench/sql/fork.sh
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${BENCH_BUILD_DIR:-$src/build}
cmake --build "$build" -j2 --target sluice bench_fork >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/sluice" demo-db "$tmp/demo.duckdb" >/dev/null
"$build/bench_fork" --db "$tmp/demo.duckdb" --iterations "${ITERATIONS:-200}" --warmup "${WARMUP:-20}"
