#!/usr/bin/env bash
# ctest_mcp_core.sh — end-to-end tests of the MCP core and both transports through the official
# TypeScript SDK client and raw HTTP (tests/e2e/*.test.mjs, node:test), against the fixture
# server tests/programs/sluice_conformance. Each test file starts the fixture processes it needs.
#
# Env (set by ctest): SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
export SLUICE_BUILD_DIR
[ -x "$SLUICE_BUILD_DIR/sluice_conformance" ] || { echo "sluice_conformance not built" >&2; exit 1; }
# Same Node as the conformance suite (22), from tests/node.
export PATH="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin:$PATH"
cd "$SLUICE_SOURCE_DIR/tests/e2e"
exec node --test --test-reporter=spec --test-concurrency=1 mcp_core.test.mjs stdio_transport.test.mjs http_transport.test.mjs
