// policy.test.mjs — seed 000's four Cedar policies, verbatim, enforced on validate_code and
// execute_code for three API-key users routed by group (see ctest_policy.sh).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { apiKeyUsers, work, startHttp, connectHttp, validate, execute, errorText } from "./codemode_harness.mjs";

const src = process.env.SLUICE_SOURCE_DIR;
const users = { alice: "StandardUsers", pat: "PowerUsers", ada: "Admins" };
let server;
const clients = {};

before(async () => {
  const keys = apiKeyUsers(users);
  const file = path.join(work, "policy.toml");
  writeFileSync(file, `
[server]
name = "cost-coach"
${keys}
[database]
engine = "duckdb"
path = "budget.duckdb"
[code_mode]
enabled = true
server_id = "cost-coach"
token_secret_file = "token.key"
auto_approve_levels = ["low", "medium", "high", "critical"]
blocked_fields = ["ssn", "email"]
[policy]
backend = "cedar"
policies = "${src}/examples/policies/seed000.cedar"
entities = "${src}/examples/policies/seed000.entities.json"
[[policy.servers]]
id = "cost-coach:administrator"
groups = ["Admins"]
allow_writes = true
allow_admin = true
[[policy.servers]]
id = "cost-coach:power-user"
groups = ["PowerUsers"]
allow_writes = true
allowed_operations = ["update_budget_note"]
max_rows = 500
`);
  server = await startHttp(file);
  for (const user of Object.keys(users)) clients[user] = (await connectHttp(server, user)).client;
});

after(async () => {
  for (const c of Object.values(clients)) await c.close();
  server?.stop();
});

const rules = (v) => v.violations.map((x) => x.rule);

async function run(user, code) {
  const v = await validate(clients[user], code);
  assert.equal(v.valid, true, `${user}: ${JSON.stringify(v.violations)}`);
  const r = await execute(clients[user], code, v.approval_token);
  assert.ok(!r.isError, errorText(r));
  return r.structuredContent;
}

test("startup warns nothing about a missing backend when cedar is configured", () => {
  assert.doesNotMatch(server.log(), /no policy backend/);
});

test("a standard user can read but not write", async () => {
  const r = await run("alice", "SELECT name FROM customers ORDER BY id LIMIT 2");
  assert.equal(r.row_count, 2);
  const v = await validate(clients.alice, "UPDATE budget_note SET note = 'a' WHERE id = 1");
  assert.equal(v.valid, false);
  assert.ok(rules(v).includes("policy"), JSON.stringify(v.violations));
  assert.equal(v.approval_token, null);
  assert.equal(v.policy.route, "cost-coach");
});

test("a power user writes only through the allowed operation", async () => {
  const r = await run("pat", "UPDATE budget_note SET note = 'pat was here' WHERE id = 2");
  assert.equal(r.row_count >= 0, true);
  const check = await run("pat", "SELECT note FROM budget_note WHERE id = 2");
  assert.equal(check.rows[0][0], "pat was here");
  const v = await validate(clients.pat, "UPDATE customers SET name = 'x' WHERE id = 1");
  assert.equal(v.valid, false);
  assert.ok(rules(v).includes("policy"), JSON.stringify(v.violations));
  assert.match(v.violations.find((x) => x.rule === "policy").message, /cost-coach:power-user/);
  const d = await validate(clients.pat, "DELETE FROM budget_note WHERE id = 3");
  assert.equal(d.valid, false);
});

test("an admin can run Admin actions; others cannot", async () => {
  await run("ada", "CREATE TABLE IF NOT EXISTS ada_scratch (a INTEGER)");
  for (const user of ["alice", "pat"]) {
    const v = await validate(clients[user], "CREATE TABLE other_scratch (a INTEGER)");
    assert.equal(v.valid, false);
    assert.ok(rules(v).includes("policy"), `${user}: ${JSON.stringify(v.violations)}`);
  }
});

test("the blocked-output-fields forbid holds for everyone", async () => {
  for (const user of Object.keys(users)) {
    const v = await validate(clients[user], "SELECT email FROM customers LIMIT 1");
    assert.equal(v.valid, false);
    const p = v.violations.find((x) => x.rule === "policy");
    assert.ok(p, `${user}: ${JSON.stringify(v.violations)}`);
    assert.match(p.message, /forbids/);
  }
});

test("a token minted for one user fails for another", async () => {
  const code = "SELECT COUNT(*) FROM orders";
  const v = await validate(clients.alice, code);
  assert.equal(v.valid, true);
  const r = await execute(clients.pat, code, v.approval_token);
  assert.equal(r.isError, true);
  const ok = await execute(clients.alice, code, v.approval_token);
  assert.ok(!ok.isError, errorText(ok));
});

test("code-mode://policies summarises what this caller may do", async () => {
  const text = async (user) =>
    (await clients[user].readResource({ uri: "code-mode://policies" })).contents[0].text;
  const pat = await text("pat");
  assert.match(pat, /cost-coach:power-user/);
  assert.match(pat, /write through operation `update_budget_note`: permitted/);
  assert.match(pat, /admin: not permitted/);
  const ada = await text("ada");
  assert.match(ada, /admin: permitted/);
  const alice = await text("alice");
  assert.match(alice, /read: permitted/);
  assert.match(alice, /write: not permitted/);
  assert.match(alice, /Forbids that apply to everyone/);
});
