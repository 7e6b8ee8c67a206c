// programs.test.mjs — saved programs end to end (see ctest_programs.sh): promoted with the CLI,
// listed with an input schema derived from its parameters, called by name without validate_code,
// offered in tools/list only to a caller Cedar permits and still judged per caller at the call,
// refused with a clear message when its arguments are out of bounds, when the store was edited
// by hand, after a demotion and after a schema change.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { apiKeyUsers, work, sluiceBin, startHttp, connectHttp, errorText } from "./codemode_harness.mjs";

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
