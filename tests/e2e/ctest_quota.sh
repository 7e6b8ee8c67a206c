#!/usr/bin/env bash
# ctest_quota.sh — issue 24 item 3: quotas per caller, shared by two `sluice serve --http`
# replicas through a real redis-server, driven by the official SDK client (quota.test.mjs).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR (e2e_common.sh).
. "$(dirname "$0")/e2e_common.sh"
e2e_prepare quota
E2E_TIMEOUT=120 e2e_run quota.test.mjs
