#!/usr/bin/env bash
# ctest_console.sh — the admin console in a real browser: Debian's Chromium driven by
# playwright-core (tests/node) signs in, approves a request the official SDK client created
# (whose execute then runs), rejects another, searches the audit trail, reads the metrics and the
# configuration, and takes the screenshots docs/console-*.png (written to the build tree; with
# SLUICE_UPDATE_SCREENSHOTS=1 also into docs/).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
chromium="${SLUICE_CHROMIUM:-$(command -v chromium || true)}"
if [ -z "$chromium" ]; then
    echo "ctest_console: no chromium (Debian package 'chromium'; scripts/bootstrap.sh installs it)" >&2
    exit 1
fi
work="$SLUICE_BUILD_DIR/console-e2e"
mkdir -p "$work"
[ -f "$work/demo.duckdb" ] || "$SLUICE_BIN" demo-db "$work/demo.duckdb"
[ -f "$work/token.key" ] || "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
export SLUICE_E2E_WORK="$work" SLUICE_BIN SLUICE_CHROMIUM="$chromium"
cd "$SLUICE_SOURCE_DIR/tests/console"
exec node --test --test-reporter=spec --test-concurrency=1 console.test.mjs
