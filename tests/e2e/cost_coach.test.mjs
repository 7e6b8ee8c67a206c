// cost_coach.test.mjs — JavaScript plans over an OpenAPI service end to end through the
// official SDK client (see ctest_cost_coach.sh): `sluice serve` over HTTP with [database]
// engine = "openapi" in front of the real cost-coach API (examples/cost-coach/server.mjs),
// API-key users alice (StandardUsers), pat (PowerUsers), ada (Admins), seed 000's Cedar
// policies (examples/cost-coach/policies.cedar).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { API_KEYS, work, startHttp, validate, execute, errorText } from "./codemode_harness.mjs";
import { Client, StreamableHTTPClientTransport, freePort, types } from "./harness.mjs";

const src = process.env.SLUICE_SOURCE_DIR;
const users = { alice: "StandardUsers", pat: "PowerUsers", ada: "Admins" };
const UPSTREAM_SECRET = "cost-coach-server-credential-7";

// seed 000's budgets plan, verbatim
const SEED_PLAN = `const budgets = await api.post("/budgets/listForecasts", {
  month: args.month
});

const top = budgets.items
  .filter(b => b.forecast > b.limit)
  .sort((a, b) => (b.forecast - b.limit) - (a.forecast - a.limit))
  .slice(0, 10);

const owners = await Promise.all(
  top.map(item => api.get(\`/users/\${item.ownerId}\`))
);

return top.map((item, i) => ({
  budget: item.name,
  owner: owners[i].name,
  team: owners[i].team,
  amount: item.limit,
  forecast_delta: item.forecast - item.limit
}));`;

let upstream, upstreamPort;
const servers = {};
const clients = {};

function config(name, { maxApiCalls = 11, timeout = 30, extra = "", endpoint } = {}) {
  let keys = "";
  for (const [user, group] of Object.entries(users)) {
    API_KEYS[user] = `${user}-key-0123456789abcdef`;
    process.env[`SLUICE_E2E_KEY_${user.toUpperCase()}`] = API_KEYS[user];
    keys += `[[api_keys]]\nuser = "${user}"\ngroups = ["${group}"]\nkey_env = "SLUICE_E2E_KEY_${user.toUpperCase()}"\n`;
  }
  const dir = path.join(src, "examples/cost-coach");
  const base = readFileSync(path.join(dir, "sluice.toml"), "utf8")
    .replace(/^endpoint = .*$/m, `endpoint = "${endpoint ?? `http://127.0.0.1:${upstreamPort}`}"`)
    .replace(/^path = "openapi.yaml".*$/m, `path = "${dir}/openapi.yaml"`)
    .replace(/^policies = .*$/m, `policies = "${dir}/policies.cedar"`)
    .replace(/^token_secret_file = .*$/m, `token_secret_file = "token.key"\naudit_log = "${name}.audit.jsonl"`)
    .replace(/^max_api_calls = .*$/m, `max_api_calls = ${maxApiCalls}`)
    .replace(/^execution_timeout_seconds = .*$/m, `execution_timeout_seconds = ${timeout}`)
    .replace(/^\[database\]/m, `${keys}\n[database]`);
  const file = path.join(work, `${name}.toml`);
  writeFileSync(file, base + extra);
  return file;
}

async function connect(server, user, elicit) {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: { Authorization: `Bearer ${API_KEYS[user]}` } } });
  const client = new Client({ name: `e2e-${user}`, version: "1.0.0" },
                            { capabilities: elicit ? { elicitation: {} } : {} });
  if (elicit) client.setRequestHandler(types.ElicitRequestSchema, elicit);
  await client.connect(transport);
  return client;
}

async function startUpstream(latency = 0) {
  const port = await freePort();
  const proc = spawn(process.execPath, [path.join(src, "examples/cost-coach/server.mjs"), "--port",
                     String(port), "--latency-ms", String(latency)],
                     { env: { ...process.env, COST_COACH_TOKEN: UPSTREAM_SECRET }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  await new Promise((resolve, reject) => {
    proc.stdout.on("data", (d) => { out += d; if (out.includes("listening")) resolve(); });
    proc.stderr.on("data", (d) => (out += d));
    proc.on("exit", (c) => reject(new Error(`upstream exited ${c}: ${out}`)));
  });
  return { proc, port };
}

const state = async () => (await fetch(`http://127.0.0.1:${upstreamPort}/__state`)).json();

before(async () => {
  process.env.COST_COACH_TOKEN = UPSTREAM_SECRET; // sluice's own credential for the upstream
  ({ proc: upstream, port: upstreamPort } = await startUpstream());
  servers.main = await startHttp(config("cc-main"));
  for (const user of Object.keys(users)) clients[user] = await connect(servers.main, user);
});

after(async () => {
  for (const c of Object.values(clients)) await c.close();
  for (const s of Object.values(servers)) s.stop();
  upstream?.kill("SIGTERM");
});

const rules = (v) => v.violations.map((x) => x.rule);

async function run(user, code, variables, client = clients[user]) {
  const v = await validate(client, code, variables);
  assert.equal(v.valid, true, `${user}: ${JSON.stringify(v.violations)}`);
  const r = await execute(client, code, v.approval_token, variables);
  return { v, r };
}

// The seed's question computed directly against the API, without sluice.
async function seedAnswerDirect(month) {
  const h = { Authorization: `Bearer ${UPSTREAM_SECRET}`, "Content-Type": "application/json" };
  const base = `http://127.0.0.1:${upstreamPort}`;
  const { items } = await (await fetch(`${base}/budgets/listForecasts`, { method: "POST", headers: h, body: JSON.stringify({ month }) })).json();
  const over = items.filter((b) => b.forecast > b.limit);
  over.sort((a, b) => (b.forecast - b.limit) - (a.forecast - a.limit));
  const top = over.slice(0, 10);
  const out = [];
  for (const b of top) {
    const u = await (await fetch(`${base}/users/${b.ownerId}`, { headers: h })).json();
    out.push({ budget: b.name, owner: u.name, team: u.team, amount: b.limit, forecast_delta: b.forecast - b.limit });
  }
  return out;
}

test("seed 000's budgets plan runs verbatim and answers what the API says directly", async () => {
  const { v, r } = await run("alice", SEED_PLAN, { month: "2026-11" });
  assert.equal(v.action, "read");
  assert.ok(!r.isError, errorText(r));
  const expected = await seedAnswerDirect("2026-11");
  assert.equal(expected.length, 10, "the fixture has more than ten budgets over their limit");
  assert.deepEqual(r.structuredContent.value, expected);
  assert.equal(r.structuredContent.failed_calls, undefined);
});

test("the verbatim max_api_calls = 10 refuses the seed plan at validate, naming the bound", async () => {
  const s = await startHttp(config("cc-ten", { maxApiCalls: 10 }));
  const c = await connect(s, "alice");
  try {
    const v = await validate(c, SEED_PLAN, { month: "2026-11" });
    assert.equal(v.valid, false);
    const m = v.violations.find((x) => x.rule === "max_api_calls");
    assert.ok(m, JSON.stringify(v.violations));
    assert.match(m.message, /11 upstream calls/);
    assert.match(m.message, /max_api_calls = 10/);
    assert.match(m.message, /1 \+ 10 from \.slice\(0, 10\) at line \d+/);
  } finally { await c.close(); s.stop(); }
});

test("code-mode://schema is a compact TypeScript declaration of the allowed operations", async () => {
  const r = await clients.alice.readResource({ uri: "code-mode://schema" });
  const text = r.contents[0].text;
  assert.match(text, /api\.get\(`\/users\/\$\{id\}`\): Promise<\{/);
  assert.match(text, /api\.post\("\/budgets\/listForecasts", body: \{ month: string; \}\)/);
  assert.doesNotMatch(text, /password/, "an internal blocked field is not even declared");
  assert.match(text, /ssn\?: string \/\* blocked/);
  assert.match(text, /Not callable under this server's settings.*createBudget \(write\).*deleteBudget \(delete\)/s);
  assert.doesNotMatch(text, /openapi: 3\.1/, "not the raw spec");
});

test("a writer's schema declares the request bodies of the writes its route and policy let it call", async () => {
  const pat = await connect(servers.main, "pat");
  try {
    const text = (await pat.readResource({ uri: "code-mode://schema" })).contents[0].text;
    assert.match(text, /\/\/ update_budget_note \(write, not idempotent\)\napi\.patch\(`\/budgets\/\$\{id\}\/note`, body: \{ note: string; \}\)/);
    // createBudget: the route allows writes, but the policy lets pat call update_budget_note only
    assert.match(text, /Not callable under this server's settings.*createBudget \(write\).*deleteBudget \(delete\)/s);
    assert.doesNotMatch(text, /api\.post\("\/budgets", body/);
    const prompt = await pat.getPrompt({ name: "start_code_mode", arguments: {} });
    assert.match(prompt.messages.map((m) => m.content.text ?? m.content.resource?.text).join("\n"), /api\.patch\(`\/budgets/);
  } finally { await pat.close(); }
  const reader = (await clients.alice.readResource({ uri: "code-mode://schema" })).contents[0].text;
  assert.doesNotMatch(reader, /api\.patch/, "a reader's schema declares no write");
});

test("writes are refused by default; a power user's update_budget_note runs after approval", async () => {
  const code = 'return await api.patch("/budgets/b3/note", { note: "reviewed" })';
  const v = await validate(clients.alice, code);
  assert.equal(v.valid, false);
  assert.equal(v.action, "write");
  assert.ok(rules(v).includes("openapi_allow_writes"), JSON.stringify(v.violations));
  let asked = 0;
  const pat = await connect(servers.main, "pat", async () => { asked++; return { action: "accept", content: { approve: true } }; });
  try {
    const { v: pv, r } = await run("pat", code, undefined, pat);
    assert.equal(pv.requires_approval, true);
    assert.ok(!r.isError, errorText(r));
    assert.equal(asked, 1);
    assert.equal(r.structuredContent.value.note, "reviewed");
    assert.equal((await state()).budgets.find((b) => b.id === "b3").note, "reviewed");
    // the same power user may not call another write
    const other = await validate(pat, 'return await api.post("/budgets", { name: "x", ownerId: "u1", limit: 5 })');
    assert.equal(other.valid, false, "createBudget is not pat's operation");
    // deleteBudget: a Delete, allowed to nobody
    const del = await validate(pat, 'return await api.delete("/budgets/b3")');
    assert.equal(del.valid, false);
    assert.equal(del.action, "delete");
    assert.ok(rules(del).includes("openapi_allow_deletes"), JSON.stringify(del.violations));
  } finally { await pat.close(); }
});

test("blocked fields never reach the result: stripped at any depth and key case", async () => {
  const { v, r } = await run("alice", 'const u = await api.get("/users/u1");\nreturn [{ who: u }, [u]]');
  assert.equal(v.risk_level, "low", "a plan that never names a blocked field stays low");
  assert.ok(!r.isError, errorText(r));
  const text = JSON.stringify(r.structuredContent.value);
  assert.doesNotMatch(text, /123-45-/);
  assert.doesNotMatch(text, /salary|ssn|pw-1/i);
  assert.equal(r.structuredContent.value[0].who.name, "Owner 1");
  // returned by name: refused at validate
  const bad = await validate(clients.alice, 'const u = await api.get("/users/u1");\nreturn { ssn: u.ssn }');
  assert.equal(bad.valid, false);
  assert.ok(rules(bad).includes("openapi_output_blocked_fields"), JSON.stringify(bad.violations));
});

// Issue 25: the value of a blocked field under another name, inside other values, through
// errors, logs and sluice's own list of failed calls, or as derived bits and counts. Each plan
// is approved by the user (a plan that may read a blocked field is high risk) and run; no form
// of u1's ssn (123-45-1001) or salary (101000) reaches the client.
const canaryForms = [/123-45-1/, /1001-54-321/, /123451001/, /1-54-321/, /49,50,51,45/, /101000/, /000101/];
const USERS = 'const us = await Promise.all(["u1", "u2"].map(id => api.get(`/users/${id}`)));\n';
const leakPlans = [
  USERS + "return us.map(u => ({ id: u.id, tax: u.ssn }))",
  USERS + "return us.map(u => ({ [u.ssn]: u.id }))",
  USERS + "return us.map(u => Object.values(u))",
  USERS + "return us.map(u => Object.entries(u).flat())",
  USERS + "const o = {}; for (const u of us) o[u.ssn] = 1; return Object.keys(o)",
  USERS + "return us.map(u => JSON.stringify(u))",
  USERS + "return us.map(u => `${u.name} ${u.ssn} ${u.salary}`)",
  USERS + "return us.map(u => u.ssn.split('').reverse().join(''))",
  USERS + "return us.map(u => [...u.ssn].map(c => c.charCodeAt(0)).join(','))",
  USERS + "return Math.max(...us.map(u => u.salary))",
  USERS + "return us.map(u => u.salary > 101500)",
  USERS + "return us.filter(u => u.salary > 101500).length",
  USERS + "throw new Error('no: ' + us[0].ssn)",
  USERS + "console.log(us[0].ssn); return 1",
  USERS + "await api.get(`/users/${us[0].ssn}`); return 1",
  USERS + "try { await api.get(`/users/${us[0].ssn}`) } catch (e) { return e.message }",
  USERS + "return [...new Map(us.map(u => [u.id, u.ssn])).values()]",
  USERS + "return [...new Set(us.map(u => u.salary))]",
  USERS + "return new Map(us.map(u => [u.ssn, u.id])).size",
  USERS + "return await Promise.all(us.map(async u => u.ssn))",
  USERS + "return await Promise.resolve(us[0].salary).then(s => s + 1)",
  USERS + "return us.reduce((n, u) => n + (u.salary > 101500 ? 1 : 0), 0)",
  USERS + "try { null.x } catch (e) { throw new Error(`${e.message} ${us[0].ssn}`) }",
  USERS + "console.log(`${us[0].name}: ${us[0].salary}`); console.error(us[1].ssn); return 1",
];

test("a blocked field's value never leaves under another name, in errors, logs or calls", async () => {
  const ada = await connect(servers.main, "alice", async () => ({ action: "accept", content: { approve: true } }));
  try {
    for (const code of leakPlans) {
      const v = await validate(ada, code);
      assert.equal(v.valid, true, `${code}: ${JSON.stringify(v.violations)}`);
      assert.equal(v.risk_level, "high", code);
      const r = await execute(ada, code, v.approval_token);
      const seen = JSON.stringify(r);
      for (const form of canaryForms) assert.doesNotMatch(seen, form, `${code}\n -> ${seen.slice(0, 400)}`);
    }
    // matched by an input variable (a join key): steers without tainting, at high risk
    const code = USERS + "return us.find(u => u.ssn === args.ssn)?.name ?? null";
    const v = await validate(ada, code, { ssn: "123-45-1002" });
    assert.equal(v.risk_level, "high");
    const r = await execute(ada, code, v.approval_token, { ssn: "123-45-1002" });
    assert.ok(!r.isError, errorText(r));
    assert.equal(r.structuredContent.value, "Owner 2");
  } finally { await ada.close(); }
});

// passable_fields: getUser may be sent an ssn (a lookup by that key), nothing else may; the
// call leaves, and sluice's own list of calls, its failure text and the audit show its path
// redacted. A below-high approval is checked at run time (unit: test_js_taint.c).
test("a passable field goes to its operation only, and its path never comes back", async () => {
  const extra = '\n[[code_mode.operations]]\nid = "getUser"\ncategory = "read"\npassable_fields = ["ssn"]\n';
  const server = await startHttp(config("cc-passable", { extra }));
  const c = await connect(server, "alice", async () => ({ action: "accept", content: { approve: true } }));
  try {
    const before = (await state()).log.length;
    const code = USERS + "try { await api.get(`/users/${us[0].ssn}`) } catch (e) { return ['caught', e.message] }";
    const v = await validate(c, code);
    assert.equal(v.risk_level, "high");
    const r = await execute(c, code, v.approval_token);
    assert.ok(!r.isError, errorText(r));
    const sent = (await state()).log.slice(before).map((e) => e.path);
    assert.ok(sent.includes("/users/123-45-1001"), `the lookup left: ${sent}`);
    const seen = JSON.stringify(r);
    for (const form of canaryForms) assert.doesNotMatch(seen, form, seen.slice(0, 600));
    const f = r.structuredContent.failed_calls;
    assert.equal(f.length, 1);
    assert.match(f[0].target, /redacted/);
    assert.match(f[0].error, /redacted/);
    assert.equal(f[0].status, 404);
    // uncaught: the failure's own list of calls shows the path redacted
    const u = await run("alice", USERS + "await api.get(`/users/${us[1].ssn}`); return 1", undefined, c);
    assert.equal(u.r.isError, true);
    assert.match(errorText(u.r), /#2 api\.get \(redacted: it carries a blocked field\) failed 404/);
    for (const form of [/123-45-1/, /1002-54-321/, /123451002/]) assert.doesNotMatch(JSON.stringify(u.r), form);
    // not passable: salary to getUser, ssn in another operation's body, a mix
    for (const [bad, re] of [
      [USERS + "await api.get(`/users/${us[0].salary}`); return 1", /'salary' to getUser, which does not list it in passable_fields/],
      [USERS + "await api.post('/budgets/listForecasts', { month: us[0].ssn }); return 1", /'ssn' to listForecasts|passable_fields/],
      [USERS + "const a = us[0].ssn;\nconst b = us[0].salary;\nawait api.get(`/users/${a}${b}`); return 1", /never sent upstream/],
      [USERS + "if (us[0].salary > 5) await api.get(`/users/${us[0].ssn}`); return 1", /decided by one/],
    ]) {
      const n = (await state()).log.length;
      const x = await run("alice", bad, undefined, c);
      assert.equal(x.r.isError, true, bad);
      assert.match(errorText(x.r), re, bad);
      assert.equal((await state()).log.length - n, 2, `only the two reads left: ${bad}`);
    }
    const audit = readFileSync(path.join(work, "cc-passable.audit.jsonl"), "utf8");
    for (const form of [/123-45-100[12]/, /1001-54-321/, /123451001/]) assert.doesNotMatch(audit, form);
    assert.match(audit, /redacted: it carries a blocked field/);
  } finally { await c.close(); server.stop(); }
});

test("every limit stops the plan once, named", async () => {
  const cases = [
    ["while (true) {}", /max_loop_iterations/],
    ["const ids = [];\nfor (let i = 0; i < 50; i++) ids.push(i);\nconst all = [];\nfor (const k of [1,2,3,4,5,6,7,8,9,10]) for (const i of ids) all.push(i);\nreturn all.length", /max_loop_iterations/],
    ["let s = 'x';\nwhile (s.length < 100000000) s = s + s;\nreturn s.length", /max_memory_bytes|max_loop_iterations|string/],
    ["function f(n) { return f(n + 1) }\nreturn f(0)", /calls deep|max_call_depth/],
  ];
  for (const [code, re] of cases) {
    const v = await validate(clients.alice, code);
    if (!v.valid) { assert.match(JSON.stringify(v.violations), re, code); continue; }
    const r = await execute(clients.alice, code, v.approval_token);
    assert.equal(r.isError, true, code);
    assert.match(errorText(r), re, code);
  }
});

test("a 10,000-item map of calls stops at max_api_calls with the calls made", async () => {
  const code = 'const ids = JSON.parse("[" + "1,".repeat(9999) + "1]");\n' +
    "const us = await Promise.all(ids.map(i => api.get(`/users/u${i}`)));\nreturn us.length";
  // no static bound: medium risk, so the user is asked first
  const alice = await connect(servers.main, "alice", async () => ({ action: "accept", content: { approve: true } }));
  const v = await validate(alice, code);
  assert.equal(v.valid, true, JSON.stringify(v.violations));
  assert.equal(v.risk_level, "medium");
  const before = (await state()).log.length;
  const r = await execute(alice, code, v.approval_token);
  await alice.close();
  assert.equal(r.isError, true);
  assert.match(errorText(r), /max_api_calls = 11/);
  assert.match(errorText(r), /11 calls made/);
  assert.ok((await state()).log.length - before <= 11, "no call past the limit left sluice");
});

test("prototype and constructor escapes are refused", async () => {
  for (const code of ["return ({}).constructor.constructor('return process')()",
                      "return [].__proto__", "const o = {}; o['__proto__'] = 1; return o",
                      "return globalThis", "return this", "return eval('1')",
                      "const k = 'constr' + 'uctor';\nreturn ({})[k]"]) {
    const v = await validate(clients.alice, code);
    if (!v.valid) continue;
    const r = await execute(clients.alice, code, v.approval_token);
    assert.ok(r.isError || !/function|process|Object/.test(JSON.stringify(r.structuredContent?.value ?? "")), code);
  }
});

test("a computed path cannot leave its template", async () => {
  for (const [id, re] of [["../budgets", /refused|template/], ["u1/../../budgets", /refused|template/],
                          ["%2e%2e", /refused/], ["u1?x=1", /refused|'\?'/], ["", /refused|template/],
                          ["u1#frag", /refused/], ["a\\\\b", /refused/]]) {
    const code = `const id = args.id;\nreturn await api.get(\`/users/\${id}\`)`;
    const { r } = await run("alice", code, { id });
    assert.equal(r.isError, true, `id ${JSON.stringify(id)}: ${errorText(r)}`);
    assert.match(errorText(r), re, id);
  }
  const before = (await state()).log.length;
  const { r } = await run("alice", "return await api.get(`/users/${args.id}`)", { id: "u 2" });
  assert.equal(r.isError, true, "no such user: 404");
  const last = (await state()).log.slice(before);
  assert.deepEqual(last.map((e) => e.path), ["/users/u%202"], "parameter values are percent-encoded");
  // a path outside the spec: refused at validate
  const v = await validate(clients.alice, 'return await api.get("/__state")');
  assert.equal(v.valid, false);
  assert.ok(rules(v).includes("openapi_operation"), JSON.stringify(v.violations));
});

// A ${...} value fills the parameter validate saw at its call site, one segment, and nothing
// else: '/', '..', '?', '#' in any encoding (or from the upstream's own data) never reach another
// path; the refusal names the parameter and the rule, not the value.
test("a path parameter's value stays one segment of the operation validated at its call site", async () => {
  const before = (await state()).log.length;
  const read = "return await api.get(`/users/${args.id}`)";
  for (const id of ["u1/x", "u1/", "/u1", "u1%2Fx", "u1%2fx", "u1%252Fx", "u1/../u2", "..%2F", "%2e",
                    "u1?x=1", "u1%3Fx", "u1#x", "u1%23x", "u1\\x", "u1%5Cx", "u1\u0000x",
                    "secret-canary/x"]) {
    const { r } = await run("alice", read, { id });
    assert.equal(r.isError, true, `id ${JSON.stringify(id)}: ${JSON.stringify(r.structuredContent)}`);
    assert.match(errorText(r), /refused|template|not JSON/, id);
    // the list of calls after it shows the plan's own path (redacted when it carries a blocked field)
    assert.doesNotMatch(errorText(r).split(" (1 call made")[0], /secret-canary/, "the refusal never quotes the value");
  }
  // a value the upstream itself supplied is held to the same rule
  const fromData = "const b = await api.post('/budgets/listForecasts', { month: '2026-11' });\n" +
    "return await api.get(`/users/${b.items[0].ownerId + '/../' + b.items[1].ownerId}`)";
  const { r } = await run("alice", fromData);
  assert.equal(r.isError, true, errorText(r));
  const sent = (await state()).log.slice(before).map((e) => e.path);
  assert.deepEqual(sent, ["/budgets/listForecasts"], "no escaped call reached the upstream");
});

// Issue 25's ordinary constructs through the SDK client: each plan runs in sluice and, as an
// async function body, in this Node process; the answers must be equal (the generator,
// tests/node/js_diff.mjs, covers the same constructs with random operands).
const AsyncFunction = (async () => {}).constructor;
const CONSTRUCT_PLANS = {
  holes: "const [, second, , fourth] = [1, 2, 3, 4];\nconst [[, x]] = [[5, 6]];\nreturn { second, fourth, x };",
  labels: "let n = 0;\nouter: for (let i = 0; i < 5; i++) {\n  inner: for (let j = 0; j < 5; j++) {\n" +
    "    if (j === 3) continue outer;\n    if (i === 3) break outer;\n    if (j === i) continue inner;\n" +
    "    n += i * 10 + j;\n  }\n}\nblock: { if (n > 0) break block; n = -1; }\nreturn n;",
  instanceof: "const out = [];\nfor (const f of [() => null.x, () => { throw new RangeError('r'); }, () => JSON.parse('{'),\n" +
    "                 () => { throw new Error('e'); }, () => (1).toFixed(200), () => { throw 'text'; }]) {\n" +
    "  try { f(); } catch (e) {\n    out.push([e instanceof TypeError, e instanceof RangeError, e instanceof SyntaxError,\n" +
    "              e instanceof Error, typeof e === 'string' ? e : e.name]);\n  }\n}\n" +
    "try { await api.get('/users/nobody'); } catch (e) { out.push([e instanceof Error, e instanceof TypeError]); }\n" +
    "return out;",
  objectIs: "return [Object.is(0, -0), Object.is(NaN, 0 / 0), Object.is('a', 'a'), Object.is({}, {}), Object.is(-0, -0)];",
  math: "return [Math.hypot(3, 4), Math.hypot(), Math.hypot(1e200, 1e200), Math.max(1, 5, -2), Math.min(), Math.trunc(-4.7),\n" +
    "  Math.sign(-3), Math.sqrt(2), Math.round(2.5), Math.round(-2.5), Math.abs(-1), Math.cbrt(-27), Math.pow(2, 10),\n" +
    "  Math.fround(5.5), Math.clz32(1), Math.imul(3, -4), Math.log(1), Math.exp(0), Math.atan2(0, -1), Math.sin(-0),\n" +
    "  Math.floor(-0.5), Math.ceil(-0.5), Math.PI, Math.E].map(String);",
  radix: "return [(255).toString(16), (255).toString(2), (-255).toString(36), (0.5).toString(2), (3.75).toString(16),\n" +
    "  (1e21).toString(36), (123).toString(10), Number.parseInt('ff', 16), parseInt('z', 36)];",
  numberFormat: "return [(123.456).toPrecision(4), (1.005).toFixed(2), (123456).toExponential(2), (0.000001234).toPrecision(2),\n" +
    "  (1e21).toFixed(2), (-1.5).toFixed(0), (0).toExponential(), (255).toPrecision(1), (1.45).toFixed(1), (5e-7).toFixed(7)];",
  normalize: "const out = ['\\u0041\\u030A'.normalize('NFC') === '\\u00C5', '\\u00C5'.normalize('NFD').length,\n" +
    "  '\\uFB01'.normalize('NFKC'), '\\u1100\\u1161'.normalize(), 'e\\u0301'.normalize('NFKD').length];\n" +
    "try { 'a'.normalize('NFX'); } catch (e) { out.push(e instanceof RangeError, e.message); }\nreturn out;",
  localeCompare: "return ['a'.localeCompare('b'), 'b'.localeCompare('a'), '\\u00E4'.localeCompare('a\\u0308'),\n" +
    "  'a'.localeCompare('B'), 'resume'.localeCompare('r\\u00E9sum\\u00E9'),\n" +
    "  ['b', 'a', 'C', '\\u00E4', 'Z', 'z', '10', '9'].sort((x, y) => x.localeCompare(y))];",
};

test("ordinary plans' constructs answer what Node answers", async () => {
  for (const [name, code] of Object.entries(CONSTRUCT_PLANS)) {
    const { r } = await run("alice", code);
    assert.ok(!r.isError, `${name}: ${errorText(r)}`);
    const api = { get: async (p) => { throw new Error(`HTTP 404 from GET ${p}`); } };
    const expected = JSON.parse(JSON.stringify(await new AsyncFunction("api", "args", code)(api, {})));
    assert.deepEqual(r.structuredContent.value, expected, name);
  }
});

test("a path folded from literals is the operation it spells; a NUL is refused alike by validate and execute", async () => {
  const before = (await state()).log.length;
  const { v, r } = await run("alice", 'const u = await api.get("/users/" + "u12");\nreturn u.name;');
  assert.deepEqual(v.calledOperations ?? v.called_operations ?? ["getUser"], ["getUser"]);
  assert.ok(!r.isError, errorText(r));
  assert.equal(r.structuredContent.value, "Owner 12");
  assert.deepEqual((await state()).log.slice(before).map((e) => e.path), ["/users/u12"]);
  // a value is not a literal: still refused at validate as a computed path
  const computed = await validate(clients.alice, 'const p = "/users/";\nreturn await api.get(p + "u12");');
  assert.equal(computed.valid, false, JSON.stringify(computed));
  // NUL inside a string literal, raw and escaped: validate's verdict is execute's
  const raw = "return 'a\u0000b';";
  const vr = await validate(clients.alice, raw);
  assert.equal(vr.valid, false);
  const vmsg = vr.violations.map((x) => x.message).join("\n");
  assert.match(vmsg, /NUL byte at byte offset 9/);
  // execute judges the code it is given, whatever token comes with it: a token validate gave
  // the same plan without the NUL does not make the NUL plan run
  const clean = await validate(clients.alice, "return 'a b';");
  assert.equal(clean.valid, true);
  const er = await execute(clients.alice, raw, clean.approval_token);
  assert.equal(er.isError, true);
  assert.match(errorText(er), /NUL byte at byte offset 9/, "execute refuses with validate's message");
  const { r: esc } = await run("alice", "return 'a\\0b'.length + 'c\\u0000d'.length;");
  assert.equal(esc.structuredContent.value, 6, "an escaped NUL is an ordinary character");
});

test("a plan that catches a 500 and returns [] shows the failed call beside its value", async () => {
  const { r } = await run("alice", 'try {\n  return await api.get("/users/boom");\n} catch (e) {\n  return [];\n}');
  assert.ok(!r.isError, errorText(r));
  assert.deepEqual(r.structuredContent.value, []);
  const f = r.structuredContent.failed_calls;
  assert.equal(f.length, 1);
  assert.equal(f[0].operation, "getUser");
  assert.equal(f[0].status, 500);
  assert.match(f[0].error, /HTTP 500/);
  assert.match(errorText(r), /1 upstream call failed/);
  // uncaught: a structured failure with the line and the calls made
  const u = await run("alice", 'const a = await api.get("/users/u1");\nconst b = await api.get("/users/boom");\nreturn b');
  assert.equal(u.r.isError, true);
  assert.match(errorText(u.r), /line 2/);
  assert.match(errorText(u.r), /2 calls made: #0 api\.get \/users\/u1 ok 200; #1 api\.get \/users\/boom failed 500/);
});

test("upstream slow, a huge body, and down", async () => {
  const s = await startHttp(config("cc-slow", { timeout: 2 }));
  const c = await connect(s, "alice");
  try {
    const started = Date.now();
    const slow = await run("alice", 'return await api.get("/users/slow")', undefined, c);
    assert.equal(slow.r.isError, true);
    assert.match(errorText(slow.r), /execution_timeout_seconds/);
    assert.ok(Date.now() - started < 30000, "stopped at the deadline, not when the upstream answered (60 s)");
  } finally { await c.close(); s.stop(); }
  const huge = await run("alice", 'return await api.get("/users/huge")');
  assert.equal(huge.r.isError, true);
  assert.match(errorText(huge.r), /max_response_bytes/);
  const down = await startHttp(config("cc-down", { endpoint: `http://127.0.0.1:${await freePort()}` }));
  const d = await connect(down, "alice");
  try {
    const r = await run("alice", 'return await api.get("/users/u1")', undefined, d);
    assert.equal(r.r.isError, true);
    assert.match(errorText(r.r), /could not be reached/);
  } finally { await d.close(); down.stop(); }
});

test("the credential is sluice's own, never the caller's", async () => {
  const res = await fetch(`http://127.0.0.1:${upstreamPort}/users/u1`, { headers: { Authorization: `Bearer ${API_KEYS.alice}` } });
  assert.equal(res.status, 401);
  const before = (await state()).log.length;
  const { r } = await run("alice", 'return (await api.get("/users/u2")).name');
  assert.equal(r.structuredContent.value, "Owner 2");
  assert.equal((await state()).log.length, before + 1);
});

test("a plan retrying createBudget after a lost response creates one budget; the audit shows the key", async () => {
  const code = `const b = { name: "flaky-retry", ownerId: "u4", limit: 900 };
let created = null;
for (let attempt = 0; attempt < 3 && created === null; attempt++) {
  try {
    created = await api.post("/budgets", b);
  } catch (e) {
    console.log("retrying: " + e.message);
  }
}
return created;`;
  let asked = 0;
  const ada = await connect(servers.main, "ada", async () => { asked++; return { action: "accept", content: { approve: true } }; });
  try {
    const v = await validate(ada, code);
    assert.equal(v.valid, true, JSON.stringify(v.violations));
    assert.equal(v.risk_level, "high", "a non-idempotent write inside a catch that retries it is high risk");
    const before = (await state()).budgets.length;
    const r = await execute(ada, code, v.approval_token);
    assert.ok(!r.isError, errorText(r));
    assert.equal(asked, 1);
    assert.equal(r.structuredContent.value.name, "flaky-retry");
    const after = await state();
    assert.equal(after.budgets.filter((x) => x.name === "flaky-retry").length, 1, "one budget, not two");
    assert.equal(after.budgets.length, before + 1);
    const posts = after.log.filter((e) => e.method === "POST" && e.path === "/budgets");
    assert.equal(posts.length, 2, "the plan did retry");
    assert.ok(posts[0].key && posts[0].key === posts[1].key, "the retry carried the same Idempotency-Key");
    assert.equal(r.structuredContent.failed_calls.length, 1, "the lost response is not silent");
    const audit = readFileSync(path.join(work, "cc-main.audit.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const rec = audit.reverse().find((e) => e.event === "execute" || e.decision === "executed");
    const calls = rec.calls ?? rec.detail?.calls;
    assert.ok(calls, JSON.stringify(rec).slice(0, 400));
    assert.equal(calls.length, 2);
    assert.equal(calls[0].idempotency_key, posts[0].key);
    assert.equal(calls[1].idempotency_key, posts[0].key);
    assert.equal(calls[0].status, 504);
    assert.equal(calls[1].status, 201);
  } finally { await ada.close(); }
});
