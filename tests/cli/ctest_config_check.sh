#!/usr/bin/env bash
# ctest_config_check.sh — `sluice config check`: exit codes (0 good, 1 bad config, 2 usage), the
# one-line summary, the caret rendering with its hint, and that a line holding an inline secret
# is never echoed back; and that it runs serve's start-up checks too: a missing database file, a
# broken or missing Cedar file (file:line:col) and a curated tool whose SQL does not bind fail
# here as they fail in serve.
set -euo pipefail
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}"
data="$SLUICE_SOURCE_DIR/tests/unit/data/config"
cd "$data"
fail() { echo "FAIL: $*" >&2; exit 1; }

# ok_full.toml names shop.duckdb and secret.key beside it: a scratch copy provides them.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r ok_full.toml files "$work/"
printf '%s\n' "CREATE TABLE sales(amount DOUBLE, region VARCHAR, year INTEGER);" \
    "CREATE TABLE customers(id INTEGER, email VARCHAR, ssn VARCHAR);" >"$work/shop.sql"
set +e
err=$("$SLUICE_BIN" config check "$work/ok_full.toml" 2>&1); rc=$?
set -e
[ "$rc" -eq 1 ] || fail "missing database file: want exit 1, got $rc"
case "$err" in *"shop.duckdb' cannot be opened"*) ;; *) fail "missing database: $err" ;; esac
"$SLUICE_BIN" demo-db --sql "$work/shop.sql" "$work/shop.duckdb" >/dev/null
"$SLUICE_BIN" keygen -o "$work/secret.key" >/dev/null
out=$(cd "$work" && "$SLUICE_BIN" config check ok_full.toml) || fail "ok_full.toml: want exit 0"
[ "${out%%$'\n'*}" = "ok_full.toml: ok (1 tool, 1 prompt, 3 resources; code mode enabled, engine duckdb)" ] ||
    fail "summary: $out"
# then the keys it shares with pmcp-code-mode, each saying whether it means the same here
case "$out" in *"keys shared with pmcp-code-mode 0.7: 5"*"sql_max_rows"*"same: default 10000"*) ;;
*) fail "pmcp key report: $out" ;; esac

# A curated tool's SQL that does not bind: refused naming the tool.
sed 's/FROM sales/FROM sale/' "$work/ok_full.toml" >"$work/typo_tool.toml"
set +e
err=$("$SLUICE_BIN" config check "$work/typo_tool.toml" 2>&1); rc=$?
set -e
[ "$rc" -eq 1 ] || fail "tool SQL typo: want exit 1, got $rc"
case "$err" in "tool 'sales_by_region' (line 36): "*sale*) ;; *) fail "tool SQL typo: $err" ;; esac

# Cedar: a syntax error keeps file:line:col; a missing file is named.
cat >"$work/cedar.toml" <<TOML
[database]
engine = "duckdb"
path = "shop.duckdb"
[code_mode]
enabled = true
token_secret_file = "secret.key"
[policy]
backend = "cedar"
policies = "p.cedar"
TOML
printf 'permit(principal, action, resource);\nforbid(principal action, resource);\n' >"$work/p.cedar"
set +e
err=$("$SLUICE_BIN" config check "$work/cedar.toml" 2>&1); rc=$?
set -e
[ "$rc" -eq 1 ] || fail "broken Cedar: want exit 1, got $rc"
case "$err" in "$work/p.cedar:2:18: "*) ;; *) fail "broken Cedar: $err" ;; esac
rm "$work/p.cedar"
set +e
err=$("$SLUICE_BIN" config check "$work/cedar.toml" 2>&1); rc=$?
set -e
[ "$rc" -eq 1 ] || fail "missing Cedar file: want exit 1, got $rc"
case "$err" in *"cannot read $work/p.cedar"*) ;; *) fail "missing Cedar: $err" ;; esac

set +e
err=$("$SLUICE_BIN" config check typo_code_mode.toml 2>&1 >/dev/null); rc=$?
set -e
[ "$rc" -eq 1 ] || fail "typo: want exit 1, got $rc"
want="typo_code_mode.toml:3:1: unknown key 'sql_allow_write' in [code_mode]
sql_allow_write = true
^
hint: did you mean 'sql_allow_writes'?"
[ "$err" = "$want" ] || fail "typo rendering:
$err"

set +e
err=$("$SLUICE_BIN" config check inline_token_secret.toml 2>&1); rc=$?
set -e
[ "$rc" -eq 1 ] || fail "inline secret: want exit 1, got $rc"
case "$err" in *staple*) fail "the inline secret was echoed: $err" ;; esac
case "$err" in *"inline secrets are refused"*) ;; *) fail "inline secret message: $err" ;; esac

for args in "" "config" "config check" "config lint ok_full.toml" "config check a b"; do
    set +e
    # shellcheck disable=SC2086
    "$SLUICE_BIN" $args >/dev/null 2>&1; rc=$?
    set -e
    [ "$rc" -eq 2 ] || fail "'sluice $args': want exit 2, got $rc"
done

set +e
err=$("$SLUICE_BIN" config check /nonexistent/sluice.toml 2>&1); rc=$?
set -e
[ "$rc" -eq 1 ] || fail "missing file: want exit 1, got $rc"
[ "$err" = "cannot read /nonexistent/sluice.toml: No such file or directory" ] || fail "missing: $err"
echo "config check ok"
