// http_transport.test.mjs — the Streamable HTTP rules no client library exercises, checked with
// raw requests against tests/programs/sluice_conformance: sessions (unknown id, DELETE then
// reuse), Origin and Host validation (DNS rebinding), body limit, malformed JSON, requests before
// initialize, MCP-Protocol-Version validation, 202 for notifications. Each test tries to break
// one rule; the expected status codes are the spec's (research/mcp-spec.md §2.2).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import {
  PROTOCOL,
  initializeBody,
  mcpHeaders,
  messagesOf,
  raw,
  rawSession,
  startHttpFixture,
  stopFixture,
} from "./harness.mjs";

const MAX_BODY = 65536;

const toolsList = (id = 7) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list" });

describe("Streamable HTTP transport rules", () => {
  let fx;
  let port;
  let sid;

  before(async () => {
    fx = await startHttpFixture(["--max-body", String(MAX_BODY)]);
    port = fx.port;
    sid = await rawSession(port);
  });

  after(() => stopFixture(fx));

  const session = (extra = {}) =>
    mcpHeaders(port, { "mcp-session-id": sid, "mcp-protocol-version": PROTOCOL, ...extra });

  test("a valid session answers tools/list with 200 and the result", async () => {
    const r = await raw({ port, headers: session(), body: toolsList() });
    assert.equal(r.status, 200);
    const [msg] = messagesOf(r).filter((m) => m.id === 7);
    assert.ok(Array.isArray(msg.result.tools));
  });

  test("the session id is visible ASCII and unguessably long", () => {
    assert.match(sid, /^[\x21-\x7e]{16,}$/);
  });

  test("an unknown session id is 404", async () => {
    const r = await raw({
      port,
      headers: session({ "mcp-session-id": "0123456789abcdef0123456789abcdef" }),
      body: toolsList(),
    });
    assert.equal(r.status, 404);
  });

  test("a bad Origin is 403, on initialize and inside a session", async () => {
    const evil = { origin: "http://evil.example.com" };
    const a = await raw({ port, headers: mcpHeaders(port, evil), body: initializeBody() });
    assert.equal(a.status, 403);
    const b = await raw({ port, headers: session(evil), body: toolsList() });
    assert.equal(b.status, 403);
  });

  test("origins that only start like a loopback origin are 403", async () => {
    for (const origin of [
      `http://localhost.evil.example:${port}`,
      `http://127.0.0.1.nip.io:${port}`,
      `http://localhost:${port}x`,
      "null",
    ]) {
      const r = await raw({ port, headers: session({ origin }), body: toolsList() });
      assert.equal(r.status, 403, origin);
    }
  });

  test("a loopback Origin is accepted", async () => {
    const r = await raw({
      port,
      headers: session({ origin: `http://localhost:${port}` }),
      body: toolsList(),
    });
    assert.equal(r.status, 200);
  });

  test("a foreign Host (DNS rebinding) is refused with 4xx", async () => {
    const r = await raw({
      port,
      headers: mcpHeaders(port, { host: "evil.example.com" }),
      body: initializeBody(),
    });
    assert.ok(r.status >= 400 && r.status < 500, `got ${r.status}`);
  });

  test("a body over the limit is 413", async () => {
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 9,
      method: "tools/call",
      params: { name: "echo", arguments: { message: "x".repeat(MAX_BODY * 2) } },
    });
    const r = await raw({ port, headers: session(), body: big });
    assert.equal(r.status, 413);
  });

  test("malformed JSON is 400 with a -32700 parse error", async () => {
    const r = await raw({ port, headers: session(), body: '{"jsonrpc":"2.0","id":' });
    assert.equal(r.status, 400);
    const [msg] = messagesOf(r);
    assert.equal(msg.error.code, -32700);
  });

  test("a request without a session before initialize is 400", async () => {
    const r = await raw({ port, headers: mcpHeaders(port), body: toolsList() });
    assert.equal(r.status, 400);
  });

  test("an unsupported MCP-Protocol-Version is 400", async () => {
    const r = await raw({
      port,
      headers: session({ "mcp-protocol-version": "1999-01-01" }),
      body: toolsList(),
    });
    assert.equal(r.status, 400);
  });

  test("an older supported MCP-Protocol-Version is accepted", async () => {
    const r = await raw({
      port,
      headers: session({ "mcp-protocol-version": "2025-03-26" }),
      body: toolsList(),
    });
    assert.equal(r.status, 200);
  });

  test("a notification is 202 with no body", async () => {
    const r = await raw({
      port,
      headers: session(),
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    assert.equal(r.status, 202);
    assert.equal(r.body, "");
  });

  test("DELETE ends the session; reusing it is 404", async () => {
    const own = await rawSession(port);
    const h = mcpHeaders(port, { "mcp-session-id": own, "mcp-protocol-version": PROTOCOL });
    const d = await raw({ port, method: "DELETE", headers: h });
    assert.ok(d.status >= 200 && d.status < 300, `DELETE gave ${d.status}`);
    const r = await raw({ port, headers: h, body: toolsList() });
    assert.equal(r.status, 404);
  });
});
