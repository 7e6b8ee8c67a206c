// rest_mirror.mjs — the naive side of the token benchmark's REST questions: an MCP server (the
// official SDK, stdio) with one tool per operation of an OpenAPI spec (examples/cost-coach/openapi.yaml
// unless SPEC is given: GitHub's api.github.com.json), as a REST mirror generated from the spec has
// (name = operationId with '/' as '_', description = summary, inputSchema = path and query
// parameters + request body, $refs inlined to a bounded depth). Each call is one HTTP request with
// the server-side credential; the result is the response JSON with the blocked fields (ssn,
// password, salary) stripped, so the comparison is about round trips and context, not about field
// blocking.
// usage: COST_COACH_TOKEN=... node rest_mirror.mjs BASE_URL [SPEC]
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(new URL("../../tests/node/package.json", import.meta.url));
const { Server } = require("@modelcontextprotocol/sdk/server/index.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { ListToolsRequestSchema, CallToolRequestSchema } = require("@modelcontextprotocol/sdk/types.js");
const YAML = require("yaml");

const base = process.argv[2];
const specPath = process.argv[3] ?? new URL("../../examples/cost-coach/openapi.yaml", import.meta.url).pathname;
const spec = specPath.endsWith(".json") ? JSON.parse(readFileSync(specPath, "utf8")) : YAML.parse(readFileSync(specPath, "utf8"));
const BLOCKED = new Set(["ssn", "password", "salary"]);
const deref = (s) => (s?.$ref ? deref(s.$ref.split("/").slice(1).reduce((o, k) => o[k], spec)) : s);
// A schema with its $refs inlined, as generated mirrors publish it; a recursive type stops at
// its second visit (as {}), examples are dropped (they are not part of a tool's input schema).
const inline = (s, seen = new Set()) => {
  if (Array.isArray(s)) return s.map((x) => inline(x, seen));
  if (!s || typeof s !== "object") return s;
  if (s.$ref) return seen.has(s.$ref) ? {} : inline(deref(s), new Set([...seen, s.$ref]));
  return Object.fromEntries(Object.entries(s).filter(([k]) => k !== "example" && k !== "examples")
    .map(([k, v]) => [k, inline(v, seen)]));
};

const ops = [];
for (const [path, item] of Object.entries(spec.paths))
  for (const [method, op] of Object.entries(item)) {
    if (!op.operationId) continue;
    const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(deref);
    const body = inline(op.requestBody?.content?.["application/json"]?.schema);
    const properties = { ...(body?.properties ?? {}) };
    for (const p of params) properties[p.name] = { ...inline(p.schema), description: p.description };
    const required = [...params.filter((p) => p.required).map((p) => p.name), ...(body?.required ?? [])];
    ops.push({ name: op.operationId.replace(/\//g, "_"), method: method.toUpperCase(), path,
               query: params.filter((p) => p.in === "query").map((p) => p.name),
               description: op.summary ?? op.description ?? "", inputSchema: { type: "object", properties, required } });
  }

const strip = (v) => (Array.isArray(v) ? v.map(strip) : v && typeof v === "object"
  ? Object.fromEntries(Object.entries(v).filter(([k]) => !BLOCKED.has(k.toLowerCase())).map(([k, x]) => [k, strip(x)])) : v);

const server = new Server({ name: "cost-coach-rest-mirror", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: ops.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })) }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const op = ops.find((o) => o.name === req.params.name);
  if (!op) return { isError: true, content: [{ type: "text", text: `unknown tool ${req.params.name}` }] };
  const args = { ...(req.params.arguments ?? {}) };
  const url = new URL(base + op.path.replace(/\{(\w+)\}/g, (_, k) => { const v = args[k]; delete args[k]; return encodeURIComponent(v); }));
  for (const k of op.query) if (k in args) { url.searchParams.set(k, String(args[k])); delete args[k]; }
  const res = await fetch(url, { method: op.method, headers: { Authorization: `Bearer ${process.env.COST_COACH_TOKEN}`,
    "Content-Type": "application/json" }, body: ["GET", "DELETE"].includes(op.method) ? undefined : JSON.stringify(args) });
  const data = strip(await res.json());
  // structuredContent must be an object: a top-level array (GitHub's lists) is in the text only
  return { isError: !res.ok, ...(data && typeof data === "object" && !Array.isArray(data) ? { structuredContent: data } : {}), content: [{ type: "text", text: JSON.stringify(data) }] };
});
await server.connect(new StdioServerTransport());
