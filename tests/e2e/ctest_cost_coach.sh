#!/usr/bin/env bash
# ctest_cost_coach.sh — JavaScript plans over an OpenAPI service end to end through the official
# TypeScript SDK client: the cost-coach REST API (examples/cost-coach/server.mjs) on loopback,
# `sluice serve` with [database] engine = "openapi" in front of it (configs generated from
# examples/cost-coach/sluice.toml), seed 000's budgets plan verbatim, writes, deletes, limits,
# escapes, upstream failures and idempotent retries (issues 11 and 16).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/e2e-cost-coach"
mkdir -p "$work"
[ -f "$work/token.key" ] || "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
export SLUICE_E2E_WORK="$work" SLUICE_BIN SLUICE_SOURCE_DIR
export PATH="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin:$PATH"
cd "$SLUICE_SOURCE_DIR/tests/e2e"
exec node --test --test-reporter=spec --test-concurrency=1 cost_coach.test.mjs
