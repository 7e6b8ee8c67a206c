#!/usr/bin/env bash
# ctest_caller_assertion.sh — the signed caller assertion at an HTTP upstream (issue 24): the demo
# GraphQL API (examples/graphql/server.mjs) verifying what `sluice serve` signs about each
# API-key user (caller_assertion.test.mjs, official SDK client).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/e2e-caller-assertion"
mkdir -p "$work"
[ -f "$work/demo.duckdb" ] || "$SLUICE_BIN" demo-db "$work/demo.duckdb" >/dev/null
[ -f "$work/token.key" ] || "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
export SLUICE_E2E_WORK="$work" SLUICE_BIN SLUICE_SOURCE_DIR
export PATH="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin:$PATH"
cd "$SLUICE_SOURCE_DIR/tests/e2e"
exec node --test --test-reporter=spec --test-concurrency=1 caller_assertion.test.mjs
