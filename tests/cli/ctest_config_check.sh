#!/usr/bin/env bash
# ctest_config_check.sh — `sluice config check`: exit codes (0 good, 1 bad config, 2 usage), the
# one-line summary, the caret rendering with its hint, and that a line holding an inline secret
# is never echoed back.
set -euo pipefail
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}"
data="$SLUICE_SOURCE_DIR/tests/unit/data/config"
cd "$data"
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$SLUICE_BIN" config check ok_full.toml) || fail "ok_full.toml: want exit 0"
[ "$out" = "ok_full.toml: ok (1 tool, 1 prompt, 3 resources; code mode enabled, engine duckdb)" ] ||
    fail "summary: $out"

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
