#!/usr/bin/env bash
# ctest_bench_sql_smoke.sh — a tiny run of bench/sql/run.sh (a few iterations of every side) and
# of bench_sql --only (two chosen sides): checks that every side ran, the 1,000-row sides saw
# their rows (bench_sql exits non-zero otherwise) and the JSON reports are written and well
# formed. No timing assertions: CI machines are shared and noisy.
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
  (.met | has("validate") and has("execute")) and .order == "shuffled"
' "$out" >/dev/null || { echo "malformed bench report:" >&2; cat "$out" >&2; exit 1; }
echo "bench smoke ok: $out"

# --only: the chosen sides alone, each with its own untimed half.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$SLUICE_BUILD_DIR/sluice" demo-db "$tmp/demo.duckdb" >/dev/null
"$SLUICE_BUILD_DIR/bench_sql" --db "$tmp/demo.duckdb" --only validate_sluice,execute_sluice_first_seen \
    --iterations 3 --warmup 1 --threads 1 --out "$tmp/only.json"
jq -e '(.sides | keys) == ["execute_sluice_first_seen", "validate_sluice"] and
  ([.sides[] | .n] | all(. == 3)) and .only' "$tmp/only.json" >/dev/null ||
    { echo "malformed --only report:" >&2; cat "$tmp/only.json" >&2; exit 1; }
echo "bench --only ok"

# --order rotated: every side still runs once per iteration, in the fixed cycle.
"$SLUICE_BUILD_DIR/bench_sql" --db "$tmp/demo.duckdb" --order rotated --iterations 3 --warmup 1 \
    --threads 1 --out "$tmp/rotated.json"
jq -e '(.sides | length) == 9 and ([.sides[] | .n] | all(. == 3)) and .order == "rotated"' \
    "$tmp/rotated.json" >/dev/null ||
    { echo "malformed --order rotated report:" >&2; cat "$tmp/rotated.json" >&2; exit 1; }
echo "bench --order rotated ok"
