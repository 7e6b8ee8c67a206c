// querymode.test.mjs — seed 004 through query mode with the official SDK client: load invoices for
// 2026 from a vendor-style REST API (examples/query-mode/server.mjs) and aggregate them in the
// caller's session; the answer must equal the same aggregate computed on the demo database
// directly. Also: the session is reused, callers are isolated, hostile SQL is refused, 429s and
// 500s are survived, required filters are enforced, the SSRF guard holds.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport, freePort, raw } from "../e2e/harness.mjs";

const require = createRequire(new URL("../node/package.json", import.meta.url));
const { DuckDBInstance } = require("@duckdb/node-api");

const work = process.env.SLUICE_QM_WORK;
const sluiceBin = process.env.SLUICE_BIN;
const here = path.dirname(fileURLToPath(import.meta.url));
const restServer = path.join(here, "../../examples/query-mode/server.mjs");
const KEYS = { alice: "alice-key-0123456789abcdef", bob: "bob-key-0123456789abcdef" };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const procs = [];

let expected2026; // [{Status, count, avg}] straight from the demo database
let count2026;
let sluice;
let flakyPort;
let fastPort;
let slowPort;
let limitedPort;
let invoicesAll; // every invoice row, as the REST server serves them

async function demoData() {
  const inst = await DuckDBInstance.create(path.join(work, "demo.duckdb"), { access_mode: "READ_ONLY" });
  const c = await inst.connect();
  const all = (await c.runAndReadAll(
    `SELECT id AS InvoiceID, customer_id AS ContactID, strftime(date, '%Y-%m-%d') AS Date,
            status AS Status, total::DOUBLE AS Total FROM invoices ORDER BY id`)).getRowObjectsJson();
  const agg = (await c.runAndReadAll(
    `SELECT status, count(*)::INTEGER AS n, avg(total) AS a FROM invoices
     WHERE date >= DATE '2026-01-01' GROUP BY status ORDER BY status`)).getRowsJson();
  // File sources: a CSV of contacts and a Parquet copy of the 2026 invoices.
  await c.run(`COPY (SELECT DISTINCT customer_id AS ContactID, ['EU','US','APAC'][customer_id % 3 + 1] AS Region
                FROM invoices ORDER BY 1) TO '${work}/contacts.csv' (HEADER)`);
  await c.run(`COPY (SELECT id AS InvoiceID, customer_id AS ContactID, date AS Date, status AS Status,
                total AS Total FROM invoices WHERE date >= DATE '2026-01-01') TO '${work}/invoices2026.parquet'`);
  c.closeSync();
  inst.closeSync();
  const file = path.join(work, "invoices.json");
  invoicesAll = all.map((r) => ({ ...r, InvoiceID: Number(r.InvoiceID), ContactID: Number(r.ContactID),
                                  Total: Number(r.Total) }));
  writeFileSync(file, JSON.stringify(invoicesAll));
  expected2026 = agg.map(([s, n, a]) => [s, Number(n), Number(a)]);
  count2026 = expected2026.reduce((t, r) => t + r[1], 0);
  return file;
}

function startProc(cmd, args, env = process.env) {
  const p = spawn(cmd, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  p.stdout.on("data", (d) => (log += d));
  p.stderr.on("data", (d) => (log += d));
  procs.push(p);
  return { p, log: () => log };
}

async function startRest(data, extra) {
  const r = startProc(process.execPath, [restServer, "--data", data, ...extra]);
  for (let i = 0; i < 100; i++) {
    const m = /listening (\d+)/.exec(r.log());
    if (m) return Number(m[1]);
    if (r.p.exitCode !== null) throw new Error(`REST server exited:\n${r.log()}`);
    await sleep(50);
  }
  throw new Error(`REST server did not start:\n${r.log()}`);
}

function invoicesSource(name, port, style, extra = "") {
  return `
[[sources]]
name = "${name}"
kind = "http"
description = "Invoices from the accounting API"
base_url = "http://127.0.0.1:${port}"
path = "/invoices"
response.path = "Invoices"
pagination.style = "${style}"
pagination.page_size = 100
pagination.cursor_path = "pagination.next_cursor"
retry_base_ms = 20
${extra}
[[sources.params]]
name = "date_from"
column = "Date"
operator = ">="
[[sources.params]]
name = "date_to"
column = "Date"
operator = "<="
[[sources.params]]
name = "status"
column = "Status"
[[sources.columns]]
name = "InvoiceID"
type = "INTEGER"
[[sources.columns]]
name = "ContactID"
type = "INTEGER"
[[sources.columns]]
name = "Date"
type = "DATE"
[[sources.columns]]
name = "Status"
type = "VARCHAR"
[[sources.columns]]
name = "Total"
type = "DECIMAL(12,2)"
`;
}

before(async () => {
  const data = await demoData();
  fastPort = await startRest(data, []);
  slowPort = await startRest(data, ["--delay-ms", "150"]);
  limitedPort = await startRest(data, ["--rpm", "5", "--window-ms", "1000", "--max-page-size", "1000"]);
  flakyPort = await startRest(data, ["--rpm", "4", "--window-ms", "2000", "--fail-every", "3",
                                     "--max-page-size", "1000"]);
  const config = path.join(work, "querymode.toml");
  // Cedar: everyone reads, but only Finance reads the payroll-like source (through load or query).
  writeFileSync(path.join(work, "qm.cedar"), `
permit (principal, action == CodeMode::Action::"Read", resource);
@id("secret-is-finance-only")
forbid (principal, action, resource)
when { context has script && context.script.tables.contains("invoices_secret") }
unless { principal in CodeMode::Group::"Finance" };
`);
  writeFileSync(path.join(work, "qm.entities.json"), JSON.stringify([
    { uid: { type: "CodeMode::User", id: "alice" }, attrs: {}, parents: [] },
    { uid: { type: "CodeMode::User", id: "bob" }, attrs: {}, parents: [{ type: "CodeMode::Group", id: "Finance" }] },
    { uid: { type: "CodeMode::Group", id: "Finance" }, attrs: {}, parents: [] },
  ]));
  writeFileSync(config, `
[server]
name = "sluice-qm-e2e"
[[api_keys]]
user = "alice"
key_env = "QM_KEY_ALICE"
[[api_keys]]
user = "bob"
key_env = "QM_KEY_BOB"
[database]
path = "demo.duckdb"
[code_mode]
enabled = false
token_secret_file = "token.key"
audit_log = "querymode.audit.jsonl"
[query_mode]
enabled = true
max_pages = 2000
max_sessions_per_principal = 16
spill_dir = "${work}"
${invoicesSource("invoices", fastPort, "cursor")}
${invoicesSource("invoices_paged", flakyPort, "page")}
[[sources.params]]
name = "required_year"
column = "Year"
required = true
${invoicesSource("invoices_flaky", flakyPort, "page").replace("page_size = 100", "page_size = 1000")}
${invoicesSource("rebound", fastPort, "none").replace("127.0.0.1", "rebound.localhost")}
${invoicesSource("invoices_auto", fastPort, "cursor", "auto_load = true")}
${invoicesSource("invoices_secret", fastPort, "cursor", "auto_load = true")}
${invoicesSource("slowload", slowPort, "cursor")}
${invoicesSource("invoices_parallel", slowPort, "page", "max_concurrency = 4")}
${invoicesSource("invoices_rated", limitedPort, "cursor", "requests_per_minute = 240").replace("page_size = 100", "page_size = 1000")}
${invoicesSource("contact_invoices", fastPort, "cursor", "auto_load = true")}
[[sources.params]]
name = "contact_id"
column = "ContactID"
required = true
[[sources]]
name = "contacts"
kind = "http"
base_url = "http://127.0.0.1:${fastPort}"
path = "/contacts"
auto_load = true
response.path = "Contacts"
pagination.style = "page"
[[sources.params]]
name = "region"
column = "Region"
[[sources.columns]]
name = "ContactID"
type = "INTEGER"
[[sources.columns]]
name = "Region"
${["garbage", "notarray", "slow"].map((p) => `
[[sources]]
name = "${p}"
kind = "http"
base_url = "http://127.0.0.1:${fastPort}"
path = "/${p}"
response.path = "Invoices"
timeout_seconds = 1
max_retries = 1
retry_base_ms = 10
`).join("")}
[[sources]]
name = "contacts_csv"
kind = "file"
file = "${work}/contacts.csv"
description = "Contacts with their region (CSV)"
[[sources]]
name = "invoices_parquet"
kind = "file"
file = "${work}/invoices2026.parquet"
auto_load = true
[[sources]]
name = "bad_file"
kind = "file"
file = "${work}/contacts.csv"
[[sources.columns]]
name = "NoSuchColumn"
${invoicesSource("mcp_invoices", 0, "none", `auto_load = true
tool = "list_invoices"
command = ["${process.execPath}", "${path.join(here, "mcp_invoices.mjs")}", "${work}/invoices.json"]`)
  .replace(/base_url = .*\n/, "").replace(/path = "\/invoices"\n/, "").replace('kind = "http"', 'kind = "mcp"')}
[[sources]]
name = "mcp_broken"
kind = "mcp"
tool = "broken"
command = ["${process.execPath}", "${path.join(here, "mcp_invoices.mjs")}", "${work}/invoices.json"]
[policy]
backend = "cedar"
policies = "${work}/qm.cedar"
entities = "${work}/qm.entities.json"
`);
  const port = await freePort();
  const env = { ...process.env, QM_KEY_ALICE: KEYS.alice, QM_KEY_BOB: KEYS.bob };
  sluice = startProc(sluiceBin, ["serve", "-c", config, "--http", `127.0.0.1:${port}`], env);
  for (let i = 0; i < 100; i++) {
    if (sluice.p.exitCode !== null) throw new Error(`sluice exited:\n${sluice.log()}`);
    try { await raw({ port, method: "GET", path: "/" }); sluice.url = `http://127.0.0.1:${port}/mcp`; return; }
    catch { await sleep(100); }
  }
  throw new Error(`sluice did not listen:\n${sluice.log()}`);
});

after(() => { for (const p of procs) p.kill("SIGTERM"); });

async function connect(user) {
  const transport = new StreamableHTTPClientTransport(new URL(sluice.url), {
    requestInit: { headers: { Authorization: `Bearer ${KEYS[user]}` } } });
  const client = new Client({ name: `qm-${user}`, version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  client.transportRef = transport;
  return client;
}

const spillFolders = () => readdirSync(work).filter((n) => n.startsWith("sluice-qm-")).sort();

const text = (r) => r.content.map((c) => c.text ?? "").join("\n");

test("seed 004: load invoices for 2026, then the aggregate equals the demo database's", async () => {
  const alice = await connect("alice");
  const tools = (await alice.listTools()).tools.map((t) => t.name).sort();
  assert.deepEqual(tools, ["describe_table", "drop_table", "load", "query", "search_tables"]);
  const progress = [];
  const load = await alice.callTool({ name: "load", arguments: { source: "invoices",
    where: "Date >= '2026-01-01'" } }, undefined, { onprogress: (p) => progress.push(p) });
  assert.ok(!load.isError, text(load));
  const l = load.structuredContent;
  assert.equal(l.table, "invoices");
  assert.equal(l.rowCount, count2026);
  assert.equal(l.pages, Math.ceil(count2026 / 100));
  assert.equal(l.truncated, false);
  assert.ok(Date.parse(l.expiresAt) > Date.now() + 500_000, l.expiresAt);
  assert.deepEqual(l.columns.map((c) => c.name), ["InvoiceID", "ContactID", "Date", "Status", "Total"]);
  assert.ok(progress.length >= l.pages - 1, `progress notifications: ${progress.length}`);
  assert.ok(!JSON.stringify(load).includes("paid"), "load returns a count, not rows");

  const q = await alice.callTool({ name: "query", arguments: {
    sql: "SELECT Status, count(*), avg(Total) FROM invoices GROUP BY Status ORDER BY Status" } });
  assert.ok(!q.isError, text(q));
  const got = q.structuredContent.rows.map(([s, n, a]) => [s, Number(n), Number(a)]);
  assert.equal(got.length, expected2026.length);
  for (let i = 0; i < got.length; i++) {
    assert.equal(got[i][0], expected2026[i][0]);
    assert.equal(got[i][1], expected2026[i][1]);
    assert.ok(Math.abs(got[i][2] - expected2026[i][2]) < 1e-9, `${got[i]} vs ${expected2026[i]}`);
  }
  assert.match(text(q), /untrusted-data-[0-9a-f]+/);

  // A follow-up question reuses the session: no reload, same table.
  const q2 = await alice.callTool({ name: "query", arguments: {
    sql: "SELECT count(*) FROM invoices WHERE Status = 'overdue'" } });
  assert.ok(!q2.isError, text(q2));
  assert.equal(Number(q2.structuredContent.rows[0][0]), expected2026.find((r) => r[0] === "overdue")[1]);
  const d = await alice.callTool({ name: "describe_table", arguments: { table: "invoices" } });
  assert.equal(d.structuredContent.rowCount, count2026);
  await alice.close();
});

test("one caller cannot see another's tables", async () => {
  const alice = await connect("alice");
  const bob = await connect("bob");
  const l = await alice.callTool({ name: "load", arguments: { source: "invoices", table: "mine",
    where: "Date >= '2026-09-01'" } });
  assert.ok(!l.isError, text(l));
  const mine = await alice.callTool({ name: "query", arguments: { sql: "SELECT count(*) FROM mine" } });
  assert.ok(!mine.isError, text(mine));
  const theirs = await bob.callTool({ name: "query", arguments: { sql: "SELECT count(*) FROM mine" } });
  assert.ok(theirs.isError, "bob must not see alice's table");
  const search = await bob.callTool({ name: "search_tables", arguments: {} });
  assert.ok(!JSON.stringify(search.structuredContent).includes("\"mine\""));
  const drop = await bob.callTool({ name: "drop_table", arguments: { table: "mine" } });
  assert.ok(drop.isError);
  await alice.close();
  await bob.close();
});

test("closing the MCP session frees its query-mode session and spill folder at once", async () => {
  const alice = await connect("alice");
  const before = spillFolders();
  const l = await alice.callTool({ name: "load", arguments: { source: "invoices", where: "Date >= '2026-12-01'" } });
  assert.ok(!l.isError, text(l));
  const during = spillFolders();
  const mine = during.filter((d) => !before.includes(d));
  assert.equal(mine.length, 1, `one new session folder: ${during}`);
  await alice.transportRef.terminateSession();
  await alice.close();
  // The MCP session is freed when its last stream lets go of it (right after the DELETE).
  for (let i = 0; i < 50 && spillFolders().includes(mine[0]); i++) await sleep(20);
  assert.ok(!spillFolders().includes(mine[0]), "the folder is removed with the MCP session");
});

test("hostile SQL is refused: read_csv, ATTACH, SET, COPY, INSTALL, writes, two statements", async () => {
  const alice = await connect("alice");
  await alice.callTool({ name: "load", arguments: { source: "invoices", where: "Date >= '2026-09-01'" } });
  const attacks = [
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_text('/proc/self/environ')",
    "ATTACH '/tmp/evil.duckdb' AS evil",
    "SET enable_external_access = true",
    "COPY invoices TO '/tmp/stolen.csv'",
    "INSTALL httpfs",
    "LOAD httpfs",
    "DELETE FROM invoices",
    "CREATE TABLE x AS SELECT 1",
    "SELECT 1; SELECT 2",
    "SELECT * FROM read_parquet('" + work + "/x.parquet')",
  ];
  for (const sql of attacks) {
    const r = await alice.callTool({ name: "query", arguments: { sql } });
    assert.ok(r.isError, `must refuse: ${sql}\n${text(r)}`);
  }
  const still = await alice.callTool({ name: "query", arguments: { sql: "SELECT count(*) FROM invoices" } });
  assert.ok(!still.isError && Number(still.structuredContent.rows[0][0]) > 0, text(still));
  await alice.close();
});

test("429s and 500s are survived (Retry-After honoured, retries with backoff)", async () => {
  const alice = await connect("alice");
  const before = await (await fetch(`http://127.0.0.1:${flakyPort}/stats`)).json();
  // 2026-09 only: a few pages of 1000 against 4 requests per 2 s, every third request a 500.
  const l = await alice.callTool({ name: "load", arguments: { source: "invoices_flaky", table: "flaky",
    where: "Date >= '2026-09-01'" } });
  assert.ok(!l.isError, text(l));
  const stats = await (await fetch(`http://127.0.0.1:${flakyPort}/stats`)).json();
  assert.ok(stats.failed > before.failed, "the server failed some requests");
  assert.ok(stats.limited > before.limited, "the server rate-limited some requests");
  const q = await alice.callTool({ name: "query", arguments: { sql: "SELECT count(*) FROM flaky" } });
  assert.equal(Number(q.structuredContent.rows[0][0]), l.structuredContent.rowCount);
  assert.ok(l.structuredContent.rowCount > 0);
  await alice.close();
});

test("a required filter that is missing names the column and its operators", async () => {
  const alice = await connect("alice");
  const r = await alice.callTool({ name: "load", arguments: { source: "invoices_paged" } });
  assert.ok(r.isError);
  assert.match(text(r), /needs a filter on column Year \(operators: Year =\)/);
  const bad = await alice.callTool({ name: "load", arguments: { source: "invoices", where: "Total > 5" } });
  assert.ok(bad.isError);
  assert.match(text(bad), /cannot filter on Total >.*Date >=, Date <=, Status =/);
  const unknown = await alice.callTool({ name: "load", arguments: { source: "http://example.com" } });
  assert.ok(unknown.isError);
  assert.match(text(unknown), /no source named/);
  await alice.close();
});

// base_url names a host (not an address) that resolves to loopback, where the REST server
// listens: the guard checks the address at connect time and refuses it.
test("the SSRF guard refuses a name that resolves to loopback", async () => {
  const alice = await connect("alice");
  const r = await alice.callTool({ name: "load", arguments: { source: "rebound" } });
  assert.ok(r.isError);
  assert.match(text(r), /SSRF guard refused the connection on the first attempt.*not retried/);
  await alice.close();
});

const stats = async (port) => (await fetch(`http://127.0.0.1:${port}/stats`)).json();
const rowsOf = (r) => r.structuredContent.rows.map((row) => row.map((v) => (typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v)));

test("query auto-loads a source with its WHERE pushed down: seed 004 in one call, then reused and cached", async () => {
  const alice = await connect("alice");
  const sql = "SELECT Status, count(*), avg(Total) FROM invoices_auto WHERE Date >= '2026-01-01' GROUP BY Status ORDER BY Status";
  const before = await stats(fastPort);
  const q = await alice.callTool({ name: "query", arguments: { sql } });
  assert.ok(!q.isError, text(q));
  const got = rowsOf(q);
  assert.equal(got.length, expected2026.length);
  got.forEach((r, i) => {
    assert.equal(r[0], expected2026[i][0]);
    assert.equal(r[1], expected2026[i][1]);
    assert.ok(Math.abs(r[2] - expected2026[i][2]) < 1e-9);
  });
  const [auto] = q.structuredContent.autoLoaded;
  assert.equal(auto.source, "invoices_auto");
  assert.equal(auto.rowCount, count2026, "only 2026 was fetched: the filter went to the API");
  assert.equal(auto.requests, 1);
  assert.equal(auto.pages, Math.ceil(count2026 / 100));
  const mid = await stats(fastPort);
  assert.equal(mid.served - before.served, auto.pages);

  // The same plan again: the session's table is reused, nothing is fetched.
  const again = await alice.callTool({ name: "query", arguments: { sql } });
  assert.equal(again.structuredContent.autoLoaded[0].reused, true);
  assert.equal((await stats(fastPort)).served, mid.served);

  // An IN list fans out: one request per status, rows of those statuses only.
  const fan = await alice.callTool({ name: "query", arguments: { sql:
    "SELECT count(*) FROM invoices_auto WHERE Date >= '2026-01-01' AND Status IN ('paid', 'overdue')" } });
  assert.ok(!fan.isError, text(fan));
  assert.equal(fan.structuredContent.autoLoaded[0].requests, 2);
  const want = expected2026.filter((r) => r[0] === "paid" || r[0] === "overdue").reduce((t, r) => t + r[1], 0);
  assert.equal(rowsOf(fan)[0][0], want);
  assert.equal(fan.structuredContent.autoLoaded[0].rowCount, want);

  // Another MCP session of the same principal reads the per-principal cache; bob does not.
  const alice2 = await connect("alice");
  const before2 = await stats(fastPort);
  const cached = await alice2.callTool({ name: "query", arguments: { sql } });
  assert.equal(cached.structuredContent.autoLoaded[0].cached, true, JSON.stringify(cached.structuredContent.autoLoaded));
  assert.deepEqual(rowsOf(cached), got);
  assert.equal((await stats(fastPort)).served, before2.served);
  const bob = await connect("bob");
  const theirs = await bob.callTool({ name: "query", arguments: { sql } });
  assert.equal(theirs.structuredContent.autoLoaded[0].cached, false);
  assert.ok((await stats(fastPort)).served > before2.served);
  await Promise.all([alice.close(), alice2.close(), bob.close()]);
});

test("a plain LIMIT stops paging", async () => {
  const alice = await connect("alice");
  const before = await stats(fastPort);
  const q = await alice.callTool({ name: "query", arguments: { sql:
    "SELECT InvoiceID, Total FROM invoices_auto WHERE Status = 'paid' LIMIT 150" } });
  assert.ok(!q.isError, text(q));
  assert.equal(q.structuredContent.rows.length, 150);
  const [auto] = q.structuredContent.autoLoaded;
  assert.equal(auto.limit, 150);
  assert.equal(auto.rowCount, 150);
  assert.equal(auto.pages, 2);
  assert.equal((await stats(fastPort)).served - before.served, 2);
  // With ORDER BY the LIMIT cannot stop paging: every paid invoice is fetched.
  const all = await alice.callTool({ name: "query", arguments: { sql:
    "SELECT InvoiceID FROM invoices_auto WHERE Status = 'paid' AND Date >= '2026-10-01' ORDER BY Total DESC LIMIT 3" } });
  assert.ok(!all.isError, text(all));
  assert.equal(all.structuredContent.autoLoaded[0].rowCount,
    invoicesAll.filter((i) => i.Status === "paid" && i.Date >= "2026-10-01").length);
  await alice.close();
});

test("a required filter given through a JOIN or IN (SELECT ...) is honoured by fanning out its values", async () => {
  const alice = await connect("alice");
  const eu = new Set(invoicesAll.map((i) => i.ContactID).filter((id) => id % 3 === 0 && id <= 40));
  const mine = invoicesAll.filter((i) => eu.has(i.ContactID));
  const total = mine.reduce((t, i) => t + i.Total, 0);
  const join = await alice.callTool({ name: "query", arguments: { sql:
    `SELECT count(*), sum(i.Total) FROM contacts c JOIN contact_invoices i ON i.ContactID = c.ContactID
     WHERE c.Region = 'EU' AND c.ContactID <= 40` } });
  assert.ok(!join.isError, text(join));
  const [n, sum] = rowsOf(join)[0];
  assert.equal(n, mine.length);
  assert.ok(Math.abs(sum - total) < 1e-6, `${sum} vs ${total}`);
  const loads = Object.fromEntries(join.structuredContent.autoLoaded.map((a) => [a.source, a]));
  assert.equal(loads.contacts.requests, 1, "contacts loaded first, Region pushed down");
  assert.equal(loads.contact_invoices.requests, eu.size, "one request per EU contact <= 40, not per contact");
  const sub = await alice.callTool({ name: "query", arguments: { sql:
    `SELECT count(*) FROM contact_invoices WHERE ContactID IN
       (SELECT ContactID FROM contacts WHERE Region = 'EU' AND ContactID <= 40)` } });
  assert.ok(!sub.isError, text(sub));
  assert.equal(rowsOf(sub)[0][0], mine.length);
  // Without it: an error naming the column, its operators and the ways to give it.
  const missing = await alice.callTool({ name: "query", arguments: { sql: "SELECT count(*) FROM contact_invoices" } });
  assert.ok(missing.isError);
  assert.match(text(missing), /source 'contact_invoices' needs a filter on column ContactID \(operators: ContactID =\).*JOIN\/IN/);
  await alice.close();
});

test("Cedar gates load and auto-load by source name", async () => {
  const alice = await connect("alice");
  const bob = await connect("bob");
  const before = await stats(fastPort);
  const l = await alice.callTool({ name: "load", arguments: { source: "invoices_secret", where: "Date >= '2026-09-15'" } });
  assert.ok(l.isError, "alice is not in Finance");
  assert.match(text(l), /policy does not allow you to read.*secret-is-finance-only/);
  const q = await alice.callTool({ name: "query", arguments: { sql: "SELECT count(*) FROM invoices_secret WHERE Date >= '2026-09-15'" } });
  assert.ok(q.isError);
  assert.match(text(q), /policy does not allow/);
  assert.equal((await stats(fastPort)).served, before.served, "nothing was fetched for a denied caller");
  const ok = await bob.callTool({ name: "query", arguments: { sql: "SELECT count(*) FROM invoices_secret WHERE Date >= '2026-09-15'" } });
  assert.ok(!ok.isError, text(ok));
  assert.equal(rowsOf(ok)[0][0], invoicesAll.filter((i) => i.Date >= "2026-09-15").length);
  assert.ok(rowsOf(ok)[0][0] > 0);
  await Promise.all([alice.close(), bob.close()]);
});

test("garbage pages, a non-array and a timeout fail the load with the reason", async () => {
  const alice = await connect("alice");
  const g = await alice.callTool({ name: "load", arguments: { source: "garbage" } });
  assert.ok(g.isError);
  assert.match(text(g), /source 'garbage' page 1 is not JSON \(line 1, column \d+/);
  const n = await alice.callTool({ name: "load", arguments: { source: "notarray" } });
  assert.ok(n.isError);
  assert.match(text(n), /page 1 has no rows array at response.path 'Invoices'/);
  const t0 = Date.now();
  const s = await alice.callTool({ name: "load", arguments: { source: "slow" } });
  assert.ok(s.isError);
  assert.match(text(s), /source 'slow' could not be reached after 2 attempts.*timeout_seconds = 1/);
  assert.ok(Date.now() - t0 < 4500, "the 1 s timeout held (the server answers after 5 s)");
  const search = await alice.callTool({ name: "search_tables", arguments: { query: "garbage" } });
  assert.ok(!search.structuredContent.tables.some((t) => t.kind === "session_table"));
  await alice.close();
});

test("cancelling a load mid-way stops the requests and drops the partial table", async () => {
  const alice = await connect("alice");
  const ctl = new AbortController();
  let pages = 0;
  const call = alice.callTool({ name: "load", arguments: { source: "slowload" } }, undefined, {
    signal: ctl.signal, onprogress: () => { if (++pages === 3) ctl.abort(); } });
  await assert.rejects(call);
  await sleep(400);
  const after1 = (await stats(slowPort)).requests;
  await sleep(600);
  assert.equal((await stats(slowPort)).requests, after1, "no request after the cancel");
  assert.ok(after1 < 20, `the load stopped early (${after1} requests)`);
  const q = await alice.callTool({ name: "query", arguments: { sql: "SELECT count(*) FROM slowload" } });
  assert.ok(q.isError, "the partial table was dropped");
  await alice.close();
});

test("file sources: CSV and Parquet read by sluice, joined in the session; the engine still has no file access", async () => {
  const alice = await connect("alice");
  const l = await alice.callTool({ name: "load", arguments: { source: "contacts_csv" } });
  assert.ok(!l.isError, text(l));
  const contacts = new Set(invoicesAll.map((i) => i.ContactID));
  assert.equal(l.structuredContent.rowCount, contacts.size);
  assert.deepEqual(l.structuredContent.columns, [{ name: "ContactID", type: "BIGINT" }, { name: "Region", type: "VARCHAR" }]);
  // invoices_parquet auto-loads (columns and types from the file) and joins the CSV table.
  const q = await alice.callTool({ name: "query", arguments: { sql:
    `SELECT c.Region, count(*) FROM invoices_parquet i JOIN contacts_csv c ON c.ContactID = i.ContactID
     GROUP BY 1 ORDER BY 1` } });
  assert.ok(!q.isError, text(q));
  const want = {};
  for (const i of invoicesAll.filter((i) => i.Date >= "2026-01-01"))
    want[["EU", "US", "APAC"][i.ContactID % 3]] = (want[["EU", "US", "APAC"][i.ContactID % 3]] ?? 0) + 1;
  assert.deepEqual(Object.fromEntries(rowsOf(q)), want);
  assert.equal(q.structuredContent.autoLoaded[0].rowCount, count2026);
  const d = await alice.callTool({ name: "describe_table", arguments: { table: "invoices_parquet" } });
  assert.deepEqual(d.structuredContent.columns.map((c) => c.type), ["INTEGER", "INTEGER", "DATE", "VARCHAR", "DECIMAL(12,2)"]);
  const direct = await alice.callTool({ name: "query", arguments: { sql: `SELECT * FROM read_csv('${work}/contacts.csv')` } });
  assert.ok(direct.isError, "the declared file is not readable by path");
  const bad = await alice.callTool({ name: "load", arguments: { source: "bad_file" } });
  assert.ok(bad.isError);
  assert.match(text(bad), /cannot read .*contacts\.csv.*NoSuchColumn/);
  await alice.close();
});

test("requests_per_minute holds across concurrent loads of two callers", async () => {
  const [alice, bob] = await Promise.all([connect("alice"), connect("bob")]);
  const before = await stats(limitedPort);
  const args = { source: "invoices_rated", where: "Date >= '2026-08-01'" };
  const [a, b] = await Promise.all([alice.callTool({ name: "load", arguments: args }),
                                    bob.callTool({ name: "load", arguments: args })]);
  assert.ok(!a.isError && !b.isError, text(a) + text(b));
  const want = invoicesAll.filter((i) => i.Date >= "2026-08-01").length;
  assert.equal(a.structuredContent.rowCount, want);
  assert.equal(b.structuredContent.rowCount, want);
  const after = await stats(limitedPort);
  assert.ok(after.served - before.served >= 2 * Math.ceil(want / 1000));
  // 4 per second shared keeps under the server's 5 per second; two separate budgets (8/s) would not.
  assert.equal(after.limited, before.limited, `the server answered ${after.limited - before.limited} 429s`);
  await Promise.all([alice.close(), bob.close()]);
});

test("max_concurrency fetches page-style pages four at a time, rows in page order", async () => {
  const alice = await connect("alice");
  assert.equal((await stats(slowPort)).peak_in_flight, 1, "every earlier load was sequential");
  const l = await alice.callTool({ name: "load", arguments: { source: "invoices_parallel", where: "Date >= '2026-09-01'" } });
  assert.ok(!l.isError, text(l));
  const want = invoicesAll.filter((i) => i.Date >= "2026-09-01");
  assert.equal(l.structuredContent.rowCount, want.length);
  assert.equal((await stats(slowPort)).peak_in_flight, 4);
  // page order is kept: the table's row order is the API's (InvoiceID ascending)
  const q = await alice.callTool({ name: "query", arguments: { sql:
    "SELECT count(*), min(InvoiceID), max(InvoiceID), count(DISTINCT InvoiceID) FROM invoices_parallel" } });
  assert.deepEqual(rowsOf(q)[0], [want.length, want[0].InvoiceID, want[want.length - 1].InvoiceID, want.length]);
  await alice.close();
});

test("kind = mcp: a downstream MCP server's read tool as a table, filters pushed as its arguments", async () => {
  const alice = await connect("alice");
  const q = await alice.callTool({ name: "query", arguments: { sql:
    "SELECT Status, count(*) FROM mcp_invoices WHERE Date >= '2026-09-01' AND Status IN ('paid', 'overdue') GROUP BY 1 ORDER BY 1" } });
  assert.ok(!q.isError, text(q));
  const want = {};
  for (const i of invoicesAll.filter((i) => i.Date >= "2026-09-01" && (i.Status === "paid" || i.Status === "overdue")))
    want[i.Status] = (want[i.Status] ?? 0) + 1;
  assert.deepEqual(Object.fromEntries(rowsOf(q)), want);
  assert.equal(q.structuredContent.autoLoaded[0].requests, 2, "one tools/call per status");
  const b = await alice.callTool({ name: "load", arguments: { source: "mcp_broken" } });
  assert.ok(b.isError);
  assert.match(text(b), /source 'mcp_broken': tool 'broken' failed: the vendor API is down/);
  await alice.close();
});

test("every call is audited: loads, queries and refusals, with the sources read", async () => {
  const { readFileSync } = await import("node:fs");
  const lines = readFileSync(path.join(work, "querymode.audit.jsonl"), "utf8").trim().split("\n")
    .map((l) => JSON.parse(l));
  const ev = (e) => lines.filter((l) => l.event === e);
  assert.ok(ev("query_mode_load").some((l) => l.source === "invoices" && l.rows === count2026 && l.user === "alice"));
  assert.ok(ev("query_mode_query").some((l) => /GROUP BY Status/.test(l.code) && l.sources.includes("invoices")));
  assert.ok(ev("query_mode_deny").some((l) => /read_csv/.test(l.code ?? "")));
});
