#!/usr/bin/env bash
# ctest_disconnect.sh — issue 14, faults: a client that disconnects mid-execute (JSON or SSE) has
# its call cancelled and audited so; a dropped GET stream is released at once (disconnect.test.mjs).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}"
export SLUICE_BIN
cd "$SLUICE_SOURCE_DIR/tests/faults"
exec node --test --test-reporter=spec disconnect.test.mjs
