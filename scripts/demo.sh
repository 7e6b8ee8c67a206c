#!/usr/bin/env bash
# demo.sh BUILD_DIR ADDR — builds the demo database and a signing key if missing, prints how to
# connect, then serves examples/demo/sluice.toml over Streamable HTTP on ADDR.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build} addr=${2:-127.0.0.1:8808}
sluice="$PWD/$build/sluice"
mkdir -p demo
[ -f demo/demo.duckdb ] || "$sluice" demo-db demo/demo.duckdb
[ -f demo/token.key ] || "$sluice" keygen -o demo/token.key >/dev/null
cat <<MSG

sluice demo: SQL code mode on the embedded demo database (demo/demo.duckdb)
  MCP endpoint:  http://$addr/mcp   (Streamable HTTP, loopback only)

Connect with the MCP Inspector (CLI):
  npx @modelcontextprotocol/inspector --cli http://$addr/mcp --transport http --method tools/list

Or let Claude Desktop start it over stdio (claude_desktop_config.json):
  {
    "mcpServers": {
      "sluice-demo": {
        "command": "$sluice",
        "args": ["serve", "-c", "$PWD/examples/demo/sluice.toml", "--stdio"]
      }
    }
  }

Ctrl-C stops the server. Audit log: demo/audit.jsonl (verify: $build/sluice audit verify demo/audit.jsonl)

MSG
exec "$sluice" serve -c examples/demo/sluice.toml --http "$addr"
