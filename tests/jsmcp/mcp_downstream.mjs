// mcp_downstream.mjs — a downstream MCP server (official SDK, stdio) that JavaScript plans call
// with mcp.call("budgets", tool, args): reads, a write that honours _meta.idempotencyKey (a
// repeated key answers the first response and applies nothing twice), a delete, and tools that
// fail in each way a downstream can (an error, a hang, an exit mid-call, a huge answer).
//   node mcp_downstream.mjs [applied.jsonl]   (each applied write is appended there)
//   node mcp_downstream.mjs --http PORT        (Streamable HTTP on 127.0.0.1:PORT/mcp, stateless,
//                                              plain JSON answers instead of SSE)
import { appendFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(new URL("../node/package.json", import.meta.url));
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { StreamableHTTPServerTransport } = require("@modelcontextprotocol/sdk/server/streamableHttp.js");
const { z } = require("zod");

export const budgets = [
  { id: "b1", name: "Compute", ownerId: "u1", limit: 1000, forecast: 1250 },
  { id: "b2", name: "Storage", ownerId: "u2", limit: 500, forecast: 480 },
  { id: "b3", name: "Network", ownerId: "u1", limit: 300, forecast: 410 },
  { id: "b4", name: "Support", ownerId: "u3", limit: 200, forecast: 90 },
];
export const owners = {
  u1: { id: "u1", name: "Ada", team: "infra", email: "ada@example.com", ssn: "111-22-3333" },
  u2: { id: "u2", name: "Bo", team: "data", email: "bo@example.com", ssn: "222-33-4444" },
  u3: { id: "u3", name: "Cy", team: "web", email: "cy@example.com", ssn: "333-44-5555" },
};

const httpPort = process.argv[2] === "--http" ? Number(process.argv[3]) : null;
const applied = httpPort === null ? process.argv[2] : undefined;
const seen = new Map(); // idempotency key -> first response
const read = { readOnlyHint: true };
const json = (v) => ({ content: [{ type: "text", text: JSON.stringify(v) }], structuredContent: v });
function makeServer() {
const server = new McpServer({ name: "budgets", version: "1.0.0" });

server.registerTool("list_budgets", { description: "Budgets with their forecast", inputSchema: { month: z.string().optional() }, annotations: read },
  async () => json({ items: budgets }));
server.registerTool("get_owner", { description: "One owner", inputSchema: { id: z.string() }, annotations: read },
  async ({ id }) => owners[id] ? json(owners[id]) : { isError: true, content: [{ type: "text", text: `no owner ${id}` }] });
server.registerTool("set_note", { description: "Sets a budget's note", inputSchema: { id: z.string(), note: z.string() } },
  async ({ id, note }, extra) => {
    const key = extra?._meta?.idempotencyKey ?? null;
    if (key !== null && seen.has(key)) return seen.get(key);
    if (applied) appendFileSync(applied, JSON.stringify({ id, note, key }) + "\n");
    const r = json({ id, note, key });
    if (key !== null) seen.set(key, r);
    return r;
  });
server.registerTool("delete_budget", { description: "Deletes a budget", inputSchema: { id: z.string() }, annotations: { destructiveHint: true } },
  async ({ id }) => json({ deleted: id }));
server.registerTool("boom", { description: "Always fails", inputSchema: {}, annotations: read },
  async () => ({ isError: true, content: [{ type: "text", text: "the vendor API is down" }] }));
server.registerTool("hang", { description: "Never answers", inputSchema: {}, annotations: read },
  () => new Promise(() => {}));
server.registerTool("die", { description: "Exits mid-call", inputSchema: {}, annotations: read },
  () => process.exit(3));
server.registerTool("huge", { description: "Answers 2 MB", inputSchema: {}, annotations: read },
  async () => json({ blob: "x".repeat(2 * 1024 * 1024) }));
server.registerTool("text_only", { description: "Answers plain text", inputSchema: {}, annotations: read },
  async () => ({ content: [{ type: "text", text: "hello" }] }));
server.registerTool("patterned", { description: "A pattern sluice cannot enforce", inputSchema: { code: z.string().regex(/^[A-Z]+$/) }, annotations: read },
  async ({ code }) => json({ code }));
return server;
}

if (httpPort === null) {
  await makeServer().connect(new StdioServerTransport());
} else {
  const { createServer } = await import("node:http");
  // stateless: a fresh server and transport per request, as the SDK's stateless example does
  createServer(async (req, res) => {
    const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const s = makeServer();
    res.on("close", () => { t.close(); s.close(); });
    await s.connect(t);
    await t.handleRequest(req, res);
  }).listen(httpPort, "127.0.0.1", () => process.stdout.write("listening\n"));
}
