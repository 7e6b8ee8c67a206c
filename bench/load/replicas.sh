#!/usr/bin/env bash
# replicas.sh — the load benchmark (issue 14) against the three-replica setup of docs/deploy.md:
# Redis (token ids, approvals), PostgreSQL 15 (the audit trail), three `sluice serve` replicas
# and nginx round-robin in front, all on loopback (tests/scale/cluster.sh, the setup the scale
# test uses). drive.mjs sends CLIENTS concurrent clients sharing TOTAL mixed tools/call requests
# (curated tool, validate_code, execute_code) through nginx over MCP 2026-07-28 (stateless: a
# 2025-11-25 session lives on one replica, and this balancer is not sticky), so a validate and
# the execute after it land on different replicas; VmRSS and descriptors of all three replicas
# are sampled every second. REPEAT runs, a fresh cluster each; after each run every replica gets
# SIGTERM (must exit 0) and the PostgreSQL audit chain must verify.
#
#   SLUICE_BIN=build/sluice bench/load/replicas.sh
#   env: CLIENTS (default 100), TOTAL (default 10000), REPEAT (default 3), WARMUP_SECONDS
#        (default 2), BENCH_OUT (default bench/results/load-replicas.json)
set -euo pipefail
: "${SLUICE_BIN:?set SLUICE_BIN to the sluice binary}"
here=$(cd "$(dirname "$0")" && pwd)
SLUICE_SOURCE_DIR=$(cd "$here/../.." && pwd)
SLUICE_BIN=$(cd "$(dirname "$SLUICE_BIN")" && pwd)/$(basename "$SLUICE_BIN")
out=${BENCH_OUT:-$SLUICE_SOURCE_DIR/bench/results/load-replicas.json}
repeat=${REPEAT:-3}
REDIS_PW=redis-pw-load-5e1c07a9
. "$SLUICE_SOURCE_DIR/tests/scale/cluster.sh"
tmp=$(mktemp -d)
cleanup() {
    cluster_stop
    rm -rf "$tmp"
}
trap cleanup EXIT

# replica_config NAME: bench/load/sluice.toml with its own copy of the demo file, the shared
# token key, Redis and the PostgreSQL audit table instead of the audit file; prints its path.
replica_config() {
    local dir="$CLUSTER_WORK/replica-$1"
    mkdir -p "$dir"
    cp "$CLUSTER_WORK/demo.duckdb" "$dir/demo.duckdb"
    cp "$CLUSTER_WORK/token.key" "$dir/token.key"
    sed -e '/^audit_log = /d' -e 's/^\[code_mode\]$/[code_mode]\nserver_id = "bench-load"/' \
        "$here/sluice.toml" >"$dir/sluice.toml"
    cat >>"$dir/sluice.toml" <<TOML

[state]
redis_url = "unix:$CLUSTER_REDIS_SOCK"
redis_password_file = "$CLUSTER_WORK/redis.pw"
audit_postgres = "$CLUSTER_AUDIT_PG"
replica_id = "$1"
TOML
    echo "$dir/sluice.toml"
}

runs=()
for r in $(seq 1 "$repeat"); do
    cluster_prepare "$tmp/cluster"
    printf '%s\n' "$REDIS_PW" >"$CLUSTER_WORK/redis.pw"
    chmod 600 "$CLUSTER_WORK/redis.pw"
    cluster_start_redis "$REDIS_PW"
    for n in a b c; do cluster_start_replica "$n" "$(replica_config "$n")"; done
    cluster_start_nginx
    pids="$CLUSTER_PID_A,$CLUSTER_PID_B,$CLUSTER_PID_C"
    node "$here/drive.mjs" --url "http://127.0.0.1:$CLUSTER_LB_PORT/mcp" --pid "$pids" \
        --clients "${CLIENTS:-100}" --total "${TOTAL:-10000}" \
        --warmup-seconds "${WARMUP_SECONDS:-2}" --protocol 2026-07-28 --out "$tmp/run.$r.json" \
        || { tail -n 5 "$CLUSTER_WORK"/replica-?.log >&2; exit 1; }
    for p in $CLUSTER_PID_A $CLUSTER_PID_B $CLUSTER_PID_C; do
        kill -TERM "$p"
        wait "$p" || { echo "replica $p exited $? after SIGTERM" >&2; exit 1; }
    done
    "$SLUICE_BIN" audit verify --pg "$CLUSTER_AUDIT_PG" >/dev/null
    cp "$tmp/run.$r.json" "$tmp/keep.$r.json"
    cluster_stop
    runs+=("$tmp/keep.$r.json")
done

jq -s --arg command "SLUICE_BIN=build/sluice bench/load/replicas.sh" -f "$here/summarize.jq" \
    "${runs[@]}" >"$out"
jq 'del(.runs)' "$out"
echo "wrote $out"
