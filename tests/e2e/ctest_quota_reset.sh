#!/usr/bin/env bash
# ctest_quota_reset.sh — issue 24 item 3: a per-minute quota reached and reset end to end,
# through the official SDK client, on a `sluice serve --test-clock FILE` whose wall clock the
# test moves by rewriting FILE (no sleeps); also the clock file's own checks (quota_reset.test.mjs).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/e2e-quota-reset"
rm -rf "$work"
mkdir -p "$work"
"$SLUICE_BIN" demo-db "$work/demo.duckdb"
"$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
export SLUICE_E2E_WORK="$work" SLUICE_BIN
export PATH="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin:$PATH"
cd "$SLUICE_SOURCE_DIR/tests/e2e"
exec timeout 120 node --test --test-reporter=spec --test-concurrency=1 quota_reset.test.mjs
