#!/usr/bin/env bash
# ctest_backends.sh — named backends per policy route ([[databases]], [[policy.servers]]
# database): a route's callers are analyzed (and would run) on its backend, everyone else on
# [database]; a route naming a database that does not exist stops the server from starting.
set -uo pipefail
bin=${SLUICE_BIN:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
passes=0

expect() {
    local name=$1 want=$2 pattern=$3
    shift 4
    local out rc
    out=$("$@" 2>&1)
    rc=$?
    if [ "$rc" -ne "$want" ] || ! grep -qE -- "$pattern" <<<"$out"; then
        echo "FAIL $name: rc=$rc (want $want), output:"
        echo "$out" | head -20
        fails=$((fails + 1))
    else
        passes=$((passes + 1))
    fi
}

"$bin" demo-db "$work/demo.duckdb" >/dev/null
"$bin" demo-db --engine sqlite "$work/scratch.sqlite" >/dev/null
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('DROP TABLE customers'); c.commit()" \
    "$work/scratch.sqlite"
"$bin" keygen -o "$work/token.key" >/dev/null
write_config() {
    cat >"$work/sluice.toml" <<TOML
[server]
name = "routes"
[identity]
user = "ana"
groups = ["Analysts"]
[database]
path = "demo.duckdb"
[[databases]]
name = "scratch"
engine = "sqlite"
path = "scratch.sqlite"
[code_mode]
enabled = true
token_secret_file = "token.key"
[policy]
backend = "none"
[[policy.servers]]
id = "analysts"
groups = ["Analysts"]
database = "$1"
TOML
}
echo 'SELECT count(*) AS n FROM customers' >"$work/q.sql"
write_config scratch
expect "the route's backend decides" 1 'customers does not exist' -- \
    "$bin" validate -c "$work/sluice.toml" "$work/q.sql"
expect "other callers use [database]" 0 '"valid": true' -- \
    "$bin" validate -c "$work/sluice.toml" --group Other "$work/q.sql"
echo 'SELECT count(*) AS n FROM orders' >"$work/q2.sql"
expect "the route's backend serves its own tables" 0 '"valid": true' -- \
    "$bin" validate -c "$work/sluice.toml" "$work/q2.sql"
write_config nope
expect "an unknown database is a start-up error" 3 "runs on database 'nope', which no \[\[databases\]\] entry names" -- \
    "$bin" validate -c "$work/sluice.toml" "$work/q.sql"
sed -i 's/name = "scratch"/name = "default"/' "$work/sluice.toml"
expect "[[databases]] may not be called default" 1 'needs a name other than "default"' -- \
    "$bin" config check "$work/sluice.toml"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
