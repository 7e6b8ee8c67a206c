#!/usr/bin/env bash
# ctest_bench_sql_smoke.sh — a tiny run of bench/sql/run.sh (a few iterations of every side):
# checks that every side ran, the 1,000-row sides saw their rows (bench_sql exits non-zero
# otherwise) and the JSON report is written and well formed. No timing assertions: CI machines
# are shared and noisy.
set -euo pipefail
: "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
out="$SLUICE_BUILD_DIR/bench-smoke/sql.json"
rm -f "$out"
ITERATIONS=5 WARMUP=1 BENCH_BUILD_DIR="$SLUICE_BUILD_DIR" BENCH_OUT="$out" \
    bash "$SLUICE_SOURCE_DIR/bench/sql/run.sh"
jq -e '
  (.sides | keys) == (["engine_prepared", "engine_query", "execute_fetch", "execute_fetch_json", "execute_sluice",
                       "execute_sluice_first_seen", "validate_duckdb", "validate_sluice", "validate_sluice_repeat"]) and
  ([.sides[] | .n] | all(. == 5)) and
  ([.sides[] | .median_us, .p90_us] | all(. > 0)) and
  ([.ratios[]] | all(. > 0)) and
  (.met | has("validate") and has("execute"))
' "$out" >/dev/null || { echo "malformed bench report:" >&2; cat "$out" >&2; exit 1; }
echo "bench smoke ok: $out"
