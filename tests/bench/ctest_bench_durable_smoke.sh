#!/usr/bin/env bash
# ctest_bench_durable_smoke.sh — a tiny run of bench/durable/run.sh (two thread counts, a few
# pairs, both modes): checks that every (mode, threads) cell ran and the JSON report is well
# formed. No timing assertions: CI machines are shared and noisy.
set -euo pipefail
: "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
out="$SLUICE_BUILD_DIR/bench-smoke/durable.json"
rm -f "$out"
THREADS=1,8 RECORDS=40 RUNS=1 BENCH_BUILD_DIR="$SLUICE_BUILD_DIR" BENCH_OUT="$out" \
    bash "$SLUICE_SOURCE_DIR/bench/durable/run.sh"
jq -e '
  (.group_commit | keys) == ["1", "8"] and (.per_record_sync | keys) == ["1", "8"] and
  ([.group_commit[], .per_record_sync[] | .median_per_s, .min_per_s, .max_per_s] | all(. > 0)) and
  .records == 40 and (.filesystem | type) == "string"
' "$out" >/dev/null || { echo "malformed bench report:" >&2; cat "$out" >&2; exit 1; }
echo "bench smoke ok: $out"
