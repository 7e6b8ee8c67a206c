// audit_full.test.mjs — disk full for the audit log, unprivileged: the server runs under a file
// size limit (prlimit --fsize, soft limit only), so once the audit log reaches it write() fails
// with EFBIG exactly as on a full disk (ENOSPC), and the server must not die of SIGXFSZ. Then:
// the call that hit it fails with a clear error, later executions and validations refuse (fail
// closed), /readyz says not ready, the chain on disk verifies (the failed write's partial line
// is cut off again at once); once space returns (the limit is lifted) a restart
// opens the log, drops any cut-short record, and calls run again on the same, verifying chain.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import { test } from "node:test";

import { McpClient, auditRecords, config, startServer, stopServer, verifyAudit, workDir } from "./lib.mjs";

const LIMIT_BYTES = 48 * 1024; // the audit log fills this after a few dozen calls
const MAX_ROUNDS = 400;
const SQL = "SELECT id, name FROM customers WHERE plan = 'enterprise' ORDER BY id LIMIT 5";

// validate_code then execute_code; resolves { ok, text } of the first that fails, or { ok }.
async function round(c) {
  try {
    return await roundTrip(c);
  } catch (e) {
    return { ok: false, kind: "connection", text: e.message };
  }
}

async function roundTrip(c) {
  const v = await c.send("validate_code", { code: SQL });
  const vr = v.msg?.result;
  if (!vr || vr.isError || !vr.structuredContent?.approval_token)
    return { ok: false, kind: "validate_code", text: JSON.stringify(v.msg ?? v.body) };
  const e = await c.send("execute_code", { code: SQL, approval_token: vr.structuredContent.approval_token });
  const er = e.msg?.result;
  if (!er || er.isError) return { ok: false, kind: "execute_code", text: JSON.stringify(e.msg ?? e.body) };
  return { ok: true };
}

test("a full disk under the audit log: calls refuse, the chain holds, a restart recovers", async () => {
  const work = workDir();
  let srv = await startServer(work, config(), { prefix: ["prlimit", `--fsize=${LIMIT_BYTES}:unlimited`] });
  try {
    const c = new McpClient(srv.url);
    await c.open();
    let failed = null, rounds = 0;
    for (; rounds < MAX_ROUNDS && !failed; rounds++) {
      const r = await round(c);
      if (!r.ok) failed = r;
    }
    assert.ok(failed, `no call failed in ${MAX_ROUNDS} rounds: the limit did not bite`);
    const alive = await srv.get("/healthz").then(() => true, () => false);
    if (!alive) await srv.exited;
    assert.ok(alive, `the server died (${srv.proc.signalCode ?? srv.proc.exitCode}):\n${srv.log()}`);
    assert.match(failed.text, /audit/i, `the failing call must say the audit log is the cause: ${failed.text}`);
    // Fail closed: nothing more runs or is approved while the trail cannot be written.
    const again = await round(c);
    assert.equal(again.ok, false, "a call ran after the audit log could not be written");
    assert.match(again.text, /audit log/i);
    assert.equal((await srv.get("/readyz")).status, 503, "/readyz must report the broken audit log");
    const size = statSync(work.file("audit.jsonl")).size;
    assert.ok(size <= LIMIT_BYTES, `audit log is ${size} bytes, past the ${LIMIT_BYTES} limit`);
    const before = verifyAudit(work);
    // The failed write's partial line is cut off at once: the log on disk is a clean chain.
    assert.ok(before.ok, `chain not clean after the failed write: ${before.out}`);
    const kept = auditRecords(work).length;
    console.log(`audit full: rounds ${rounds}, failed at ${failed.kind}: ${failed.text.slice(0, 200)}`);
    console.log(`audit full: ${kept} records, ${size} bytes; verify: ${before.out.trim()}`);

    // Space returns: lift the limit, restart (a graceful stop), and carry on.
    execFileSync("prlimit", ["--pid", String(srv.proc.pid), "--fsize=unlimited:unlimited"]);
    assert.deepEqual(await stopServer(srv), { code: 0, signal: null }, srv.log());
    srv = await startServer(work, config());
    const c2 = new McpClient(srv.url);
    await c2.open();
    const r = await round(c2);
    assert.ok(r.ok, `after space returned: ${r.text}`);
    const after = verifyAudit(work);
    assert.ok(after.ok, `the chain does not verify after recovery: ${after.out}`);
    assert.ok(auditRecords(work).length >= kept + 2, "the new records continue the log");
  } finally {
    await stopServer(srv);
    work.remove();
  }
});
