#!/usr/bin/env bash
# ctest_upstream.sh — issue 14, faults: an upstream GraphQL API answering 500 or hanging (the real
# examples/graphql server): clear errors, audited, no leak (upstream.test.mjs).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}"
export SLUICE_BIN
cd "$SLUICE_SOURCE_DIR/tests/faults"
exec node --test --test-reporter=spec upstream.test.mjs
