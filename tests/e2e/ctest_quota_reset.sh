#!/usr/bin/env bash
# ctest_quota_reset.sh — issue 24 item 3: a per-minute quota reached and reset end to end,
# through the official SDK client, on a `sluice serve --test-clock FILE` whose wall clock the
# test moves by rewriting FILE (no sleeps); also the clock file's own checks (quota_reset.test.mjs).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR (e2e_common.sh).
. "$(dirname "$0")/e2e_common.sh"
e2e_prepare quota-reset
E2E_TIMEOUT=120 e2e_run quota_reset.test.mjs
