#!/usr/bin/env bash
# ctest_caller_assertion.sh — the signed caller assertion at an HTTP upstream (issue 24): the demo
# GraphQL API (examples/graphql/server.mjs) verifying what `sluice serve` signs about each
# API-key user (caller_assertion.test.mjs, official SDK client).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR (e2e_common.sh).
. "$(dirname "$0")/e2e_common.sh"
e2e_prepare caller-assertion
e2e_run caller_assertion.test.mjs
