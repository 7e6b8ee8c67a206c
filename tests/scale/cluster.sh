# shellcheck shell=bash
# cluster.sh — the three-replica setup of docs/deploy.md on loopback, shared by the scale test
# (tests/scale/ctest_replicas.sh) and the replica load benchmark (bench/load/replicas.sh): a
# throwaway PostgreSQL 15 cluster with the audit database, the demo DuckDB file, the token key,
# free ports for nginx and three replicas, and nginx.conf taken from docs/deploy.md between its
# markers (only the ports and the prefix replaced). Owns starting Redis, replicas and nginx for a
# caller that does it from the shell (the Node scale test starts them itself, to kill and restart
# them); does not own the replicas' configuration (each caller writes its own). Sourced, never
# run. Every process started is appended to $CLUSTER_WORK/pids; cluster_stop stops only those.
#
#   . tests/scale/cluster.sh
#   cluster_prepare WORK          # sets and exports CLUSTER_* / SLUICE_SCALE_* (see below)
#   cluster_start_redis PASSWORD  # Unix socket $CLUSTER_REDIS_SOCK, append-only, fsync always
#   cluster_start_replica NAME CONFIG   # on port CLUSTER_PORT_<NAME>; waits for /healthz
#   cluster_start_nginx           # round-robin over the three replicas on $CLUSTER_LB_PORT
#   cluster_stop                  # the pids above, then the PostgreSQL cluster
# Env: SLUICE_BIN, SLUICE_SOURCE_DIR. Failure: any function returns non-zero with the reason on
# stderr (a missing tool, a process that exited or did not come up within its deadline).

. "$SLUICE_SOURCE_DIR/scripts/pg_cluster.sh"
CLUSTER_TMP=

cluster_free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# cluster_wait WHAT SECONDS CMD...: polls CMD every 0.1 s until it succeeds or the deadline.
cluster_wait() {
    local what=$1 secs=$2 _
    shift 2
    for _ in $(seq 1 $((secs * 10))); do
        "$@" 2>/dev/null && return 0
        sleep 0.1
    done
    echo "cluster: $what did not come up within ${secs} s" >&2
    return 1
}

cluster_track() { echo "$1" >>"$CLUSTER_WORK/pids"; }

# cluster_prepare WORK: WORK is emptied. Exports CLUSTER_WORK, CLUSTER_LB_PORT,
# CLUSTER_PORT_A/B/C, CLUSTER_AUDIT_PG (conninfo of the audit database), CLUSTER_REDIS_SOCK, and
# the same for the Node test as SLUICE_SCALE_WORK, SLUICE_SCALE_AUDIT_PG, SLUICE_SCALE_LB_PORT,
# SLUICE_SCALE_REPLICA_PORTS (a,b,c). Writes WORK/demo.duckdb, WORK/token.key, WORK/sales.csv,
# WORK/nginx/nginx.conf.
cluster_prepare() {
    local tool port conf
    for tool in redis-server redis-cli nginx psql; do
        command -v "$tool" >/dev/null || { echo "cluster: $tool missing (scripts/bootstrap.sh)" >&2; return 1; }
    done
    CLUSTER_WORK=$1
    rm -rf "$CLUSTER_WORK"
    mkdir -p "$CLUSTER_WORK/nginx/logs" "$CLUSTER_WORK/nginx/tmp" "$CLUSTER_WORK/redis"
    CLUSTER_TMP=$(mktemp -d)
    port=$(cluster_free_port)
    pg_cluster_start "$CLUSTER_TMP" "$port" sluice_admin || return 1
    psql -q -X -v ON_ERROR_STOP=1 -h "$PG_SOCKET" -p "$port" -U sluice_admin -d postgres \
        -c "CREATE DATABASE audit" >/dev/null || return 1
    CLUSTER_AUDIT_PG="host=$PG_SOCKET port=$port dbname=audit user=sluice_admin"
    "$SLUICE_BIN" demo-db "$CLUSTER_WORK/demo.duckdb" >/dev/null || return 1
    "$SLUICE_BIN" keygen -o "$CLUSTER_WORK/token.key" >/dev/null || return 1
    printf 'region,amount\nnorth,10\nsouth,32\nnorth,5\n' >"$CLUSTER_WORK/sales.csv"
    CLUSTER_REDIS_SOCK="$CLUSTER_WORK/redis/redis.sock"
    CLUSTER_LB_PORT=$(cluster_free_port)
    CLUSTER_PORT_A=$(cluster_free_port)
    CLUSTER_PORT_B=$(cluster_free_port)
    CLUSTER_PORT_C=$(cluster_free_port)
    # The nginx configuration of docs/deploy.md, with this run's ports; it must not be sticky.
    conf=$(sed -n '/<!-- nginx.conf begin -->/,/<!-- nginx.conf end -->/p' \
        "$SLUICE_SOURCE_DIR/docs/deploy.md" | sed '1,2d;$d' | sed '$d')
    [ -n "$conf" ] || { echo "cluster: no nginx.conf between the markers of docs/deploy.md" >&2; return 1; }
    if printf '%s\n' "$conf" | sed 's/#.*$//' | grep -Eq 'ip_hash|sticky|\bhash\b'; then
        echo "cluster: the nginx configuration of docs/deploy.md is sticky" >&2
        return 1
    fi
    printf '%s\n' "$conf" | sed -e "s/127.0.0.1:8100/127.0.0.1:$CLUSTER_LB_PORT/" \
        -e "s/127.0.0.1:8101/127.0.0.1:$CLUSTER_PORT_A/" -e "s/127.0.0.1:8102/127.0.0.1:$CLUSTER_PORT_B/" \
        -e "s/127.0.0.1:8103/127.0.0.1:$CLUSTER_PORT_C/" >"$CLUSTER_WORK/nginx/nginx.conf"
    export CLUSTER_WORK CLUSTER_LB_PORT CLUSTER_PORT_A CLUSTER_PORT_B CLUSTER_PORT_C CLUSTER_AUDIT_PG \
        CLUSTER_REDIS_SOCK
    export SLUICE_SCALE_WORK="$CLUSTER_WORK" SLUICE_SCALE_AUDIT_PG="$CLUSTER_AUDIT_PG" \
        SLUICE_SCALE_LB_PORT="$CLUSTER_LB_PORT" \
        SLUICE_SCALE_REPLICA_PORTS="$CLUSTER_PORT_A,$CLUSTER_PORT_B,$CLUSTER_PORT_C"
}

# cluster_start_redis PASSWORD: the shared store of token ids and approvals.
cluster_start_redis() {
    redis-server --port 0 --unixsocket "$CLUSTER_REDIS_SOCK" --unixsocketperm 700 \
        --dir "$(dirname "$CLUSTER_REDIS_SOCK")" --requirepass "$1" --appendonly yes \
        --appendfsync always --save "" --logfile "$CLUSTER_WORK/redis.log" >/dev/null 2>&1 &
    cluster_track $!
    cluster_wait redis 10 test -S "$CLUSTER_REDIS_SOCK"
}

# cluster_start_replica NAME CONFIG: NAME is a, b or c; sets CLUSTER_PID_<NAME>.
cluster_start_replica() {
    local name=$1 config=$2 port pid
    port=$(eval echo "\$CLUSTER_PORT_$(echo "$name" | tr '[:lower:]' '[:upper:]')")
    "$SLUICE_BIN" serve -c "$config" --http "127.0.0.1:$port" --log-level warn \
        >"$CLUSTER_WORK/replica-$name.log" 2>&1 &
    pid=$!
    cluster_track "$pid"
    eval "CLUSTER_PID_$(echo "$name" | tr '[:lower:]' '[:upper:]')=$pid"
    cluster_wait "replica $name" 20 curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/healthz" \
        || { cat "$CLUSTER_WORK/replica-$name.log" >&2; return 1; }
}

# cluster_start_nginx: as the invoking user, workers too (as root, `user root`): nginx then reads
# its files wherever the work dir is, even under a 0700 home or mktemp -d parent that a `nobody`
# worker could not traverse (issue 20). Daemonises; the pid file names it.
cluster_start_nginx() {
    local dir="$CLUSTER_WORK/nginx" pid
    set -- nginx -p "$dir" -c "$dir/nginx.conf" -e stderr
    [ "$(id -u)" -eq 0 ] && set -- "$@" -g "user root;"
    "$@" || return 1
    cluster_wait nginx 10 test -s "$dir/nginx.pid" || return 1
    pid=$(cat "$dir/nginx.pid")
    cluster_track "$pid"
}

# cluster_stop: only what this setup started (listed in pids), then PostgreSQL.
cluster_stop() {
    local pid
    if [ -n "${CLUSTER_WORK:-}" ] && [ -f "$CLUSTER_WORK/pids" ]; then
        while read -r pid; do kill "$pid" 2>/dev/null || true; done <"$CLUSTER_WORK/pids"
        rm -f "$CLUSTER_WORK/pids" # a second call must not signal a reused pid
    fi
    pg_cluster_stop
    [ -n "$CLUSTER_TMP" ] && rm -rf "$CLUSTER_TMP"
    CLUSTER_TMP=
}
