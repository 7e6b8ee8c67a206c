#!/usr/bin/env bash
# ctest_replicas.sh — three sluice replicas behind Debian nginx (round-robin, no stickiness, the
# configuration of docs/deploy.md), sharing a real Redis (token ids, approvals) and a real
# PostgreSQL 15 (the audit trail), all on loopback or Unix sockets in a temp dir, driven by the
# official MCP TypeScript SDK client over MCP 2026-07-28 (replicas.test.mjs). The setup
# (PostgreSQL, the demo database, the token key, the ports and nginx.conf) is tests/scale/cluster.sh,
# shared with bench/load/replicas.sh; the Node test starts and stops Redis, the replicas and nginx
# itself (it kills and restarts them). Bounded: every wait has a deadline; the whole run takes
# well under a minute.
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
. "$SLUICE_SOURCE_DIR/tests/scale/cluster.sh"
trap cluster_stop EXIT
cluster_prepare "$SLUICE_BUILD_DIR/scale-replicas"
export SLUICE_BIN SLUICE_SOURCE_DIR SLUICE_BUILD_DIR
cd "$SLUICE_SOURCE_DIR/tests/scale"
timeout 120 node --test --test-reporter=spec --test-concurrency=1 replicas.test.mjs
