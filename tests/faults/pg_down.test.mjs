// pg_down.test.mjs — PostgreSQL stopped under a running sluice (run by ctest_pg_down.sh, which
// made the cluster): an execute_code of a long query (a three-way cross join) is running when the
// cluster is stopped (pg_ctl stop -m fast: backends terminated); that call must end at once with
// a clear error, audited as failed; calls while the database is down fail clearly and fast (no
// hang); once the cluster is started again calls run again without restarting sluice. The
// server stays up throughout, exits 0 on SIGTERM, and the audit chain verifies.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";

import { McpClient, auditRecords, config, sleep, startServer, stopServer, verifyAudit, workDir } from "./lib.mjs";

const { FAULTS_PG_BIN: PG_BIN, FAULTS_PG_DATA: PG_DATA, FAULTS_PG_PORT: PG_PORT, FAULTS_PG_CONNINFO: CONNINFO } = process.env;
if (!CONNINFO) throw new Error("run through ctest_pg_down.sh");
const SLOW = "SELECT count(*) AS n FROM orders a, orders b, orders c";
const QUICK = "SELECT id, name FROM customers ORDER BY id LIMIT 3";
const END_BOUND_MS = 8000; // a terminated backend ends the call well before the 30 s timeout

// pg_ctl as the cluster's owner (the postgres user when the tests run as root).
function pgctl(...args) {
  const cmd = [`${PG_BIN}/pg_ctl`, "-D", PG_DATA, ...args];
  const argv = process.getuid() === 0 ? ["runuser", "-u", "postgres", "--", ...cmd] : cmd;
  execFileSync(argv[0], argv.slice(1), { stdio: "ignore" });
}
const pgStart = () => pgctl("-l", `${PG_DATA}/server.log`, "-w", "-o",
  `-c listen_addresses='' -k ${PG_DATA} -p ${PG_PORT} -c fsync=off`, "start");

async function run(c, code, opts) {
  const v = await c.call("validate_code", { code });
  assert.ok(v.structuredContent.approval_token, JSON.stringify(v.structuredContent));
  return c.send("execute_code", { code, approval_token: v.structuredContent.approval_token }, opts);
}
const errorOf = (r) => (r.msg?.result?.isError ? r.msg.result.content[0].text : null);

test("PostgreSQL stopped mid-query, down, and back", async () => {
  const work = workDir();
  // the three-way cross join is a very expensive plan by PostgreSQL's estimate (high risk,
  // docs/risk.md): this test is about the engine going away, so the route auto-approves it
  const toml = config().replace(/^auto_approve_levels = .*$/m, 'auto_approve_levels = ["low", "medium", "high"]')
    .replace(/\[database\][^[]*/, `[database]\nengine = "postgres"\nconninfo = "${CONNINFO}"\n\n`)
    .replace(/^\[\[tools\]\][\s\S]*$/m, "");
  const srv = await startServer(work, toml);
  try {
    const c = new McpClient(srv.url);
    await c.open();
    assert.equal(errorOf(await run(c, QUICK)), null, "a query runs while PostgreSQL is up");

    // Mid-query: stop the cluster one second into a long execution.
    const seen = auditRecords(work).length;
    const t0 = Date.now();
    const pending = run(c, SLOW);
    await sleep(1500);
    pgctl("-m", "fast", "-w", "stop");
    const mid = await pending;
    const took = Date.now() - t0;
    const midError = errorOf(mid);
    assert.ok(midError, `the interrupted query did not fail: ${JSON.stringify(mid.msg)}`);
    assert.ok(took < END_BOUND_MS, `the interrupted call took ${took} ms`);
    const rec = auditRecords(work).slice(seen).find((r) => r.event === "execute");
    assert.equal(rec?.decision, "failed", "the interrupted execution is audited as failed");
    assert.equal(rec.error, midError);
    console.log(`mid-query: failed after ${took} ms: ${midError}`);

    // Down: calls fail clearly and at once.
    const t1 = Date.now();
    let downError;
    try {
      downError = errorOf(await run(c, QUICK));
    } catch (e) {
      downError = `validate: ${e.message}`;
    }
    assert.ok(downError, "a query ran while PostgreSQL was down");
    assert.match(downError, /postgres|connect|server|database/i, downError);
    assert.ok(Date.now() - t1 < END_BOUND_MS, `a call while down took ${Date.now() - t1} ms`);
    console.log(`down: ${downError}`);
    assert.equal((await srv.get("/healthz")).status, 200, "sluice itself stays up");

    // Back: the same server runs queries again.
    pgStart();
    const back = await run(c, QUICK);
    assert.equal(errorOf(back), null, `after PostgreSQL came back: ${errorOf(back)}`);
    assert.equal(back.msg.result.structuredContent.rows.length, 3);
    await c.close();
  } finally {
    assert.deepEqual(await stopServer(srv), { code: 0, signal: null }, srv.log());
    const ok = verifyAudit(work);
    work.remove();
    assert.ok(ok.ok, ok.out);
  }
});
