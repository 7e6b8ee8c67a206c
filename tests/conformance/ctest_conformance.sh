#!/usr/bin/env bash
# ctest_conformance.sh — runs the official MCP conformance suite (@modelcontextprotocol/conformance
# 0.1.16, spec 2025-11-25, default scenarios) against the sluice fixture server over Streamable
# HTTP. Fails on any failure not listed in baseline.yml, and on baseline entries that now pass
# (the suite reports them as stale), so the baseline only ever shrinks.
#
# Env (set by ctest): SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR. Results: $SLUICE_BUILD_DIR/conformance/.
. "$SLUICE_SOURCE_DIR/tests/conformance/run_suite.sh"
run_suite "$SLUICE_BUILD_DIR/conformance" "@modelcontextprotocol/conformance" \
    "$SLUICE_SOURCE_DIR/tests/conformance/baseline.yml" --spec-version 2025-11-25
