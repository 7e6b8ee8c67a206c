// sigterm.test.mjs — SIGTERM during load is a graceful stop: 20 clients keep calling the mixed
// workload (curated tool, validate_code, execute_code); once 150 calls have answered the server
// gets SIGTERM. It must exit 0 within the bound; every call the server admitted gets its answer
// (it drains: sluice_http_drain): a call sent before the signal is answered or, when the server
// read it only after the signal, refused with a clear 503; a call sent after it is refused with
// a clear 503 (the client then goes away) or, once the server is gone, loses its connection —
// none hangs; every execute_code that answered success is in the audit log; the log verifies.
import assert from "node:assert/strict";
import { test } from "node:test";

import { McpClient, auditRecords, config, startServer, stopServer, verifyAudit, workDir } from "./lib.mjs";

const CLIENTS = 20;
const SIGNAL_AFTER = 150;
const EXIT_BOUND_MS = 15000;
const SQL = "SELECT id, name FROM customers WHERE plan = 'enterprise' ORDER BY id LIMIT 5";

test("SIGTERM during load: in-flight calls end, the audit holds every executed call, exit 0", async () => {
  const work = workDir();
  const srv = await startServer(work, config());
  try {
    const clients = Array.from({ length: CLIENTS }, () => new McpClient(srv.url));
    await Promise.all(clients.map((c) => c.open()));
    const stats = { ok: 0, refused: [], unclear: [], lost: [], dropped: 0, executed: 0 };
    let stopping = false;
    let signalled = null;
    const answered = () => stats.ok + stats.refused.length;
    const one = async (c, kind) => {
      const args = kind === "ping" ? {} : kind === "validate_code" ? { code: SQL }
        : { code: SQL, approval_token: c.token };
      const before = !signalled;
      let r;
      try {
        r = await c.send(kind, args);
      } catch (e) {
        // The connection closed under the call: acceptable only for a call sent after the signal
        // (the server is gone); one admitted before it must be answered.
        if (before) stats.lost.push(`${kind}: ${e.message}`);
        stats.dropped++;
        return false;
      }
      if (r.status === 200 && r.msg?.result && !r.msg.result.isError) {
        stats.ok++;
        if (kind === "validate_code") c.token = r.msg.result.structuredContent.approval_token;
        if (kind === "execute_code") stats.executed++;
      } else {
        // A refusal while stopping must say what happened, never be an empty or garbled answer.
        const text = r.msg?.error?.message ?? JSON.stringify(r.msg?.result?.content ?? r.body);
        if (!(text.length > 10)) stats.unclear.push(`${kind}: HTTP ${r.status} body ${JSON.stringify(r.body)}`);
        else stats.refused.push(`${kind}: HTTP ${r.status} ${text.slice(0, 160)}`);
        // Sent just before the signal but read by the server after it: a clear 503 is fine
        // (never admitted); any other refusal of such a call is a call the stop broke.
        if (before && r.status !== 503) stats.lost.push(`${kind}: refused though sent before the signal: ${text}`);
        if (r.status === 503) return false; // shutting down: this client goes away
      }
      if (!signalled && answered() >= SIGNAL_AFTER) {
        signalled = Date.now();
        srv.proc.kill("SIGTERM");
      }
      return true;
    };
    const kinds = ["ping", "validate_code", "execute_code"];
    const loops = clients.map(async (c) => {
      for (let n = 0; !stopping; n++) if (!(await one(c, kinds[n % 3]))) return;
    });
    const exit = await Promise.race([srv.exited, new Promise((r) => setTimeout(() => r(null), 60000).unref())]);
    assert.ok(exit, `the server did not exit within 60 s of the load:\n${srv.log()}`);
    stopping = true;
    await Promise.all(loops); // every call settles once the server is gone (no hang)
    assert.ok(signalled, "the load never reached the signal point");
    assert.deepEqual(stats.unclear, [], "answers that say nothing");
    assert.deepEqual(stats.lost, [], "calls sent before SIGTERM that did not get their answer");
    assert.match(srv.log(), /stopping/);
    assert.deepEqual(exit, { code: 0, signal: null }, `exit after SIGTERM:\n${srv.log()}`);
    assert.ok(Date.now() - signalled < EXIT_BOUND_MS, `took ${Date.now() - signalled} ms to stop`);
    const v = verifyAudit(work);
    assert.ok(v.ok, `audit verify after SIGTERM: ${v.out}`);
    const executes = auditRecords(work).filter((r) => r.event === "execute" && r.decision === "executed");
    assert.ok(executes.length >= stats.executed,
      `${stats.executed} execute_code calls answered success, ${executes.length} in the audit log`);
    console.log(`sigterm: ${stats.ok} ok, ${stats.refused.length} refused, ${stats.dropped} dropped, ` +
      `${stats.executed} executed (${executes.length} audited), stopped in ${Date.now() - signalled} ms`);
    for (const r of [...new Set(stats.refused)].slice(0, 5)) console.log(`  refused: ${r}`);
  } finally {
    await stopServer(srv);
    work.remove();
  }
});
