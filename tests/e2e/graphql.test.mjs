// graphql.test.mjs — GraphQL code mode end to end through the official SDK client (see
// ctest_graphql.sh): `sluice serve` over HTTP with [database] engine = "graphql" in front of the
// real demo API (examples/graphql/server.mjs, graphql-js + graphql-http over the demo
// database), API-key users alice (StandardUsers), pat (PowerUsers), ada (Admins), and seed
// 000's Cedar policies plus one GraphQL write rule (examples/graphql/policies.cedar).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { API_KEYS, work, startHttp, validate, execute, errorText } from "./codemode_harness.mjs";
import { Client, StreamableHTTPClientTransport, freePort, types } from "./harness.mjs";

const src = process.env.SLUICE_SOURCE_DIR;
const require = createRequire(path.join(src, "tests/node/package.json"));
const { DuckDBInstance } = require("@duckdb/node-api");
const users = { alice: "StandardUsers", pat: "PowerUsers", ada: "Admins" };
const UPSTREAM_SECRET = "upstream-server-credential-42";
const SEED = readFileSync(path.join(src, "tests/fuzz/corpus/fuzz_graphql/seed000_snapshot.graphql"), "utf8");

let upstream, upstreamPort;
const servers = {};
const clients = {};

function config(name, { endpoint = "/graphql", extra = "", timeout = 10, maxRows = 1000 } = {}) {
  let keys = "";
  for (const [user, group] of Object.entries(users)) {
    API_KEYS[user] = `${user}-key-0123456789abcdef`;
    process.env[`SLUICE_E2E_KEY_${user.toUpperCase()}`] = API_KEYS[user];
    keys += `[[api_keys]]\nuser = "${user}"\ngroups = ["${group}"]\nkey_env = "SLUICE_E2E_KEY_${user.toUpperCase()}"\n`;
  }
  const base = readFileSync(path.join(src, "examples/graphql/sluice.toml"), "utf8")
    .replace(/^endpoint = .*$/m, `endpoint = "${endpoint.startsWith("http") ? endpoint : `http://127.0.0.1:${upstreamPort}${endpoint}`}"`)
    .replace(/^path = "schema.graphql".*$/m, `path = "${src}/examples/graphql/schema.graphql"`)
    .replace(/^policies = .*$/m, `policies = "${src}/examples/graphql/policies.cedar"`)
    .replace(/^token_secret_file = .*$/m, `token_secret_file = "token.key"`)
    .replace(/^execution_timeout_seconds = .*$/m, `execution_timeout_seconds = ${timeout}`)
    .replace(/^sql_max_rows = .*$/m, `sql_max_rows = ${maxRows}`)
    .replace(/^\[database\]/m, `${keys}\n[database]`);
  const file = path.join(work, `${name}.toml`);
  writeFileSync(file, `${base}
[[policy.servers]]
id = "sluice-graphql:administrator"
groups = ["Admins"]
allow_admin = true
${extra}`);
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

async function startUpstream() {
  upstreamPort = await freePort();
  upstream = spawn(process.execPath, [path.join(src, "examples/graphql/server.mjs"), "--db",
                   path.join(work, "demo.duckdb"), "--port", String(upstreamPort), "--slow-ms", "4000"],
                   { env: { ...process.env, DEMO_GRAPHQL_TOKEN: UPSTREAM_SECRET }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  await new Promise((resolve, reject) => {
    upstream.stdout.on("data", (d) => { out += d; if (out.includes("listening")) resolve(); });
    upstream.stderr.on("data", (d) => (out += d));
    upstream.on("exit", (c) => reject(new Error(`upstream exited ${c}: ${out}`)));
  });
}

before(async () => {
  process.env.DEMO_GRAPHQL_TOKEN = UPSTREAM_SECRET; // sluice's own credential for the upstream
  await startUpstream();
  servers.main = await startHttp(config("graphql-main"));
  for (const user of Object.keys(users)) clients[user] = await connect(servers.main, user);
});

after(async () => {
  for (const c of Object.values(clients)) await c.close();
  for (const s of Object.values(servers)) s.stop();
  upstream?.kill("SIGTERM");
});

const rules = (v) => v.violations.map((x) => x.rule);

async function run(user, code, variables) {
  const v = await validate(clients[user], code, variables);
  assert.equal(v.valid, true, `${user}: ${JSON.stringify(v.violations)}`);
  const r = await execute(clients[user], code, v.approval_token, variables);
  assert.ok(!r.isError, errorText(r));
  return r.structuredContent.value;
}

// The seed's question answered in SQL on the same database.
async function seedAnswerInSql() {
  const db = await DuckDBInstance.create(path.join(work, "demo.duckdb"), { access_mode: "READ_ONLY" });
  const c = await db.connect();
  const q = async (sql, p) => (await c.runAndReadAll(sql, p)).getRowObjectsJson();
  const customers = await q(`SELECT id, name, segment FROM customers ORDER BY created_at DESC, id DESC LIMIT 3`, []);
  const out = [];
  for (const cu of customers) {
    const orders = await q(`SELECT id, total_cents, CAST(order_date AS VARCHAR) AS d FROM orders
                            WHERE customer_id = $1 ORDER BY order_date DESC, id DESC LIMIT 2`, [cu.id]);
    const tickets = await q(`SELECT id, subject, priority FROM support_tickets
                             WHERE customer_id = $1 AND status = 'open' ORDER BY created_at DESC, id DESC`, [cu.id]);
    out.push({ id: String(cu.id), name: cu.name, segment: cu.segment,
               orders: orders.map((o) => ({ id: String(o.id), total: Number(o.total_cents) / 100, placedAt: o.d })),
               supportTickets: tickets.map((t) => ({ id: String(t.id), subject: t.subject, priority: t.priority })) });
  }
  c.closeSync?.();
  return { customers: out };
}

test("seed 000's RecentCustomersSnapshot, verbatim: validated, tokened, run upstream, equal to SQL", async () => {
  const v = await validate(clients.alice, SEED);
  assert.equal(v.valid, true, JSON.stringify(v.violations));
  assert.equal(v.action, "read");
  assert.equal(v.risk_level, "low");
  assert.match(v.explanation, /^Reads customers \(orderBy: \{createdAt: DESC\}, limit: 3\) with id, name, segment; for each, orders/);
  assert.equal(v.metadata.operationName, "RecentCustomersSnapshot");
  assert.deepEqual(v.metadata.calledOperations, ["customers"]);
  assert.ok(v.metadata.accessedFields.includes("Order.total"));
  assert.equal(v.metadata.depth, 3);
  assert.ok(v.approval_token, "a low-risk read gets a token");
  const r = await execute(clients.alice, SEED, v.approval_token);
  assert.ok(!r.isError, errorText(r));
  assert.deepEqual(r.structuredContent.value, await seedAnswerInSql());
  assert.equal(r.structuredContent.value.customers.length, 3);
});

test("code-mode://schema shows the upstream types, fields with arguments, blocked marks", async () => {
  const r = await clients.alice.readResource({ uri: "code-mode://schema" });
  const text = r.contents[0].text;
  assert.match(text, /## Customer\n/);
  assert.match(text, /- orders \[Order!\]! \(orderBy: OrderOrder, limit: Int\)/);
  assert.match(text, /- ssn String \[blocked: never returned\]/);
  assert.doesNotMatch(text, /JOIN|WHERE|join\/filter/); // a GraphQL route has no joins
});

test("code-mode://policies speaks GraphQL: operations and fields, the route's never-returned fields", async () => {
  const text = (await clients.alice.readResource({ uri: "code-mode://policies" })).contents[0].text;
  assert.match(text, /- read \(queries\): /);
  assert.match(text, /- write \(mutations\): /);
  assert.match(text, /Fields never returned[^\n]*ssn/);
  assert.doesNotMatch(text, /Tables|joins|WHERE/);
});

test("code-mode://instructions speaks GraphQL on a GraphQL-only server: operations, variables, limits, blocked fields, introspection", async () => {
  const text = (await clients.alice.readResource({ uri: "code-mode://instructions" })).contents[0].text;
  if (process.env.SLUICE_E2E_PRINT) console.log(text);
  assert.match(text, /^# Code mode \(GraphQL\)/);
  assert.match(text, /ONE GraphQL operation/);
  assert.match(text, /\$operationName/);
  assert.match(text, /depth 10, aliases 15, root fields 20, directives 50, tokens 1000, characters 15000, cost 5000/);
  assert.match(text, /`Customer\.ssn`, `Customer\.email`/);
  assert.match(text, /Introspection \(`__schema`, `__type`\) is off for you: `code-mode:\/\/schema` is the schema/);
  assert.doesNotMatch(text, /SQL|JOIN|statement|EXCLUDE/);
  // the tools and the prompt speak the same language
  const tools = Object.fromEntries((await clients.alice.listTools()).tools.map((t) => [t.name, t.description]));
  assert.match(tools.validate_code, /^Validate ONE GraphQL operation before running it/);
  assert.match(tools.execute_code, /^Run a GraphQL operation that validate_code approved/);
  const prompt = await clients.alice.getPrompt({ name: "start_code_mode", arguments: { question: "recent customers" } });
  const ask = prompt.messages.at(-1).content.text;
  assert.match(ask, /Write, on the schema above, ONE GraphQL operation/);
  for (const d of [tools.validate_code, tools.execute_code, ask]) assert.doesNotMatch(d, /SQL|rows|LIMIT/);
});

test("without a schema file the schema is fetched by introspection at start-up, and is the same", async () => {
  const f = config("graphql-introspected");
  writeFileSync(f, readFileSync(f, "utf8").replace(/^path = .*$/m, ""));
  const s = await startHttp(f);
  const c = await connect(s, "alice");
  const fetched = (await c.readResource({ uri: "code-mode://schema" })).contents[0].text;
  const fromFile = (await clients.alice.readResource({ uri: "code-mode://schema" })).contents[0].text;
  assert.equal(fetched, fromFile);
  const v = await validate(c, SEED);
  assert.equal(v.valid, true, JSON.stringify(v.violations));
  await c.close();
  s.stop();
});

// SIGHUP re-reads the schema (the catalog snapshot): new requests see it, a token or a kept
// analysis from before never runs under it, and a broken file keeps the schema in use.
async function waitForLog(server, text, ms = 5000) {
  const until = Date.now() + ms;
  while (!server.log().includes(text)) {
    if (Date.now() > until) throw new Error(`no "${text}" in the log:\n${server.log()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// validate until it says want (the signal lands asynchronously), at most ~5 s
async function validateUntil(client, code, want) {
  let v;
  for (let i = 0; i < 100; i++) {
    v = await validate(client, code);
    if (v.valid === want) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  return v;
}

test("SIGHUP re-reads the SDL: new fields validate, old tokens and kept analyses never run, a broken file keeps the schema", async () => {
  const original = readFileSync(path.join(src, "examples/graphql/schema.graphql"), "utf8");
  const sdl = path.join(work, "refresh-schema.graphql");
  writeFileSync(sdl, original);
  const f = config("graphql-refresh");
  writeFileSync(f, readFileSync(f, "utf8").replace(/^path = .*$/m, `path = "${sdl}"`));
  const s = await startHttp(f);
  const c = await connect(s, "alice");
  try {
    const withPlan = "{ customers(limit: 1) { id plan } }";
    const withNickname = "{ customers(limit: 1) { id nickname } }";
    const before = await validate(c, withPlan);
    assert.equal(before.valid, true, JSON.stringify(before.violations));
    assert.equal((await validate(c, withNickname)).valid, false, "nickname is not in the schema yet");
    // the next schema drops Customer.plan (the upstream still has it) and adds Customer.nickname
    const changed = original.replace(/^(\s*)plan: String!\n/m, "$1nickname: String\n");
    assert.notEqual(changed, original, "the example schema has Customer.plan");
    writeFileSync(sdl, changed);
    s.proc.kill("SIGHUP");
    const added = await validateUntil(c, withNickname, true);
    assert.equal(added.valid, true, `after SIGHUP: ${JSON.stringify(added.violations)}`);
    const dropped = await validate(c, withPlan);
    assert.equal(dropped.valid, false, "Customer.plan is gone from the schema");
    assert.match(JSON.stringify(dropped.violations), /plan/);
    // the token (and the analysis kept for it) was judged against the old schema: refused,
    // although the upstream would still answer the operation
    const r = await execute(c, withPlan, before.approval_token);
    assert.equal(r.isError, true, `an old-schema token ran: ${errorText(r).slice(0, 200)}`);
    assert.match(errorText(r), /schema, policies or permissions changed/);
    // a broken file: the schema in use stays, and the log says why
    writeFileSync(sdl, "type Query {\n  customers: [Customer!\n");
    s.proc.kill("SIGHUP");
    for (let i = 0; i < 100 && !s.log().includes("could not be re-read"); i++) {
      await validate(c, withNickname);
      await new Promise((res) => setTimeout(res, 50));
    }
    await waitForLog(s, "could not be re-read");
    assert.match(s.log(), /could not be re-read \(the GraphQL schema .*refresh-schema.graphql does not build: line 3, column \d+: .*\); the previous one stays in use/);
    const kept = await validate(c, withNickname);
    assert.equal(kept.valid, true, `the broken file replaced the schema: ${JSON.stringify(kept.violations)}`);
    const schemaText = (await c.readResource({ uri: "code-mode://schema" })).contents[0].text;
    assert.match(schemaText, /- nickname String/);
    assert.doesNotMatch(schemaText, /- plan String!/);
  } finally {
    await c.close();
    s.stop();
  }
});

test("graphql_persisted_only: only manifest operations run, matched by canonical hash", async () => {
  const manifest = path.join(work, "persisted.json");
  writeFileSync(manifest, JSON.stringify({ format: "apollo-persisted-query-manifest", version: 1,
    operations: [{ id: "x", name: "RecentCustomersSnapshot", type: "query",
                   body: SEED.replace(/\s+/g, " ").replace("segment", "segment,") }] }));
  const f = config("graphql-persisted");
  writeFileSync(f, readFileSync(f, "utf8").replace(/^graphql_max_cost = 5000$/m,
    `graphql_max_cost = 5000\ngraphql_persisted_only = true\ngraphql_persisted_manifest = "${manifest}"`));
  const s = await startHttp(f);
  const c = await connect(s, "alice");
  const ok = await validate(c, SEED);
  assert.equal(ok.valid, true, JSON.stringify(ok.violations));
  const other = await validate(c, "{ customers(limit: 1) { id } }");
  assert.equal(other.valid, false);
  const v = other.violations.find((x) => x.rule === "graphql_persisted_only");
  assert.match(v.message, new RegExp(`${other.code_hash} is not in the manifest`));
  await c.close();
  s.stop();
});

test("the upstream gets sluice's own credential, never the caller's token", async () => {
  // the upstream answers 401 without UPSTREAM_SECRET: the seed read proved sluice sent it
  const res = await fetch(`http://127.0.0.1:${upstreamPort}/graphql`, {
    method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${API_KEYS.alice}` },
    body: JSON.stringify({ query: "{ customers(limit: 1) { id } }" }) });
  assert.equal(res.status, 401, "the caller's own key is no credential upstream");
});

test("a mutation is refused for a standard user and runs for a power user after approval", async () => {
  const m = 'mutation Move { updateCustomerSegment(id: "7", segment: "Enterprise") { id segment } }';
  const v = await validate(clients.alice, m);
  assert.equal(v.valid, false);
  assert.equal(v.action, "write");
  assert.ok(rules(v).includes("policy"), JSON.stringify(v.violations));
  assert.equal(v.approval_token, null);
  let asked = 0;
  const pat = await connect(servers.main, "pat", async () => { asked++; return { action: "accept", content: { approve: true } }; });
  const pv = await validate(pat, m);
  assert.equal(pv.valid, true, JSON.stringify(pv.violations));
  assert.equal(pv.requires_approval, true);
  const r = await execute(pat, m, pv.approval_token);
  assert.ok(!r.isError, errorText(r));
  assert.equal(asked, 1);
  assert.deepEqual(r.structuredContent.value, { updateCustomerSegment: { id: "7", segment: "Enterprise" } });
  // a delete is its own action ([[code_mode.operations]] category = "delete") and not in pat's route
  const d = await validate(pat, 'mutation { deleteSupportTicket(id: "1") }');
  assert.equal(d.action, "delete");
  assert.equal(d.valid, false);
  await pat.close();
});

test("every root field of a mutation is checked, not only the first", async () => {
  const pat = await connect(servers.main, "pat");
  const v = await validate(pat, 'mutation { a: updateCustomerSegment(id: "7", segment: "SMB") { id } b: deleteSupportTicket(id: "2") }');
  assert.equal(v.valid, false);
  assert.equal(v.action, "delete");
  await pat.close();
});

// Each limit exceeded once, through fragments and aliases (depth: below, on a smaller limit).
const LIMITS = {
  graphql_max_aliases: `query { customers { ...A } } fragment A on Customer { ${Array.from({ length: 16 }, (_, i) => `a${i}: name`).join(" ")} }`,
  graphql_max_root_fields: `query { ...R } fragment R on Query { ${Array.from({ length: 21 }, (_, i) => `r${i}: customer(id: "${i}") { id }`).join(" ")} }`,
  graphql_max_directives: `query { customers { ...D } } fragment D on Customer { ${Array.from({ length: 51 }, (_, i) => `n${i % 10}: name @include(if: true)`).slice(0, 51).join(" ")} }`,
  graphql_max_cost: `query { customers(limit: 100) { ...C } } fragment C on Customer { orders(limit: 100) { id } }`,
  graphql_max_tokens: `query { customers { ${"id ".repeat(1001)} } }`,
  graphql_max_chars: `query { customers { id } } # ${"x".repeat(15001)}`,
};

test("every limit is refused once, counted through fragments and aliases, naming limit, value and path", async () => {
  // depth: the schema nests Query.customers > Customer.orders > Order.*, so a depth limit of 2
  // is exceeded by a fragment adding the third level
  const f = config("graphql-small");
  // max_field_count (pmcp's key): 4 fields pass, a fragment adding the fifth is refused
  writeFileSync(f, readFileSync(f, "utf8").replace(/^graphql_max_depth = 10$/m, "graphql_max_depth = 2\nmax_field_count = 4"));
  const small = await startHttp(f);
  const c = await connect(small, "alice");
  const fits = await validate(c, "query { customers { ...F } } fragment F on Customer { id name segment }");
  assert.equal(fits.valid, true, JSON.stringify(fits.violations));
  const fv = await validate(c, "query { customers { ...F } } fragment F on Customer { id name segment plan }");
  const fm = fv.violations.find((x) => x.rule === "max_field_count");
  assert.ok(fm, JSON.stringify(fv.violations));
  assert.match(fm.message, /max_field_count is 4; the operation reaches 5 at customers\.plan \(fragments expanded, aliases counted\)/);
  const dv = await validate(c, "query { customers { ...A } } fragment A on Customer { o: orders { id } }");
  assert.equal(dv.valid, false);
  const dm = dv.violations.find((x) => x.rule === "graphql_max_depth");
  assert.ok(dm, JSON.stringify(dv.violations));
  assert.match(dm.message, /graphql_max_depth is 2; the operation reaches 3 at customers\.o\.id/);
  await c.close();
  small.stop();
  for (const [limit, code] of Object.entries(LIMITS)) {
    const v = await validate(clients.alice, code);
    assert.equal(v.valid, false, limit);
    const hit = v.violations.find((x) => x.rule === limit);
    assert.ok(hit, `${limit}: ${JSON.stringify(v.violations)}`);
    assert.match(hit.message, new RegExp(`${limit} is \\d+`), limit);
  }
  const cost = (await validate(clients.alice, LIMITS.graphql_max_cost)).violations.find((x) => x.rule === "graphql_max_cost");
  assert.match(cost.message, /costs 10101 .* passes the limit at customers\.orders\.id/);
});

// Bounded by a counted limit, not by the clock (speed is measured in bench/, never asserted):
// the walk over 2^20 expansions stops at a limit that names itself and its value.
test("an exponential fan-out of fragments is refused by a counted limit", async () => {
  let frags = "fragment F0 on Customer { id }";
  for (let i = 1; i <= 20; i++) frags += ` fragment F${i} on Customer { ...F${i - 1} ...F${i - 1} }`;
  const v = await validate(clients.alice, `{ customer(id: "1") { ...F20 } } ${frags}`);
  assert.equal(v.valid, false);
  assert.ok(v.violations.some((x) => /graphql_max_\w+ is \d+/.test(x.message)), JSON.stringify(v.violations));
});

test("a blocked field is refused via alias, fragment, and inline fragment on an interface", async () => {
  for (const code of [
    '{ customers(limit: 1) { id x: ssn } }',
    '{ customers(limit: 1) { ...P } } fragment P on Customer { contact: email }',
    '{ customers(limit: 1) { ... on Party { email } } }',
    '{ customers(limit: 1) { ... { s: ssn } } }',
  ]) {
    const v = await validate(clients.alice, code);
    assert.equal(v.valid, false, code);
    assert.ok(rules(v).includes("graphql_blocked_fields"), `${code}: ${JSON.stringify(v.violations)}`);
    assert.equal(v.approval_token, null);
  }
});

test("a blocked field may filter, never be returned, and raises the risk", async () => {
  const v = await validate(clients.alice, '{ customers(filter: { email: "billing1@customer1.example" }) { id name } }');
  assert.equal(v.valid, true, JSON.stringify(v.violations));
  assert.equal(v.risk_level, "high");
  const r = await execute(clients.alice, '{ customers(filter: { email: "billing1@customer1.example" }) { id name } }', v.approval_token);
  // high risk is above auto-approve and alice's client cannot be asked: not run
  assert.equal(r.isError, true);
});

test("introspection is Admin, through aliases and fragments; an admin may run it", async () => {
  for (const code of [
    "{ __schema { queryType { name } } }",
    "{ s: __schema { queryType { name } } }",
    '{ ...I } fragment I on Query { t: __type(name: "Customer") { name } }',
  ]) {
    const v = await validate(clients.alice, code);
    assert.equal(v.valid, false, code);
    assert.equal(v.action, "admin", code);
  }
  // a fragment merely named like introspection is not introspection
  const named = await validate(clients.alice, "{ ...__schema } fragment __schema on Query { customers(limit: 1) { id } }");
  assert.equal(named.action, "read", JSON.stringify(named));
  const ada = await connect(servers.main, "ada", async () => ({ action: "accept", content: { approve: true } }));
  const v = await validate(ada, "{ __schema { queryType { name } } }");
  assert.equal(v.valid, true, JSON.stringify(v.violations));
  const r = await execute(ada, "{ __schema { queryType { name } } }", v.approval_token);
  assert.ok(!r.isError, errorText(r));
  assert.deepEqual(r.structuredContent.value, { __schema: { queryType: { name: "Query" } } });
  await ada.close();
});

test("two operations: $operationName picks the one that runs", async () => {
  const doc = 'query A { customers(limit: 1) { id } } query B { customer(id: "3") { name } }';
  const none = await validate(clients.alice, doc);
  assert.equal(none.valid, false);
  assert.ok(rules(none).includes("graphql_operation_name"));
  const a = await run("alice", doc, { $operationName: "A" });
  assert.deepEqual(Object.keys(a), ["customers"]);
  const b = await run("alice", doc, { $operationName: "B" });
  assert.deepEqual(Object.keys(b), ["customer"]);
  const unknown = await validate(clients.alice, doc, { $operationName: "C" });
  assert.equal(unknown.valid, false);
});

test("variables are declared, typed and sent as JSON variables", async () => {
  const q = "query One($id: ID!) { customer(id: $id) { id name } }";
  assert.equal((await validate(clients.alice, q)).valid, false);
  assert.equal((await validate(clients.alice, q, { id: [1] })).valid, false);
  assert.equal((await validate(clients.alice, q, { id: "5", extra: 1 })).valid, false);
  const r = await run("alice", q, { id: "5" });
  assert.equal(r.customer.id, "5");
});

test("lists are capped with a truncation flag", async () => {
  const capped = await startHttp(config("graphql-capped", { maxRows: 2 }));
  const c = await connect(capped, "alice");
  const code = "{ customers(limit: 5) { id } }";
  const v = await validate(c, code);
  const r = await execute(c, code, v.approval_token);
  assert.ok(!r.isError, errorText(r));
  assert.equal(r.structuredContent.value.customers.length, 2);
  assert.equal(r.structuredContent.truncated, true);
  await c.close();
  capped.stop();
});

test("upstream down, slow, 500 and a 50 MB body are clear tool errors", async () => {
  const deadPort = await freePort();
  // Only "slow" needs the 1 s deadline; on a loaded machine reading 8 MB of the huge body can
  // take longer than that, which would fail as a timeout instead of the byte cap.
  const cases = [
    ["down", `http://127.0.0.1:${deadPort}/graphql`, /could not be reached/, 1],
    ["slow", "/slow/graphql", /did not answer within 1000 ms/, 1],
    ["500", "/500/graphql", /HTTP 500 without a GraphQL response/, 1],
    ["huge", "/huge/graphql", /larger than 8388608 bytes/, 10],
  ];
  for (const [name, endpoint, want, timeout] of cases) {
    const s = await startHttp(config(`graphql-${name}`, { endpoint, timeout }));
    const c = await connect(s, "alice");
    try {
      const code = "{ customers(limit: 1) { name } }";
      const v = await validate(c, code);
      assert.equal(v.valid, true, name);
      const r = await execute(c, code, v.approval_token);
      assert.equal(r.isError, true, name);
      assert.match(errorText(r), want, name);
    } finally {
      // a failed case must not leave its server and open stream behind (the run would hang)
      await c.close();
      s.stop();
    }
  }
});

test("upstream errors come back as a tool error with values scrubbed", async () => {
  const code = 'query One($id: ID!) { customer(id: $id) { id } }';
  const v = await validate(clients.alice, code, { id: "abc-123-45-6789" });
  assert.equal(v.valid, true);
  const r = await execute(clients.alice, code, v.approval_token, { id: "abc-123-45-6789" });
  // the demo API looks ids up as numbers; the upstream's conversion error is scrubbed
  assert.equal(r.isError, true);
  assert.doesNotMatch(errorText(r), /123-45-6789/);
});
