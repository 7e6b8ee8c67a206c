#!/usr/bin/env bash
# ctest_pg_down.sh — issue 14, faults: PostgreSQL stopped mid-query, and while stopped, and back.
# A throwaway PostgreSQL 15 cluster (scripts/pg_cluster.sh) loaded with the demo tables, then
# pg_down.test.mjs drives `sluice serve` on it and stops / starts the cluster itself (pg_ctl).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
. "$SLUICE_SOURCE_DIR/scripts/pg_cluster.sh"
if [ ! -x "$PG_BIN/initdb" ]; then
    echo "ctest_pg_down: no PostgreSQL server at $PG_BIN (Debian package postgresql-15)" >&2
    exit 1
fi
tmp=$(mktemp -d)
cleanup() {
    pg_cluster_stop
    rm -rf "$tmp"
}
trap cleanup EXIT
"$SLUICE_BIN" demo-db "$tmp/demo.duckdb" >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pg_cluster_start "$tmp" "$port" sluice_admin
pg_cluster_demo "$tmp/demo.duckdb" "$tmp"
export SLUICE_BIN FAULTS_PG_BIN="$PG_BIN" FAULTS_PG_DATA="$PG_DATA" FAULTS_PG_PORT="$port"
export FAULTS_PG_CONNINFO="host=$PG_SOCKET port=$port dbname=demo user=sluice_admin"
cd "$SLUICE_SOURCE_DIR/tests/faults"
node --test --test-reporter=spec pg_down.test.mjs
