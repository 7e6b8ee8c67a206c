#!/usr/bin/env bash
# ctest_zero_config.sh — `sluice serve --db FILE` (no config) through the official TypeScript SDK
# client over stdio, on the demo database in both engines (zero_config.test.mjs).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/e2e-zero-config"
mkdir -p "$work"
[ -f "$work/demo.duckdb" ] || "$SLUICE_BIN" demo-db "$work/demo.duckdb" >/dev/null
[ -f "$work/demo.sqlite" ] || "$SLUICE_BIN" demo-db --engine sqlite "$work/demo.sqlite" >/dev/null
export SLUICE_E2E_WORK="$work" SLUICE_BIN
export PATH="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin:$PATH"
cd "$SLUICE_SOURCE_DIR/tests/e2e"
exec node --test --test-reporter=spec --test-concurrency=1 zero_config.test.mjs
