// writes.test.mjs — changes on PostgreSQL under seed 000's four Cedar policies, verbatim (run by
// ctest_postgres.sh after pg_engine_check): API-key users alice (StandardUsers) and pat
// (PowerUsers) over HTTP; pat's route allows writes through update_budget_note, which runs as the
// write role of examples/postgres/write_role.sql. psql, as the admin, is the witness of what the
// server holds afterwards.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { apiKeyUsers, connectHttp, errorText, execute, startHttp, validate, work } from "../e2e/codemode_harness.mjs";
import { admin } from "./pg_admin.mjs";

const { SLUICE_PG_READ: READ, SLUICE_PG_WRITE: WRITE, SLUICE_PG_ADMIN: ADMIN, SLUICE_SOURCE_DIR: src } = process.env;
if (!READ || !WRITE || !ADMIN) throw new Error("run through ctest_postgres.sh");

const users = { alice: "StandardUsers", pat: "PowerUsers" };
let server;
const clients = {};

before(async () => {
  const keys = apiKeyUsers(users);
  const file = path.join(work, "pg-writes.toml");
  writeFileSync(file, `
[server]
name = "cost-coach"
${keys}
[database]
engine = "postgres"
conninfo = "${READ}"
write_conninfo = "${WRITE}"
[code_mode]
enabled = true
server_id = "cost-coach"
token_secret_file = "token.key"
auto_approve_levels = ["low", "medium", "high", "critical"]
execution_timeout_seconds = 5
blocked_fields = ["ssn", "email"]
[policy]
backend = "cedar"
policies = "${src}/examples/policies/seed000.cedar"
entities = "${src}/examples/policies/seed000.entities.json"
[[policy.servers]]
id = "cost-coach:power-user"
groups = ["PowerUsers"]
allow_writes = true
allowed_operations = ["update_budget_note"]
`);
  server = await startHttp(file);
  for (const user of Object.keys(users)) clients[user] = (await connectHttp(server, user)).client;
});

after(async () => {
  for (const c of Object.values(clients)) await c.close();
  server?.stop();
});

const rules = (v) => v.violations.map((x) => x.rule);

test("a power user's update_budget_note is allowed and applied on the server", async () => {
  const code = "UPDATE budget_note SET note = $1 WHERE id = $2";
  const variables = { 1: "pat was here", 2: 2 };
  const v = await validate(clients.pat, code, variables);
  assert.equal(v.valid, true, JSON.stringify(v.violations));
  const r = await execute(clients.pat, code, v.approval_token, variables);
  assert.ok(!r.isError, errorText(r));
  assert.deepEqual(r.structuredContent.rows, [[1]]);
  assert.equal(admin("SELECT note FROM budget_note WHERE id = 2"), "pat was here");
  assert.equal(admin("SELECT count(*) FROM budget_note WHERE note LIKE 'note %'"), "9");
});

test("a standard user's same write is refused by policy, and nothing changes", async () => {
  const before = admin("SELECT note FROM budget_note WHERE id = 3");
  const v = await validate(clients.alice, "UPDATE budget_note SET note = 'alice' WHERE id = 3");
  assert.equal(v.valid, false);
  assert.ok(rules(v).includes("policy"), JSON.stringify(v.violations));
  assert.equal(v.approval_token, null);
  const r = await execute(clients.alice, "UPDATE budget_note SET note = 'alice' WHERE id = 3", "forged");
  assert.equal(r.isError, true);
  assert.equal(admin("SELECT note FROM budget_note WHERE id = 3"), before);
});

test("a write without WHERE is refused (sql_require_where_on_writes)", async () => {
  const v = await validate(clients.pat, "UPDATE budget_note SET note = 'everything'");
  assert.equal(v.valid, false);
  assert.ok(rules(v).includes("sql_require_where_on_writes"), JSON.stringify(v.violations));
  assert.equal(admin("SELECT count(*) FROM budget_note WHERE note = 'everything'"), "0");
});

test("a power user's write outside the allowed operation, or a delete, is refused", async () => {
  for (const code of ["UPDATE customers SET name = 'x' WHERE id = 1", "DELETE FROM budget_note WHERE id = 3",
                      "INSERT INTO budget_note VALUES (11, 'x')"]) {
    const v = await validate(clients.pat, code);
    assert.equal(v.valid, false, code);
    assert.equal(v.approval_token, null);
  }
  assert.equal(admin("SELECT count(*) FROM budget_note"), "10");
});

test("a write may not copy a blocked field into a readable column", async () => {
  const v = await validate(clients.pat,
    "UPDATE budget_note b SET note = c.ssn FROM customers c WHERE c.id = b.id");
  assert.equal(v.valid, false);
  assert.ok(rules(v).includes("blocked_column"), JSON.stringify(v.violations));
  assert.equal(admin("SELECT count(*) FROM budget_note WHERE note ~ '^[0-9]{3}-'"), "0");
});

test("reads still run on the read role while writes are configured", async () => {
  const v = await validate(clients.alice, "SELECT current_user AS who");
  assert.equal(v.valid, true, JSON.stringify(v.violations));
  const r = await execute(clients.alice, "SELECT current_user AS who", v.approval_token);
  assert.ok(!r.isError, errorText(r));
  assert.equal(r.structuredContent.rows[0][0], "sluice_read");
});
