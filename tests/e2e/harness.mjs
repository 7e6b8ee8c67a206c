// harness.mjs — shared pieces of the end-to-end tests: the official TypeScript SDK (resolved from
// tests/node/node_modules, since this folder is outside that package and ESM ignores NODE_PATH),
// starting the sluice fixture server (tests/programs/sluice_conformance) over stdio or HTTP, and
// raw HTTP requests with full control of every header (Host included, which fetch forbids).
import { spawn } from "node:child_process";
import { request } from "node:http";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import path from "node:path";

const require = createRequire(new URL("../node/package.json", import.meta.url));
export const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
export const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
export const { StreamableHTTPClientTransport } = require(
  "@modelcontextprotocol/sdk/client/streamableHttp.js",
);
export const types = require("@modelcontextprotocol/sdk/types.js");

// SLUICE_E2E_TRANSCRIPT=DIR records every JSON-RPC message an SDK client sends and receives, one
// JSON line each in DIR/<test file>.jsonl, so a refactoring can show the wire did not change
// (scripts/transcript_diff.py compares two such folders, times, ids and tokens masked).
if (process.env.SLUICE_E2E_TRANSCRIPT) {
  const { appendFileSync } = require("node:fs");
  const file = path.join(process.env.SLUICE_E2E_TRANSCRIPT, `${path.basename(process.argv[1])}.jsonl`);
  const log = (dir, msg) => appendFileSync(file, `${JSON.stringify({ dir, msg })}\n`);
  const connect = Client.prototype.connect;
  Client.prototype.connect = function (transport, options) {
    const send = transport.send.bind(transport);
    transport.send = (msg, opts) => {
      log(">", msg);
      return send(msg, opts);
    };
    let handler;
    Object.defineProperty(transport, "onmessage", {
      configurable: true,
      get: () => handler && ((msg, extra) => {
        log("<", msg);
        return handler(msg, extra);
      }),
      set: (h) => {
        handler = h;
      },
    });
    return connect.call(this, transport, options);
  };
}

const buildDir = process.env.SLUICE_BUILD_DIR;
if (!buildDir) throw new Error("set SLUICE_BUILD_DIR (ctest does)");
export const fixtureBin = path.join(buildDir, "sluice_conformance");

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Starts the fixture over HTTP on a free port; resolves once it accepts connections.
// Returns { url, port, proc, log() } — log() is what the server wrote to stderr so far.
export async function startHttpFixture(extraArgs = []) {
  const port = await freePort();
  const proc = spawn(fixtureBin, ["--http", `127.0.0.1:${port}`, ...extraArgs], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  proc.stdout.on("data", (d) => (log += d));
  proc.stderr.on("data", (d) => (log += d));
  for (let i = 0; i < 100; i++) {
    if (proc.exitCode !== null) throw new Error(`fixture exited (${proc.exitCode}):\n${log}`);
    try {
      await raw({ port, method: "GET", path: "/" });
      return { url: `http://127.0.0.1:${port}/mcp`, port, proc, log: () => log };
    } catch {
      await sleep(100);
    }
  }
  proc.kill();
  throw new Error(`fixture did not listen on ${port}:\n${log}`);
}

export function stopFixture(f) {
  if (f?.proc && f.proc.exitCode === null) f.proc.kill("SIGTERM");
}

// One HTTP request; resolves { status, headers, body } (body as text). Never throws on status.
export function raw({ port, method = "POST", path: p = "/mcp", headers = {}, body }) {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, method, path: p, headers, agent: false },
      (res) => {
        let data = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (data += d));
        res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: data }));
      },
    );
    req.setTimeout(10000, () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

// The JSON-RPC messages in an HTTP body, JSON or SSE ("data:" lines).
export function messagesOf(res) {
  if (!res.body) return [];
  if ((res.headers["content-type"] || "").startsWith("text/event-stream")) {
    return res.body
      .split("\n")
      .filter((l) => l.startsWith("data:") && l.slice(5).trim() !== "")
      .map((l) => JSON.parse(l.slice(5)));
  }
  return [JSON.parse(res.body)];
}

export const PROTOCOL = "2025-11-25";

export function mcpHeaders(port, extra = {}) {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    host: `127.0.0.1:${port}`,
    ...extra,
  };
}

export const initializeBody = (id = 1) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: PROTOCOL,
      capabilities: {},
      clientInfo: { name: "sluice-e2e-raw", version: "1.0.0" },
    },
  });

// initialize + notifications/initialized over raw HTTP; returns the session id.
export async function rawSession(port) {
  const init = await raw({ port, headers: mcpHeaders(port), body: initializeBody() });
  if (init.status !== 200) throw new Error(`initialize: HTTP ${init.status} ${init.body}`);
  const sid = init.headers["mcp-session-id"];
  const done = await raw({
    port,
    headers: mcpHeaders(port, { "mcp-session-id": sid, "mcp-protocol-version": PROTOCOL }),
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  if (done.status !== 202) throw new Error(`initialized: HTTP ${done.status} ${done.body}`);
  return sid;
}

// An SDK client connected to a fresh fixture over the given transport ("stdio" | "http").
// stdio spawns its own fixture process; http uses the running fixture at url.
export async function connectClient(kind, { url, args = [], capabilities = {} } = {}) {
  const transport =
    kind === "stdio"
      ? new StdioClientTransport({ command: fixtureBin, args: ["--stdio", ...args], stderr: "pipe" })
      : new StreamableHTTPClientTransport(new URL(url));
  let stderr = "";
  if (kind === "stdio") transport.stderr?.on("data", (d) => (stderr += d));
  // The stdio transport has no protocol-version slot; record what the client negotiated.
  let negotiated;
  if (!transport.setProtocolVersion) transport.setProtocolVersion = (v) => (negotiated = v);
  const client = new Client({ name: "sluice-e2e", version: "1.0.0" }, { capabilities });
  await client.connect(transport);
  return {
    client,
    transport,
    protocolVersion: () => transport.protocolVersion ?? negotiated,
    stderr: () => stderr,
  };
}
