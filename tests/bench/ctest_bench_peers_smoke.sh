#!/usr/bin/env bash
# ctest_bench_peers_smoke.sh — a tiny run of bench/peers/run.sh: starts its own throwaway
# PostgreSQL cluster, loads the demo data, drives sluice, the SDK + DuckDB peer and
# server-postgres with a few calls each (seed 003 also in one governed call, and both with texts
# never seen before). Checks that every run completes, the three servers give
# the same seed-003 answer and the JSON report is well formed. No timing assertions.
set -euo pipefail
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/bench-smoke/peers"
mkdir -p "$work"
[ -f "$work/demo.duckdb" ] || "$SLUICE_BIN" demo-db "$work/demo.duckdb" >/dev/null
[ -f "$work/token.key" ] || "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
out="$work/peers.json"
rm -f "$out"
CALLS=50 WARMUP=5 BENCH_WORK="$work" BENCH_OUT="$out" SLUICE_BIN="$SLUICE_BIN" \
    bash "$SLUICE_SOURCE_DIR/bench/peers/run.sh"
jq -e '
  .seed003_answers_agree and .seed003_rows > 0 and
  ([.runs[] | "\(.server)/\(.workload)"] | sort) ==
    (["sluice", "duckdb-sdk", "server-postgres"] |
       map(. + "/trivial", . + "/seed003", . + "/seed003_1call", . + "/seed003_new",
           . + "/seed003_new_1call") | sort) and
  ([.runs[] | .ops_per_second, .p50_ms, .p99_ms, .peak_rss_kib] | all(. > 0)) and
  (.ratios_sluice_over_peer | length) == 10
' "$out" >/dev/null || { echo "malformed peers report:" >&2; cat "$out" >&2; exit 1; }
echo "peers bench smoke ok: $out"
