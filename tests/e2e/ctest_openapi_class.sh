#!/usr/bin/env bash
# ctest_openapi_class.sh — pmcp-code-mode 0.7's OpenAPI keys end to end through the official
# TypeScript SDK client: the cost-coach REST API (examples/cost-coach/server.mjs) on loopback,
# `sluice serve` in front of it with blocked path globs, read/write/delete/admin modes, an
# allowlist, action_tags and a catalog category overriding the method, and required output
# declarations; `sluice config check` naming the keys pmcp shares (issue 24 item 5).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/e2e-openapi-class"
mkdir -p "$work"
[ -f "$work/token.key" ] || "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
export SLUICE_E2E_WORK="$work" SLUICE_BIN SLUICE_SOURCE_DIR
export PATH="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin:$PATH"
cd "$SLUICE_SOURCE_DIR/tests/e2e"
exec node --test --test-reporter=spec --test-concurrency=1 openapi_class.test.mjs
