#!/usr/bin/env bash
# ctest_model_text.sh — what the model reads from the shipped demo config: resources,
# explanations, the result cap, the demo's curated tool (model_text.test.mjs).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/e2e-model-text"
mkdir -p "$work/demo"
rm -f "$work"/demo/audit.jsonl*
[ -f "$work/demo/demo.duckdb" ] || "$SLUICE_BIN" demo-db "$work/demo/demo.duckdb" >/dev/null
rm -f "$work/keys.duckdb"
"$SLUICE_BIN" demo-db --sql "$SLUICE_SOURCE_DIR/tests/e2e/schema_notes.sql" "$work/keys.duckdb" >/dev/null
[ -f "$work/demo/token.key" ] || "$SLUICE_BIN" keygen -o "$work/demo/token.key" >/dev/null
export SLUICE_E2E_WORK="$work" SLUICE_BIN SLUICE_SOURCE_DIR
cd "$SLUICE_SOURCE_DIR/tests/e2e"
exec node --test --test-reporter=spec --test-concurrency=1 model_text.test.mjs
