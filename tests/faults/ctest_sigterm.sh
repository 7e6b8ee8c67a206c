#!/usr/bin/env bash
# ctest_sigterm.sh — issue 14, faults: SIGTERM during load is a graceful stop (sigterm.test.mjs:
# in-flight calls answered, later ones refused with a clear 503, exit 0, audit intact).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}"
export SLUICE_BIN
cd "$SLUICE_SOURCE_DIR/tests/faults"
exec node --test --test-reporter=spec sigterm.test.mjs
