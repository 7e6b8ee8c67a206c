// quota.test.mjs — quotas per caller (issue 24, item 3) through the official SDK client: two
// `sluice serve --http` replicas share their counters in a real redis-server this test starts.
// alice's validate_code calls are counted across both replicas and her fourth is refused with
// the quota, its limit, her usage and the reset time (text for the model, _meta
// "io.sluice/quota" for the client); bob is not refused; rows returned today count too, an
// execution is capped to the rows left, and then refused; /metrics counts the refusals and the
// admin console lists usage per principal. Reset at the window's end: quota_reset.test.mjs (a
// served clock moved through a file), tests/unit/test_quota.c and test_codemode_clock.c.
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

async function startRedis() {
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
  return sock;
}

function replicaConfig(name, sock) {
  process.env.SLUICE_E2E_QUOTA_ADMIN = ADMIN_KEY;
  return writeConfig(name, { extra: `
[state]
redis_url = "unix:${sock}"
redis_password_file = "quota-redis.pw"
redis_prefix = "quota-e2e-${process.pid}:"
[admin]
key_env = "SLUICE_E2E_QUOTA_ADMIN"
[quotas]
validate_per_day = 3
rows_per_day = 5
` });
}

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
