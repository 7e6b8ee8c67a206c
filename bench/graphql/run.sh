#!/usr/bin/env bash
# run.sh — GraphQL validation per second: sluice's front end (parse, canonical hash, the spec's
# rules, limits and facts) beside graphql-js 16 parse + validate, for seed 000's
# RecentCustomersSnapshot against examples/graphql/schema.graphql, in one run. Writes
# bench/results/graphql.json and prints the ratio (target: at least x10).
# usage: bench/graphql/run.sh [BUILD_DIR] [SECONDS]   (BUILD_DIR default: build-bench, Release)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-bench}
seconds=${2:-2}
[ -f "$build/CMakeCache.txt" ] || cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target graphql_bench >/dev/null # incremental: never a stale driver
schema=$root/examples/graphql/schema.graphql
op=$root/tests/fuzz/corpus/fuzz_graphql/seed000_snapshot.graphql
ours=$("$build/graphql_bench" "$schema" "$op" "$seconds")
js=$(node "$root/bench/graphql/js_bench.mjs" "$schema" "$op" "$seconds")
mkdir -p "$root/bench/results"
OURS="$ours" JS="$js" node -e '
const ours = JSON.parse(process.env.OURS), js = JSON.parse(process.env.JS);
if (!ours.valid || !js.valid) throw new Error("the seed operation must be valid on both sides");
const result = {
  benchmark: "validate seed 000 RecentCustomersSnapshot: sluice front end vs graphql-js parse+validate",
  sluice: ours, graphql_js: js, ratio: Number((ours.per_second / js.per_second).toFixed(1)),
};
require("fs").writeFileSync(process.argv[1], JSON.stringify(result, null, 2) + "\n");
console.log(`sluice ${ours.per_second}/s, graphql-js ${js.per_second}/s: x${result.ratio}`);
' "$root/bench/results/graphql.json"
