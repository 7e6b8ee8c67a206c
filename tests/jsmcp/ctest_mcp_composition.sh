#!/usr/bin/env bash
# ctest_mcp_composition.sh — mcp.call composition in JavaScript plans end to end through the
# official TypeScript SDK client: `sluice serve` over HTTP with [[code_mode.mcp_servers]]
# naming a downstream MCP server built on the SDK (tests/jsmcp/mcp_downstream.mjs, over stdio)
# and a second sluice serving the demo database over stdio; over Streamable HTTP, a keyed second
# sluice (SSE answers) and the SDK downstream in --http mode (JSON answers) (issue 11).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/e2e-mcp-composition"
mkdir -p "$work"
[ -f "$work/demo.duckdb" ] || "$SLUICE_BIN" demo-db "$work/demo.duckdb" >/dev/null
[ -f "$work/token.key" ] || "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
export SLUICE_E2E_WORK="$work" SLUICE_BIN SLUICE_SOURCE_DIR
export PATH="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin:$PATH"
cd "$SLUICE_SOURCE_DIR/tests/jsmcp"
exec node --test --test-reporter=spec --test-concurrency=1 mcp_composition.test.mjs
