#!/usr/bin/env bash
# ctest_bench_pg_smoke.sh — a tiny run of bench/pg/run.sh: its own throwaway PostgreSQL cluster,
# one run of bench_pg with a few iterations and of governed.mjs with a few calls. Checks that
# every side ran, sluice and server-postgres gave the same seed-003 answer, and the report is
# well formed. No timing assertions.
set -euo pipefail
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
out="$SLUICE_BUILD_DIR/bench-smoke/pg.json"
mkdir -p "$(dirname "$out")"
rm -f "$out"
RUNS=1 ITERATIONS=10 CALLS=10 BENCH_OUT="$out" SLUICE_BIN="$SLUICE_BIN" \
    BENCH_PG="$SLUICE_BUILD_DIR/bench_pg" bash "$SLUICE_SOURCE_DIR/bench/pg/run.sh" >/dev/null
jq -e '
  .answers_agree and
  ([.figures[] | .median] | all(. > 0)) and
  (.figures | has("validate_sluice_over_parse") and has("execute_sluice_over_libpq") and
              has("sluice-postgres/seed003/p50_ms") and has("server-postgres/seed003/p50_ms"))
' "$out" >/dev/null || { echo "malformed pg bench report:" >&2; cat "$out" >&2; exit 1; }
echo "pg bench smoke ok: $out"
