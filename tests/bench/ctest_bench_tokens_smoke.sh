#!/usr/bin/env bash
# ctest_bench_tokens_smoke.sh — runs the token benchmark (bench/tokens/run.mjs) on a fresh demo
# database: every question must give the same answer on both paths, the JSON report must be well
# formed, and a tampered run (--tamper drops a naive answer row) must fail. No timing assertions.
set -euo pipefail
: "${SLUICE_BIN:?}" "${SLUICE_SOURCE_DIR:?}" "${SLUICE_BUILD_DIR:?}"
work="$SLUICE_BUILD_DIR/bench-smoke/tokens"
mkdir -p "$work"
[ -f "$work/demo.duckdb" ] || "$SLUICE_BIN" demo-db "$work/demo.duckdb" >/dev/null
[ -f "$work/token.key" ] || "$SLUICE_BIN" keygen -o "$work/token.key" >/dev/null
run="$SLUICE_SOURCE_DIR/bench/tokens/run.mjs"
out="$work/tokens.json"
rm -f "$out"
node "$run" --sluice "$SLUICE_BIN" --work "$work" --demo --out "$out"
jq -e '
  (.questions | length) == 7 and .all_agree and
  # 4 round trips (tools, prompt, validate, execute); 3 where the config offers one call
  ([.questions[] | .agree and .answer_rows > 0 and .naive.round_trips > 4 and
     .codemode.round_trips == (if .codemode.one_call then 3 else 4 end)] | all) and
  ([.questions[] | select(.language != "javascript") | .naive.tokens > .codemode.tokens and .token_ratio > 1] | all) and
  # seed 000 budgets: 24 forecasts and 10 owners are less text than the code-mode prompt, so no
  # token advantage is asserted; the chain must still be one list plus one call per owner
  ([.questions[] | select(.language == "javascript")] | length == 1 and
     (.[0] | .id == "seed000_budgets_plan" and .answer_rows == 10 and .naive.round_trips == 12 and
      .codemode.one_call)) and
  .median_token_ratio > 1 and
  ([.questions[] | select(.querymode)] | length == 1 and
     (.[0] | .id == "seed004_invoices_by_status" and .querymode.agree and
      .querymode.round_trips == 3 and .querymode.tokens < .naive.tokens))
' "$out" >/dev/null || { echo "malformed token report:" >&2; cat "$out" >&2; exit 1; }
# The agreement check must be able to fail.
rc=0
node "$run" --sluice "$SLUICE_BIN" --work "$work" --only own_open_ticket_leaders --tamper \
    >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 1 ] || { echo "a tampered answer was not reported as a disagreement (exit $rc)" >&2; exit 1; }
echo "token bench smoke ok: $out"
