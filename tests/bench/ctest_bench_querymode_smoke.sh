#!/usr/bin/env bash
# ctest_bench_querymode_smoke.sh — a tiny run of bench/querymode/run.sh (two iterations): both
# sides walked every 2026 page and agreed on the rows (bench_querymode exits non-zero otherwise),
# the row count is the demo database's, and the JSON report is well formed. No timing assertions.
set -euo pipefail
: "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
out="$SLUICE_BUILD_DIR/bench-smoke/querymode.json"
rm -f "$out"
ITERATIONS=2 WARMUP=0 BENCH_BUILD_DIR="$SLUICE_BUILD_DIR" BENCH_OUT="$out" \
    bash "$SLUICE_SOURCE_DIR/bench/querymode/run.sh" >/dev/null
jq -e '
  (.sides | keys) == ["curl", "load", "load_invoices_pages1", "load_invoices_pages4"] and
  ([.sides[] | .n] | all(. == 2)) and
  ([.sides[] | .median_ms, .p90_ms] | all(. > 0)) and
  .rows == .expected_rows and .rows > 0 and .pages == ((.rows + 99) / 100 | floor) and
  .ratio > 0 and (.met | type) == "boolean" and .concurrency_speedup > 0
' "$out" >/dev/null || { echo "malformed bench report:" >&2; cat "$out" >&2; exit 1; }
echo "bench smoke ok: $out"
