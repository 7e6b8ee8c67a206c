// mcp_http.mjs — a minimal MCP client over Streamable HTTP for the load driver and the fault
// tests: one keep-alive connection per client (node:http, no SDK: the driver must cost far less
// than the server), tools/call answered as JSON or SSE. Under 2025-11-25 (the default): initialize,
// a session, DELETE at close. Under 2026-07-28 (stateless, what a round-robin balancer in front of
// replicas needs): no handshake, every request carries the protocol version and client
// capabilities in _meta and the Mcp-Method / Mcp-Name headers.
// Every failure throws with its reason (HTTP status, JSON-RPC error, isError result text).
import { Agent, request } from "node:http";

export const PROTOCOL = "2025-11-25";
export const STATELESS = "2026-07-28";
const CALL_TIMEOUT_MS = 60000;

// One request on the client's own agent; resolves { status, headers, body }.
// headersOnly: resolve once the status and headers are in (an SSE stream that stays open).
export function post(url, agent, headers, body, { method = "POST", signal, headersOnly = false } = {}) {
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method,
      agent, signal, headers: { "content-type": "application/json", accept: "application/json, text/event-stream",
        ...headers } }, (res) => {
      if (headersOnly) {
        res.on("error", () => {});
        return resolve({ status: res.statusCode, headers: res.headers, body: "" });
      }
      let data = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (data += d));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: data }));
      // The connection closing mid-body (a stream the server cut off) ends no 'end' event.
      res.on("error", reject);
      res.on("close", () => res.complete || reject(new Error(`connection closed mid-response (HTTP ${res.statusCode})`)));
    });
    req.setTimeout(CALL_TIMEOUT_MS, () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end(body);
  });
}

// The JSON-RPC answer with id, from a JSON or an SSE body.
export function answerOf(res, id) {
  const msgs = (res.headers["content-type"] || "").startsWith("text/event-stream")
    ? res.body.split("\n").filter((l) => l.startsWith("data:") && l.slice(5).trim() !== "")
      .map((l) => JSON.parse(l.slice(5)))
    : [JSON.parse(res.body)];
  return msgs.find((m) => m.id === id);
}

export class McpClient {
  // headers: sent with every request (e.g. Authorization); protocol: PROTOCOL or STATELESS.
  constructor(url, { headers = {}, protocol = PROTOCOL } = {}) {
    this.url = new URL(url);
    this.extra = headers;
    this.protocol = protocol;
    this.agent = new Agent({ keepAlive: true, maxSockets: 1 });
    this.id = 0;
    this.token = null;
  }
  async open() {
    if (this.protocol === STATELESS) {
      this.headers = { ...this.extra, "mcp-protocol-version": STATELESS };
      return;
    }
    const init = await post(this.url, this.agent, this.extra, JSON.stringify({ jsonrpc: "2.0", id: ++this.id, method: "initialize",
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "sluice-load", version: "1" } } }));
    if (init.status !== 200) throw new Error(`initialize: HTTP ${init.status} ${init.body}`);
    this.headers = { ...this.extra, "mcp-session-id": init.headers["mcp-session-id"], "mcp-protocol-version": PROTOCOL };
    const done = await post(this.url, this.agent, this.headers, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    if (done.status !== 202) throw new Error(`initialized: HTTP ${done.status}`);
  }
  // One tools/call; resolves { status, msg } (msg: the JSON-RPC answer, undefined if none) and
  // rejects only when the request itself fails (connection, timeout, signal).
  async send(name, args, { signal, headers = {} } = {}) {
    const id = ++this.id;
    const params = { name, arguments: args };
    if (this.protocol === STATELESS) {
      params._meta = { "io.modelcontextprotocol/protocolVersion": STATELESS,
                       "io.modelcontextprotocol/clientCapabilities": {} };
      headers = { "mcp-method": "tools/call", "mcp-name": name, ...headers };
    }
    const res = await post(this.url, this.agent, { ...this.headers, ...headers }, JSON.stringify({ jsonrpc: "2.0", id,
      method: "tools/call", params }), { signal });
    return { status: res.status, body: res.body, msg: res.status === 200 ? answerOf(res, id) : undefined };
  }
  // One tools/call; resolves its result, throws with the reason on any failure.
  async call(name, args) {
    const { status, body, msg } = await this.send(name, args);
    if (status !== 200) throw new Error(`${name}: HTTP ${status} ${body.slice(0, 200)}`);
    if (!msg) throw new Error(`${name}: no answer`);
    if (msg.error) throw new Error(`${name}: ${JSON.stringify(msg.error)}`);
    if (msg.result.isError) throw new Error(`${name}: ${JSON.stringify(msg.result.content).slice(0, 300)}`);
    return msg.result;
  }
  close() {
    if (this.protocol === STATELESS) return Promise.resolve(this.agent.destroy());
    return post(this.url, this.agent, this.headers, "", { method: "DELETE" }).catch(() => {}).finally(() => this.agent.destroy());
  }
}

