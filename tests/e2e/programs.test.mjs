// programs.test.mjs — saved programs end to end (see ctest_programs.sh): promoted with the CLI,
// listed with an input schema derived from its parameters, called by name without validate_code,
// offered in tools/list only to a caller Cedar permits and still judged per caller at the call,
// refused with a clear message when its arguments are out of bounds, when the store was edited
// by hand, after a demotion and after a schema change. Then the same over the admin console's
// HTTP endpoints (POST /admin/api/programs/{promote,demote}, GET /admin/api/programs) with the
// administrator key: bad bodies are refused with what to fix, and the promoter is audited.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { apiKeyUsers, work, sluiceBin, startHttp, connectHttp, errorText } from "./codemode_harness.mjs";
import { raw } from "./harness.mjs";

const ADMIN_KEY = "programs-admin-key-0123456789";
process.env.SLUICE_E2E_PROGRAMS_ADMIN = ADMIN_KEY;

const config = path.join(work, "programs.toml");
const store = path.join(work, "programs.jsonl");
const code = path.join(work, "top.sql");
let server;
let alice, bob;

const sluice = (...args) => execFileSync(sluiceBin, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const promote = () => sluice("program", "promote", "-c", config, "top_customers", code, "--as", "root",
  "--group", "Analysts", "--var", 'segment="Enterprise"', "--var", "n=40", "--description",
  "Customers of a segment up to an id", "--parameters",
  '{"segment": {"type": "string", "maxLength": 16}, "n": {"type": "integer", "minimum": 1, "maximum": 50}}');

async function start() {
  server = await startHttp(config);
  alice = (await connectHttp(server, "alice")).client;
  bob = (await connectHttp(server, "bob")).client;
}

async function stop() {
  await alice?.close();
  await bob?.close();
  server?.stop();
  await new Promise((r) => server.proc.once("exit", r));
}

const listed = async (client) => (await client.listTools()).tools.find((t) => t.name === "top_customers");
const call = (client, args) => client.callTool({ name: "top_customers", arguments: args });

before(async () => {
  const keys = apiKeyUsers({ alice: "Analysts", bob: "Outsiders" });
  writeFileSync(path.join(work, "analysts.cedar"),
    'permit (principal in CodeMode::Group::"Analysts", action == CodeMode::Action::"Read", resource);\n');
  writeFileSync(config, `
${keys}
[database]
engine = "duckdb"
path = "demo.duckdb"
[code_mode]
enabled = true
token_secret_file = "token.key"
audit_log = "audit.log"
programs_file = "programs.jsonl"
blocked_fields = ["ssn"]
[policy]
backend = "cedar"
policies = "analysts.cedar"
[admin]
key_env = "SLUICE_E2E_PROGRAMS_ADMIN"
`);
  writeFileSync(code, "SELECT id, name FROM customers WHERE segment = $segment AND id <= $n ORDER BY id\n");
  await start();
});

after(stop);

test("a promoted program is listed with its typed, bounded parameters and runs by name", async () => {
  assert.equal(await listed(alice), undefined);
  const record = JSON.parse(promote());
  assert.equal(record.version, 1);
  assert.equal(record.action, "read");
  const tool = await listed(alice);
  assert.ok(tool, "listed after promotion, without a restart");
  assert.deepEqual(tool.inputSchema.required, ["segment", "n"]);
  assert.deepEqual(tool.inputSchema.properties.n, { type: "integer", minimum: 1, maximum: 50 });
  assert.equal(tool.inputSchema.properties.segment.maxLength, 16);
  assert.equal(tool.inputSchema.additionalProperties, false);
  assert.match(tool.description, /saved program v1: read/);
  const r = await call(alice, { segment: "Enterprise", n: 30 });
  assert.ok(!r.isError, errorText(r));
  assert.ok(r.structuredContent.row_count > 0);
  for (const row of r.structuredContent.rows) assert.ok(row[0] <= 30);
  const audit = readFileSync(path.join(work, "audit.log"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const run = audit.findLast((a) => a.event === "execute");
  assert.equal(run.program.name, "top_customers");
  assert.equal(run.program.approval, "promotion");
  assert.equal(run.program.promoted_by, "root");
  assert.equal(run.user, "alice");
});

test("arguments out of bounds, extra or missing are refused and audited", async () => {
  for (const args of [{ segment: "Enterprise", n: 51 }, { segment: "Enterprise", n: 2, code: "DROP TABLE x" },
                      { segment: "Enterprise" }, { segment: "x".repeat(17), n: 1 }, { segment: 1, n: 1 }]) {
    const r = await call(alice, args);
    assert.ok(r.isError, JSON.stringify(args));
    assert.match(errorText(r), /saved program 'top_customers' was not run: arguments/);
  }
});

test("a caller the policy does not permit does not see it, and cannot run it by name", async () => {
  assert.ok(await listed(alice), "alice's group is permitted: she sees it");
  assert.equal(await listed(bob), undefined, "bob's group is not: tools/list does not offer it to him");
  const r = await call(bob, { segment: "Enterprise", n: 3 });
  assert.ok(r.isError);
  assert.match(errorText(r), /may not run for you/);
  assert.match(errorText(r), /policy/i);
});

test("a store edited by hand disables the program (fail closed)", async () => {
  const good = readFileSync(store, "utf8");
  writeFileSync(store, good.replace("id <= $n", "id <= $n OR true"));
  assert.equal(await listed(alice), undefined);
  const r = await call(alice, { segment: "Enterprise", n: 3 });
  assert.ok(r.isError);
  assert.match(errorText(r), /does not verify: it was changed outside sluice/);
  writeFileSync(store, good);
  assert.ok(!(await call(alice, { segment: "Enterprise", n: 3 })).isError);
});

test("a demoted program disappears and says so", async () => {
  assert.match(sluice("program", "demote", "-c", config, "top_customers", "--as", "ops", "--reason", "retired"),
               /demoted top_customers \(version 2\)/);
  assert.equal(await listed(alice), undefined);
  const r = await call(alice, { segment: "Enterprise", n: 3 });
  assert.ok(r.isError);
  assert.match(errorText(r), /was demoted by ops \(version 2\): retired/);
});

test("a schema change invalidates it until it is re-promoted", async () => {
  assert.equal(JSON.parse(promote()).version, 3);
  assert.ok(!(await call(alice, { segment: "Enterprise", n: 3 })).isError);
  await stop();
  copyFileSync(path.join(work, "changed.duckdb"), path.join(work, "demo.duckdb"));
  await start();
  assert.equal(await listed(alice), undefined);
  const r = await call(alice, { segment: "Enterprise", n: 3 });
  assert.ok(r.isError);
  assert.match(errorText(r), /the schema of database 'default' changed since it was promoted/);
  assert.match(errorText(r), /re-promote/);
  assert.match(sluice("program", "list", "-c", config), /top_customers v3 DISABLED: .*schema/);
  assert.equal(JSON.parse(promote()).version, 4);
  assert.ok(!(await call(alice, { segment: "Enterprise", n: 3 })).isError);
});

// ---- the admin console's endpoints ---------------------------------------------------------------
const admin = async (method, p, body, key = ADMIN_KEY) => {
  const headers = { "content-type": "application/json", host: `127.0.0.1:${server.port}` };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const r = await raw({ port: server.port, method, path: p, headers,
                        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body) });
  let json = null;
  try { json = JSON.parse(r.body); } catch { json = null; }
  return { status: r.status, json, headers: r.headers, body: r.body };
};
const countCode = "SELECT count(*) AS n FROM customers WHERE segment = $segment";
const auditLines = () => readFileSync(path.join(work, "audit.log"), "utf8").trim().split("\n").map((l) => JSON.parse(l));

test("HTTP: promote and demote need the administrator key", async () => {
  for (const key of [null, "not-the-admin-key-0123456789", "Bearer"]) {
    const r = await admin("POST", "/admin/api/programs/promote", { name: "x", code: countCode }, key);
    assert.equal(r.status, 401, `key ${key}`);
    assert.match(r.headers["www-authenticate"], /Bearer realm="sluice-admin"/);
    assert.match(r.json.error, /administrator key/);
  }
  assert.equal((await admin("GET", "/admin/api/programs", undefined, null)).status, 401);
  assert.equal((await admin("POST", "/admin/api/programs/demote", { name: "top_customers" }, "x".repeat(40))).status, 401);
  assert.ok(!auditLines().some((a) => a.event === "promote" && a.name === "x"), "nothing promoted");
});

test("HTTP: a bad body is refused with what to fix, and never crashes the server", async () => {
  const cases = [
    ["promote", "{not json", 400, /the body is not JSON: .*line 1, column/],
    ["promote", "[1, 2]", 400, /must be a JSON object/],
    ["promote", "", 400, /not JSON/],
    ["promote", { name: "a", code: countCode, colour: "red" }, 400, /unknown field 'colour' \(the fields are: name, code/],
    ["promote", { code: countCode }, 400, /"name" must be the program's tool name/],
    ["promote", { name: "a" }, 400, /"code" must be the program's code, 1 to 262144 bytes/],
    ["promote", { name: "a", code: 7 }, 400, /"code" must be/],
    ["promote", { name: "a", code: countCode, variables: [1] }, 400, /"variables" .* must be objects/],
    ["promote", { name: "a", code: countCode, groups: "Analysts" }, 400, /"groups" must be an array/],
    ["promote", { name: "a", code: countCode, groups: ["ok", ""] }, 400, /"groups"\[1\] must be a group name/],
    ["promote", { name: "a", code: countCode, as: "x".repeat(101) }, 400, /"as" must be your name, 1-100/],
    ["promote", { name: "a b", code: countCode, variables: { segment: "Enterprise" }, groups: ["Analysts"] }, 400,
     /'a b' cannot name a saved program: use 1-64 of/],
    ["promote", { name: "validate_code", code: countCode, variables: { segment: "Enterprise" }, groups: ["Analysts"] }, 400,
     /not the name of a built-in/],
    ["promote", { name: "a", code: countCode, groups: ["Analysts"] }, 422, /parameter \$segment has no value/],
    ["promote", `{"name": "a", "name": "b", "code": "SELECT 1"}`, 400, /duplicate object key/],
    ["demote", { name: "no_such_program" }, 404, /no saved program is named 'no_such_program'/],
    ["demote", { name: "top_customers", reason: "" }, 400, /"reason" must be a string/],
    ["rename", { name: "top_customers" }, 404, /POST \/admin\/api\/programs\/promote or \/admin\/api\/programs\/demote/],
  ];
  for (const [action, body, status, message] of cases) {
    const r = await admin("POST", `/admin/api/programs/${action}`, body);
    assert.equal(r.status, status, `${action} ${JSON.stringify(body)}: ${r.body}`);
    assert.match(r.json.error, message, `${action} ${JSON.stringify(body)}`);
  }
  const nul = await admin("POST", "/admin/api/programs/promote", '{"name": "a\\u0000b", "code": "SELECT 1"}');
  assert.equal(nul.status, 400, nul.body);
  const tooBig = await admin("POST", "/admin/api/programs/promote", { name: "a", code: "x".repeat(2 * 1024 * 1024) });
  assert.equal(tooBig.status, 413);
  assert.ok((await listed(alice)), "the server still answers, the program still listed");
});

test("HTTP: promote judges the code and refuses one that is not valid, with the violation", async () => {
  const r = await admin("POST", "/admin/api/programs/promote",
    { name: "leaky", code: "SELECT name, ssn FROM customers LIMIT 5", groups: ["Analysts"], as: "console-admin" });
  assert.equal(r.status, 422, r.body);
  assert.match(r.json.error, /not promoted: the program is not valid: .*ssn/);
  const outsider = await admin("POST", "/admin/api/programs/promote",
    { name: "segment_count", code: countCode, variables: { segment: "Enterprise" }, groups: ["Outsiders"] });
  assert.equal(outsider.status, 422, outsider.body);
  assert.match(outsider.json.error, /judged as 'admin' with 1 group: give "groups" the groups of the callers/);
  assert.equal((await admin("GET", "/admin/api/programs")).json.programs.find((p) => p.name === "leaky"), undefined);
});

test("HTTP: a program promoted with the key is listed, typed, runs, and names its promoter", async () => {
  const r = await admin("POST", "/admin/api/programs/promote",
    { name: "segment_count", code: countCode, variables: { segment: "Enterprise" }, groups: ["Analysts"],
      as: "console-admin", description: "How many customers a segment has" });
  assert.equal(r.status, 200, r.body);
  assert.equal(r.json.version, 1);
  assert.equal(r.json.by, "console-admin");
  assert.equal(r.json.estimate?.by, "DuckDB", "the engine's estimate is recorded with the promotion");
  const tool = (await alice.listTools()).tools.find((t) => t.name === "segment_count");
  assert.ok(tool, "in tools/list for a permitted caller");
  assert.deepEqual(tool.inputSchema.required, ["segment"]);
  assert.equal(tool.inputSchema.properties.segment.type, "string");
  const run = await alice.callTool({ name: "segment_count", arguments: { segment: "Enterprise" } });
  assert.ok(!run.isError, errorText(run));
  assert.ok(run.structuredContent.rows[0][0] > 0);
  const audit = auditLines();
  const promoted = audit.findLast((a) => a.event === "promote" && a.name === "segment_count");
  assert.equal(promoted.user, "console-admin");
  assert.equal(promoted.auth, "admin-http");
  assert.equal(promoted.estimate.by, "DuckDB");
  assert.equal(audit.findLast((a) => a.event === "execute").program.promoted_by, "console-admin");
  const list = (await admin("GET", "/admin/api/programs")).json;
  assert.equal(list.enabled, true);
  const entry = list.programs.find((p) => p.name === "segment_count");
  assert.equal(entry.status, "runs");
  assert.equal(entry.version, 1);
  assert.equal(entry.code, countCode);
  assert.equal(entry.by, "console-admin");
  assert.deepEqual(entry.input_schema.required, ["segment"]);
  assert.equal(entry.estimate.by, "DuckDB");
  assert.equal(list.programs.find((p) => p.name === "top_customers").status, "runs");
});

test("HTTP: demote disables it with a clear refusal, and a second demote is a conflict", async () => {
  const r = await admin("POST", "/admin/api/programs/demote", { name: "segment_count", reason: "replaced", as: "console-admin" });
  assert.equal(r.status, 200, r.body);
  assert.deepEqual(r.json, { name: "segment_count", version: 2, demoted: true, by: "console-admin" });
  assert.equal((await alice.listTools()).tools.find((t) => t.name === "segment_count"), undefined);
  const run = await alice.callTool({ name: "segment_count", arguments: { segment: "Enterprise" } });
  assert.ok(run.isError);
  assert.match(errorText(run), /was demoted by console-admin \(version 2\): replaced/);
  const entry = (await admin("GET", "/admin/api/programs")).json.programs.find((p) => p.name === "segment_count");
  assert.equal(entry.status, "demoted");
  assert.match(entry.reason, /demoted by console-admin/);
  const again = await admin("POST", "/admin/api/programs/demote", { name: "segment_count" });
  assert.equal(again.status, 409, again.body);
  const audit = auditLines().findLast((a) => a.event === "demote");
  assert.equal(audit.user, "console-admin");
  assert.equal(audit.auth, "admin-http");
});
