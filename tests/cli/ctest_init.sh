#!/usr/bin/env bash
# ctest_init.sh — `sluice init DB [-o FILE]`: the starter config lists the database's tables,
# has a blocked_fields placeholder naming the columns that look personal, passes
# `sluice config check` (with -o: a key file made beside it, mode 0600; on stdout: the key from
# $SLUICE_TOKEN_KEY), never overwrites a file without --force, and refuses an unknown extension.
set -euo pipefail
: "${SLUICE_BIN:?}" "${SLUICE_BUILD_DIR:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
db="$SLUICE_BUILD_DIR/cli-init"
mkdir -p "$db"
[ -f "$db/demo.duckdb" ] || "$SLUICE_BIN" demo-db "$db/demo.duckdb" >/dev/null
[ -f "$db/demo.sqlite" ] || "$SLUICE_BIN" demo-db --engine sqlite "$db/demo.sqlite" >/dev/null

"$SLUICE_BIN" init "$db/demo.duckdb" -o "$work/s.toml" 2>"$work/err" || fail "init -o: $(cat "$work/err")"
grep -q '^blocked_fields = \[\]' "$work/s.toml" || fail "no blocked_fields placeholder"
grep -q 'These look personal: "customers.email", "customers.ssn"' "$work/s.toml" || fail "no personal columns"
for t in customers orders support_tickets sales_reps invoices; do
    grep -q "^#   $t, ~[0-9]* rows: " "$work/s.toml" || fail "table $t not listed"
done
[ "$(stat -c %a "$work/sluice.key")" = 600 ] || fail "key file mode"
out=$(cd / && "$SLUICE_BIN" config check "$work/s.toml") || fail "config check of init -o: $out"
case "$out" in *"code mode enabled, engine duckdb"*) ;; *) fail "summary: $out" ;; esac

# The same file again: refused (exit 1) without --force, replaced with it; the key is kept.
key_before=$(cat "$work/sluice.key")
set +e
"$SLUICE_BIN" init "$db/demo.duckdb" -o "$work/s.toml" 2>"$work/err"; rc=$?
set -e
[ "$rc" -eq 1 ] || fail "overwrite without --force: want exit 1, got $rc"
grep -q -- "--force" "$work/err" || fail "the refusal does not name --force"
"$SLUICE_BIN" init "$db/demo.duckdb" -o "$work/s.toml" --force 2>/dev/null || fail "--force"
[ "$(cat "$work/sluice.key")" = "$key_before" ] || fail "init replaced an existing key"

# SQLite, to stdout: the key comes from the environment.
"$SLUICE_BIN" init "$db/demo.sqlite" >"$work/q.toml" 2>/dev/null || fail "init to stdout"
grep -q '^engine = "sqlite"' "$work/q.toml" || fail "sqlite engine"
grep -q '^token_secret_env = "SLUICE_TOKEN_KEY"' "$work/q.toml" || fail "stdout config key"
SLUICE_TOKEN_KEY="$("$SLUICE_BIN" keygen)" "$SLUICE_BIN" config check "$work/q.toml" >/dev/null ||
    fail "config check of init (stdout)"

for args in "init" "init $db/demo.csv" "init $db/demo.duckdb --bogus"; do
    set +e
    # shellcheck disable=SC2086
    "$SLUICE_BIN" $args >/dev/null 2>&1; rc=$?
    set -e
    [ "$rc" -eq 2 ] || fail "'sluice $args': want exit 2, got $rc"
done
set +e
"$SLUICE_BIN" init "$work/missing.duckdb" >/dev/null 2>&1; rc=$?
set -e
[ "$rc" -eq 1 ] || fail "missing database: want exit 1, got $rc"
echo "init ok"
