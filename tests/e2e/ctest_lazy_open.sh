#!/usr/bin/env bash
# ctest_lazy_open.sh — the DuckDB file opens on first need (issue 23, idle RSS) end to end through
# the official TypeScript SDK client: `sluice serve` over HTTP answers the listing methods
# without opening it, the first calls (many at once) open it once and answer correctly, and a
# file DuckDB cannot open is a clear error on each call, never a crash.
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/e2e-lazy-open"
mkdir -p "$work"
rm -f "$work"/*.audit.jsonl*
[ -f "$work/demo.duckdb" ] || "$SLUICE_BIN" demo-db "$work/demo.duckdb"
[ -f "$work/token.key" ] || "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
printf 'this is not a DuckDB database\n%.0s' $(seq 1 200) >"$work/broken.duckdb"
export SLUICE_E2E_WORK="$work" SLUICE_BIN
export PATH="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin:$PATH"
cd "$SLUICE_SOURCE_DIR/tests/e2e"
exec node --test --test-reporter=spec --test-concurrency=1 lazy_open.test.mjs
