// canary_downstream.mjs — the downstream MCP server of the MCP-composition canary property test
// (mcp_canary.mjs; official SDK, stdio): every tool answers the canary records of the shared
// generator (tests/node/js_canary_gen.mjs: ssn and salary hold canaries) in another shape an MCP
// server can use, so a plan reaches the blocked values every way mcp.call can hand them over:
//   list_people   structuredContent { items: [records], nextCursor }, with a logging and a progress
//                 notification carrying the records on the way (sluice must not pass them on)
//   get_person    text content only, the record as JSON (no structuredContent)
//   team          structuredContent nesting records in objects in arrays in objects
//   wrapped       structuredContent whose field is a string holding the records as JSON
//   odd_keys      the records with the blocked keys in other cases (SSN, Salary)
//   person_error  isError, the text quoting the records (as a server naming the record it failed on)
//   person_throw  the handler throws, its message quoting the records (the SDK makes it isError)
//   rpc_error     a JSON-RPC error whose message and data quote the records
//   links         a resource_link and an embedded resource carrying the records, no text block
//   echo          isError echoing its argument (a validation error quoting the input)
// and a resource and a prompt carrying the records (sluice is their client only for tools).
//   node canary_downstream.mjs SEED              (stdio)
//   node canary_downstream.mjs SEED --http PORT  (Streamable HTTP on 127.0.0.1:PORT/mcp, stateless)
//   node canary_downstream.mjs SEED --record FILE (stdio; echo's arguments appended to FILE)
import { appendFileSync } from "node:fs";
import { createRequire } from "node:module";
import { generator } from "../node/js_canary_gen.mjs";

const require = createRequire(new URL("../node/package.json", import.meta.url));
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { StreamableHTTPServerTransport } = require("@modelcontextprotocol/sdk/server/streamableHttp.js");
const { McpError } = require("@modelcontextprotocol/sdk/types.js");
const { z } = require("zod");

// --record FILE: every argument `echo` receives is appended to FILE (the sink of the twin-upstream
// noninterference test: what a plan sent to this server, read after the run)
const record = process.argv.includes("--record") ? process.argv[process.argv.indexOf("--record") + 1] : null;
const { users } = generator(process.argv[2] ?? 1, { head: "", echo: () => "" });
const all = JSON.stringify(users);
const read = { readOnlyHint: true };
const structured = (v) => ({ content: [{ type: "text", text: JSON.stringify(v) }], structuredContent: v });
const failed = (text) => ({ isError: true, content: [{ type: "text", text }] });

function makeServer() {
const server = new McpServer({ name: "people", version: "1.0.0" }, { capabilities: { logging: {} } });

server.registerTool("list_people", { description: "Everyone", inputSchema: {}, annotations: read },
  async (_args, extra) => {
    await extra.sendNotification({ method: "notifications/message", params: { level: "info", data: users } });
    await extra.sendNotification({ method: "notifications/progress",
                                   params: { progressToken: 1, progress: 1, message: all } }).catch(() => {});
    return structured({ items: users, nextCursor: Buffer.from("page-2").toString("base64") });
  });
server.registerTool("get_person", { description: "One person", inputSchema: { id: z.string() }, annotations: read },
  async ({ id }) => ({ content: [{ type: "text", text: JSON.stringify(users.find((u) => u.id === id) ?? null) }] }));
server.registerTool("team", { description: "The organisation", inputSchema: {}, annotations: read },
  async () => structured({ org: { teams: users.map((u) => ({ name: u.team, lead: u, members: [{ person: u }] })) } }));
server.registerTool("wrapped", { description: "The raw upstream body", inputSchema: {}, annotations: read },
  async () => structured({ status: 200, body: all }));
server.registerTool("odd_keys", { description: "Keys as the vendor spells them", inputSchema: {}, annotations: read },
  async () => structured({ items: users.map(({ id, name, team, ssn, salary }) => ({ id, name, team, SSN: ssn, Salary: salary })) }));
server.registerTool("person_error", { description: "Fails naming the records", inputSchema: {}, annotations: read },
  async () => failed(`lookup failed for ${all}`));
server.registerTool("person_throw", { description: "Throws naming the records", inputSchema: {}, annotations: read },
  async () => { throw new Error(`lookup failed for ${all}`); });
server.registerTool("rpc_error", { description: "A protocol error naming the records", inputSchema: {}, annotations: read },
  async () => { throw new McpError(-32602, `lookup failed for ${all}`, users); });
server.registerTool("links", { description: "Links to the records", inputSchema: {}, annotations: read },
  async () => ({ content: [
    { type: "resource_link", uri: `people://${users[0].ssn}`, name: users[0].ssn, description: all },
    { type: "resource", resource: { uri: `people://all/${users[0].salary}`, mimeType: "application/json", text: all } },
  ] }));
server.registerTool("echo", { description: "Refuses any value, quoting it", inputSchema: { v: z.string() }, annotations: read },
  async ({ v }) => { if (record) appendFileSync(record, `${JSON.stringify(v)}\n`); return failed(`invalid value: ${v}`); });
server.registerResource("people", "people://all", { mimeType: "application/json" },
  async (uri) => ({ contents: [{ uri: uri.href, text: all }] }));
server.registerPrompt("people", { description: "The records" },
  () => ({ messages: [{ role: "user", content: { type: "text", text: all } }] }));

return server;
}

if (process.argv[3] !== "--http") {
  await makeServer().connect(new StdioServerTransport());
} else {
  const { createServer } = await import("node:http");
  createServer(async (req, res) => {
    const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const s = makeServer();
    res.on("close", () => { t.close(); s.close(); });
    await s.connect(t);
    await t.handleRequest(req, res);
  }).listen(Number(process.argv[4]), "127.0.0.1", () => process.stdout.write("listening\n"));
}
