#!/usr/bin/env bash
# run.sh — durable appends on the request path (issue 9): audit record + consume-once token id
# pairs per second with N threads, group commit vs the old one-fdatasync-per-record, both modes
# alternating in one run of one process (tests/programs/bench_durable.c). Prints a table, writes
# JSON.
#
#   bench/durable/run.sh                     # threads 1,4,16,64; 1000 pairs a run; 5 runs; Release build in build-bench/
#   THREADS=1,16 RECORDS=200 RUNS=3 BENCH_BUILD_DIR=build BENCH_OUT=/tmp/durable.json bench/durable/run.sh
#   SLUICE_BENCH_SYNC=per-record bench/durable/run.sh   # only one mode (per-record | group)
#
# The files live in a fresh directory under BENCH_DIR (default: the build directory), which must
# be a real disk: on tmpfs fdatasync is free and the comparison means nothing (the script says so).
# Medians with min and max over RUNS; reported, never asserted (this machine's cores and disk are
# shared).
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
threads=${THREADS:-1,4,16,64}
records=${RECORDS:-1000}
runs=${RUNS:-5}
out=${BENCH_OUT:-$src/bench/results/durable.json}
build=${BENCH_BUILD_DIR:-}
if [ -z "$build" ]; then
    build="$src/build-bench"
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$build" -j2 --target bench_durable >/dev/null
fi
base=${BENCH_DIR:-$build}
dir=$(mktemp -d "$base/durable-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fs=$(stat -f -c %T "$dir")
[ "$fs" != tmpfs ] || echo "bench/durable: WARNING: $dir is on tmpfs; fdatasync costs nothing there" >&2

"$build/bench_durable" --dir "$dir" --threads "$threads" --records "$records" --runs "$runs" \
    --out "$dir/raw.json"
mkdir -p "$(dirname "$out")"
jq --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg host "$(uname -srm)" --arg cpus "$(nproc)" \
    --arg fs "$fs" '. + { date: $date, host: $host, cpus: ($cpus | tonumber), filesystem: $fs }' \
    "$dir/raw.json" >"$out"

printf '%-8s %26s %26s %8s\n' threads 'group commit /s (min-max)' 'per-record sync /s (min-max)' ratio
jq -r '.group_commit as $g | .per_record_sync as $p | ($g + $p) | keys_unsorted |
  sort_by(tonumber)[] as $t |
  [$t, ($g[$t].median_per_s // 0), ($g[$t].min_per_s // 0), ($g[$t].max_per_s // 0),
   ($p[$t].median_per_s // 0), ($p[$t].min_per_s // 0), ($p[$t].max_per_s // 0)] | @tsv' "$out" |
    while IFS=$'\t' read -r t g gmin gmax p pmin pmax; do
        ratio=-
        if [ "${p%.*}" != 0 ] && [ "${g%.*}" != 0 ]; then
            ratio=$(awk -v a="$g" -v b="$p" 'BEGIN { printf "x%.2f", a / b }')
        fi
        printf '%-8s %26s %26s %8s\n' "$t" \
            "$(printf '%.0f (%.0f-%.0f)' "$g" "$gmin" "$gmax")" \
            "$(printf '%.0f (%.0f-%.0f)' "$p" "$pmin" "$pmax")" "$ratio"
    done
echo "wrote $out"
