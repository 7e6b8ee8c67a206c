// mcp_invoices.mjs — a downstream MCP server (official SDK, stdio) for query mode's kind = "mcp"
// sources: `list_invoices {date_from?, status?}` answers the invoices of a JSON export as
// structuredContent {Invoices: [...]} (and the same JSON as text); `broken` always fails.
//   node mcp_invoices.mjs invoices.json
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(new URL("../node/package.json", import.meta.url));
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { z } = require("zod");

const invoices = JSON.parse(readFileSync(process.argv[2], "utf8"));
const server = new McpServer({ name: "mcp-invoices", version: "1.0.0" });
server.registerTool("list_invoices", {
  description: "Invoices, optionally from a date and of one status",
  inputSchema: { date_from: z.string().optional(), status: z.string().optional() },
}, async ({ date_from: from, status }) => {
  const rows = invoices.filter((i) => (!from || i.Date >= from) && (!status || i.Status === status));
  return { content: [{ type: "text", text: JSON.stringify({ Invoices: rows }) }], structuredContent: { Invoices: rows } };
});
server.registerTool("broken", { description: "Always fails", inputSchema: {} },
  async () => ({ isError: true, content: [{ type: "text", text: "the vendor API is down" }] }));
await server.connect(new StdioServerTransport());
