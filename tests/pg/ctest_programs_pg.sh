#!/usr/bin/env bash
# ctest_programs_pg.sh — saved programs in PostgreSQL ([state] programs_postgres) on a real,
# throwaway PostgreSQL 15 cluster (scripts/pg_cluster.sh): the store's unit tests and allocation
# sweeps (test_program_store_pg: two handles, append-only table, tampering, a lost connection),
# `sluice config check` refusing bad programs_postgres keys, then two replicas through the
# official SDK client (programs_replicas.test.mjs: promote, list and run on both, PostgreSQL
# stopped and restarted, demote).
# Env (set by ctest): SLUICE_BIN, SLUICE_SOURCE_DIR, SLUICE_BUILD_DIR.
set -eu
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
. "$SLUICE_SOURCE_DIR/scripts/pg_cluster.sh"
tmp=$(mktemp -d)
cleanup() {
    pg_cluster_stop
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
    echo "ctest_programs_pg: $*" >&2
    exit 1
}
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pg_cluster_start "$tmp" "$port" sluice_admin
psql -q -X -h "$PG_SOCKET" -p "$port" -U sluice_admin -d postgres -c "CREATE DATABASE programs" \
    -c "CREATE DATABASE units"
conninfo="host=$PG_SOCKET port=$port dbname=programs user=sluice_admin"

[ -x "$SLUICE_BUILD_DIR/test_program_store_pg" ] || fail "test_program_store_pg is not built (cmocka missing?)"
out=$(SLUICE_TEST_PG_CONNINFO="host=$PG_SOCKET port=$port dbname=units user=sluice_admin" \
    "$SLUICE_BUILD_DIR/test_program_store_pg" 2>&1) || fail "unit tests: $out"
case "$out" in *SKIPPED*) fail "unit tests skipped: $out" ;; esac
echo "ok: test_program_store_pg"

work="$SLUICE_BUILD_DIR/pg-programs"
rm -rf "$work"
mkdir -p "$work"
"$SLUICE_BIN" demo-db "$work/demo.duckdb" >/dev/null
"$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
# config check FRAGMENT EXPECTED: a config with FRAGMENT is refused with EXPECTED.
check() {
    printf '[database]\nengine = "duckdb"\npath = "demo.duckdb"\n[code_mode]\nenabled = true\ntoken_secret_file = "token.key"\n%s\n' \
        "$1" >"$work/check.toml"
    local rc=0
    "$SLUICE_BIN" config check "$work/check.toml" >"$tmp/out" 2>&1 || rc=$?
    [ "$rc" != 0 ] || fail "config check accepted: $1"
    grep -qF "$2" "$tmp/out" || fail "config check of '$1' lacks '$2': $(cat "$tmp/out")"
}
check "programs_file = \"p.jsonl\"
[state]
programs_postgres = \"$conninfo\"" \
    "[state] programs_postgres and [code_mode] programs_file are two places for the same saved programs: set only one"
check "[state]
programs_postgres = \"$conninfo password=hunter2\"" \
    "inline secrets are refused: programs_postgres carries a password"
check "[state]
programs_postgres = \"$conninfo\"
programs_postgres_table = \"Programs\"" \
    "programs_postgres_table must be a lower-case SQL identifier"
check "[state]
programs_postgres = \"host=$tmp/nowhere dbname=programs\"" \
    "[state] programs_postgres: cannot open the saved-program table sluice_programs: cannot connect"
echo "ok: config check refusals"

export SLUICE_E2E_WORK="$work" SLUICE_BIN SLUICE_SOURCE_DIR SLUICE_PROGRAMS_PG="$conninfo" \
    SLUICE_PG_DATA="$PG_DATA" SLUICE_PG_SOCKET="$PG_SOCKET" SLUICE_PG_PORT="$port" PG_BIN
cd "$SLUICE_SOURCE_DIR/tests/pg"
timeout 300 node --test --test-reporter=spec --test-concurrency=1 programs_replicas.test.mjs
