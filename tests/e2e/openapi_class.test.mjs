// openapi_class.test.mjs — the OpenAPI class policy end to end (see ctest_openapi_class.sh):
// every refusal comes back as valid:false naming the key that decided, every allowed plan runs
// against the real cost-coach API, and a run-time value cannot carry a call under a block.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { API_KEYS, work, sluiceBin, startHttp, connectHttp, validate, execute, errorText }
  from "./codemode_harness.mjs";
import { freePort } from "./harness.mjs";

const src = process.env.SLUICE_SOURCE_DIR;
const UPSTREAM_SECRET = "cost-coach-class-credential-3";
let upstream, upstreamPort, server, conn, configFile;
const CLASS_POLICY = `openapi_allow_writes = true
write_mode = "allowlist"
openapi_allowed_writes = ["update_budget_note", "POST /budgets"]
openapi_allow_deletes = true
delete_mode = "deny_all"
openapi_blocked_paths = ["/getCostAnomalies", "/users/u1*"]
action_tags = { createBudget = "admin" }
openapi_require_output_declaration = true

[[code_mode.operations]]
id = "getCostForecast"
category = "admin"
path = "/getCostForecast"
`;

// policy: the [code_mode] class keys (the first server's by default; the modes test has its own).
function writeClassConfig(name = "class", policy = CLASS_POLICY) {
  process.env.SLUICE_E2E_KEY_ALICE = API_KEYS.alice;
  const dir = path.join(src, "examples/cost-coach");
  const text = `[server]
name = "class-e2e"

[[api_keys]]
user = "alice"
groups = ["Analysts"]
key_env = "SLUICE_E2E_KEY_ALICE"

[database]
engine = "openapi"
path = "${dir}/openapi.yaml"
endpoint = "http://127.0.0.1:${upstreamPort}"
auth_token_env = "COST_COACH_TOKEN"

[code_mode]
enabled = true
languages = ["javascript"]
token_secret_file = "token.key"
auto_approve_levels = ["low", "medium", "high"]
max_api_calls = 20
${policy}`;
  const file = path.join(work, `${name}.toml`);
  writeFileSync(file, text);
  return file;
}

before(async () => {
  process.env.COST_COACH_TOKEN = UPSTREAM_SECRET;
  upstreamPort = await freePort();
  upstream = spawn(process.execPath, [path.join(src, "examples/cost-coach/server.mjs"), "--port",
                   String(upstreamPort)],
                   { env: { ...process.env, COST_COACH_TOKEN: UPSTREAM_SECRET }, stdio: ["ignore", "pipe", "pipe"] });
  await new Promise((resolve, reject) => {
    let out = "";
    upstream.stdout.on("data", (d) => { out += d; if (out.includes("listening")) resolve(); });
    upstream.on("exit", (c) => reject(new Error(`upstream exited ${c}: ${out}`)));
  });
  configFile = writeClassConfig();
  server = await startHttp(configFile);
  conn = await connectHttp(server, "alice");
});

after(async () => {
  await conn?.close();
  server?.stop();
  upstream?.kill("SIGTERM");
});

const rules = (v) => v.violations.map((x) => x.rule);

async function refused(code, rule, variables, c = conn) {
  const v = await validate(c.client, code, variables);
  assert.equal(v.valid, false, `expected ${rule} to refuse:\n${code}`);
  assert.ok(rules(v).includes(rule), `${rule} not among ${JSON.stringify(v.violations)}`);
  return v;
}

async function runs(code, variables, c = conn) {
  const v = await validate(c.client, code, variables);
  assert.equal(v.valid, true, JSON.stringify(v.violations));
  const r = await execute(c.client, code, v.approval_token, variables);
  assert.ok(!r.isError, errorText(r));
  return r.structuredContent;
}

test("an allowed read and an allowlisted write run against the API", async () => {
  const out = await runs(`const b = await api.post("/budgets/listForecasts", { month: "2026-11" });
return { count: b.items.length };`);
  assert.ok(JSON.stringify(out).includes("count"));
  await runs(`const r = await api.patch(\`/budgets/\${args.id}/note\`, { note: "checked" });
return { ok: true };`, { id: "b3" });
});

test("openapi_blocked_paths refuses literal paths and templates that could reach them", async () => {
  await refused(`const a = await api.post("/getCostAnomalies", {});\nreturn { n: 1 };`,
                "openapi_blocked_paths");
  // the run-time value could start with "u1": refused before it runs
  await refused(`const u = await api.get(\`/users/\${args.id}\`);\nreturn { name: u.name };`,
                "openapi_blocked_paths", { id: "u2" });
});

test("write_mode allowlist admits only its entries; delete_mode deny_all beats the switch", async () => {
  await refused(`await api.delete(\`/budgets/\${args.id}\`);\nreturn { ok: true };`,
                "delete_mode", { id: "b1" });
});

test("action_tags and the catalog category override the HTTP method", async () => {
  // createBudget is POST /budgets, allowlisted as a write, but tagged admin: admin is deny_all
  const v = await refused(`await api.post("/budgets", { name: "x", ownerId: "u2", limit: 5 });
return { ok: true };`, "admin_mode");
  assert.match(v.violations.find((x) => x.rule === "admin_mode").message, /admin operation/);
  await refused(`const f = await api.post("/getCostForecast", {});\nreturn { f: 1 };`, "admin_mode");
});

test("openapi_require_output_declaration refuses an undeclared result, runs a declared one", async () => {
  await refused(`const b = await api.post("/budgets/listForecasts", { month: "2026-11" });
return b.items;`, "openapi_require_output_declaration");
  await refused(`const b = await api.post("/budgets/listForecasts", { month: "2026-11" });
return { ...b };`, "openapi_require_output_declaration");
  const out = await runs(`const b = await api.post("/budgets/listForecasts", { month: "2026-11" });
return b.items.slice(0, 2).map(x => ({ id: x.id, name: x.name }));`);
  assert.ok(JSON.stringify(out).includes("\"id\""));
});

// The other mode values, each on the class it governs: read allowlist, write blocklist (the
// blocked entries of openapi_blocked_writes, everything else allowed), delete allow_all (without
// openapi_allow_deletes: the mode alone decides), admin allowlist over catalog categories.
const MODES_POLICY = `openapi_allow_writes = true
read_mode = "allowlist"
openapi_allowed_reads = ["getUser", "GET /users/{id}"]
write_mode = "blocklist"
openapi_blocked_writes = ["update_budget_note"]
delete_mode = "allow_all"
admin_mode = "allowlist"
openapi_allowed_admin = ["getCostForecast"]

[[code_mode.operations]]
id = "getCostForecast"
category = "admin"

[[code_mode.operations]]
id = "getCostAnomalies"
category = "admin"
`;

test("read allowlist, write blocklist, delete allow_all and admin allowlist, each through the SDK client", async () => {
  const modes = await startHttp(writeClassConfig("class-modes", MODES_POLICY));
  const c = await connectHttp(modes, "alice");
  try {
    // read_mode = "allowlist": getUser runs, listForecasts (a read by its x-sluice-category) is refused
    const u = await runs(`const u = await api.get(\`/users/\${args.id}\`);\nreturn { name: u.name };`, { id: "u2" }, c);
    assert.ok(JSON.stringify(u).includes("name"));
    const r = await refused(`const b = await api.post("/budgets/listForecasts", { month: "2026-11" });
return { n: b.items.length };`, "read_mode", undefined, c);
    assert.match(r.violations.find((x) => x.rule === "read_mode").message, /not in openapi_allowed_reads \(read_mode = "allowlist"\)/);
    // write_mode = "blocklist": createBudget (no allowlist) runs, the blocked write is refused
    await runs(`await api.post("/budgets", { name: "modes", ownerId: "u2", limit: 5 });\nreturn { ok: true };`, undefined, c);
    await refused(`await api.patch(\`/budgets/\${args.id}/note\`, { note: "x" });\nreturn { ok: true };`,
                  "openapi_blocked_writes", { id: "b3" }, c);
    // delete_mode = "allow_all" with openapi_allow_deletes unset (false): the mode admits it (a
    // delete is critical risk, so it then waits for a human, which this client cannot give)
    const d = await validate(c.client, `await api.delete(\`/budgets/\${args.id}\`);\nreturn { ok: true };`, { id: "b1" });
    assert.equal(d.valid, true, JSON.stringify(d.violations));
    assert.equal(d.risk_level, "critical");
    // admin_mode = "allowlist": both POSTs are admin by the catalog; only the listed one is admitted
    const f = await validate(c.client, `const f = await api.post("/getCostForecast", {});\nreturn { total: f.total };`);
    assert.equal(f.valid, true, JSON.stringify(f.violations));
    assert.equal(f.risk_level, "critical", "admitted, then a human approves an admin call");
    const a = await refused(`const f = await api.post("/getCostAnomalies", {});\nreturn { total: f.total };`,
                            "admin_mode", undefined, c);
    assert.match(a.violations.find((x) => x.rule === "admin_mode").message, /admin operation that is not in openapi_allowed_admin/);
  } finally {
    await c.close();
    modes.stop();
  }
});

test("sluice config check names the keys pmcp-code-mode shares and how they differ", () => {
  const r = spawnSync(sluiceBin, ["config", "check", configFile],
                      { cwd: work, env: process.env, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /keys shared with pmcp-code-mode 0\.7: 12\n/);
  assert.match(r.stdout, /write_mode +same: /);
  assert.match(r.stdout, /openapi_blocked_paths +differs: /);
  assert.match(r.stdout, /action_tags +differs: pmcp keys operation names/);
  assert.match(r.stdout, /openapi_require_output_declaration +differs: /);
});

// pmcp's SDK mode: plans call operations by id, api.<operationId>(args), and only the listed
// ones; each call is composed into its request and judged by the class policy as the path form.
const SDK_POLICY = `sdk_operations = ["getUser", "listForecasts", "update_budget_note", "createBudget", "deleteBudget", "getCostAnomalies"]
openapi_allow_writes = true
write_mode = "allowlist"
openapi_allowed_writes = ["update_budget_note"]
openapi_blocked_paths = ["/getCostAnomalies", "/users/u1*"]
openapi_output_blocked_fields = ["ssn"]
action_tags = { createBudget = "admin" }
`;

test("sdk_operations: api.<operationId>(args) runs through the SDK client, judged as the path form", async () => {
  const sdk = await startHttp(writeClassConfig("class-sdk", SDK_POLICY));
  const c = await connectHttp(sdk, "alice");
  try {
    // discovery shows the call form and only the listed operations
    const schema = (await c.client.readResource({ uri: "code-mode://schema" })).contents[0].text;
    assert.match(schema, /api\.<operationId>\(args\) returns a Promise; args holds the path and query/);
    assert.match(schema, /\/\/ listForecasts \(read\)\napi\.listForecasts\(\{ body: \{ month: string; \}; \}\): Promise<\{/);
    assert.match(schema, /api\.update_budget_note\(\{ id: string; body: \{ note: string; \}; \}\)/);
    assert.doesNotMatch(schema, /api\.(get|post|patch)\(/);
    // getUser's template could reach /users/u1*; getCostAndUsage is not listed
    assert.match(schema, /Not callable under this server's settings \(6\): getUser \(read\), getCostAndUsage/);

    // a read, a read by catalog category with its body, an allowlisted write: they run upstream
    const u = await runs(`const u = await api.getUser({ id: "u2" });\nreturn { name: u.name };`, undefined, c);
    assert.match(JSON.stringify(u), /"name":"Owner 2"/);
    const b = await runs(`const b = await api.listForecasts({ body: { month: "2026-11" } });
return { count: b.items.length };`, undefined, c);
    assert.match(JSON.stringify(b), /"count":\d+/);
    const w = await runs(`await api.update_budget_note({ id: args.id, body: { note: "from the sdk form" } });
const u = await api.getUser({ id: "u2" });
return { ok: true };`, { id: "b3" }, c);
    assert.match(JSON.stringify(w), /"ok":true/);

    // refusals at validate, each under the key that decided
    let v = await refused(`const u = await api.getUsr({ id: "u2" });\nreturn { n: u.name };`, "sdk_operations", undefined, c);
    assert.match(v.violations[0].message, /api\.getUsr at line 1 is not one of this server's sdk_operations; did you mean 'getUser'\?/);
    v = await refused(`const u = await api.get("/users/u2");\nreturn { n: u.name };`, "sdk_operations", undefined, c);
    assert.match(v.violations[0].message, /by name \(sdk_operations\), not by path/);
    v = await refused(`const u = await api.getUser({ idd: "u2" });\nreturn { n: u.name };`, "openapi_parameter", undefined, c);
    assert.match(v.violations.map((x) => x.message).join("\n"), /'idd' at line 1 is not a parameter of getUser; did you mean 'id'\?/);
    await refused(`const a = await api.getCostAnomalies({ body: {} });\nreturn { n: 1 };`, "openapi_blocked_paths", undefined, c);
    await refused(`const u = await api.getUser({ id: "u1" });\nreturn { n: u.name };`, "openapi_blocked_paths", undefined, c);
    // a run-time id could be "u1...": refused before it runs, as `/users/${args.id}` is
    await refused(`const u = await api.getUser({ id: args.id });\nreturn { n: u.name };`, "openapi_blocked_paths", { id: "u2" }, c);
    await refused(`await api.deleteBudget({ id: "b1" });\nreturn { ok: true };`, "openapi_allow_deletes", undefined, c);
    await refused(`await api.createBudget({ body: { name: "x", ownerId: "u2", limit: 5 } });\nreturn { ok: true };`, "admin_mode", undefined, c);
    await refused(`const u = await api.getUser({ id: "u2" });\nreturn { ssn: u.ssn };`, "openapi_output_blocked_fields", undefined, c);

    // every other way to reach an operation is refused before it runs
    for (const code of [
      `const u = await api["getUser"]({ id: "u2" });\nreturn { n: u.name };`,
      `const k = "getUser";\nconst u = await api[k]({ id: "u2" });\nreturn { n: u.name };`,
      `const f = api.getUser;\nconst u = await f({ id: "u2" });\nreturn { n: u.name };`,
      `const { getUser } = api;\nconst u = await getUser({ id: "u2" });\nreturn { n: u.name };`,
      `const u = await api.getUser.call(null, { id: "u2" });\nreturn { n: u.name };`,
      `const u = await api.__proto__.getUser({ id: "u2" });\nreturn { n: u.name };`,
      `const u = await api.constructor({ id: "u2" });\nreturn { n: u };`,
      `const u = await api.getCostForecast({ body: {} });\nreturn { n: u.total };`,
    ]) {
      const r = await validate(c.client, code);
      assert.equal(r.valid, false, `allowed:\n${code}`);
    }

    // what only the run knows is checked there: a computed key, a value breaking the path rule
    const code = `const a = { id: args.id, body: { note: "x" } };\na[args.k] = 1;
await api.update_budget_note(a);\nreturn { ok: true };`;
    const ok = await validate(c.client, code, { id: "b3", k: "extra" });
    assert.equal(ok.valid, true, JSON.stringify(ok.violations));
    let r = await execute(c.client, code, ok.approval_token, { id: "b3", k: "extra" });
    assert.ok(r.isError, "a key that is no parameter must not reach the upstream");
    assert.match(errorText(r), /'extra' is not a parameter of update_budget_note/);
    const climb = `await api.update_budget_note({ id: args.id, body: { note: "x" } });\nreturn { ok: true };`;
    const cv = await validate(c.client, climb, { id: "b3/../../users" });
    assert.equal(cv.valid, true, JSON.stringify(cv.violations));
    r = await execute(c.client, climb, cv.approval_token, { id: "b3/../../users" });
    assert.ok(r.isError, "a value that leaves its segment must not reach the upstream");
    assert.match(errorText(r), /the path parameter \{id\} of PATCH \/budgets\/\{\}\/note \(update_budget_note\) is refused: it has '\.\.'/);
  } finally {
    await c.close();
    sdk.stop();
  }
});

test("sdk_operations: config check says what it means; an id the spec lacks or no identifier is refused", () => {
  const f = writeClassConfig("class-sdk-check", SDK_POLICY);
  let r = spawnSync(sluiceBin, ["config", "check", f], { cwd: work, env: process.env, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /sdk_operations +differs: as pmcp: a plan calls the listed operations as api\.<operationId>\(args\) and only them/);
  const bad = writeClassConfig("class-sdk-bad", `sdk_operations = ["getUser", "get"]\n`);
  r = spawnSync(sluiceBin, ["config", "check", bad], { cwd: work, env: process.env, encoding: "utf8" });
  assert.notEqual(r.status, 0, r.stdout);
  assert.match(r.stderr, /class-sdk-bad\.toml:\d+:\d+: 'sdk_operations' entries are operationIds a plan calls as api\.<operationId>\(args\)/);
  const typo = writeClassConfig("class-sdk-typo", `sdk_operations = ["getUsr"]\n`);
  r = spawnSync(sluiceBin, ["serve", "-c", typo, "--http", "127.0.0.1:1"],
                { cwd: work, env: process.env, encoding: "utf8", timeout: 20000 });
  assert.notEqual(r.status, 0, r.stdout);
  assert.match(r.stderr, /sdk_operations: 'getUsr' is no operationId of the OpenAPI spec; did you mean 'getUser'\?/);
});
