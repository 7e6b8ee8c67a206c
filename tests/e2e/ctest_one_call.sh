#!/usr/bin/env bash
# ctest_one_call.sh — validate_code {"execute": true} (issue 23) end to end through the official
# TypeScript SDK client: `sluice serve` over HTTP on a writable copy of the demo database with a
# budget_note table; alice on the default route (execute_on_validate on), bob on a route that
# turns it off.
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/e2e-one-call"
mkdir -p "$work"
rm -f "$work"/*.audit.jsonl*
if [ ! -f "$work/budget.duckdb" ]; then
  { cat "$SLUICE_SOURCE_DIR/examples/demo/demo.sql"
    printf '\nCREATE TABLE budget_note AS SELECT i AS id, %s || i AS note FROM range(1, 11) t(i);\n' "'note '"
  } > "$work/budget.sql"
  "$SLUICE_BIN" demo-db --sql "$work/budget.sql" "$work/budget.duckdb"
fi
[ -f "$work/token.key" ] || "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
export SLUICE_E2E_WORK="$work" SLUICE_BIN SLUICE_SOURCE_DIR
export PATH="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin:$PATH"
cd "$SLUICE_SOURCE_DIR/tests/e2e"
exec node --test --test-reporter=spec --test-concurrency=1 one_call.test.mjs
