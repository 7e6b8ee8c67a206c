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

async function demoData() {
  const inst = await DuckDBInstance.create(path.join(work, "demo.duckdb"), { access_mode: "READ_ONLY" });
  const c = await inst.connect();
  const all = (await c.runAndReadAll(
    `SELECT id AS InvoiceID, customer_id AS ContactID, strftime(date, '%Y-%m-%d') AS Date,
            status AS Status, total::DOUBLE AS Total FROM invoices ORDER BY id`)).getRowObjectsJson();
  const agg = (await c.runAndReadAll(
    `SELECT status, count(*)::INTEGER AS n, avg(total) AS a FROM invoices
     WHERE date >= DATE '2026-01-01' GROUP BY status ORDER BY status`)).getRowsJson();
  c.closeSync();
  inst.closeSync();
  const file = path.join(work, "invoices.json");
  writeFileSync(file, JSON.stringify(all.map((r) => ({ ...r, InvoiceID: Number(r.InvoiceID),
                                                        ContactID: Number(r.ContactID) }))));
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
  const fastPort = await startRest(data, []);
  flakyPort = await startRest(data, ["--rpm", "4", "--window-ms", "2000", "--fail-every", "3",
                                     "--max-page-size", "1000"]);
  const config = path.join(work, "querymode.toml");
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
  assert.match(text(r), /could not be reached.*link-local or private/);
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
