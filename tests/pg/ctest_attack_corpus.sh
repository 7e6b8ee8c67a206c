#!/usr/bin/env bash
# ctest_attack_corpus.sh — the outside attacker's corpus (issue 23, session 16's probe) against
# DuckDB, SQLite and PostgreSQL with the same canary in every blocked cell: the demo database
# made a canary copy (tests/property/canary_db.mjs), the same canaries copied into SQLite's demo
# database (attack_sqlite.mjs) and loaded into a throwaway PostgreSQL 15 cluster
# (scripts/pg_cluster.sh, load_pg_canary.sh; ANALYZE, so pg_stats holds values to go after).
# Then attack_corpus.mjs: every statement of attack_statements.mjs through `sluice serve --stdio`
# with the official SDK client, every answer, error, stderr and audit line scanned.
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -euo pipefail
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
. "$SLUICE_SOURCE_DIR/scripts/pg_cluster.sh"
if [ ! -x "$PG_BIN/initdb" ]; then
    echo "ctest_attack_corpus: no PostgreSQL server at $PG_BIN (Debian package postgresql-15)" >&2
    exit 1
fi
command -v sqlite3 >/dev/null || { echo "ctest_attack_corpus: no sqlite3 (Debian package sqlite3)" >&2; exit 1; }
work="$SLUICE_BUILD_DIR/attack-corpus"
rm -rf "$work"
mkdir -p "$work"
tmp=$(mktemp -d)
trap 'pg_cluster_stop; rm -rf "$tmp"' EXIT
export PATH="$SLUICE_SOURCE_DIR/tests/node/node_modules/.bin:$PATH"
here="$SLUICE_SOURCE_DIR/tests/pg"
"$SLUICE_BIN" demo-db "$work/demo.duckdb" >/dev/null
"$SLUICE_BIN" demo-db --engine sqlite "$work/canary.sqlite" >/dev/null
"$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
node "$SLUICE_SOURCE_DIR/tests/property/canary_db.mjs" "$work/demo.duckdb" "$work/canary.duckdb" 16 ssn email >/dev/null
node "$here/attack_sqlite.mjs" "$work/canary.duckdb" "$work/canary.sqlite"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pg_cluster_start "$tmp" "$port" sluice_admin
export PG_SOCKET PG_PORT="$port" PG_SUPERUSER=sluice_admin
bash "$SLUICE_SOURCE_DIR/tests/property/load_pg_canary.sh" "$work/canary.duckdb" demo "$work"
psql -q -X -h "$PG_SOCKET" -p "$port" -U sluice_admin -d demo -c "ANALYZE" >/dev/null
node "$here/attack_corpus.mjs" --bin "$SLUICE_BIN" --work "$work" --canaries "$work/canary.duckdb.canaries.json" \
    --duckdb "$work/canary.duckdb" --sqlite "$work/canary.sqlite" \
    --pg "host=$PG_SOCKET port=$port dbname=demo user=sluice_read"
