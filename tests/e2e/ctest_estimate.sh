#!/usr/bin/env bash
# ctest_estimate.sh — issue 24 item 2: the engine's estimate reported, limited and bound into the
# approval token on DuckDB, driven by the official SDK client (estimate.test.mjs).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/e2e-estimate"
rm -rf "$work"
mkdir -p "$work"
"$SLUICE_BIN" demo-db "$work/demo.duckdb"
"$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
export SLUICE_E2E_WORK="$work" SLUICE_BIN
export PATH="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin:$PATH"
cd "$SLUICE_SOURCE_DIR/tests/e2e"
exec timeout 120 node --test --test-reporter=spec --test-concurrency=1 estimate.test.mjs
