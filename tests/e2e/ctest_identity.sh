#!/usr/bin/env bash
# ctest_identity.sh — OAuth bearer JWTs, protected resource metadata, elicited and administrator
# approvals end to end through the official TypeScript SDK client, against `sluice serve` on its
# own copy of the demo database (the approval tests write to it).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/e2e-identity"
rm -rf "$work"
mkdir -p "$work"
"$SLUICE_BIN" demo-db "$work/demo.duckdb" >/dev/null
"$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
export SLUICE_E2E_WORK="$work" SLUICE_BIN
cd "$SLUICE_SOURCE_DIR/tests/e2e"
exec node --test --test-reporter=spec --test-concurrency=1 identity.test.mjs
