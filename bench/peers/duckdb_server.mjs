// duckdb_server.mjs — peer (a) of bench/peers: the typical hand-rolled DuckDB MCP server, i.e. the
// official TypeScript SDK (1.32.2) with one `query` tool over @duckdb/node-api, answering with the
// rows as JSON text. No validation, no policy, no token: the baseline sluice's governance is
// measured against. Read-only on the database file.
//
//   node duckdb_server.mjs DATABASE.duckdb        (stdio)
import { createRequire } from "node:module";

const require = createRequire(new URL("../../tests/node/package.json", import.meta.url));
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { DuckDBInstance } = require("@duckdb/node-api");
const { z } = require("zod");

const dbPath = process.argv[2];
if (!dbPath) {
  process.stderr.write("usage: duckdb_server.mjs DATABASE.duckdb\n");
  process.exit(2);
}
const instance = await DuckDBInstance.create(dbPath, { access_mode: "READ_ONLY", threads: "2" });
const conn = await instance.connect();

const server = new McpServer({ name: "duckdb-sdk-peer", version: "1.0.0" });
server.registerTool(
  "query",
  { description: "Run a read-only SQL query against the DuckDB database", inputSchema: { sql: z.string() } },
  async ({ sql }) => {
    const reader = await conn.runAndReadAll(sql);
    return { content: [{ type: "text", text: JSON.stringify(reader.getRowObjectsJson()) }] };
  },
);
await server.connect(new StdioServerTransport());
