#!/usr/bin/env bash
# ctest_replicas.sh — three sluice replicas behind Debian nginx (round-robin, no stickiness, the
# configuration of docs/deploy.md), sharing a real Redis (token ids, approvals) and a real
# PostgreSQL 15 (the audit trail), all on loopback or Unix sockets in a temp dir, driven by the
# official MCP TypeScript SDK client over MCP 2026-07-28 (replicas.test.mjs). This script makes
# the PostgreSQL cluster (scripts/pg_cluster.sh), the demo database, the token key and a CSV for
# query mode; the Node test starts and stops Redis, the replicas and nginx itself (it kills and
# restarts them). Bounded: every wait has a deadline; the whole run takes well under a minute.
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
. "$SLUICE_SOURCE_DIR/scripts/pg_cluster.sh"
for tool in redis-server redis-cli nginx; do
    command -v "$tool" >/dev/null || { echo "ctest_replicas: $tool missing (scripts/bootstrap.sh)" >&2; exit 1; }
done
work="$SLUICE_BUILD_DIR/scale-replicas"
rm -rf "$work"
mkdir -p "$work"
tmp=$(mktemp -d)
cleanup() {
    # What replicas.test.mjs started and did not stop (it died early): only those pids.
    [ -f "$work/pids" ] && while read -r pid; do kill "$pid" 2>/dev/null || true; done <"$work/pids"
    pg_cluster_stop
    rm -rf "$tmp"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pg_cluster_start "$tmp" "$port" sluice_admin
psql -q -X -v ON_ERROR_STOP=1 -h "$PG_SOCKET" -p "$port" -U sluice_admin -d postgres \
    -c "CREATE DATABASE audit" >/dev/null
"$SLUICE_BIN" demo-db "$work/demo.duckdb" >/dev/null
"$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
printf 'region,amount\nnorth,10\nsouth,32\nnorth,5\n' >"$work/sales.csv"
export SLUICE_SCALE_WORK="$work" SLUICE_BIN SLUICE_SOURCE_DIR SLUICE_BUILD_DIR
export SLUICE_SCALE_AUDIT_PG="host=$PG_SOCKET port=$port dbname=audit user=sluice_admin"
cd "$SLUICE_SOURCE_DIR/tests/scale"
timeout 120 node --test --test-reporter=spec --test-concurrency=1 replicas.test.mjs
