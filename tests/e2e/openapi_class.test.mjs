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

test("sdk_operations (pmcp's SDK mode) is refused at start, naming the key and what a plan calls instead", () => {
  const f = writeClassConfig("class-sdk", `sdk_operations = ["getUser"]\n`);
  for (const args of [["serve", "-c", f, "--http", "127.0.0.1:1"], ["config", "check", f]]) {
    const r = spawnSync(sluiceBin, args, { cwd: work, env: process.env, encoding: "utf8", timeout: 20000 });
    assert.notEqual(r.status, 0, `${args[0]}: ${r.stdout}`);
    assert.match(r.stderr, /class-sdk\.toml:\d+:1: 'sdk_operations' configures pmcp's SDK mode \(a plan calling api\.<operation>\(args\); a sluice plan calls api\.<method>\(path\)\), which is not built in this version; remove it/);
  }
});
