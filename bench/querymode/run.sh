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
# Also page-style sides, sequential and max_concurrency = 4, against a second server that adds
# 10 ms per request (the concurrent figure: concurrency_speedup; their ratio_to_curl includes that
# latency and is not the loader target).
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
server2=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null || true
    [ -n "$server2" ] && kill "$server2" 2>/dev/null || true
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
# A second server answering each request after 10 ms (a remote API's latency): the page-style
# sides run against it, sequential and four at a time.
node "$src/examples/query-mode/server.mjs" --data "$tmp/invoices.json" --delay-ms 10 \
    >"$tmp/server2.log" 2>&1 &
server2=$!
port2=
for _ in $(seq 100); do
    port2=$(sed -n 's/^listening \([0-9]*\)$/\1/p' "$tmp/server2.log")
    [ -n "$port2" ] && break
    sleep 0.05
done
[ -n "$port2" ] || { cat "$tmp/server2.log" >&2; exit 1; }
sed "s/127.0.0.1:8810/127.0.0.1:$port/; s/^requests_per_minute = 60$//" \
    "$src/examples/query-mode/sluice.toml" >"$tmp/sluice.toml"
printf 'spill_dir = "%s"\nmax_pages = 100000\n' "$tmp" >>"$tmp/qm.extra"
sed -i "/^\[query_mode\]$/r $tmp/qm.extra" "$tmp/sluice.toml"
# The same API with page-style pagination, sequential and four pages at a time (max_concurrency).
for c in 1 4; do
    awk -v name="invoices_pages$c" -v c="$c" -v port2="$port2" '
        /^\[\[sources\]\]$/ { on = 1; top = 1 }
        /^\[\[sources\.(params|columns)\]\]$/ { top = 0 }
        on && top && /^name = / { print "name = \"" name "\""; print "max_concurrency = " c; next }
        on && /^pagination.style = / { print "pagination.style = \"page\""; next }
        on && /^base_url = / { print "base_url = \"http://127.0.0.1:" port2 "\""; next }
        on && /^pagination.cursor_path/ { next }
        on { print }' "$tmp/sluice.toml" >>"$tmp/sources.extra"
done
cat "$tmp/sources.extra" >>"$tmp/sluice.toml"
"$build/bench_querymode" --config "$tmp/sluice.toml" --base "http://127.0.0.1:$port" \
    --iterations "$iterations" --warmup "$warmup" --out "$tmp/report.json" \
    --extra invoices_pages1,invoices_pages4
mkdir -p "$(dirname "$out")"
jq --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg host "$(uname -srm)" --arg cpus "$(nproc)" \
    --argjson expected "$(cat "$tmp/count")" \
    '. + { date: $date, host: $host, cpus: ($cpus | tonumber), expected_rows: $expected,
           latency_ms: 10,
           concurrency_speedup: (.sides.load_invoices_pages1.median_ms / .sides.load_invoices_pages4.median_ms) }' \
    "$tmp/report.json" >"$out"
cat "$out"
