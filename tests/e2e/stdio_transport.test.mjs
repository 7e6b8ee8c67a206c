// stdio_transport.test.mjs — stdio rules checked on the raw pipe (no client library in between):
// a request before initialize, malformed JSON, and the wire order of progress notifications
// (which the SDK client may partly hide, see mcp_core.test.mjs).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { describe, test } from "node:test";

import { PROTOCOL, fixtureBin, initializeBody } from "./harness.mjs";

const toolsList = (id = 7) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list" });

describe("stdio transport rules", () => {
  // Runs the fixture on pipes, writes lines, collects `want` stdout lines (parsed), then closes
  // stdin (closing first could legitimately cancel requests still in flight).
  const converse = (lines, want) =>
    new Promise((resolve, reject) => {
      const p = spawn(fixtureBin, ["--stdio"], { stdio: ["pipe", "pipe", "pipe"] });
      let out = "";
      const timer = setTimeout(() => p.stdin.end(), 5000);
      const finish = () => {
        clearTimeout(timer);
        try {
          resolve(out.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l)));
        } catch (e) {
          reject(new Error(`stdout is not newline-delimited JSON: ${e.message}\n${out}`));
        }
      };
      p.stdout.on("data", (d) => {
        out += d;
        if (out.split("\n").length - 1 >= want) p.stdin.end();
      });
      p.on("error", reject);
      p.on("close", finish);
      p.stdin.write(lines.join("\n") + "\n");
    });

  test("a request before initialize gets an error, not a result", async () => {
    const msgs = await converse([toolsList(1)], 1);
    assert.equal(msgs.length, 1);
    assert.equal(msgs[0].id, 1);
    assert.ok(msgs[0].error && !msgs[0].result, JSON.stringify(msgs[0]));
  });

  test("malformed JSON is -32700 and the stream goes on", async () => {
    const msgs = await converse([
      "{not json",
      initializeBody(2),
      JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }),
    ], 3);
    const parseError = msgs.find((m) => m.error?.code === -32700);
    assert.ok(parseError, JSON.stringify(msgs));
    assert.equal(parseError.id ?? null, null);
    assert.ok(msgs.some((m) => m.id === 2 && m.result?.protocolVersion === PROTOCOL));
    assert.ok(msgs.some((m) => m.id === 3 && m.result));
  });

  test("a frame that does not parse is answered with its own id when it can be read", async () => {
    const msgs = await converse([
      initializeBody(1),
      '{"jsonrpc":"2.0","id":41,"method":"ping"\u0000}', // a raw NUL byte outside any string
      '{"jsonrpc":"2.0","id":"req-42","method":"tools/call","params":{"name":', // cut off
      '{"jsonrpc":"2.0","id":43,"id":44,\u0000}', // two ids: no guess
      JSON.stringify({ jsonrpc: "2.0", id: 45, method: "ping" }),
    ], 5);
    const errors = msgs.filter((m) => m.error?.code === -32700);
    assert.deepEqual(errors.map((m) => m.id ?? null), [41, "req-42", null], JSON.stringify(msgs));
    assert.match(errors[0].error.message, /invalid JSON at line 1, column \d+/);
    assert.ok(msgs.some((m) => m.id === 45 && m.result), "the stream goes on");
  });

  test("progress notifications echo the token, increase, and precede the response", async () => {
    const msgs = await converse([
      initializeBody(1),
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "test_tool_with_progress", arguments: {}, _meta: { progressToken: "p-1" } },
      }),
    ], 5);
    const progress = msgs.filter((m) => m.method === "notifications/progress").map((m) => m.params);
    assert.deepEqual(
      progress.map((p) => [p.progressToken, p.progress, p.total]),
      [["p-1", 0, 100], ["p-1", 50, 100], ["p-1", 100, 100]],
    );
    const last = msgs.findIndex((m) => m.id === 2);
    assert.ok(last > msgs.findLastIndex((m) => m.method === "notifications/progress"));
  });
});
