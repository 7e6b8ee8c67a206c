#!/usr/bin/env bash
# ctest_audit_pg.sh — the audit trail in PostgreSQL ([state] audit_postgres) on a real, throwaway
# PostgreSQL 15 cluster (scripts/pg_cluster.sh): two sink handles (replicas) × 4 threads append at
# once and `sluice audit verify --pg` finds every acknowledged record in one intact chain; the
# table refuses UPDATE, DELETE and TRUNCATE; then, each on a fresh copy of the good table (the
# triggers disabled as a superuser would), an edited record, a deleted one, two swapped ones, a
# cut-off tail, an edited last record and a deleted head row are each found and named; an
# unreachable database is a clear error (exit 3).
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
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pg_cluster_start "$tmp" "$port" sluice_admin
psql=(psql -q -X -v ON_ERROR_STOP=1 -h "$PG_SOCKET" -p "$port" -U sluice_admin -d audit)
psql -q -X -h "$PG_SOCKET" -p "$port" -U sluice_admin -d postgres -c "CREATE DATABASE audit"
conninfo="host=$PG_SOCKET port=$port dbname=audit user=sluice_admin"
fail() {
    echo "ctest_audit_pg: $*" >&2
    exit 1
}

acked=$("$SLUICE_BUILD_DIR/audit_pg_append" "$conninfo" 2 4 25)
[ "$acked" = 200 ] || fail "expected 200 acknowledged appends, got $acked"
out=$("$SLUICE_BIN" audit verify --pg "$conninfo")
[ "$out" = "sluice_audit: 200 records, chain intact" ] || fail "intact chain: $out"
echo "ok: 2 handles x 4 threads, 200 records, one intact chain"

for sql in "UPDATE sluice_audit SET line = line WHERE seq = 1" "DELETE FROM sluice_audit WHERE seq = 1" \
    "TRUNCATE sluice_audit"; do
    if "${psql[@]}" -c "$sql" 2>"$tmp/err"; then fail "the table allowed: $sql"; fi
    grep -q "append-only" "$tmp/err" || fail "no append-only refusal for $sql: $(cat "$tmp/err")"
done
echo "ok: UPDATE, DELETE, TRUNCATE refused"

"${psql[@]}" -c "CREATE TABLE good AS SELECT * FROM sluice_audit" \
    -c "CREATE TABLE good_head AS SELECT * FROM sluice_audit_head"
# break NAME SQL EXPECTED: restores the good table, applies SQL with the triggers off, and expects
# verify to exit 1 printing EXPECTED.
break_it() {
    local name=$1 sql=$2 expected=$3
    "${psql[@]}" -c "ALTER TABLE sluice_audit DISABLE TRIGGER USER" \
        -c "DELETE FROM sluice_audit" -c "INSERT INTO sluice_audit SELECT * FROM good" \
        -c "DELETE FROM sluice_audit_head" -c "INSERT INTO sluice_audit_head SELECT * FROM good_head" \
        -c "$sql" -c "ALTER TABLE sluice_audit ENABLE TRIGGER USER"
    local rc=0
    out=$("$SLUICE_BIN" audit verify --pg "$conninfo") || rc=$?
    [ "$rc" = 1 ] || fail "$name: exit $rc ($out)"
    case "$out" in *"$expected"*) echo "ok: $name: $out" ;; *) fail "$name: '$out' lacks '$expected'" ;; esac
}
break_it "edited record" \
    "UPDATE sluice_audit SET line = replace(line, '\"test\"', '\"tset\"') WHERE seq = 50" \
    "record 50: record 50 was modified"
# search reads the same chain: only records the chain proves are found (1..49: record 50 was
# edited, and 49 is proven by 50's prev), then the break is named (exit 1)
rc=0
"$SLUICE_BIN" audit search --pg "$conninfo" --event test >"$tmp/found" 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] && [ "$(wc -l <"$tmp/found")" = 49 ] && grep -q "chain sluice_audit is broken at sluice_audit: record 50" "$tmp/err" ||
    fail "search over an edited record: exit $rc, $(wc -l <"$tmp/found") found, $(cat "$tmp/err")"
grep -q tset "$tmp/found" && fail "search printed the edited record"
echo "ok: search stops at the edited record and prints only the 49 proven before it"
break_it "deleted record" "DELETE FROM sluice_audit WHERE seq = 77" "records 77..77 are missing"
break_it "swapped records" \
    "UPDATE sluice_audit SET line = CASE seq WHEN 30 THEN (SELECT line FROM good WHERE seq = 31) ELSE (SELECT line FROM good WHERE seq = 30) END WHERE seq IN (30, 31)" \
    "record 30: seq is 31 where 30 was expected"
break_it "cut-off tail" "DELETE FROM sluice_audit WHERE seq > 190" "the tail was truncated"
break_it "edited last record" \
    "UPDATE sluice_audit SET line = replace(line, '\"test\"', '\"tset\"') WHERE seq = 200" \
    "record 200 was modified"
break_it "deleted head row" "DELETE FROM sluice_audit_head" "head row"

# Back to the good table: intact again (the checks above were real, not a broken verifier).
"${psql[@]}" -c "ALTER TABLE sluice_audit DISABLE TRIGGER USER" -c "DELETE FROM sluice_audit" \
    -c "INSERT INTO sluice_audit SELECT * FROM good" -c "DELETE FROM sluice_audit_head" \
    -c "INSERT INTO sluice_audit_head SELECT * FROM good_head" \
    -c "ALTER TABLE sluice_audit ENABLE TRIGGER USER"
out=$("$SLUICE_BIN" audit verify --pg "$conninfo")
[ "$out" = "sluice_audit: 200 records, chain intact" ] || fail "restored chain: $out"
# Appends continue the restored chain.
"$SLUICE_BUILD_DIR/audit_pg_append" "$conninfo" 1 1 5 >/dev/null
out=$("$SLUICE_BIN" audit verify --pg "$conninfo")
[ "$out" = "sluice_audit: 205 records, chain intact" ] || fail "continued chain: $out"
echo "ok: restored and continued: $out"
"$SLUICE_BIN" audit search --pg "$conninfo" --event test >"$tmp/found" 2>"$tmp/err" || fail "search: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/found")" = 205 ] && grep -q "205 of 205 records matched in 1 chain, every chain intact" "$tmp/err" ||
    fail "search over the intact table: $(cat "$tmp/err")"
n=$("$SLUICE_BIN" audit search --pg "$conninfo" --event nothing --last 3 2>/dev/null | wc -l)
[ "$n" = 0 ] || fail "search for an event that is not there found $n"
echo "ok: search over the intact table: 205 found, chain verified"

rc=0
"$SLUICE_BIN" audit verify --pg "host=$tmp/nowhere port=1 dbname=audit" 2>"$tmp/err" || rc=$?
[ "$rc" = 3 ] && grep -q "cannot read the audit table" "$tmp/err" || fail "unreachable: exit $rc $(cat "$tmp/err")"
rc=0
"$SLUICE_BUILD_DIR/audit_pg_append" "host=$tmp/nowhere port=1 dbname=audit" 1 1 1 2>"$tmp/err" >/dev/null || rc=$?
[ "$rc" = 1 ] && grep -q "audit_postgres: cannot open the audit table" "$tmp/err" || fail "open unreachable: $(cat "$tmp/err")"
echo "ok: an unreachable database is a clear error"
