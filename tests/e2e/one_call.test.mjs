// one_call.test.mjs — validate_code {"execute": true}: an auto-approved program runs in the same
// call, its token minted, consumed once and audited as a separate execute_code would; above the
// auto-approve level, or on a route where it is off, nothing runs (see ctest_one_call.sh).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { apiKeyUsers, work, startHttp, connectHttp, execute, errorText } from "./codemode_harness.mjs";

const users = { alice: "Analysts", bob: "Quiet" };
const auditFile = path.join(work, "one-call.audit.jsonl");
const records = () => readFileSync(auditFile, "utf8").split("\n").filter((l) => l).map((l) => JSON.parse(l));
let server;
const clients = {};

before(async () => {
  const file = path.join(work, "one-call.toml");
  writeFileSync(file, `
[server]
name = "one-call"
${apiKeyUsers(users)}
[database]
engine = "duckdb"
path = "budget.duckdb"
[code_mode]
enabled = true
server_id = "one-call"
token_secret_file = "token.key"
auto_approve_levels = ["low"]
sql_allow_writes = true
blocked_fields = ["ssn", "email"]
audit_log = "one-call.audit.jsonl"
execute_on_validate = true
[policy]
backend = "none"
[[policy.servers]]
id = "one-call:quiet"
groups = ["Quiet"]
execute_on_validate = false
`);
  server = await startHttp(file);
  for (const user of Object.keys(users)) clients[user] = (await connectHttp(server, user)).client;
});

after(async () => {
  for (const c of Object.values(clients)) await c.close();
  server?.stop();
});

const call = (user, args) => clients[user].callTool({ name: "validate_code", arguments: args });
const READ = "SELECT id, note FROM budget_note ORDER BY id LIMIT 3";
// The audit records of one principal since `from`, without the chain's own fields.
const since = (from) => records().slice(from).map(({ seq, ts, prev, ...rest }) => rest);

test("validate_code offers execute, and may now run what it approves", async () => {
  const { tools } = await clients.alice.listTools();
  const v = tools.find((t) => t.name === "validate_code");
  assert.equal(v.inputSchema.properties.execute.type, "boolean");
  assert.equal(v.annotations.readOnlyHint, false);
});

test("one call: the validation and the result, audited as validate + execute", async () => {
  const from = records().length;
  const r = await call("alice", { code: READ, execute: true });
  assert.ok(!r.isError, errorText(r));
  const s = r.structuredContent;
  assert.equal(s.valid, true);
  assert.equal(s.auto_approved, true);
  assert.equal(s.action, "read");
  assert.equal(s.risk_level, "low");
  assert.ok(s.explanation.length > 10);
  assert.deepEqual(s.result.rows, [[1, "note 1"], [2, "note 2"], [3, "note 3"]]);
  assert.equal(r.content.length, 2);
  assert.match(r.content[1].text, /note 2/);
  const one = since(from);
  assert.deepEqual(one.map((e) => e.event), ["validate", "execute"], JSON.stringify(one));
  assert.equal(one[1].decision, "executed");
  assert.equal(one[1].user, "alice");

  // The same statement in two calls leaves records of the same kinds with the same fields.
  const from2 = records().length;
  const v = await call("alice", { code: READ });
  const e = await execute(clients.alice, READ, v.structuredContent.approval_token);
  assert.ok(!e.isError, errorText(e));
  const two = since(from2);
  assert.deepEqual(two.map((x) => x.event), ["validate", "execute"]);
  for (let i = 0; i < 2; i++)
    assert.deepEqual(Object.keys(one[i]).sort(), Object.keys(two[i]).sort(), `record ${i}`);
  const strip = ({ token_id, elapsed_ms, request_id, ...rest }) => rest;
  assert.deepEqual(strip(one[1]), strip(two[1]));
});

test("the token it minted was consumed: replaying it through execute_code is refused", async () => {
  const r = await call("alice", { code: READ, execute: true });
  assert.ok(!r.isError, errorText(r));
  const from = records().length;
  const again = await execute(clients.alice, READ, r.structuredContent.approval_token);
  assert.equal(again.isError, true);
  assert.match(errorText(again), /already used/);
  const denied = since(from);
  assert.equal(denied.at(-1).reason, "replayed", JSON.stringify(denied));
});

test("a write above the auto-approve level is answered as today, and does not run", async () => {
  const write = "UPDATE budget_note SET note = 'one-call wrote this' WHERE id = 1";
  const from = records().length;
  const r = await call("alice", { code: write, execute: true });
  assert.ok(!r.isError, errorText(r));
  const s = r.structuredContent;
  assert.equal(s.valid, true);
  assert.equal(s.auto_approved, false);
  assert.equal(s.result, undefined);
  assert.ok(s.approval_token);
  assert.ok(s.warnings.some((w) => /not run: .*above the auto-approve levels/.test(w)), JSON.stringify(s.warnings));
  assert.deepEqual(since(from).map((e) => e.event), ["validate"]);
  const check = await call("alice", { code: "SELECT note FROM budget_note WHERE id = 1 LIMIT 1", execute: true });
  assert.deepEqual(check.structuredContent.result?.rows, [["note 1"]], JSON.stringify(check.structuredContent));
});

test("on a route where it is off, nothing runs and the token still works once", async () => {
  const from = records().length;
  const r = await call("bob", { code: READ, execute: true });
  assert.ok(!r.isError, errorText(r));
  const s = r.structuredContent;
  assert.equal(s.valid, true);
  assert.equal(s.result, undefined);
  assert.ok(s.warnings.some((w) => /execute_on_validate is off for your route 'one-call:quiet'/.test(w)),
            JSON.stringify(s.warnings));
  assert.deepEqual(since(from).map((e) => e.event), ["validate"]);
  const e = await execute(clients.bob, READ, s.approval_token);
  assert.ok(!e.isError, errorText(e));
  const again = await execute(clients.bob, READ, s.approval_token);
  assert.equal(again.isError, true);
});

test("refused code is not run, and says why in its violations", async () => {
  const from = records().length;
  const r = await call("alice", { code: "SELECT ssn FROM customers LIMIT 1", execute: true });
  assert.ok(!r.isError, errorText(r));
  assert.equal(r.structuredContent.valid, false);
  assert.equal(r.structuredContent.result, undefined);
  assert.equal(r.structuredContent.approval_token, null);
  assert.deepEqual(since(from).map((e) => e.event).filter((e) => e === "execute"), []);
});

test("dry_run with execute, or execute that is not a boolean, is a clear error", async () => {
  const both = await call("alice", { code: READ, execute: true, dry_run: true });
  assert.equal(both.isError, true);
  assert.match(errorText(both), /dry_run and execute/);
  const bad = await call("alice", { code: READ, execute: "yes" });
  assert.equal(bad.isError, true);
  assert.match(errorText(bad), /execute/);
});

test("another principal's token is not run by execute:true (it mints its own)", async () => {
  // execute:true never takes a token from the client: the one it runs is the one just minted.
  const r = await call("bob", { code: READ, execute: true, approval_token: "x" });
  assert.equal(r.isError, true);
  assert.match(errorText(r), /approval_token/);
});
