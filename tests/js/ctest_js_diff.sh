#!/usr/bin/env bash
# ctest_js_diff.sh — the plan interpreter against Node on 10,000 generated plans per seed (two
# seeds), see tests/node/js_diff.mjs. SLUICE_JS_DIFF_COUNT / SLUICE_JS_DIFF_SEEDS override.
set -euo pipefail
: "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
count="${SLUICE_JS_DIFF_COUNT:-10000}"
for seed in ${SLUICE_JS_DIFF_SEEDS:-1 2}; do
  node "$SLUICE_SOURCE_DIR/tests/node/js_diff.mjs" "$SLUICE_BUILD_DIR/js_run" "$count" "$seed"
done
