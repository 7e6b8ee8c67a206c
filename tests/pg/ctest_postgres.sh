#!/usr/bin/env bash
# ctest_postgres.sh — SQL code mode on a real PostgreSQL 15 server: a throwaway cluster
# (scripts/pg_cluster.sh: initdb + pg_ctl, Unix socket in a temp dir) loaded with the demo
# database's tables (bench/peers/load_pg.mjs), the least-privilege roles of
# examples/postgres/read_role.sql and write_role.sql; pg_engine_check (tests/programs) calls the
# executor directly, without the analyzer (no change runs on the read role; cancellation reaches
# the server); then postgres.test.mjs through the official SDK client: the seeds' queries against
# DuckDB's answers, the attacks, the row and time caps, the role probe, writes through the write
# role under seed 000's Cedar policies.
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
mkdir -p "$work"
tmp=$(mktemp -d)
cleanup() {
    pg_cluster_stop
    rm -rf "$tmp"
}
trap cleanup EXIT
"$SLUICE_BIN" demo-db "$work/demo.duckdb" >/dev/null
"$SLUICE_BIN" demo-db --engine sqlite "$work/demo.sqlite" >/dev/null
"$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pg_cluster_start "$tmp" "$port" sluice_admin
psql=(psql -q -X -v ON_ERROR_STOP=1 -h "$PG_SOCKET" -p "$port" -U sluice_admin)
pg_cluster_demo "$work/demo.duckdb" "$work"
# Seed 000's budget notes: the table the power users' write policy names.
"${psql[@]}" -d demo -c "CREATE TABLE budget_note AS SELECT i AS id, 'note ' || i AS note FROM generate_series(1, 10) AS g(i)" >/dev/null
"${psql[@]}" -d demo -f "$SLUICE_SOURCE_DIR/examples/postgres/read_role.sql" >/dev/null
"${psql[@]}" -d demo -f "$SLUICE_SOURCE_DIR/examples/postgres/write_role.sql" >/dev/null
# A view for lineage through definitions (blocked columns hidden inside it are still found).
"${psql[@]}" -d demo -c "CREATE VIEW customer_contacts AS SELECT id, name, email FROM customers" \
    -c "GRANT SELECT ON customer_contacts TO sluice_read" >/dev/null

export SLUICE_E2E_WORK="$work" SLUICE_BIN SLUICE_SOURCE_DIR
export SLUICE_PG_READ="host=$PG_SOCKET port=$port dbname=demo user=sluice_read"
export SLUICE_PG_ADMIN="host=$PG_SOCKET port=$port dbname=demo user=sluice_admin"
export SLUICE_PG_WRITE="host=$PG_SOCKET port=$port dbname=demo user=sluice_write"
# The executor's own walls with the analyzer bypassed, and cancellation reaching the server.
"$SLUICE_BUILD_DIR/pg_engine_check" "$SLUICE_PG_READ" "$SLUICE_PG_WRITE" "$SLUICE_PG_ADMIN"
# Back to the loaded state for the end-to-end tests (the check's control write changed one note).
"${psql[@]}" -d demo -c "UPDATE budget_note SET note = 'note ' || id" >/dev/null
export PATH="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin:$PATH"
cd "$SLUICE_SOURCE_DIR/tests/pg"
# SLUICE_PG_TESTS: a subset of the files, when working on one of them
# shellcheck disable=SC2086
node --test --test-reporter=spec --test-concurrency=1 \
    ${SLUICE_PG_TESTS:-postgres.test.mjs writes.test.mjs hardening.test.mjs caller.test.mjs estimate.test.mjs}
