#!/usr/bin/env bash
# ctest_querymode.sh — query mode end to end through the official TypeScript SDK client: the
# example REST server (examples/query-mode/server.mjs) serves the demo database's invoices on
# loopback, `sluice serve` loads them into per-caller sessions and answers seed 004's question.
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/querymode-e2e"
mkdir -p "$work"
[ -f "$work/demo.duckdb" ] || "$SLUICE_BIN" demo-db "$work/demo.duckdb"
[ -f "$work/token.key" ] || "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
export SLUICE_QM_WORK="$work" SLUICE_BIN
export PATH="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin:$PATH"
cd "$SLUICE_SOURCE_DIR/tests/querymode"
exec node --test --test-reporter=spec --test-concurrency=1 querymode.test.mjs
