#!/usr/bin/env bash
# ctest_postgres.sh — SQL code mode on a real PostgreSQL 15 server: a throwaway cluster
# (scripts/pg_cluster.sh: initdb + pg_ctl, Unix socket in a temp dir) loaded with the demo
# database's tables (bench/peers/load_pg.mjs), the least-privilege roles of
# examples/postgres/read_role.sql, then postgres.test.mjs through the official SDK client: the
# seeds' queries against DuckDB's answers, the attacks, the row and time caps, the role probe.
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
. "$SLUICE_SOURCE_DIR/scripts/pg_cluster.sh"
if [ ! -x "$PG_BIN/initdb" ]; then
    echo "ctest_postgres: no PostgreSQL server at $PG_BIN (Debian package postgresql-15)" >&2
    exit 1
fi
work="$SLUICE_BUILD_DIR/e2e-postgres"
rm -rf "$work"
mkdir -p "$work/csv"
tmp=$(mktemp -d)
cleanup() {
    pg_cluster_stop
    rm -rf "$tmp"
}
trap cleanup EXIT
"$SLUICE_BIN" demo-db "$work/demo.duckdb" >/dev/null
"$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pg_cluster_start "$tmp" "$port" sluice_admin
psql=(psql -q -X -v ON_ERROR_STOP=1 -h "$PG_SOCKET" -p "$port" -U sluice_admin)
"${psql[@]}" -d postgres -c "CREATE DATABASE demo" >/dev/null
node "$SLUICE_SOURCE_DIR/bench/peers/load_pg.mjs" "$work/demo.duckdb" "$work/csv" >"$work/load.sql"
"${psql[@]}" -d demo -f "$work/load.sql" >/dev/null
"${psql[@]}" -d demo -f "$SLUICE_SOURCE_DIR/examples/postgres/read_role.sql" >/dev/null
# A view for lineage through definitions (blocked columns hidden inside it are still found).
"${psql[@]}" -d demo -c "CREATE VIEW customer_contacts AS SELECT id, name, email FROM customers" \
    -c "GRANT SELECT ON customer_contacts TO sluice_read" >/dev/null

export SLUICE_E2E_WORK="$work" SLUICE_BIN
export SLUICE_PG_READ="host=$PG_SOCKET port=$port dbname=demo user=sluice_read"
export SLUICE_PG_ADMIN="host=$PG_SOCKET port=$port dbname=demo user=sluice_admin"
export PATH="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin:$PATH"
cd "$SLUICE_SOURCE_DIR/tests/pg"
node --test --test-reporter=spec --test-concurrency=1 postgres.test.mjs
