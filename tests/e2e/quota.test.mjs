// quota.test.mjs — quotas per caller (issue 24, item 3) through the official SDK client: two
// `sluice serve --http` replicas share their counters in a real redis-server this test starts.
// alice's validate_code calls are counted across both replicas and her fourth is refused with
// the quota, its limit, her usage and the reset time (text for the model, _meta
// "io.sluice/quota" for the client); bob is not refused; rows returned today count too, an
// execution is capped to the rows left, and then refused; /metrics counts the refusals and the
// admin console lists usage per principal. Then both replicas on one `--test-clock FILE`: a
// per-minute and a per-day quota reached through replica A are refused by replica B too, and
// both admit again once the file's clock passes the reset (no sleeps). One replica alone:
// quota_reset.test.mjs; the windows: tests/unit/test_quota.c and test_codemode_clock.c.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { writeConfig, startHttp, connectHttp, validate, execute, errorText, work } from "./codemode_harness.mjs";
import { raw } from "./harness.mjs";

const REDIS_PW = "quota-redis-pw-5d1e";
const ADMIN_KEY = "quota-admin-key-0123456789abcdef";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const procs = [];
after(() => { for (const p of procs) p.kill("SIGKILL"); });

let redisSock = null;
async function startRedis() {
  if (redisSock) return redisSock;
  const dir = path.join(work, "quota-redis");
  mkdirSync(dir, { recursive: true });
  const sock = path.join(dir, "redis.sock");
  const redis = spawn("redis-server", ["--port", "0", "--unixsocket", sock, "--unixsocketperm", "700",
                                       "--dir", dir, "--save", "", "--appendonly", "no",
                                       "--requirepass", REDIS_PW], { stdio: "ignore" });
  procs.push(redis);
  for (let i = 0; i < 100 && !existsSync(sock); i++) await sleep(50);
  assert.ok(existsSync(sock), "redis-server did not start");
  writeFileSync(path.join(work, "quota-redis.pw"), REDIS_PW + "\n", { mode: 0o600 });
  redisSock = sock;
  return sock;
}

// A replica's config: the shared Redis under prefix (one per test, so tests do not share
// counters), the admin key, and the [quotas] body.
function replicaConfig(name, sock, { prefix = "quota-e2e", quotas = "validate_per_day = 3\nrows_per_day = 5" } = {}) {
  process.env.SLUICE_E2E_QUOTA_ADMIN = ADMIN_KEY;
  return writeConfig(name, { extra: `
[state]
redis_url = "unix:${sock}"
redis_password_file = "quota-redis.pw"
redis_prefix = "${prefix}-${process.pid}:"
[admin]
key_env = "SLUICE_E2E_QUOTA_ADMIN"
[quotas]
${quotas}
` });
}

const metricsOf = async (server) => (await raw({ port: server.port, method: "GET", path: "/metrics" })).body;
const usageOf = async (server) => {
  const r = await raw({ port: server.port, method: "GET", path: "/admin/api/quotas",
                        headers: { Authorization: `Bearer ${ADMIN_KEY}` } });
  assert.equal(r.status, 200, r.body);
  return JSON.parse(r.body).usage;
};

const quotaMeta = (r) => r._meta?.["io.sluice/quota"];

test("replicas share quota counters; a caller over quota is refused with the reset time", async () => {
  const sock = await startRedis();
  const a = await startHttp(replicaConfig("quota-a", sock));
  const b = await startHttp(replicaConfig("quota-b", sock));
  procs.push(a.proc, b.proc);
  const aliceA = await connectHttp(a, "alice"), aliceB = await connectHttp(b, "alice");
  const bobB = await connectHttp(b, "bob");
  try {
    const sql = "SELECT name FROM customers ORDER BY id LIMIT 3";
    const v1 = await validate(aliceA.client, sql);
    assert.equal(v1.valid, true);
    await validate(aliceB.client, sql);
    await validate(aliceA.client, sql);
    // the fourth validate today, on either replica, is over validate_per_day = 3 (a day, not a
    // minute, so the test cannot straddle the end of its window)
    const refused = await aliceB.client.callTool({ name: "validate_code", arguments: { code: sql } });
    assert.equal(refused.isError, true);
    const text = errorText(refused);
    assert.match(text, /quota validate_per_day reached for 'alice' on route '[^']+': 3 of 3 validate_code calls today \(UTC\)/);
    assert.match(text, /resets at \d{4}-\d\d-\d\dT00:00:00Z \(in \d+ s\)/);
    const meta = quotaMeta(refused);
    assert.equal(meta.type, "quota_exceeded");
    assert.equal(meta.quota, "validate_per_day");
    assert.equal(meta.limit, 3);
    assert.equal(meta.used, 3);
    assert.ok(meta.retry_after_seconds >= 1 && meta.retry_after_seconds <= 86400, JSON.stringify(meta));
    const resets = Date.parse(meta.resets_at);
    assert.equal(resets % 86400000, 0, "a day window ends at midnight UTC");
    assert.ok(Math.abs(resets - Date.now() - meta.retry_after_seconds * 1000) < 3000, JSON.stringify(meta));
    // bob has his own counters
    const vb = await validate(bobB.client, sql);
    assert.equal(vb.valid, true);

    // rows_per_day = 5: 3 rows, then the next run is capped to the 2 left, then refused
    const e1 = await execute(aliceA.client, sql, v1.approval_token);
    assert.equal(e1.isError, undefined, errorText(e1));
    assert.equal(e1.structuredContent.row_count, 3);
    const e2 = await execute(bobB.client, sql, vb.approval_token);
    assert.equal(e2.structuredContent.row_count, 3, "bob's rows are his own");
    // alice's validate calls are used up today: bob goes on (his own rows: 3 of 5 used)
    const v3 = await validate(bobB.client, sql);
    const e3 = await execute(bobB.client, sql, v3.approval_token);
    assert.equal(e3.structuredContent.row_count, 2, "capped to the 2 rows left today");
    assert.equal(e3.structuredContent.truncated, true);
    const v4 = await validate(bobB.client, sql);
    const e4 = await execute(bobB.client, sql, v4.approval_token);
    assert.equal(e4.isError, true);
    assert.match(errorText(e4), /quota rows_per_day reached for 'bob'.*5 of 5 rows returned today \(UTC\)/);
    assert.equal(quotaMeta(e4).quota, "rows_per_day");
    assert.match(quotaMeta(e4).resets_at, /T00:00:00Z$/);

    // /metrics counts refusals and usage
    const metrics = (await raw({ port: a.port, method: "GET", path: "/metrics" })).body;
    assert.match(metrics, /sluice_quota_usage_total\{measure="validate_calls",route="[^"]+"\} \d+/);
    const mb = (await raw({ port: b.port, method: "GET", path: "/metrics" })).body;
    assert.match(mb, /sluice_quota_refusals_total\{quota="validate_per_day",route="[^"]+"\} 1/);
    assert.match(mb, /sluice_quota_refusals_total\{quota="rows_per_day",route="[^"]+"\} 1/);

    // the console's usage page, from either replica (the counters are in Redis)
    const usage = await raw({ port: a.port, method: "GET", path: "/admin/api/quotas",
                              headers: { Authorization: `Bearer ${ADMIN_KEY}` } });
    assert.equal(usage.status, 200, usage.body);
    const rows = JSON.parse(usage.body).usage;
    const find = (who, q) => rows.find((r) => r.principal === who && r.quota === q);
    assert.equal(find("alice", "validate_per_day").used, 3);
    assert.equal(find("alice", "validate_per_day").limit, 3);
    assert.equal(find("bob", "rows_per_day").used, 5);
    const denied = await raw({ port: a.port, method: "GET", path: "/admin/api/quotas" });
    assert.equal(denied.status, 401);
  } finally {
    await aliceA.close(); await aliceB.close(); await bobB.close();
    a.stop(); b.stop();
  }
});

test("replicas on one test clock: per-minute and per-day quotas reached on A are refused on B, and reset for both", async () => {
  const sock = await startRedis();
  const clockFile = path.join(work, "quota-replicas-clock.ms");
  const setClock = (ms) => writeFileSync(clockFile, `${ms}\n`, { mode: 0o600 });
  // 2026-12-06T12:00:30Z: the minute resets in 30 s, the day in 11 h 59 min 30 s
  const T0 = Date.UTC(2026, 11, 6, 12, 0, 30), MINUTE_END = T0 + 30000, DAY_END = Date.UTC(2026, 11, 7);
  setClock(T0);
  const opts = { prefix: "quota-clock", quotas: "validate_per_minute = 2\nexecute_per_day = 3" };
  const args = ["--test-clock", clockFile];
  const a = await startHttp(replicaConfig("quota-clock-a", sock, opts), { args });
  const b = await startHttp(replicaConfig("quota-clock-b", sock, opts), { args });
  procs.push(a.proc, b.proc);
  const aliceA = await connectHttp(a, "alice"), aliceB = await connectHttp(b, "alice");
  const sql = "SELECT name FROM customers ORDER BY id LIMIT 2";
  const validateOn = (c) => c.client.callTool({ name: "validate_code", arguments: { code: sql } });
  const token = (r) => { assert.equal(r.isError, undefined, errorText(r)); return r.structuredContent.approval_token; };
  try {
    // validate_per_minute = 2, both used on A: B refuses the third, and A too
    const t1 = token(await validateOn(aliceA)), t2 = token(await validateOn(aliceA));
    const onB = await validateOn(aliceB);
    assert.equal(onB.isError, true);
    assert.match(errorText(onB), /quota validate_per_minute reached for 'alice' on route '[^']+': 2 of 2 validate_code calls this minute; it resets at 2026-12-06T12:01:00Z \(in 30 s\)/);
    assert.deepEqual({ ...quotaMeta(onB), route: "-" },
                     { type: "quota_exceeded", quota: "validate_per_minute", route: "-", limit: 2, used: 2,
                       resets_at: "2026-12-06T12:01:00Z", retry_after_seconds: 30 });
    const onA = await validateOn(aliceA);
    assert.equal(quotaMeta(onA)?.quota, "validate_per_minute", errorText(onA));
    // 1 ms before the minute ends, B still refuses, counting down
    setClock(MINUTE_END - 1);
    assert.match(errorText(await validateOn(aliceB)), /resets at 2026-12-06T12:01:00Z \(in 1 s\)/);

    // the minute has ended for both replicas: B admits two, then A refuses (until 12:02)
    setClock(MINUTE_END);
    const t3 = token(await validateOn(aliceB)), t4 = token(await validateOn(aliceB));
    const next = await validateOn(aliceA);
    assert.equal(quotaMeta(next)?.resets_at, "2026-12-06T12:02:00Z", errorText(next));
    assert.equal(quotaMeta(next).retry_after_seconds, 60);

    // execute_per_day = 3 (tokens run on the session that validated them): two on A, one on B;
    // the fourth is refused on B, and on A a minute later, until midnight
    for (const [c, t] of [[aliceA, t1], [aliceA, t2], [aliceB, t3]]) {
      const r = await execute(c.client, sql, t);
      assert.equal(r.isError, undefined, errorText(r));
    }
    const dayB = await execute(aliceB.client, sql, t4);
    assert.equal(dayB.isError, true);
    const untilMidnight = (DAY_END - MINUTE_END) / 1000;
    assert.match(errorText(dayB), new RegExp(`quota execute_per_day reached for 'alice' on route '[^']+': 3 of 3 execute_code calls today \\(UTC\\); it resets at 2026-12-07T00:00:00Z \\(in ${untilMidnight} s\\)\\. Nothing was run\\.`));
    assert.equal(quotaMeta(dayB).retry_after_seconds, untilMidnight);
    setClock(MINUTE_END + 60000);
    const t5 = token(await validateOn(aliceA));
    const dayA = await execute(aliceA.client, sql, t5);
    assert.equal(quotaMeta(dayA)?.quota, "execute_per_day", errorText(dayA));
    assert.equal(quotaMeta(dayA).resets_at, "2026-12-07T00:00:00Z");
    assert.equal(quotaMeta(dayA).retry_after_seconds, untilMidnight - 60);

    // both consoles show alice's usage from the shared counters, with the limit and reset
    for (const s of [a, b]) {
      const rows = await usageOf(s);
      const day = rows.find((r) => r.principal === "alice" && r.quota === "execute_per_day");
      assert.deepEqual([day.used, day.limit, day.resets_at], [3, 3, "2026-12-07T00:00:00Z"], JSON.stringify(rows));
      // only the current minute: Redis still holds the ended 12:00 and 12:01 windows, no usage now
      const minute = rows.filter((r) => r.principal === "alice" && r.quota === "validate_per_minute");
      assert.deepEqual(minute.map((r) => [r.used, r.resets_at]), [[1, "2026-12-06T12:03:00Z"]], JSON.stringify(rows));
    }
    // each replica counts the refusals it made (validate_per_minute: A 12:00:30 and 12:01:00, B
    // 12:00:30 and 12:00:59.999; execute_per_day: one each)
    assert.match(await metricsOf(a), /sluice_quota_refusals_total\{quota="validate_per_minute",route="[^"]+"\} 2\n/);
    assert.match(await metricsOf(a), /sluice_quota_refusals_total\{quota="execute_per_day",route="[^"]+"\} 1\n/);
    assert.match(await metricsOf(b), /sluice_quota_refusals_total\{quota="validate_per_minute",route="[^"]+"\} 2\n/);
    assert.match(await metricsOf(b), /sluice_quota_refusals_total\{quota="execute_per_day",route="[^"]+"\} 1\n/);

    // 1 ms before midnight still refused; at midnight both replicas run again (fresh tokens: the
    // old ones outlived their 300 s)
    setClock(DAY_END - 1);
    assert.equal(quotaMeta(await execute(aliceA.client, sql, t5))?.retry_after_seconds, 1);
    setClock(DAY_END);
    for (const c of [aliceB, aliceA]) {
      const r = await execute(c.client, sql, token(await validateOn(c)));
      assert.equal(r.isError, undefined, errorText(r));
      assert.equal(r.structuredContent.row_count, 2);
    }
  } finally {
    await aliceA.close(); await aliceB.close();
    a.stop(); b.stop();
  }
});
