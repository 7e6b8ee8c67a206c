// sdk_server.mjs — the baseline for bench/mcp: the official TypeScript SDK server (1.32.2) with
// the same trivial `echo` tool the sluice fixture serves, over stdio or Streamable HTTP.
//
//   node sdk_server.mjs --stdio
//   node sdk_server.mjs --http 127.0.0.1:PORT        (endpoint /mcp, stateful sessions)
//
// The SDK is resolved from tests/node/node_modules (this file lives outside that package, and ESM
// ignores NODE_PATH), through createRequire. Only the bench uses it; nothing here is shipped.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { createRequire } from "node:module";

const require = createRequire(new URL("../../tests/node/package.json", import.meta.url));
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { StreamableHTTPServerTransport } = require("@modelcontextprotocol/sdk/server/streamableHttp.js");
const { z } = require("zod");

function newServer() {
  const server = new McpServer({ name: "sdk-bench-server", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echoes its message back", inputSchema: { message: z.string() } },
    async ({ message }) => ({ content: [{ type: "text", text: message }] }),
  );
  return server;
}

async function serveStdio() {
  await newServer().connect(new StdioServerTransport());
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

// One SDK transport + server per session, as the SDK's own stateful examples do.
async function serveHttp(hostPort) {
  const [host, port] = hostPort.split(":");
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    try {
      const sid = req.headers["mcp-session-id"];
      const raw = req.method === "POST" ? await readBody(req) : "";
      const body = raw ? JSON.parse(raw) : undefined;
      let transport = sid ? sessions.get(sid) : undefined;
      if (!transport && !sid && body?.method === "initialize") {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => sessions.set(id, transport),
        });
        transport.onclose = () => sessions.delete(transport.sessionId);
        await newServer().connect(transport);
      }
      if (!transport) {
        res.writeHead(sid ? 404 : 400, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "bad session" }, id: null }));
        return;
      }
      await transport.handleRequest(req, res, body);
    } catch (e) {
      if (!res.headersSent) res.writeHead(400);
      res.end(String(e));
    }
  });
  http.keepAliveTimeout = 60000;
  http.listen(Number(port), host, () => process.stderr.write(`sdk_server listening on ${hostPort}\n`));
}

const [mode, arg] = process.argv.slice(2);
if (mode === "--stdio") await serveStdio();
else if (mode === "--http" && arg) await serveHttp(arg);
else {
  process.stderr.write("usage: sdk_server.mjs --stdio | --http HOST:PORT\n");
  process.exit(2);
}
