# pg_cluster.sh — a throwaway PostgreSQL 15 cluster for tests and benchmarks: initdb + pg_ctl in a
# directory of the caller's, Unix socket only (no TCP listener), trust auth, fsync off; no system
# service is touched. Sourced, never run. As root, the cluster runs as the postgres user (initdb
# refuses root).
#
#   . scripts/pg_cluster.sh
#   pg_cluster_start DIR PORT SUPERUSER   # sets PG_SOCKET (the socket directory) and PG_PORT
#   psql -h "$PG_SOCKET" -p "$PG_PORT" -U SUPERUSER -d postgres ...
#   pg_cluster_demo DEMO.duckdb DIR         # database demo with the demo tables, as SUPERUSER
#   pg_cluster_stop                        # stops the cluster started above (only that one)

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_DATA=
PG_SOCKET=
PG_PORT=
PG_SUPERUSER=

pg_cluster_as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# pg_cluster_start DIR PORT SUPERUSER: DIR must exist and be reachable by the postgres user.
pg_cluster_start() {
    local dir=$1 port=$2 user=$3
    PG_DATA="$dir/pgdata"
    PG_SOCKET="$PG_DATA"
    PG_PORT=$port
    PG_SUPERUSER=$user
    mkdir -p "$PG_DATA"
    chmod 755 "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres "$PG_DATA"
    pg_cluster_as_pg "$PG_BIN/initdb" -D "$PG_DATA" -U "$user" --auth=trust -E UTF8 --locale=C \
        >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; return 2; }
    pg_cluster_as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_DATA/server.log" -w \
        -o "-c listen_addresses='' -k $PG_SOCKET -p $port -c fsync=off" start >/dev/null \
        || { cat "$PG_DATA/server.log" >&2; return 2; }
}

# pg_cluster_demo DEMO.duckdb DIR: creates database demo in the cluster started above and loads
# the demo tables from the DuckDB file (bench/peers/load_pg.mjs; CSVs and the script in DIR).
pg_cluster_demo() {
    local duck=$1 dir=$2 root
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    local psql=(psql -q -X -v ON_ERROR_STOP=1 -h "$PG_SOCKET" -p "$PG_PORT" -U "$PG_SUPERUSER")
    mkdir -p "$dir/csv"
    "${psql[@]}" -d postgres -c "CREATE DATABASE demo" >/dev/null
    node "$root/bench/peers/load_pg.mjs" "$duck" "$dir/csv" >"$dir/load.sql"
    "${psql[@]}" -d demo -f "$dir/load.sql" >/dev/null
}

# pg_cluster_stop: immediate stop of the cluster pg_cluster_start made; nothing when none runs.
pg_cluster_stop() {
    if [ -n "$PG_DATA" ] && [ -f "$PG_DATA/postmaster.pid" ]; then
        pg_cluster_as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -m immediate stop >/dev/null 2>&1 || true
    fi
}
