#!/usr/bin/env bash
# ctest_observe.sh — /metrics, /healthz, /readyz, the JSON request log and the HTTP approval
# through the official TypeScript SDK client (observe.test.mjs), on the demo database.
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/e2e-observe"
mkdir -p "$work"
[ -f "$work/demo.duckdb" ] || "$SLUICE_BIN" demo-db "$work/demo.duckdb"
[ -f "$work/demo.sqlite" ] || "$SLUICE_BIN" demo-db --engine sqlite "$work/demo.sqlite"
[ -f "$work/token.key" ] || "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
export SLUICE_E2E_WORK="$work" SLUICE_BIN
cd "$SLUICE_SOURCE_DIR/tests/e2e"
exec node --test --test-reporter=spec --test-concurrency=1 observe.test.mjs
