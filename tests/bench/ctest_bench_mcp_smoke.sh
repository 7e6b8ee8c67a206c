#!/usr/bin/env bash
# ctest_bench_mcp_smoke.sh — a tiny run of bench/mcp/run.sh (a few hundred calls per server and
# transport): checks that every run completes and the JSON report is written and well formed,
# with the canned-server floor, the driver-limit verdict and both CPU figures.
# No timing assertions: CI machines are shared and noisy.
set -euo pipefail
: "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
out="$SLUICE_BUILD_DIR/bench-smoke/mcp.json"
rm -f "$out"
transports="stdio http"
REPEAT=1 CALLS=300 WARMUP=30 TRANSPORTS="$transports" BENCH_BUILD_DIR="$SLUICE_BUILD_DIR" BENCH_OUT="$out" \
    bash "$SLUICE_SOURCE_DIR/bench/mcp/run.sh"
jq -e --arg ts "$transports" '
  ($ts | split(" ")) as $want |
  ([.runs[] | "\(.label)/\(.transport)"] | sort) ==
    ([$want[] as $t | "sluice/\($t)", "sdk/\($t)"] | sort) and
  ([.runs[] | .calls] | all(. == 300)) and
  ([.runs[] | .calls_per_second, .p50_us, .p99_us] | all(. > 0)) and
  ([$want[] as $t | .ratios_sluice_over_sdk[$t].throughput] | all(. > 0)) and
  ([.floor[] | .transport] | sort) == ($want | sort) and
  ([$want[] as $t | .driver_limit[$t].driver_is_the_limit] | all(type == "boolean")) and
  ([.runs[] | .driver_cpu_us_per_call, .server_cpu_us_per_call] | all(. > 0))
' "$out" >/dev/null || { echo "malformed bench report:" >&2; cat "$out" >&2; exit 1; }
echo "bench smoke ok: $out"
