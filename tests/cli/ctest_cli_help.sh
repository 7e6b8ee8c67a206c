#!/usr/bin/env bash
# ctest_cli_help.sh — the command line's manners: every command answers --help (exit 0, wherever
# --help stands) with exactly the text docs/cli.md shows, an unknown option is a usage error
# (exit 2), a mistyped command gets "did you mean", --version names the commit and DuckDB,
# `approve --list` says when nothing is pending and prints ISO times, the "no policy backend"
# notice is serve's alone, and validate/execute answer in text or JSON.
set -euo pipefail
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
doc="$SLUICE_SOURCE_DIR/docs/cli.md"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

commands=$("$SLUICE_BIN" --help | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1} /^$/{if (on && n++) on=0}')
[ "$(echo "$commands" | wc -w)" -ge 10 ] || fail "command list: $commands"
for c in $commands; do
    out=$("$SLUICE_BIN" "$c" --help) || fail "'sluice $c --help' exited $?"
    # The fenced block after "## sluice $c" in docs/cli.md.
    want=$(awk -v h="## sluice $c" '$0==h{f=1; next} f && /^```$/{if (b) exit; b=1; next} f && b' "$doc")
    [ -n "$want" ] || fail "docs/cli.md has no section '## sluice $c'"
    [ "$out" = "$want" ] || fail "docs/cli.md differs from 'sluice $c --help':
$(diff <(echo "$want") <(echo "$out"))"
    set +e
    "$SLUICE_BIN" "$c" --no-such-option >/dev/null 2>&1; rc=$?
    set -e
    [ "$rc" -eq 2 ] || fail "'sluice $c --no-such-option': want exit 2, got $rc"
done
for args in "config check --help" "audit verify --help" "policy eval --help" "policy check -h" \
            "serve -c x.toml --help" "validate -c x.toml --help q.sql"; do
    # shellcheck disable=SC2086
    "$SLUICE_BIN" $args >/dev/null || fail "'sluice $args' exited $?"
done

set +e
err=$("$SLUICE_BIN" serv 2>&1); rc=$?
set -e
[ "$rc" -eq 2 ] || fail "mistyped command: want exit 2, got $rc"
[ "$err" = "sluice: unknown command 'serv'; did you mean 'serve'?" ] || fail "did you mean: $err"
err=$("$SLUICE_BIN" vaildate 2>&1 || true)
case "$err" in *"did you mean 'validate'?"*) ;; *) fail "swap: $err" ;; esac
err=$("$SLUICE_BIN" zzzzzz 2>&1 || true)
case "$err" in *"did you mean"*) fail "a suggestion for nonsense: $err" ;; *"commands:"*) ;; *) fail "no list: $err" ;; esac

v=$("$SLUICE_BIN" --version)
[[ "$v" =~ ^sluice\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ [0-9a-f]{7,}|unknown,\ DuckDB\ v[0-9]+\.[0-9]+\.[0-9]+\)$ ]] ||
    fail "--version: $v"

# A config with an audit log (so an approval store) and only low risk auto-approved.
"$SLUICE_BIN" demo-db "$work/demo.duckdb" >/dev/null
"$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
cat >"$work/c.toml" <<TOML
[database]
engine = "duckdb"
path = "demo.duckdb"
[code_mode]
enabled = true
token_secret_file = "token.key"
audit_log = "audit.jsonl"
auto_approve_levels = ["low"]
TOML
out=$("$SLUICE_BIN" approve -c "$work/c.toml" --list 2>&1) || fail "approve --list: $out"
case "$out" in "no pending approvals"*) ;; *) fail "empty --list says: '$out'" ;; esac

echo "SELECT name FROM customers WHERE id < 3" >"$work/q.sql"
# validate: JSON when stdout is not a terminal, the summary with --text; neither warns about
# the policy backend.
"$SLUICE_BIN" validate -c "$work/c.toml" "$work/q.sql" >"$work/v.json" 2>"$work/v.err" || fail validate
jq -e '.valid == true' "$work/v.json" >/dev/null || fail "validate JSON: $(head -3 "$work/v.json")"
[ ! -s "$work/v.err" ] || fail "validate wrote to stderr: $(cat "$work/v.err")"
text=$("$SLUICE_BIN" validate -c "$work/c.toml" --text "$work/q.sql")
case "$text" in "valid, needs a human approval: read, risk medium"*"tables read: customers"*) ;;
    *) fail "validate --text: $text" ;; esac
tty_text=$(script -qec "$SLUICE_BIN validate -c $work/c.toml $work/q.sql" /dev/null | tr -d '\r')
case "$tty_text" in "valid, needs"*) ;; *) fail "validate on a terminal: $tty_text" ;; esac
cfg_out=$("$SLUICE_BIN" config check "$work/c.toml" 2>&1)
case "$cfg_out" in *"policy backend"*) fail "config check warns: $cfg_out" ;; esac

# execute: medium risk needs a human, so it is recorded pending (exit 1) and --list shows it
# with an ISO expiry; approved by the admin, the same code then runs.
set +e
"$SLUICE_BIN" execute -c "$work/c.toml" "$work/q.sql" >/dev/null 2>"$work/e.err"; rc=$?
set -e
[ "$rc" -eq 1 ] || fail "execute above auto-approve: want exit 1, got $rc: $(cat "$work/e.err")"
list=$("$SLUICE_BIN" approve -c "$work/c.toml" --list)
[[ "$list" =~ expires\ 20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]Z ]] ||
    fail "--list time: $list"
echo "SELECT 42 AS answer" >"$work/low.sql"
out=$("$SLUICE_BIN" execute -c "$work/c.toml" --json "$work/low.sql") || fail "execute low: $out"
[ "$(echo "$out" | jq -c '.rows')" = "[[42]]" ] || fail "execute rows: $out"
echo "cli help ok"
