// observe.test.mjs — the operator's view through the official SDK client: /metrics scraped and
// parsed (every metric present, and each one moving after the calls that should move it),
// /healthz and /readyz, the JSON request log on stderr (one line per request, its request id in
// the audit record), and the approval an administrator gives over HTTP.
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { connectHttp, errorText, execute, startHttp, validate, work, writeConfig } from "./codemode_harness.mjs";
import { freePort, raw } from "./harness.mjs";

const ADMIN_KEY = "observe-admin-key-0123456789";
process.env.SLUICE_E2E_ADMIN = ADMIN_KEY;
let server, conn, auditFile;

// Parses the Prometheus text format: {name: [{labels, value}]}, checking every line's shape.
export function parseMetrics(text) {
  const out = {};
  const types = {};
  for (const line of text.split("\n")) {
    if (line === "") continue;
    let m = line.match(/^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/);
    if (m) { if (m[1] === "TYPE") types[m[2]] = m[3]; continue; }
    m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+-]+|\+Inf|NaN)$/);
    assert.ok(m, `not a Prometheus sample line: ${line}`);
    const labels = {};
    if (m[2]) for (const l of m[2].matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    (out[m[1]] ??= []).push({ labels, value: Number(m[3]) });
  }
  return { samples: out, types };
}

const sum = (parsed, name, where = {}) => (parsed.samples[name] ?? [])
  .filter((s) => Object.entries(where).every(([k, v]) => s.labels[k] === v))
  .reduce((a, s) => a + s.value, 0);

async function scrape() {
  const r = await raw({ port: server.port, method: "GET", path: "/metrics" });
  assert.equal(r.status, 200);
  assert.match(r.headers["content-type"], /^text\/plain; version=0\.0\.4/);
  return parseMetrics(r.body);
}

before(async () => {
  const file = writeConfig("observe", { autoApprove: ["low"], extra: `
[query_mode]
enabled = true
spill_dir = "${work}"
[admin]
key_env = "SLUICE_E2E_ADMIN"
[[tools]]
name = "customer_names"
description = "Customer names from an id on."
statement = "SELECT id, name FROM customers WHERE id >= $from ORDER BY id LIMIT 5"
[[tools.parameters]]
name = "from"
type = "integer"
required = true
` });
  writeFileSync(file, readFileSync(file, "utf8").replace('name = "sluice-e2e"', 'name = "sluice-e2e"\nlog_format = "json"'));
  auditFile = `${work}/observe.audit.jsonl`;
  for (const f of ["", ".head", ".approvals", ".replay"]) rmSync(`${auditFile}${f}`, { force: true });
  server = await startHttp(file);
  conn = await connectHttp(server, "alice");
});

after(async () => { await conn?.close(); server?.stop(); });

test("healthz and readyz answer, readyz with its checks", async () => {
  const h = await raw({ port: server.port, method: "GET", path: "/healthz" });
  assert.equal(h.status, 200);
  assert.equal(JSON.parse(h.body).status, "ok");
  const r = await raw({ port: server.port, method: "GET", path: "/readyz" });
  assert.equal(r.status, 200, r.body);
  const body = JSON.parse(r.body);
  assert.equal(body.status, "ready");
  for (const check of ["backend", "keys", "audit"]) assert.equal(body.checks[check].ok, true, check);
});

test("every metric is present, and each moves after the calls that should move it", async () => {
  const before = await scrape();
  const names = ["sluice_requests_total", "sluice_request_duration_seconds",
    "sluice_validate_duration_seconds", "sluice_execute_duration_seconds", "sluice_denials_total",
    "sluice_approvals_total", "sluice_token_refusals_total", "sluice_engine_errors_total",
    "sluice_querymode_sessions_total", "sluice_querymode_sessions_open",
    "sluice_audit_records_total", "sluice_audit_fsync_duration_seconds",
    "sluice_bounded_processes_total"];
  for (const n of names) assert.ok(before.types[n], `no TYPE line for ${n}`);

  // a read that runs
  const v = await validate(conn.client, "SELECT id, name FROM customers ORDER BY id LIMIT 3");
  assert.equal(v.valid, true, JSON.stringify(v.violations));
  const r = await execute(conn.client, "SELECT id, name FROM customers ORDER BY id LIMIT 3", v.approval_token);
  assert.ok(!r.isError, errorText(r));
  // a blocked field: a denial
  const denied = await validate(conn.client, "SELECT ssn FROM customers");
  assert.equal(denied.valid, false);
  // a forged token: a token refusal
  const forged = await execute(conn.client, "SELECT 1", "sluice1.not-a-token");
  assert.equal(forged.isError, true);
  // a conversion that fails only while rows are read: an engine error
  const bad = "SELECT CAST(name AS INTEGER) AS n FROM customers LIMIT 5";
  const vb = await validate(conn.client, bad);
  assert.equal(vb.valid, true, JSON.stringify(vb.violations));
  const rb = await execute(conn.client, bad, vb.approval_token);
  assert.equal(rb.isError, true);
  // a write above the auto-approve level: an approval is asked for, an administrator approves
  const write = "UPDATE customers SET name = name WHERE id = 1";
  const vw = await validate(conn.client, write);
  const pending = await execute(conn.client, write, vw.approval_token);
  // (refused either for approval, or as a write the config does not allow: both are denials)
  assert.equal(pending.isError, true);
  // query mode: a scratch session
  const q = await conn.client.callTool({ name: "query", arguments: { sql: "SELECT 42 AS answer" } });
  assert.ok(!q.isError, errorText(q));

  // a builder (list) cannot be proven bounded: it runs in a capped child
  const vl = await validate(conn.client, "SELECT list(id) AS ids FROM customers");
  assert.equal(vl.valid, true, JSON.stringify(vl.violations));
  const rl = await execute(conn.client, "SELECT list(id) AS ids FROM customers", vl.approval_token);
  assert.ok(!rl.isError, errorText(rl));

  const now = await scrape();
  const moved = (name, where) => assert.ok(sum(now, name, where) > sum(before, name, where),
    `${name} ${JSON.stringify(where ?? {})} did not move: ${sum(before, name, where)} -> ${sum(now, name, where)}`);
  moved("sluice_requests_total", { method: "tools/call", tool: "execute_code", status: "ok" });
  moved("sluice_requests_total", { method: "tools/call", tool: "execute_code", status: "tool_error" });
  moved("sluice_requests_total", { method: "tools/call", tool: "validate_code", status: "ok" });
  moved("sluice_request_duration_seconds_count", { method: "tools/call" });
  moved("sluice_validate_duration_seconds_count", { language: "sql" });
  moved("sluice_execute_duration_seconds_count", { language: "sql" });
  moved("sluice_denials_total");
  moved("sluice_token_refusals_total");
  moved("sluice_engine_errors_total", { status: "engine" });
  moved("sluice_querymode_sessions_total");
  moved("sluice_audit_records_total");
  moved("sluice_audit_fsync_duration_seconds_count");
  moved("sluice_bounded_processes_total");
  // a curated tool proven bounded at start-up starts no capped child, call after call
  const forks = sum(now, "sluice_bounded_processes_total");
  for (const from of [1, 2, 3]) {
    const t = await conn.client.callTool({ name: "customer_names", arguments: { from } });
    assert.ok(!t.isError, errorText(t));
    assert.equal(t.structuredContent.rows[0][0] ?? t.structuredContent.rows[0].id, from);
  }
  assert.equal(sum(await scrape(), "sluice_bounded_processes_total"), forks);
  assert.ok(sum(now, "sluice_querymode_sessions_open") >= 1);
  // histogram buckets are cumulative and end at the count
  const buckets = now.samples.sluice_validate_duration_seconds_bucket.filter((s) => s.labels.language === "sql");
  for (let i = 1; i < buckets.length; i++) assert.ok(buckets[i].value >= buckets[i - 1].value);
  assert.equal(buckets.at(-1).labels.le, "+Inf");
  assert.equal(buckets.at(-1).value, sum(now, "sluice_validate_duration_seconds_count", { language: "sql" }));
  // a tool name a client invents is not a label
  await conn.client.callTool({ name: "no_such_tool_" + "x".repeat(40), arguments: {} }).catch(() => {});
  const after = await scrape();
  assert.ok(!JSON.stringify(after.samples).includes("no_such_tool_"), "a client's tool name became a label");
  moved.call(null, "sluice_requests_total", { tool: "validate_code" });
});

test("an administrator's approval over HTTP moves the approvals counters, and the execute runs", async () => {
  const before = await scrape();
  const code = "SELECT id, name FROM customers ORDER BY id"; // no LIMIT: medium risk
  const v = await validate(conn.client, code);
  assert.equal(v.valid, true, JSON.stringify(v.violations));
  assert.notEqual(v.risk_level, "low", "the test needs a query above the auto-approve level");
  const first = await execute(conn.client, code, v.approval_token);
  assert.equal(first.isError, true);
  const id = errorText(first).match(/approval request ([0-9a-f]{32})/)?.[1];
  assert.ok(id, errorText(first));
  const list = await raw({ port: server.port, method: "GET", path: "/admin/api/approvals",
                           headers: { Authorization: `Bearer ${ADMIN_KEY}` } });
  assert.equal(list.status, 200, list.body);
  const item = JSON.parse(list.body).pending.find((p) => p.id === id);
  assert.ok(item, list.body);
  assert.equal(item.code, code);
  assert.equal(item.user, "alice");
  const noKey = await raw({ port: server.port, method: "GET", path: "/admin/api/approvals" });
  assert.equal(noKey.status, 401);
  const ok = await raw({ port: server.port, method: "POST", path: `/admin/approvals/${id}`,
    headers: { Authorization: `Bearer ${ADMIN_KEY}`, "Content-Type": "application/json" },
    body: JSON.stringify({ decision: "approve", as: "it-admin" }) });
  assert.equal(ok.status, 200, ok.body);
  const second = await execute(conn.client, code, v.approval_token);
  assert.ok(!second.isError, errorText(second));
  const now = await scrape();
  assert.equal(sum(now, "sluice_approvals_total", { outcome: "requested" }) - sum(before, "sluice_approvals_total", { outcome: "requested" }), 1);
  assert.equal(sum(now, "sluice_approvals_total", { outcome: "approved" }) - sum(before, "sluice_approvals_total", { outcome: "approved" }), 1);
});

test("stderr has one JSON line per request, and its request id is in the audit record", async () => {
  const lines = server.log().split("\n").filter((l) => l.trim() !== "");
  const parsed = lines.map((l) => { try { return JSON.parse(l); } catch { assert.fail(`not a JSON log line: ${l}`); } });
  for (const p of parsed) { assert.ok(p.time && p.level && p.msg, JSON.stringify(p)); assert.ok(!Number.isNaN(Date.parse(p.time))); }
  const requests = parsed.filter((p) => p.msg === "request");
  const executed = requests.filter((p) => p.tool === "execute_code" && p.decision === "executed");
  assert.ok(executed.length >= 2, JSON.stringify(requests.slice(0, 5)));
  for (const p of executed) {
    assert.equal(p.method, "tools/call");
    assert.equal(p.principal, "alice");
    assert.match(p.session, /^[0-9a-f]{64}$/);
    assert.equal(p.status, "ok");
    assert.equal(typeof p.duration_ms, "number");
    assert.ok(Number.isInteger(p.rows));
  }
  const ids = new Set(requests.map((p) => p.request_id));
  assert.equal(ids.size, requests.length, "request ids repeat");
  const audit = readFileSync(auditFile, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const runs = audit.filter((a) => a.event === "execute" && a.decision === "executed");
  assert.ok(runs.length >= 2);
  for (const a of runs) {
    const line = requests.find((p) => p.request_id === a.request_id);
    assert.ok(line, `audit record ${a.seq} has request id ${a.request_id}, which no log line has`);
    assert.equal(line.rows, a.rows);
  }
});

test("[admin] listen moves /metrics, the probes and the console off the MCP listener", async () => {
  const adminPort = await freePort();
  const file = writeConfig("observe-admin", { extra: `
[admin]
key_env = "SLUICE_E2E_ADMIN"
listen = "127.0.0.1:${adminPort}"
` });
  const other = await startHttp(file);
  try {
    for (const p of ["/metrics", "/healthz", "/readyz", "/admin/"]) {
      const a = await raw({ port: adminPort, method: "GET", path: p });
      assert.equal(a.status, 200, `${p} on the admin listener: ${a.status}`);
      const m = await raw({ port: other.port, method: "GET", path: p });
      assert.equal(m.status, 404, `${p} still on the MCP listener`);
    }
    const mcp = await raw({ port: adminPort, method: "POST", path: "/mcp", headers: { "Content-Type": "application/json" }, body: "{}" });
    assert.equal(mcp.status, 404, "the admin listener must not serve MCP");
    const decide = await raw({ port: other.port, method: "POST", path: `/admin/approvals/${"0".repeat(32)}`,
      headers: { Authorization: `Bearer ${ADMIN_KEY}`, "Content-Type": "application/json" }, body: '{"decision":"approve"}' });
    assert.equal(decide.status, 404, "the approval endpoint is on the admin listener only");
  } finally { other.stop(); }
});

test("a wrong admin key is rate limited: after ten in a minute even the right key waits", async () => {
  // (the earlier test's request without a key was one failure already)
  // One check and one count for everything under /admin/: wrong keys sent to the console's GET
  // API, to the approval endpoint and to a POST path that does not exist (checked before it is
  // routed, so it answers 401, not 404) all spend the same ten.
  const wrong = { Authorization: "Bearer wrong-key-0123456789" };
  const tries = [
    { method: "GET", path: "/admin/api/summary", headers: wrong },
    { method: "POST", path: `/admin/approvals/${"0".repeat(32)}`, headers: { ...wrong, "Content-Type": "application/json" }, body: "{}" },
    { method: "POST", path: "/admin/api/no-such-route", headers: { "Content-Type": "application/json" }, body: "{}" },
  ];
  const seen = [];
  for (let i = 0; i < 11 && seen.at(-1) !== 429; i++)
    seen.push((await raw({ port: server.port, ...tries[i % tries.length] })).status);
  assert.deepEqual(seen, [...Array(9).fill(401), 429]);
  for (const t of tries) {
    const r = await raw({ port: server.port, ...t, headers: { ...t.headers, Authorization: `Bearer ${ADMIN_KEY}` } });
    assert.equal(r.status, 429, `${t.method} ${t.path} with the right key inside the window`);
    assert.match(r.body, /limit is 10 per 60 s/, "the 429 names the limit's value");
  }
});
