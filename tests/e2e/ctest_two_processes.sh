#!/usr/bin/env bash
# ctest_two_processes.sh — an HTTP and a stdio server (and `sluice validate`) on one config at
# once, each with its own audit chain, verified together (two_processes.test.mjs).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/e2e-two-processes"
mkdir -p "$work"
[ -f "$work/demo.duckdb" ] || "$SLUICE_BIN" demo-db "$work/demo.duckdb" >/dev/null
[ -f "$work/token.key" ] || "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
export SLUICE_E2E_WORK="$work" SLUICE_BIN
cd "$SLUICE_SOURCE_DIR/tests/e2e"
exec node --test --test-reporter=spec --test-concurrency=1 two_processes.test.mjs
