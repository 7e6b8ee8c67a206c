// mcp_composition.test.mjs — mcp.call in JavaScript plans end to end (see
// ctest_mcp_composition.sh): the SDK client validates and executes plans on `sluice serve`
// (HTTP), whose [[code_mode.mcp_servers]] are an SDK-built downstream (mcp_downstream.mjs) and a
// second sluice serving the demo database over stdio and, keyed, over Streamable HTTP. Answers are compared with what this test
// computes by calling the same downstream tools itself.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { work, startHttp, connectHttp, validate, execute, errorText, API_KEYS } from "../e2e/codemode_harness.mjs";
import { Client, StdioClientTransport } from "../e2e/harness.mjs";
import { gatewayHead, startHttpDownstream } from "./jsmcp_helpers.mjs";

const here = path.dirname(new URL(import.meta.url).pathname);
const sluiceBin = process.env.SLUICE_BIN;
const node = process.execPath;

// the second sluice: two curated, read-only tools over the demo database
const demoConfig = path.join(work, "demo-downstream.toml");
writeFileSync(demoConfig, `
[database]
engine = "duckdb"
path = "${work}/demo.duckdb"
[[tools]]
name = "customers_by_plan"
description = "How many customers each plan has"
statement = "SELECT plan, count(*) AS n FROM customers GROUP BY plan ORDER BY plan"
[[tools]]
name = "customer_count"
description = "How many customers one plan has"
statement = "SELECT count(*) AS n FROM customers WHERE plan = $plan"
parameters = [{ name = "plan", type = "string" }]
`);

// the same curated tools served over HTTP, keyed: the upstream's token is alice's key there
const demoHttpConfig = path.join(work, "demo-downstream-http.toml");
writeFileSync(demoHttpConfig, `
[[api_keys]]
user = "alice"
groups = ["StandardUsers"]
key_env = "SLUICE_E2E_KEY_ALICE"
${readFileSync(demoConfig, "utf8")}`);
process.env.SLUICE_E2E_DOWN_TOKEN = API_KEYS.alice;
process.env.SLUICE_E2E_DOWN_BAD_TOKEN = "not-the-key-0123456789abcdef";

const config = path.join(work, "composition.toml");
let budgetsUrl; // the SDK downstream over Streamable HTTP with plain JSON answers
const upstreamConfig = (httpUrl, tokenEnv) => `${gatewayHead({
  serverId: "e2e-mcp", blocked: 'openapi_internal_blocked_fields = ["ssn"]', audit: "composition.audit.jsonl",
})}[[code_mode.mcp_servers]]
name = "budgets"
command = ["${node}", "${here}/mcp_downstream.mjs", "${work}/applied.jsonl"]
allowed_tools = ["list_budgets", "get_owner", "set_note", "hang", "die"]
timeout_seconds = 2
[[code_mode.mcp_servers]]
name = "demo"
command = ["${sluiceBin}", "serve", "-c", "${demoConfig}", "--stdio"]
allowed_tools = ["*"]
[[code_mode.mcp_servers]]
name = "demohttp"
url = "${httpUrl}"
token_env = "${tokenEnv}"
allowed_tools = ["*"]
timeout_seconds = 5
[[code_mode.mcp_servers]]
name = "budgetshttp"
url = "${budgetsUrl}"
allowed_tools = ["list_budgets", "get_owner", "huge"]
max_response_bytes = 65536
`;

let server, conn, alice, downstream, budgetsHttp;

async function startBudgetsHttp() {
  ({ child: budgetsHttp, url: budgetsUrl } = await startHttpDownstream("mcp_downstream.mjs"));
}
const direct = {};

async function directClient(command, args) {
  const c = new Client({ name: "e2e-direct", version: "1.0.0" }, { capabilities: {} });
  await c.connect(new StdioClientTransport({ command, args, stderr: "pipe" }));
  return c;
}

before(async () => {
  downstream = await startHttp(demoHttpConfig);
  await startBudgetsHttp();
  writeFileSync(config, upstreamConfig(downstream.url, "SLUICE_E2E_DOWN_TOKEN"));
  server = await startHttp(config);
  conn = await connectHttp(server, "alice");
  alice = conn.client;
  direct.budgets = await directClient(node, [path.join(here, "mcp_downstream.mjs")]);
  direct.demo = await directClient(sluiceBin, ["serve", "-c", demoConfig, "--stdio"]);
});

after(async () => {
  await conn?.close();
  for (const c of Object.values(direct)) await c.close();
  server?.stop();
  downstream?.stop();
  budgetsHttp?.kill("SIGTERM");
});

async function run(code, variables) {
  const v = await validate(alice, code, variables);
  assert.equal(v.valid, true, JSON.stringify(v.violations));
  return { v, r: await execute(alice, code, v.approval_token, variables) };
}

const rules = (v) => v.violations.map((x) => x.rule);
const audit = () => readFileSync(path.join(work, "composition.audit.jsonl"), "utf8").trim().split("\n")
  .map((l) => JSON.parse(l));

test("a plan composes two downstream tools and returns the answer computed directly", async () => {
  const code = `const { items } = await mcp.call("budgets", "list_budgets", { month: args.month });
const over = items.filter(b => b.forecast > b.limit).slice(0, 5);
const owners = await Promise.all(over.map(b => mcp.call("budgets", "get_owner", { id: b.ownerId })));
return over.map((b, i) => ({ budget: b.name, over: b.forecast - b.limit, owner: owners[i].name, team: owners[i].team, ssn: owners[i].ssn ?? null }));`;
  const { v, r } = await run(code, { month: "2026-11" });
  // what Cedar and the approver see: the downstream tools as called operations, a Read
  assert.deepEqual(v.metadata.calledOperations, ["mcp:budgets/list_budgets", "mcp:budgets/get_owner"]);
  assert.equal(v.action, "read");
  assert.ok(!r.isError, errorText(r));
  // the same question, asked of the downstream directly
  const { items } = (await direct.budgets.callTool({ name: "list_budgets", arguments: {} })).structuredContent;
  const want = [];
  for (const b of items.filter((b) => b.forecast > b.limit).slice(0, 5)) {
    const o = (await direct.budgets.callTool({ name: "get_owner", arguments: { id: b.ownerId } })).structuredContent;
    want.push({ budget: b.name, over: b.forecast - b.limit, owner: o.name, team: o.team, ssn: null });
  }
  assert.ok(want.length > 0);
  assert.deepEqual(r.structuredContent.value, want);
});

test("a plan composes the second sluice's curated tools over the demo database", async () => {
  const code = `const byPlan = await mcp.call("demo", "customers_by_plan", {});
const counts = await Promise.all(byPlan.rows.map(r => mcp.call("demo", "customer_count", { plan: r[0] })));
return byPlan.rows.map((r, i) => ({ plan: r[0], n: r[1], again: counts[i].rows[0][0] }));`;
  const { r } = await run(code);
  assert.ok(!r.isError, errorText(r));
  const rows = (await direct.demo.callTool({ name: "customers_by_plan", arguments: {} })).structuredContent.rows;
  const want = rows.map(([plan, n]) => ({ plan, n, again: n }));
  assert.ok(want.length > 1);
  assert.deepEqual(r.structuredContent.value, want);
});

test("a write tool is refused by default, an unlisted tool and an unknown one at validate", async () => {
  let v = await validate(alice, `return await mcp.call("budgets", "set_note", { id: "b1", note: "n" });`);
  assert.equal(v.valid, false);
  assert.deepEqual(rules(v), ["allow_writes"]);
  assert.match(v.violations[0].message, /writes \(no read-only annotation\)/);
  assert.equal(v.approval_token, null);
  v = await validate(alice, `return await mcp.call("budgets", "delete_budget", { id: "b1" });`);
  assert.ok(rules(v).includes("allowed_tools"), JSON.stringify(v.violations));
  v = await validate(alice, `return await mcp.call("budgets", "nope", {});`);
  assert.deepEqual(rules(v), ["mcp_tool"]);
  v = await validate(alice, `return await mcp.call("billing", "x", {});`);
  assert.deepEqual(rules(v), ["mcp_servers"]);
  v = await validate(alice, `return await mcp.call("budgets", "get_owner", { id: 7 });`);
  assert.deepEqual(rules(v), ["mcp_arguments"]);
});

test("a downstream that hangs or dies mid-call is a clear error, and the audit shows it", async () => {
  for (const [tool, says] of [["hang", /did not answer in time during tools\/call 'hang' \(timeout_seconds\)/],
                              ["die", /exited or could not be reached during tools\/call 'die'/]]) {
    const { r } = await run(`return await mcp.call("budgets", "${tool}", {});`);
    assert.equal(r.isError, true);
    assert.match(errorText(r), says);
    const rec = audit().reverse().find((l) => (l.calls ?? []).some((c) => c.tool === tool));
    assert.ok(rec, `no audit record with a call of ${tool}`);
    const call = rec.calls.find((c) => c.tool === tool);
    assert.equal(call.operation, `mcp:budgets/${tool}`);
    assert.equal(call.outcome, "failed");
    assert.match(call.error, says);
  }
  // the server was started again: the next plan works
  const { r } = await run(`return (await mcp.call("budgets", "get_owner", { id: "u2" })).name;`);
  assert.ok(!r.isError, errorText(r));
  assert.equal(JSON.stringify(r.structuredContent.value), JSON.stringify("Bo"));
});

test("a plan composes two curated tools of a second sluice served over Streamable HTTP", async () => {
  const code = `const byPlan = await mcp.call("demohttp", "customers_by_plan", {});
const counts = await Promise.all(byPlan.rows.map(r => mcp.call("demohttp", "customer_count", { plan: r[0] })));
return byPlan.rows.map((r, i) => ({ plan: r[0], n: r[1], total: counts.reduce((s, c) => s + c.rows[0][0], 0) }));`;
  const { v, r } = await run(code);
  assert.deepEqual(v.metadata.calledOperations, ["mcp:demohttp/customers_by_plan", "mcp:demohttp/customer_count"]);
  assert.ok(!r.isError, errorText(r));
  const rows = (await direct.demo.callTool({ name: "customers_by_plan", arguments: {} })).structuredContent.rows;
  const total = rows.reduce((s, [, n]) => s + n, 0);
  const want = rows.map(([plan, n]) => ({ plan, n, total }));
  assert.ok(want.length > 1);
  assert.deepEqual(r.structuredContent.value, want);
});

test("an SDK downstream over HTTP answering plain JSON composes, and an oversized answer is refused", async () => {
  const code = `const { items } = await mcp.call("budgetshttp", "list_budgets", {});
const over = items.filter(b => b.forecast > b.limit);
const owners = await Promise.all(over.map(b => mcp.call("budgetshttp", "get_owner", { id: b.ownerId })));
return over.map((b, i) => ({ budget: b.name, owner: owners[i].name }));`;
  const { r } = await run(code);
  assert.ok(!r.isError, errorText(r));
  const { items } = (await direct.budgets.callTool({ name: "list_budgets", arguments: {} })).structuredContent;
  const want = [];
  for (const b of items.filter((b) => b.forecast > b.limit)) {
    const o = (await direct.budgets.callTool({ name: "get_owner", arguments: { id: b.ownerId } })).structuredContent;
    want.push({ budget: b.name, owner: o.name });
  }
  assert.ok(want.length > 1);
  assert.deepEqual(r.structuredContent.value, want);
  const big = await run(`return await mcp.call("budgetshttp", "huge", {});`);
  assert.equal(big.r.isError, true);
  assert.match(errorText(big.r),
    /mcp server 'budgetshttp' sent more than its byte limit \(http:\/\/127\.0\.0\.1:\d+\/mcp\) during tools\/call 'huge' \(max_response_bytes\)/);
});

test("a wrong or unset token for the HTTP downstream refuses the start, naming the server", async () => {
  const bad = path.join(work, "composition-badtoken.toml");
  writeFileSync(bad, upstreamConfig(downstream.url, "SLUICE_E2E_DOWN_BAD_TOKEN"));
  await assert.rejects(startHttp(bad), (e) => {
    assert.match(e.message, /mcp server 'demohttp' answered HTTP 401, check token_env \/ token_file/);
    assert.ok(!e.message.includes(process.env.SLUICE_E2E_DOWN_BAD_TOKEN), "the token leaked");
    return true;
  });
  writeFileSync(bad, upstreamConfig(downstream.url, "SLUICE_E2E_DOWN_UNSET"));
  await assert.rejects(startHttp(bad), /mcp server 'demohttp': token_env names SLUICE_E2E_DOWN_UNSET, which is not set/);
});

test("the HTTP downstream stopped is a clear error naming it", async () => {
  downstream.stop();
  await new Promise((res) => (downstream.proc.exitCode !== null ? res() : downstream.proc.once("exit", res)));
  const { r } = await run(`return await mcp.call("demohttp", "customers_by_plan", {});`);
  assert.equal(r.isError, true);
  assert.match(errorText(r), /mcp server 'demohttp' could not be reached: .*\(http:\/\/127\.0\.0\.1:\d+\/mcp\)/);
});
