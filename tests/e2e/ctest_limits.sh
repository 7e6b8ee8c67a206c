#!/usr/bin/env bash
# ctest_limits.sh — issue 8 section 2: validate_code / execute_code RSS and time bounds, measured
# from outside `sluice serve` (limits.test.mjs samples /proc/<pid>/status of the server).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/e2e-limits"
mkdir -p "$work"
[ -f "$work/demo.duckdb" ] || "$SLUICE_BIN" demo-db "$work/demo.duckdb"
[ -f "$work/demo.sqlite" ] || "$SLUICE_BIN" demo-db --engine sqlite "$work/demo.sqlite" >/dev/null
[ -f "$work/token.key" ] || "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
export SLUICE_E2E_WORK="$work" SLUICE_BIN
export PATH="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin:$PATH"
cd "$SLUICE_SOURCE_DIR/tests/e2e"
exec node --test --test-reporter=spec --test-concurrency=1 limits.test.mjs
