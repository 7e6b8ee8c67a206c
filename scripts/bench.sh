#!/usr/bin/env bash
# bench.sh — `make bench`: the benchmarks that back docs/benchmarks.md, in one run.
#   1. bench/tokens: token economy of the seeds' questions, naive tool chain vs SQL code mode
#      (bench/results/tokens.json; table and chart in docs/benchmarks.md);
#   2. bench/peers: sluice vs a hand-rolled SDK + DuckDB server vs @modelcontextprotocol/
#      server-postgres, same data and queries (bench/results/peers.json; table in the docs);
#   3. bench/sql: validate/execute vs the bare DuckDB C API (bench/results/sql.json);
#   4. bench/mcp: tools/call round trips vs the official SDK server (bench/results/mcp.json);
#   5. bench/cedar: policy decisions vs cedar-wasm (bench/results/cedar.json);
#   6. bench/durable: audit + consume-once appends, group commit vs one sync per record
#      (bench/results/durable.json);
#   7. bench/graphql: GraphQL validate of seed 000's operation vs graphql-js parse+validate
#      (bench/results/graphql.json).
# Prints the ratio tables. Exits non-zero if the two paths of any token question disagree (or a
# benchmark fails to run); times are reported, never asserted.
#
#   scripts/bench.sh BUILD            BUILD holds the sluice binary (make bench passes $(BUILD))
#   BENCH_ONLY=tokens scripts/bench.sh build      one of: tokens, peers, sql, mcp, cedar, pg, durable, graphql (default: all)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: scripts/bench.sh BUILD}" && pwd)
sluice="$build/sluice"
[ -x "$sluice" ] || { echo "bench: no sluice binary at $sluice (build first)" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "bench: gnuplot missing (scripts/bootstrap.sh installs it)" >&2; exit 2; }
only=${BENCH_ONLY:-}
results="$src/bench/results"
docs="$src/docs/benchmarks.md"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$results"

"$sluice" demo-db "$work/demo.duckdb" >/dev/null
"$sluice" keygen -o "$work/token.key" >/dev/null

status=0
if [ -z "$only" ] || [ "$only" = tokens ]; then
    echo "== token economy (bench/tokens)"
    node "$src/bench/tokens/run.mjs" --sluice "$sluice" --work "$work" --out "$results/tokens.json" \
        || status=$?
    node "$src/bench/tokens/report.mjs" "$results/tokens.json" "$docs" "$src/docs/benchmarks_tokens.png"
fi
if [ -z "$only" ] || [ "$only" = peers ]; then
    echo "== peers side by side (bench/peers)"
    SLUICE_BIN="$sluice" BENCH_WORK="$work" BENCH_OUT="$results/peers.json" \
        bash "$src/bench/peers/run.sh" || status=$?
    node "$src/bench/peers/report.mjs" "$results/peers.json" "$docs"
fi
if [ -z "$only" ] || [ "$only" = sql ]; then
    echo "== SQL code mode vs bare DuckDB (bench/sql)"
    bash "$src/bench/sql/run.sh" || status=$?
fi
if [ -z "$only" ] || [ "$only" = mcp ]; then
    echo "== MCP round trips vs the TypeScript SDK server (bench/mcp)"
    bash "$src/bench/mcp/run.sh" || status=$?
fi
if [ -z "$only" ] || [ "$only" = cedar ]; then
    echo "== Cedar decisions vs cedar-wasm (bench/cedar)"
    bash "$src/bench/cedar/run.sh" || status=$?
fi
if [ -z "$only" ] || [ "$only" = pg ]; then
    echo "== SQL code mode on PostgreSQL (bench/pg)"
    SLUICE_BIN="$sluice" BENCH_PG="$build/bench_pg" bash "$src/bench/pg/run.sh" || status=$?
fi
if [ -z "$only" ] || [ "$only" = durable ]; then
    echo "== durable appends: group commit vs one sync per record (bench/durable)"
    bash "$src/bench/durable/run.sh" || status=$?
fi
if [ -z "$only" ] || [ "$only" = graphql ]; then
    echo "== GraphQL validate vs graphql-js (bench/graphql)"
    bash "$src/bench/graphql/run.sh" || status=$?
fi
echo "results in $results; tables in $docs"
exit "$status"
