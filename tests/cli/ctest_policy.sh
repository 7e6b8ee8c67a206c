#!/usr/bin/env bash
# ctest_policy.sh — `sluice policy eval|check` end to end: exit codes (0 allow, 1 deny, 2 usage
# or bad input), the determining policy with its lines, errors, and schema validation.
set -uo pipefail
bin=${SLUICE_BIN:?}
src=${SLUICE_SOURCE_DIR:?}
ex=$src/examples/policies
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
passes=0

# expect NAME WANT_RC PATTERN -- command...: the exit code and a line of the output must match.
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

eval_args=(policy eval --policies "$ex/seed000.cedar" --entities "$ex/seed000.entities.json"
    --resource 'CodeMode::Server::"cost-coach"')
expect "standard user reads" 0 '^  policy0 \(permit .*seed000.cedar:2-6\)$' -- \
    "$bin" "${eval_args[@]}" --principal 'CodeMode::User::"alice"' --action 'CodeMode::Action::"Read"'
expect "standard user cannot write" 1 'default deny' -- \
    "$bin" "${eval_args[@]}" --principal 'CodeMode::User::"alice"' --action 'CodeMode::Action::"Write"'
echo '{"script": {"calledOperations": ["update_budget_note"], "outputFields": ["ssn"]}}' >"$work/ctx.json"
expect "blocked field forbids an admin" 1 '^  policy3 \(forbid .*seed000.cedar:34-42\)$' -- \
    "$bin" "${eval_args[@]}" --principal 'CodeMode::User::"ada"' --action 'CodeMode::Action::"Read"' \
    --context @"$work/ctx.json"
expect "power user writes with the named operation" 0 '^decision: allow$' -- \
    "$bin" "${eval_args[@]}" --principal 'CodeMode::User::"pat"' --action 'CodeMode::Action::"Write"' \
    --context '{"script": {"calledOperations": ["update_budget_note"], "outputFields": []}}'
expect "unknown resource reports the erroring policy" 1 'policy3 \(.*seed000.cedar:34\): entity `CodeMode::Server::"nope"` does not exist' -- \
    "$bin" policy eval --policies "$ex/seed000.cedar" --principal 'CodeMode::User::"x"' \
    --action 'CodeMode::Action::"Read"' --resource 'CodeMode::Server::"nope"' \
    --context '{"script": {"calledOperations": [], "outputFields": []}}'
expect "bad context JSON has line and column" 2 '^--context:1:7: invalid JSON: unexpected token near .}.' -- \
    "$bin" "${eval_args[@]}" --principal 'CodeMode::User::"pat"' --action 'CodeMode::Action::"Read"' --context '{"a": }'
expect "bad uid" 2 '--principal: expected an entity reference' -- \
    "$bin" "${eval_args[@]}" --principal 'alice' --action 'CodeMode::Action::"Read"'
expect "missing option" 2 'are required' -- "$bin" policy eval --policies "$ex/seed000.cedar"
expect "unknown subcommand" 2 "unknown subcommand 'run'" -- "$bin" policy run

expect "check ok" 0 'ok \(4 policies\)' -- "$bin" policy check "$ex/seed000.cedar"
expect "check with schema" 0 'valid against' -- \
    "$bin" policy check "$ex/seed000.cedar" --schema "$ex/seed000.schema.json"
printf 'permit(principal, action, resource)\nwhen { context.a == };\n' >"$work/bad.cedar"
expect "check reports line and column" 1 "bad.cedar:2:21: expected an expression near '}'" -- \
    "$bin" policy check "$work/bad.cedar"
sed 's/resource.allowAdmin/resource.allowAdmn/' "$ex/seed000.cedar" >"$work/typo.cedar"
expect "schema catches an undeclared attribute" 1 'policy2: attribute `allowAdmn` is not declared for resource' -- \
    "$bin" policy check "$work/typo.cedar" --schema "$ex/seed000.schema.json"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
