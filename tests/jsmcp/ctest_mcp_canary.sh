#!/usr/bin/env bash
# ctest_mcp_canary.sh — the canary property test of MCP composition (issue 25): generated plans
# read blocked fields through mcp.call from a downstream MCP server whose every answer shape holds
# canaries, and carry them every way the language allows; `sluice serve` over HTTP driven by the
# official SDK client, in strip, refuse and internal-blocked mode; no canary form in any answer,
# tools/list, resource, prompt, log or audit line (tests/jsmcp/mcp_canary.mjs). Bounded here
# (MCP_CANARY_COUNT generated plans per mode, default 30: about a minute under load).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/e2e-mcp-canary"
mkdir -p "$work"
[ -f "$work/token.key" ] || "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
export SLUICE_E2E_WORK="$work" SLUICE_BIN SLUICE_SOURCE_DIR
cd "$SLUICE_SOURCE_DIR/tests/jsmcp"
exec node mcp_canary.mjs "${MCP_CANARY_COUNT:-30}" "${MCP_CANARY_SEED:-1}"
