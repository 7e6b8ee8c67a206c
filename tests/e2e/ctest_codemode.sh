#!/usr/bin/env bash
# ctest_codemode.sh — SQL code mode end to end through the official TypeScript SDK client:
# `sluice serve` on the demo database (built here with `sluice demo-db`), over stdio and HTTP.
# codemode.test.mjs: the seeds' questions, token binding; security.test.mjs: the attacks.
# key_rotation.test.mjs: the token key rotated in a running server (SIGHUP, file change).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/e2e-codemode"
mkdir -p "$work"
[ -f "$work/demo.duckdb" ] || "$SLUICE_BIN" demo-db "$work/demo.duckdb"
[ -f "$work/demo.sqlite" ] || "$SLUICE_BIN" demo-db --engine sqlite "$work/demo.sqlite"
[ -f "$work/token.key" ] || "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
[ -f "$work/other.key" ] || "$SLUICE_BIN" keygen -o "$work/other.key" >/dev/null
export SLUICE_E2E_WORK="$work" SLUICE_BIN
export PATH="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin:$PATH"
cd "$SLUICE_SOURCE_DIR/tests/e2e"
exec node --test --test-reporter=spec --test-concurrency=1 codemode.test.mjs security.test.mjs key_rotation.test.mjs
