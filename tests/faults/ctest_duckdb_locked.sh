#!/usr/bin/env bash
# ctest_duckdb_locked.sh — issue 14, faults: the DuckDB file locked by another process: a clear
# refusal to start, then recovery once it lets go (duckdb_locked.test.mjs).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}"
export SLUICE_BIN
cd "$SLUICE_SOURCE_DIR/tests/faults"
exec node --test --test-reporter=spec duckdb_locked.test.mjs
