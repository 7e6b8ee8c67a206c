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
pgbin=/usr/lib/postgresql/15/bin
out=${BENCH_OUT:-$src/bench/results/peers.json}
tmp=$(mktemp -d)
chmod 755 "$tmp"
pgdata="$tmp/pg"
cleanup() {
    [ -f "$pgdata/postmaster.pid" ] && as_pg "$pgbin/pg_ctl" -D "$pgdata" -m immediate stop >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
# initdb refuses to run as root: run the cluster as the postgres user then.
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

work=${BENCH_WORK:-}
if [ -z "$work" ]; then
    work="$tmp/work"
    mkdir -p "$work"
    "$SLUICE_BIN" demo-db "$work/demo.duckdb" >/dev/null
    "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
fi

mkdir -p "$pgdata" "$tmp/csv"
[ "$(id -u)" -eq 0 ] && chown postgres "$pgdata"
as_pg "$pgbin/initdb" -D "$pgdata" -U bench --auth=trust -E UTF8 --locale=C >"$tmp/initdb.log" 2>&1 \
    || { cat "$tmp/initdb.log" >&2; exit 2; }
port=54329
as_pg "$pgbin/pg_ctl" -D "$pgdata" -l "$pgdata/server.log" -w \
    -o "-c listen_addresses='' -k $pgdata -p $port -c fsync=off" start >/dev/null \
    || { cat "$pgdata/server.log" >&2; exit 2; }
psql=(psql -q -X -h "$pgdata" -p "$port" -U bench)
"${psql[@]}" -d postgres -c "CREATE DATABASE demo" >/dev/null
node "$here/load_pg.mjs" "$work/demo.duckdb" "$tmp/csv" >"$tmp/load.sql"
"${psql[@]}" -d demo -f "$tmp/load.sql" >/dev/null

node "$here/drive.mjs" --sluice "$SLUICE_BIN" --work "$work" \
    --pg "postgresql://bench@localhost/demo?host=$pgdata&port=$port" \
    --calls "${CALLS:-500}" --warmup "${WARMUP:-50}" --out "$out"
echo "wrote $out"
