#!/usr/bin/env bash
# ctest_variables.sh — validate_code checks the variables against the statement's parameters
# (friction 5 of issue 15): a missing $id, a variable the statement never uses and a value of the
# wrong type are refused at validate, with the parameter's line and column and how to fix it,
# on DuckDB and SQLite alike (SQLite's dates are text, so only DuckDB's DATE wants a string);
# matching variables (a numeric string for a number included) pass.
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
"$bin" demo-db --engine sqlite "$work/demo.sqlite" >/dev/null
"$bin" keygen -o "$work/token.key" >/dev/null
for engine in duckdb sqlite; do
    cat >"$work/$engine.toml" <<TOML
[server]
name = "vars"
[identity]
user = "ana"
[database]
engine = "$engine"
path = "demo.$engine"
[code_mode]
enabled = true
token_secret_file = "token.key"
TOML
    c="$work/$engine.toml"
    printf 'SELECT name\nFROM customers WHERE id = $id' >"$work/q.sql"
    expect "$engine: a missing variable" 1 \
        'line 2, column 27: parameter \$id has no value: the variables object has no "id" \(pass it' -- \
        "$bin" validate --text -c "$c" "$work/q.sql"
    expect "$engine: a wrong type (text)" 1 \
        'line 2, column 27: variable "id" does not fit parameter \$id: it must be a whole number, not the text "abc"' -- \
        "$bin" validate --text -c "$c" --var 'id="abc"' "$work/q.sql"
    expect "$engine: a wrong type (boolean)" 1 'it must be a whole number, not a boolean' -- \
        "$bin" validate --text -c "$c" --var id=true "$work/q.sql"
    expect "$engine: an object" 1 'variable "id" is an object or array' -- \
        "$bin" validate --text -c "$c" --var 'id={"a":1}' "$work/q.sql"
    expect "$engine: an unused variable" 1 'variable "extra" is not used by the statement \(no \$extra\)' -- \
        "$bin" validate --text -c "$c" --var id=3 --var extra=1 "$work/q.sql"
    expect "$engine: the right variable" 0 '^valid' -- \
        "$bin" validate --text -c "$c" --var id=3 "$work/q.sql"
    expect "$engine: a number as text" 0 '^valid' -- \
        "$bin" validate --text -c "$c" --var 'id="7"' "$work/q.sql"
    echo 'SELECT id FROM orders WHERE order_date >= $since LIMIT 5' >"$work/d.sql"
    [ "$engine" = duckdb ] && expect "$engine: a date wants a string" 1 'parameter \$since: it must be a string' -- \
        "$bin" validate --text -c "$c" --var since=2026 "$work/d.sql"
    expect "$engine: a date as a string" 0 '^valid' -- \
        "$bin" validate --text -c "$c" --var 'since="2026-01-01"' "$work/d.sql"
    echo 'SELECT count(*) AS n FROM customers' >"$work/n.sql"
    expect "$engine: a variable where there is no parameter" 1 'variable "id" is not used' -- \
        "$bin" validate --text -c "$c" --var id=1 "$work/n.sql"
done
echo "ctest_variables: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
