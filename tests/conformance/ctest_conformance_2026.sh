#!/usr/bin/env bash
# ctest_conformance_2026.sh — runs the official MCP conformance suite's pre-release line
# (@modelcontextprotocol/conformance 0.2.0-alpha.12, npm alias conformance-next) with
# --requirements 2026-07-28 (the 37 server scenarios frozen for that revision) against the same
# sluice fixture server, on the same endpoint that serves 2025-11-25. Fails on any failure not
# listed in baseline-2026.yml, and on baseline entries that now pass.
#
# Env (set by ctest): SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR. Results:
# $SLUICE_BUILD_DIR/conformance-2026/.
. "$SLUICE_SOURCE_DIR/tests/conformance/run_suite.sh"
run_suite "$SLUICE_BUILD_DIR/conformance-2026" "conformance-next" \
    "$SLUICE_SOURCE_DIR/tests/conformance/baseline-2026.yml" --requirements 2026-07-28
