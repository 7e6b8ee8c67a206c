#!/usr/bin/env bash
# run.sh — the plan interpreter vs Node vs QuickJS (quickjs-emscripten) on the differential
# test's generated programs and seed 000's budgets plan, in one run (see run.mjs for what each
# side's time covers). Writes bench/results/jsinterp.json.
# usage: bench/jsinterp/run.sh [BUILD_DIR] [COUNT] [RUNS] [SEED_REPS]   (defaults: build 1000 5 200)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
cmake --build "$build" -j2 --target js_run >/dev/null
node "$root/bench/jsinterp/run.mjs" "$build/js_run" "${2:-1000}" 1 "${3:-5}" "${4:-200}" \
  "$root/bench/results/jsinterp.json"
