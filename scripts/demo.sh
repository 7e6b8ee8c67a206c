#!/usr/bin/env bash
# demo.sh BUILD_DIR ADDR — `make demo`: checks that ADDR is free, installs only what the demo
# needs (bootstrap.sh --demo: no PostgreSQL, valgrind, clang-tidy, gnuplot nor test tools),
# builds only the sluice binary (quietly: its log goes to BUILD_DIR/demo-build.log), builds the
# demo database and a signing key if missing, prints how to connect (MCP Inspector CLI commands
# that run a question from validate_code to execute_code, and a Claude Desktop snippet), then
# serves examples/demo/sluice.toml over Streamable HTTP on ADDR.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build} addr=${2:-127.0.0.1:8808}
case $build in /*) ;; *) build="$PWD/$build" ;; esac
sluice="$build/sluice"
host=${addr%:*} port=${addr##*:}

say() { printf 'demo: %s\n' "$*" >&2; }

# A busy port fails here, before anything is installed or built, naming the variable to change.
if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
    say "$addr is already in use (another sluice demo or another server is listening there)."
    say "Pick another address: make demo DEMO_ADDR=$host:$((port + 1))"
    exit 1
fi

scripts/bootstrap.sh --demo
log="$build/demo-build.log"
mkdir -p "$build"
say "building sluice (log: $log)"
if ! { [ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" ${CMAKE_FLAGS:--DCMAKE_BUILD_TYPE=RelWithDebInfo}; } >"$log" 2>&1 ||
    ! cmake --build "$build" --target sluice -j "${JOBS:-$(nproc)}" >>"$log" 2>&1; then
    tail -n 30 "$log" >&2
    say "the build failed; the whole log is $log"
    exit 1
fi
mkdir -p demo
[ -f demo/demo.duckdb ] || "$sluice" demo-db demo/demo.duckdb >/dev/null
[ -f demo/token.key ] || "$sluice" keygen -o demo/token.key >/dev/null

# The seed-000 question: the five sales reps whose accounts dropped most in 2026-Q1 (more than
# three tickets that quarter).
question="SELECT rep_id, customer_id, quarterly_revenue, previous_quarter_revenue, ticket_count FROM (SELECT rep_id, customer_id, quarter, quarterly_revenue, ticket_count, LAG(quarterly_revenue) OVER (PARTITION BY customer_id ORDER BY quarter) AS previous_quarter_revenue FROM account_quarterly_metrics) WHERE quarter = '2026-Q1' AND previous_quarter_revenue IS NOT NULL AND ticket_count > 3 ORDER BY quarterly_revenue - previous_quarter_revenue, customer_id LIMIT 5"
cat <<MSG

sluice demo: SQL code mode on the embedded demo database (demo/demo.duckdb)
  MCP endpoint:  http://$addr/mcp   (Streamable HTTP, loopback only)

Ask it from a shell with the MCP Inspector CLI (each call is its own session, so the demo
config sets token_bind_session = false; the token stays bound to the code, caller and server).
Inspector 2 declares Node >= 22: on Node 20 npm warns EBADENGINE, and its CLI works (tested).
  inspect() { npx -y @modelcontextprotocol/inspector@2.12.0 --cli http://$addr/mcp --transport http --method "\$@"; }
  inspect tools/list
  Q="$question"
  TOKEN=\$(inspect tools/call --tool-name validate_code --tool-arg "code=\$Q" | sed -n 's/^ *"approval_token": "\\(.*\\)",*\$/\\1/p')
  inspect tools/call --tool-name execute_code --tool-arg "code=\$Q" --tool-arg "approval_token=\$TOKEN"

Or let Claude Desktop start it over stdio (claude_desktop_config.json; it runs beside this
server and writes its own audit chain demo/audit.jsonl.w2):
  {
    "mcpServers": {
      "sluice-demo": {
        "command": "$sluice",
        "args": ["serve", "-c", "$PWD/examples/demo/sluice.toml", "--stdio"]
      }
    }
  }

Ctrl-C stops the server. Audit log: demo/audit.jsonl (verify: $sluice audit verify demo/audit.jsonl)

MSG
exec "$sluice" serve -c examples/demo/sluice.toml --http "$addr"
