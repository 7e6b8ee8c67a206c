#!/usr/bin/env bash
# ctest_bench_tokens_world.sh — the token benchmark's world questions (issue 26), in CI: GitHub
# REST (@octokit/openapi against a fixture stub, naive = one MCP tool per operation), GitHub
# GraphQL (@octokit/graphql-schema, naive = schema + query tools) and a 300-table warehouse (naive
# = one list tool per table), each answered both ways through the official SDK client
# (bench/tokens/run.mjs --world). Every answer must agree; code mode must search and describe
# (never read the whole schema) and read fewer tokens than the naive agent on every question.
# No timing assertions. The full run (with the demo questions) is `make bench`.
set -euo pipefail
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/bench-smoke/world"
mkdir -p "$work"
[ -f "$work/token.key" ] || "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
out="$work/tokens.json"
rm -f "$out"
node "$SLUICE_SOURCE_DIR/bench/tokens/run.mjs" --sluice "$SLUICE_BIN" --work "$work" --world --out "$out"
jq -e '
  (.questions | length) == 5 and .all_agree and
  ([.questions[] | .surface] | sort | unique) == ["github-graphql", "github-rest", "warehouse"] and
  ([.questions[] | .agree and .answer_rows > 0 and .codemode.tool_calls >= 3 and
                   .codemode.tokens < 5000 and .naive.tokens > .codemode.tokens] | all)
' "$out" >/dev/null || { echo "world token report fails its checks:" >&2; cat "$out" >&2; exit 1; }
echo "token bench world ok: $out"
