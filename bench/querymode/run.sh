#!/usr/bin/env bash
# run.sh — query mode's loader vs. a bare libcurl loop (issue 12): seed 004's load (every 2026
# invoice, cursor pages of 100 from examples/query-mode/server.mjs on loopback) through
# sluice_querymode_load, and the same URLs walked by one reused libcurl handle that only parses
# each page for its rows and next cursor; sides interleaved in one run of one process
# (tests/programs/bench_querymode.c). Prints the JSON report and writes it.
#
#   bench/querymode/run.sh                  # 10 iterations after 1 warm-up, Release build in build-bench/
#   ITERATIONS=3 WARMUP=0 BENCH_BUILD_DIR=build BENCH_OUT=/tmp/qm.json bench/querymode/run.sh
#
# Target (issue): loader <= 1.2x the bare loop. Reported (target_ratio / met), never asserted:
# this machine's cores are shared. Both sides pay the same server; the ratio is what sluice adds
# (JSON path mapping, the appender, the session) on top of fetching and parsing.
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
iterations=${ITERATIONS:-10}
warmup=${WARMUP:-1}
out=${BENCH_OUT:-$src/bench/results/querymode.json}
build=${BENCH_BUILD_DIR:-}
if [ -z "$build" ]; then
    build="$src/build-bench"
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$build" -j2 --target sluice bench_querymode >/dev/null
fi
tmp=$(mktemp -d)
server=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
"$build/sluice" demo-db "$tmp/demo.duckdb" >/dev/null
node "$src/bench/querymode/export.mjs" "$tmp/demo.duckdb" "$tmp/invoices.json" >"$tmp/count"
node "$src/examples/query-mode/server.mjs" --data "$tmp/invoices.json" >"$tmp/server.log" 2>&1 &
server=$!
port=
for _ in $(seq 100); do
    port=$(sed -n 's/^listening \([0-9]*\)$/\1/p' "$tmp/server.log")
    [ -n "$port" ] && break
    sleep 0.05
done
[ -n "$port" ] || { cat "$tmp/server.log" >&2; exit 1; }
sed "s/127.0.0.1:8810/127.0.0.1:$port/; s/^requests_per_minute = 60$//" \
    "$src/examples/query-mode/sluice.toml" >"$tmp/sluice.toml"
printf 'spill_dir = "%s"\nmax_pages = 100000\n' "$tmp" >>"$tmp/qm.extra"
sed -i "/^\[query_mode\]$/r $tmp/qm.extra" "$tmp/sluice.toml"
"$build/bench_querymode" --config "$tmp/sluice.toml" --base "http://127.0.0.1:$port" \
    --iterations "$iterations" --warmup "$warmup" --out "$tmp/report.json"
mkdir -p "$(dirname "$out")"
jq --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg host "$(uname -srm)" --arg cpus "$(nproc)" \
    --argjson expected "$(cat "$tmp/count")" \
    '. + { date: $date, host: $host, cpus: ($cpus | tonumber), expected_rows: $expected }' \
    "$tmp/report.json" >"$out"
cat "$out"
