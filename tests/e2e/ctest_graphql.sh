#!/usr/bin/env bash
# ctest_graphql.sh — GraphQL code mode end to end through the official TypeScript SDK client:
# the demo GraphQL API (examples/graphql/server.mjs) over a demo database built here, `sluice
# serve` with [database] engine = "graphql" in front of it (configs generated from
# examples/graphql/sluice.toml), seed 000's RecentCustomersSnapshot verbatim, mutations,
# limits, blocked fields, introspection, operationName and upstream failures.
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/e2e-graphql"
mkdir -p "$work"
[ -f "$work/demo.duckdb" ] || "$SLUICE_BIN" demo-db "$work/demo.duckdb" >/dev/null
[ -f "$work/token.key" ] || "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
export SLUICE_E2E_WORK="$work" SLUICE_BIN SLUICE_SOURCE_DIR
export PATH="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin:$PATH"
cd "$SLUICE_SOURCE_DIR/tests/e2e"
exec node --test --test-reporter=spec --test-concurrency=1 graphql.test.mjs
