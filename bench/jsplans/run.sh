#!/usr/bin/env bash
# run.sh — seed 000's budgets plan (1 listForecasts + 10 getUser under Promise.all) through
# `sluice serve` against the cost-coach API with a fixed upstream latency per request, beside
# the upstream's own time for the same calls (one round trip, then the slowest owner call).
# Target: the plan's execute_code wall time within x1.2 of that, i.e. the fan-out is really
# concurrent (sequential calls would take 11 round trips). Writes bench/results/jsplans.json.
# usage: bench/jsplans/run.sh [BUILD_DIR] [LATENCY_MS] [RUNS]   (BUILD_DIR default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
latency=${2:-100}
runs=${3:-5}
cmake --build "$build" -j2 --target sluice >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/sluice" keygen -o "$work/token.key" >/dev/null
SLUICE_BIN="$build/sluice" SLUICE_BUILD_DIR="$build" SLUICE_E2E_WORK="$work" SLUICE_SOURCE_DIR="$root" \
  node "$root/bench/jsplans/run.mjs" "$latency" "$runs" "$root/bench/results/jsplans.json"
