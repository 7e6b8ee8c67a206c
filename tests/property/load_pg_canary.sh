#!/usr/bin/env bash
# load_pg_canary.sh DUCKDB DBNAME DIR — loads a canary database (canary_db.mjs) into the
# PostgreSQL cluster that ctest_property_pg.sh started (PG_SOCKET, PG_PORT, PG_SUPERUSER), as
# database DBNAME, with the least-privilege read role of examples/postgres/read_role.sql (the
# role is cluster-wide: for a second database its CREATE ROLE fails and the grants still apply).
set -euo pipefail
duck=$1 db=$2 dir=$3
: "${PG_SOCKET:?}" "${PG_PORT:?}" "${PG_SUPERUSER:?}"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
psql=(psql -q -X -h "$PG_SOCKET" -p "$PG_PORT" -U "$PG_SUPERUSER")
mkdir -p "$dir/csv-$db"
"${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
node "$root/bench/peers/load_pg.mjs" "$duck" "$dir/csv-$db" >"$dir/load-$db.sql"
"${psql[@]}" -v ON_ERROR_STOP=1 -d "$db" -f "$dir/load-$db.sql" >/dev/null
"${psql[@]}" -d "$db" -f "$root/examples/postgres/read_role.sql" >/dev/null 2>&1 || true
"${psql[@]}" -v ON_ERROR_STOP=1 -d "$db" -c "GRANT CONNECT ON DATABASE $db TO sluice_read" \
    -c "GRANT SELECT ON ALL TABLES IN SCHEMA public TO sluice_read" >/dev/null
