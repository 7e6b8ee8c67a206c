// graphql_mirror.mjs — the naive side of the token benchmark's GraphQL questions: an MCP server
// (the official SDK, stdio) shaped like the common GraphQL MCP servers (mcp-graphql's
// introspect-schema + query-graphql): one tool returns the whole schema as SDL, one runs a query
// against the endpoint and returns the response JSON. A GraphQL API has one endpoint, not one per
// operation, so this is what a GraphQL mirror exposes; the model must read the schema to write a
// query it has not seen.
// usage: node graphql_mirror.mjs ENDPOINT SDL_FILE
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(new URL("../../tests/node/package.json", import.meta.url));
const { Server } = require("@modelcontextprotocol/sdk/server/index.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { ListToolsRequestSchema, CallToolRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

const [endpoint, sdlFile] = process.argv.slice(2);
const sdl = readFileSync(sdlFile, "utf8");
const tools = [
  { name: "introspect_schema", description: "The GraphQL schema of the API (SDL). Read it before writing a query.",
    inputSchema: { type: "object", properties: {} } },
  { name: "query_graphql", description: "Run a GraphQL query against the API and return its JSON response.",
    inputSchema: { type: "object", properties: { query: { type: "string", description: "the GraphQL document" },
                                                 variables: { type: "object", description: "its variables" } },
                   required: ["query"] } },
];

const server = new Server({ name: "graphql-mirror", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  if (req.params.name === "introspect_schema") return { content: [{ type: "text", text: sdl }] };
  if (req.params.name !== "query_graphql")
    return { isError: true, content: [{ type: "text", text: `unknown tool ${req.params.name}` }] };
  const res = await fetch(endpoint, { method: "POST", headers: { "Content-Type": "application/json" },
                                      body: JSON.stringify(req.params.arguments) });
  const data = await res.json();
  return { isError: !res.ok || !!data.errors, structuredContent: data, content: [{ type: "text", text: JSON.stringify(data) }] };
});
await server.connect(new StdioServerTransport());
