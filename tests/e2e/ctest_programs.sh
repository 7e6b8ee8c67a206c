#!/usr/bin/env bash
# ctest_programs.sh — saved programs (issue 24 item 4) through the official TypeScript SDK client:
# `sluice program promote` a validated program, call it from tools/list over HTTP as two API-key
# users under a Cedar policy, tamper with the store, demote it, and invalidate it by a schema
# change (programs.test.mjs).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/e2e-programs"
rm -rf "$work"
mkdir -p "$work"
"$SLUICE_BIN" demo-db "$work/demo.duckdb" >/dev/null
{ cat "$SLUICE_SOURCE_DIR/examples/demo/demo.sql"
  printf '\nALTER TABLE customers ADD COLUMN note VARCHAR;\n'
} > "$work/changed.sql"
"$SLUICE_BIN" demo-db --sql "$work/changed.sql" "$work/changed.duckdb" >/dev/null
"$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
export SLUICE_E2E_WORK="$work" SLUICE_BIN SLUICE_SOURCE_DIR
export PATH="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin:$PATH"
cd "$SLUICE_SOURCE_DIR/tests/e2e"
exec node --test --test-reporter=spec --test-concurrency=1 programs.test.mjs
