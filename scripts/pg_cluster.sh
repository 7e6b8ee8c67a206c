# pg_cluster.sh — a throwaway PostgreSQL 15 cluster for tests and benchmarks: initdb + pg_ctl in a
# directory of the caller's, Unix socket only (no TCP listener), trust auth, fsync off; no system
# service is touched. Sourced, never run. As root, the cluster runs as the postgres user (initdb
# refuses root).
#
#   . scripts/pg_cluster.sh
#   pg_cluster_start DIR PORT SUPERUSER   # sets PG_SOCKET (the socket directory) and PG_PORT
#   psql -h "$PG_SOCKET" -p "$PG_PORT" -U SUPERUSER -d postgres ...
#   pg_cluster_stop                        # stops the cluster started above (only that one)

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_DATA=
PG_SOCKET=
PG_PORT=

pg_cluster_as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# pg_cluster_start DIR PORT SUPERUSER: DIR must exist and be reachable by the postgres user.
pg_cluster_start() {
    local dir=$1 port=$2 user=$3
    PG_DATA="$dir/pgdata"
    PG_SOCKET="$PG_DATA"
    PG_PORT=$port
    mkdir -p "$PG_DATA"
    chmod 755 "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres "$PG_DATA"
    pg_cluster_as_pg "$PG_BIN/initdb" -D "$PG_DATA" -U "$user" --auth=trust -E UTF8 --locale=C \
        >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; return 2; }
    pg_cluster_as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_DATA/server.log" -w \
        -o "-c listen_addresses='' -k $PG_SOCKET -p $port -c fsync=off" start >/dev/null \
        || { cat "$PG_DATA/server.log" >&2; return 2; }
}

# pg_cluster_stop: immediate stop of the cluster pg_cluster_start made; nothing when none runs.
pg_cluster_stop() {
    if [ -n "$PG_DATA" ] && [ -f "$PG_DATA/postmaster.pid" ]; then
        pg_cluster_as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -m immediate stop >/dev/null 2>&1 || true
    fi
}
