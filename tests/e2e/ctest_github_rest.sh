#!/usr/bin/env bash
# ctest_github_rest.sh — GitHub's REST spec (@octokit/openapi, api.github.com) served by sluice
# through the official TypeScript SDK client against a local stub upstream: validate's truths
# (query parameter names, x-multi-segment path parameters and their escapes) and small describe
# answers (issue 26). Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/e2e-github-rest"
mkdir -p "$work"
[ -f "$work/token.key" ] || "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
export SLUICE_E2E_WORK="$work" SLUICE_BIN SLUICE_SOURCE_DIR
cd "$SLUICE_SOURCE_DIR/tests/e2e"
exec node --test --test-reporter=spec --test-concurrency=1 github_rest.test.mjs
