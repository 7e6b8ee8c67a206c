#!/usr/bin/env bash
# ctest_github_agent.sh — issue 26: a scripted agent answers a GitHub question through the SDK
# client by search, describe, validate and execute on GitHub's real GraphQL schema, against a
# local stub (github_agent.test.mjs); it never reads code-mode://schema and reads little.
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/e2e-github-agent"
mkdir -p "$work"
[ -f "$work/token.key" ] || "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
export SLUICE_E2E_WORK="$work" SLUICE_BIN SLUICE_SOURCE_DIR
cd "$SLUICE_SOURCE_DIR/tests/e2e"
exec node --test --test-reporter=spec --test-concurrency=1 github_agent.test.mjs
