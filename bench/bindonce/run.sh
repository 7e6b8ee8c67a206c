#!/usr/bin/env bash
# run.sh — the bind-once measurement of issue 23 (bench/bindonce/proto.cpp; docs/architecture.md
# "Binding once"). Fetches DuckDB 1.4.4 from npm — libduckdb.so from
# @duckdb/node-bindings-linux-x64@1.4.4-r.4 and the C++ headers of the same version from
# duckdb@1.4.4 — into $BINDONCE_DIR (not third_party: the product links 1.5.6), compiles the
# prototype against exactly that pair, builds the demo database with sluice, and prints
# callgrind instructions of one call per side and statement, RUNS times each (median, min, max).
#
#   bench/bindonce/run.sh                        # sluice from build/, 3 runs
#   SLUICE_BIN=build/sluice RUNS=5 BENCH_OUT=/tmp/bindonce.json bench/bindonce/run.sh
#   STMTS=rows1000 RUNS=1 bench/bindonce/run.sh  # one statement, one run: a quick check
#   UNIT_BUILD=build14 bench/bindonce/run.sh      # + unit_bind: exec/duckdb_plan.cpp itself, from
#                                                 # a -DSLUICE_DUCKDB_CPP=ON build on this pair
#
# Sides: capi_prepare (duckdb_extract_statements + duckdb_prepare_extracted_statement: the
# engine's parse + bind, bench/sql's reference), extract_plan (Connection::ExtractPlan: parse,
# plan, optimize, resolve), extract_plan_walk (the same plus a walk over every operator,
# column binding, expression, function and table scan), serialize_sql / serialize_plan (the
# json_serialize_* queries today's analyzer runs, each read into a jansson DOM).
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
dir=${BINDONCE_DIR:-$src/build-bindonce}
sluice=${SLUICE_BIN:-$src/build/sluice}
runs=${RUNS:-3}
stmts=${STMTS:-seed000 seed003 rows1000}
out=${BENCH_OUT:-$src/bench/results/bindonce.json}
lib_pkg="@duckdb/node-bindings-linux-x64@1.4.4-r.4"
hdr_pkg="duckdb@1.4.4"

mkdir -p "$dir"
if [ ! -f "$dir/lib/libduckdb.so" ] || [ ! -d "$dir/hdr/src/include" ]; then
    rm -rf "$dir/tmp" && mkdir -p "$dir/tmp" "$dir/lib" "$dir/hdr"
    (cd "$dir/tmp" && npm pack --silent "$lib_pkg" "$hdr_pkg" >/dev/null)
    tar -xzf "$dir"/tmp/duckdb-node-bindings-linux-x64-1.4.4-r.4.tgz -C "$dir/tmp" package/libduckdb.so
    mv "$dir/tmp/package/libduckdb.so" "$dir/lib/"
    tar -xzf "$dir/tmp/duckdb-1.4.4.tgz" -C "$dir/tmp" package/src/duckdb/src/include \
        package/src/duckdb/third_party
    mv "$dir/tmp/package/src/duckdb/src" "$dir/hdr/src"
    mv "$dir/tmp/package/src/duckdb/third_party" "$dir/hdr/third_party"
    rm -rf "$dir/tmp"
fi
h="$dir/hdr"
sides="capi_prepare extract_plan extract_plan_walk serialize_sql serialize_plan"
unit=()
if [ -n "${UNIT_BUILD:-}" ]; then
    unit=(-DPROTO_UNIT -I"$src/src" -I"$src/include" "$UNIT_BUILD/libsluice.a" -lsodium)
    sides="$sides unit_bind"
fi
g++ -std=c++17 -O2 -g -DNDEBUG -I"$h/src/include" -I"$h/third_party/fmt/include" \
    -I"$h/third_party/re2" -I"$h/third_party/utf8proc/include" \
    -I"$h/third_party/yyjson/include" -o "$dir/proto" "$src/bench/bindonce/proto.cpp" \
    "${unit[@]}" -L"$dir/lib" -lduckdb -ljansson -Wl,-rpath,"$dir/lib"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$sluice" demo-db "$tmp/demo.duckdb" >/dev/null

rows='[]'
for stmt in $stmts; do
    for side in $sides; do
        for run in $(seq "$runs"); do
            valgrind --tool=callgrind --collect-atstart=no --toggle-collect=measured_once \
                --callgrind-out-file="$tmp/cg" "$dir/proto" --db "$tmp/demo.duckdb" \
                --side "$side" --stmt "$stmt" --warmup 2 2>"$tmp/log" >/dev/null ||
                { cat "$tmp/log" >&2; exit 1; }
            ir=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$tmp/cg")
            rows=$(jq --arg st "$stmt" --arg s "$side" --argjson ir "$ir" \
                '. + [{stmt: $st, side: $s, ir: $ir}]' <<<"$rows")
        done
    done
done
mkdir -p "$(dirname "$out")"
jq --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg lib "$lib_pkg" --arg hdr "$hdr_pkg" '
  group_by(.stmt + " " + .side) | map({stmt: .[0].stmt, side: .[0].side,
    runs: map(.ir), median: (map(.ir) | sort | .[length / 2 | floor]),
    min: (map(.ir) | min), max: (map(.ir) | max)}) as $s |
  {date: $date, library: $lib, headers: $hdr, sides: $s,
   ratios: ($s | group_by(.stmt) | map({key: .[0].stmt, value: (
     (map(select(.side == "capi_prepare"))[0].median) as $ref |
     map({key: .side, value: (.median / $ref * 100 | round / 100)}) | from_entries)}) |
     from_entries)}' <<<"$rows" >"$out"
printf '%-9s %-18s %12s %12s %12s %8s\n' stmt side 'median Ir' min max '/prepare'
jq -r '.ratios as $r | .sides[] | [.stmt, .side, .median, .min, .max, $r[.stmt][.side]] | @tsv' \
    "$out" | while IFS=$'\t' read -r st s med lo hi ratio; do
    printf '%-9s %-18s %12s %12s %12s %8s\n' "$st" "$s" "$med" "$lo" "$hi" "x$ratio"
done
