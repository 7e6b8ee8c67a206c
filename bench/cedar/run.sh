#!/usr/bin/env bash
# run.sh — Cedar decisions per second: sluice's engine beside cedar-wasm, same inputs, same run.
#
# Inputs: examples/policies/seed000.cedar (the four seed-000 policies), its entities, and the
# fixed requests in bench/cedar/requests.jsonl. Writes bench/results/cedar.json and prints the
# ratio against cedar-wasm's faster API (statefulIsAuthorized, policies preparsed; its API has
# no preparsed entities, so both cedar-wasm paths convert the entities on every call).
# usage: bench/cedar/run.sh [BUILD_DIR] [SECONDS]   (BUILD_DIR default: build-bench, Release)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-bench}
seconds=${2:-2}
[ -f "$build/CMakeCache.txt" ] || cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target cedar_bench >/dev/null # incremental: never a stale driver
pol=$root/examples/policies/seed000.cedar
ent=$root/examples/policies/seed000.entities.json
req=$root/bench/cedar/requests.jsonl
ours=$("$build/cedar_bench" "$pol" "$ent" "$req" "$seconds")
wasm=$(node "$root/bench/cedar/wasm_bench.mjs" "$pol" "$ent" "$req" "$seconds")
mkdir -p "$root/bench/results"
OURS="$ours" WASM="$wasm" node -e '
const ours = JSON.parse(process.env.OURS), wasm = JSON.parse(process.env.WASM);
if (ours.allows_per_round !== wasm.stateful.allows_per_round || ours.allows_per_round !== wasm.stateless.allows_per_round)
  throw new Error(`decisions differ: sluice ${ours.allows_per_round} allows per round, cedar-wasm ${wasm.stateful.allows_per_round}`);
const result = {
  benchmark: "cedar decisions per second, seed-000 policies, " + ours.allows_per_round + " of 8 requests allowed",
  sluice: ours,
  cedar_wasm: wasm,
  ratio_vs_stateful: Number((ours.per_second / wasm.stateful.per_second).toFixed(1)),
  ratio_vs_stateless: Number((ours.per_second / wasm.stateless.per_second).toFixed(1)),
  machine: require("os").cpus()[0].model,
  date: new Date().toISOString(),
};
require("fs").writeFileSync(process.argv[1], JSON.stringify(result, null, 2) + "\n");
console.log(`sluice:                 ${ours.per_second} decisions/s`);
console.log(`cedar-wasm stateful:    ${wasm.stateful.per_second} decisions/s  (ratio ${result.ratio_vs_stateful}x)`);
console.log(`cedar-wasm isAuthorized: ${wasm.stateless.per_second} decisions/s  (ratio ${result.ratio_vs_stateless}x)`);
' "$root/bench/results/cedar.json"
