#!/usr/bin/env bash
# ctest_cedar_wasm.sh — differential test: sluice's Cedar engine vs @cedar-policy/cedar-wasm.
#
# Runs tests/node/cedar_gen.mjs: COUNT (default 100000) seeded random cases (SEED, default 1),
# batched through one tests/programs/cedar_eval process per 5000 cases. Decision, determining
# policies and erroring policies must agree; a disagreement prints the shrunk case.
set -euo pipefail
src=${SLUICE_SOURCE_DIR:?}
bin=${SLUICE_BUILD_DIR:?}/cedar_eval
if [ ! -d "$src/tests/node/node_modules/@cedar-policy/cedar-wasm" ]; then
    echo "cedar-wasm is not installed under tests/node/node_modules (npm ci in tests/node)" >&2
    exit 1
fi
# --no-opt: with the optimizing compiler on, V8 (Node 20 and 22 alike) dies in its deoptimizer
# ("Fatal error ... unreachable code") after ~25k cases; the interpreter is as fast here
# because the time goes to cedar-wasm and cedar_eval, not to the generator.
exec node --no-opt "$src/tests/node/cedar_gen.mjs" "$bin" --seed "${SEED:-1}" --count "${COUNT:-100000}"
