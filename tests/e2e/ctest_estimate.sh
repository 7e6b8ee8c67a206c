#!/usr/bin/env bash
# ctest_estimate.sh — issue 24 item 2: the engine's estimate reported, limited and bound into the
# approval token on DuckDB, driven by the official SDK client (estimate.test.mjs).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR (e2e_common.sh).
. "$(dirname "$0")/e2e_common.sh"
e2e_prepare estimate
E2E_TIMEOUT=120 e2e_run estimate.test.mjs
