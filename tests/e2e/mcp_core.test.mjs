// mcp_core.test.mjs — end-to-end tests of the MCP core through the official TypeScript SDK client
// (1.32.2), over stdio and over Streamable HTTP, against tests/programs/sluice_conformance.
// Protocol behaviour is judged by the SDK itself (schemas, outputSchema validation of
// structuredContent, progress routing, cancellation) plus explicit assertions.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { connectClient, startHttpFixture, stopFixture, types } from "./harness.mjs";

const CONFIG = new URL("../conformance/conformance.toml", import.meta.url).pathname;

// Enough filler tools that tools/list needs several pages (the core's page size is 50).
const EXTRA_TOOLS = 120;
const FIXTURE_TOOLS = 27; // 16 for 2025-11-25 and 11 multi round-trip tools for 2026-07-28

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

for (const kind of ["stdio", "http"]) {
  describe(`SDK client over ${kind}`, () => {
    let fixture;
    let conn;
    let client;

    before(async () => {
      const args = ["--config", CONFIG, "--extra-tools", String(EXTRA_TOOLS)];
      if (kind === "http") fixture = await startHttpFixture(args);
      conn = await connectClient(kind, {
        url: fixture?.url,
        args,
        capabilities: { sampling: {}, elicitation: {} },
      });
      client = conn.client;
      client.setRequestHandler(types.CreateMessageRequestSchema, async (req) => ({
        model: "e2e-model",
        role: "assistant",
        content: { type: "text", text: `echo of ${req.params.messages[0].content.text}` },
      }));
      client.setRequestHandler(types.ElicitRequestSchema, async () => ({
        action: "accept",
        content: { username: "ada", email: "ada@example.com" },
      }));
    });

    after(async () => {
      await client?.close();
      stopFixture(fixture);
    });

    test("initialize negotiates 2025-11-25 and reports server info and capabilities", () => {
      assert.equal(conn.protocolVersion(), "2025-11-25");
      assert.equal(client.getServerVersion().name, "sluice-conformance"); // from CONFIG
      assert.match(client.getInstructions(), /^Conformance fixture/);
      const caps = client.getServerCapabilities();
      for (const c of ["tools", "resources", "prompts", "logging"]) assert.ok(caps[c], c);
    });

    test("ping answers", async () => {
      assert.deepEqual(await client.ping(), {});
    });

    test("tools/list pages through every tool with nextCursor", async () => {
      const names = [];
      let cursor;
      let pages = 0;
      do {
        const page = await client.listTools(cursor ? { cursor } : {});
        names.push(...page.tools.map((t) => t.name));
        cursor = page.nextCursor;
        pages++;
        assert.ok(pages < 100, "pagination does not terminate");
      } while (cursor);
      assert.ok(pages >= 3, `expected several pages, got ${pages}`);
      assert.equal(names.length, FIXTURE_TOOLS + EXTRA_TOOLS);
      assert.equal(new Set(names).size, names.length, "a tool appeared on two pages");
      for (const n of ["test_simple_text", "echo", "test_slow", "filler_00119"]) {
        assert.ok(names.includes(n), n);
      }
    });

    test("an invalid cursor is -32602", async () => {
      await assert.rejects(client.listTools({ cursor: "not-a-cursor" }), (e) => e.code === -32602);
    });

    test("tools/call returns the tool's content", async () => {
      const r = await client.callTool({ name: "echo", arguments: { message: "héllo, wörld" } });
      assert.deepEqual(r.content, [{ type: "text", text: "héllo, wörld" }]);
      assert.notEqual(r.isError, true);
    });

    test("structuredContent conforms to the outputSchema (validated by the SDK)", async () => {
      // listTools caches output schemas; callTool then validates structuredContent with Ajv.
      await client.listTools();
      const r = await client.callTool({ name: "test_cancel_stats", arguments: {} });
      assert.equal(typeof r.structuredContent.cancelled, "number");
      assert.equal(typeof r.structuredContent.completed, "number");
      assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent);
    });

    test("invalid arguments are a tool result with isError, not a protocol error", async () => {
      const r = await client.callTool({ name: "echo", arguments: { message: 42 } });
      assert.equal(r.isError, true);
      assert.match(r.content[0].text, /message/);
    });

    test("an unknown tool is a JSON-RPC error -32602", async () => {
      await assert.rejects(
        client.callTool({ name: "no_such_tool", arguments: {} }),
        (e) => e.code === -32602,
      );
    });

    test("resources/read of a static resource and of a template", async () => {
      const s = await client.readResource({ uri: "test://static-text" });
      assert.deepEqual(s.contents, [
        {
          uri: "test://static-text",
          mimeType: "text/plain",
          text: "This is the content of the static text resource.",
        },
      ]);
      const t = await client.readResource({ uri: "test://template/42/data" });
      assert.deepEqual(JSON.parse(t.contents[0].text), {
        id: "42",
        templateTest: true,
        data: "Data for ID: 42",
      });
      const list = await client.listResourceTemplates();
      assert.ok(list.resourceTemplates.some((r) => r.uriTemplate === "test://template/{id}/data"));
    });

    test("reading an unknown resource is -32002", async () => {
      await assert.rejects(
        client.readResource({ uri: "test://nothing-here" }),
        (e) => e.code === -32002,
      );
    });

    test("prompts/get substitutes arguments; a missing one is -32602", async () => {
      const p = await client.getPrompt({
        name: "test_prompt_with_arguments",
        arguments: { arg1: "hello", arg2: "world" },
      });
      assert.equal(p.messages[0].content.text, "Prompt with arguments: arg1='hello', arg2='world'");
      await assert.rejects(
        client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "x" } }),
        (e) => e.code === -32602,
      );
    });

    test("progress notifications arrive in order for the call's token", async () => {
      const seen = [];
      const r = await client.callTool({ name: "test_tool_with_progress", arguments: {} }, undefined, {
        onprogress: (p) => seen.push([p.progress, p.total]),
      });
      assert.notEqual(r.isError, true);
      // The SDK runs notification handlers a microtask late but drops a request's progress handler
      // as soon as its response is read, so a last notification sharing a read with the response
      // can be lost client-side. The wire order is checked in stdio_transport.test.mjs.
      assert.ok(seen.length >= 2, JSON.stringify(seen));
      assert.deepEqual(seen, [[0, 100], [50, 100], [100, 100]].slice(0, seen.length));
    });

    test("log notifications reach the client at the level it set", async () => {
      const logs = [];
      client.setNotificationHandler(types.LoggingMessageNotificationSchema, (n) =>
        logs.push(n.params),
      );
      await client.setLoggingLevel("info");
      await client.callTool({ name: "test_tool_with_logging", arguments: {} });
      assert.deepEqual(
        logs.map((l) => [l.level, l.data]),
        [
          ["info", "Tool execution started"],
          ["info", "Tool processing data"],
          ["info", "Tool execution completed"],
        ],
      );
      await client.setLoggingLevel("error");
      logs.length = 0;
      await client.callTool({ name: "test_tool_with_logging", arguments: {} });
      assert.deepEqual(logs, [], "info logs were sent below the client's level");
    });

    test("server-initiated sampling and elicitation round-trip through the client", async () => {
      const s = await client.callTool({ name: "test_sampling", arguments: { prompt: "ping?" } });
      assert.equal(s.content[0].text, "LLM response: echo of ping?");
      const e = await client.callTool({ name: "test_elicitation", arguments: { message: "who?" } });
      assert.match(e.content[0].text, /^User response: action=accept, content=.*"ada"/);
    });

    test("aborting a call cancels it on the server and rejects on the client", async () => {
      const stats = async () =>
        (await client.callTool({ name: "test_cancel_stats", arguments: {} })).structuredContent;
      const before0 = await stats();
      const ac = new AbortController();
      let progressed;
      const started = new Promise((r) => (progressed = r));
      const call = client.callTool(
        { name: "test_slow", arguments: { steps: 500, step_ms: 20 } }, // 10 s if not cancelled
        undefined,
        { signal: ac.signal, onprogress: () => progressed() },
      );
      await started;
      const t0 = Date.now();
      ac.abort("e2e abort");
      await assert.rejects(call, /e2e abort/);
      // The server must stop the handler: its cancelled counter moves, long before 10 s.
      let now = before0;
      for (let i = 0; i < 50 && now.cancelled === before0.cancelled; i++) {
        await sleep(50);
        now = await stats();
      }
      assert.equal(now.cancelled, before0.cancelled + 1, "server did not stop test_slow");
      assert.equal(now.completed, before0.completed);
      assert.ok(Date.now() - t0 < 5000);
      // The session is still usable after a cancellation.
      const r = await client.callTool({ name: "echo", arguments: { message: "after" } });
      assert.equal(r.content[0].text, "after");
    });
  });
}
