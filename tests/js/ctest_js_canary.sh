#!/usr/bin/env bash
# ctest_js_canary.sh — the canary property test for plans (tests/node/js_canary.mjs): generated
# plans carry blocked fields' canaries every way the language allows; none may reach what a run
# answers. Bounded here (3,000 plans per seed, two modes, two seeds; about two seconds); the
# long run is `make property-js N=... SEED=...`. SLUICE_JS_CANARY_COUNT / _SEEDS override.
set -euo pipefail
: "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
count="${SLUICE_JS_CANARY_COUNT:-3000}"
for seed in ${SLUICE_JS_CANARY_SEEDS:-1 2}; do
  node "$SLUICE_SOURCE_DIR/tests/node/js_canary.mjs" "$SLUICE_BUILD_DIR/js_run" "$count" "$seed"
done
