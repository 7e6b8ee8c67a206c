#!/usr/bin/env bash
# run.sh — SQL code mode on PostgreSQL (issue 13), in one run on one throwaway PostgreSQL 15 cluster
# (scripts/pg_cluster.sh) loaded with the demo tables and the roles of examples/postgres/:
#   1. tests/programs/bench_pg.c: validate_code vs libpg_query's parse alone; execute_code vs a
#      bare libpq PQexecParams fetch (with and without building JSON);
#   2. governed.mjs: the governed path (validate + execute over MCP) vs
#      @modelcontextprotocol/server-postgres, same client, data and read role.
# RUNS times each (default 3), then summarize.mjs writes the median of the runs' medians and the
# spread to bench/results/pg.json. Times are reported, never asserted.
#
#   SLUICE_BIN=build/sluice BENCH_PG=build/bench_pg bench/pg/run.sh
#   env: RUNS (3), ITERATIONS (200, bench_pg), CALLS (200, governed), BENCH_OUT
set -euo pipefail
: "${SLUICE_BIN:?set SLUICE_BIN to the sluice binary}" "${BENCH_PG:?set BENCH_PG to bench_pg}"
here=$(cd "$(dirname "$0")" && pwd)
SLUICE_BIN=$(realpath "$SLUICE_BIN")
src=$(cd "$here/../.." && pwd)
out=${BENCH_OUT:-$src/bench/results/pg.json}
tmp=$(mktemp -d)
. "$src/scripts/pg_cluster.sh"
cleanup() {
    pg_cluster_stop
    rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/work"
"$SLUICE_BIN" demo-db "$tmp/work/demo.duckdb" >/dev/null
"$SLUICE_BIN" keygen -o "$tmp/work/token.key" >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pg_cluster_start "$tmp" "$port" bench
psql=(psql -q -X -v ON_ERROR_STOP=1 -h "$PG_SOCKET" -p "$port" -U bench)
pg_cluster_demo "$tmp/work/demo.duckdb" "$tmp"
"${psql[@]}" -d demo -f "$src/examples/postgres/read_role.sql" >/dev/null
conninfo="host=$PG_SOCKET port=$port dbname=demo user=sluice_read"
url="postgresql://sluice_read@localhost/demo?host=$PG_SOCKET&port=$port"
files=()
for run in $(seq 1 "${RUNS:-3}"); do
    "$BENCH_PG" --conninfo "$conninfo" --iterations "${ITERATIONS:-200}" --warmup 20 \
        --out "$tmp/micro$run.json"
    node "$here/governed.mjs" --sluice "$SLUICE_BIN" --work "$tmp/work" --pg "$conninfo" \
        --pg-url "$url" --calls "${CALLS:-200}" --out "$tmp/governed$run.json"
    files+=("$tmp/micro$run.json" "$tmp/governed$run.json")
done
mkdir -p "$(dirname "$out")"
node "$here/summarize.mjs" "$out" "${files[@]}"
echo "wrote $out"
