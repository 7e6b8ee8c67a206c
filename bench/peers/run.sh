#!/usr/bin/env bash
# run.sh — the peer benchmark (drive.mjs) with everything it needs: a throwaway PostgreSQL 15
# cluster (initdb + pg_ctl, Unix socket only, inside a temp dir; no system service) loaded with the
# demo tables (load_pg.mjs: DuckDB -> CSV -> \copy), the demo DuckDB file and a signing key.
#
#   SLUICE_BIN=build/sluice bench/peers/run.sh
#   env: BENCH_WORK (a dir with demo.duckdb and token.key; made when unset), BENCH_OUT (JSON,
#        default bench/results/peers.json), CALLS (trivial calls per server, default 500;
#        seed 003 runs a tenth), WARMUP (default 50).
set -euo pipefail
: "${SLUICE_BIN:?set SLUICE_BIN to the sluice binary}"
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
out=${BENCH_OUT:-$src/bench/results/peers.json}
tmp=$(mktemp -d)
. "$src/scripts/pg_cluster.sh"
cleanup() {
    pg_cluster_stop
    rm -rf "$tmp"
}
trap cleanup EXIT

work=${BENCH_WORK:-}
if [ -z "$work" ]; then
    work="$tmp/work"
    mkdir -p "$work"
    "$SLUICE_BIN" demo-db "$work/demo.duckdb" >/dev/null
    "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
fi

mkdir -p "$tmp/csv"
port=54329
pg_cluster_start "$tmp" "$port" bench
psql=(psql -q -X -h "$PG_SOCKET" -p "$port" -U bench)
"${psql[@]}" -d postgres -c "CREATE DATABASE demo" >/dev/null
node "$here/load_pg.mjs" "$work/demo.duckdb" "$tmp/csv" >"$tmp/load.sql"
"${psql[@]}" -d demo -f "$tmp/load.sql" >/dev/null

node "$here/drive.mjs" --sluice "$SLUICE_BIN" --work "$work" \
    --pg "postgresql://bench@localhost/demo?host=$PG_SOCKET&port=$port" \
    --calls "${CALLS:-500}" --warmup "${WARMUP:-50}" --out "$out"
echo "wrote $out"
