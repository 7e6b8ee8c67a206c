// lazy_open.test.mjs — `sluice serve` opens its DuckDB file on the first call that needs it, not
// at start-up (see ctest_lazy_open.sh). Whether the file is open is read from the server's
// /proc/PID/fd: DuckDB holds it open (and locked) from duckdb_open until close.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import path from "node:path";
import { work, writeConfig, startHttp, connectHttp, validate, execute, errorText } from "./codemode_harness.mjs";

const servers = [];
after(() => servers.forEach((s) => s.stop()));

const holds = (server, file) => readdirSync(`/proc/${server.proc.pid}/fd`).some((fd) => {
  try { return readlinkSync(`/proc/${server.proc.pid}/fd/${fd}`) === path.join(work, file); }
  catch { return false; }
});

// Issue 23's target for an idle server (docs/benchmarks.md): the libraries' code and relocated
// data and a few MB of heap; DuckDB's buffer pool, threads and catalog come with the first call.
const IDLE_RSS_KIB = 22 * 1024;
const rssKiB = (server) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.proc.pid}/status`, "utf8"))[1]);

// A curated tool whose statement the analysis refuses (it returns a blocked field): serve starts
// anyway, since the analysis needs the engine; the tool's calls say why it does not run.
const TOOLS = `
[[tools]]
name = "top_orders"
description = "The largest orders"
statement = "SELECT id, total_cents FROM orders ORDER BY total_cents DESC LIMIT 3"
[[tools]]
name = "leak"
description = "Refused: returns a blocked field"
statement = "SELECT email FROM customers LIMIT 1"
`;

async function start(name, db) {
  const file = writeConfig(name, { database: `engine = "duckdb"\npath = "${db}"`, extra: TOOLS });
  const server = await startHttp(file);
  servers.push(server);
  return server;
}

test("the listing methods answer without opening DuckDB; the first validate opens it and is right", async () => {
  const server = await start("lazy", "demo.duckdb");
  const { client } = await connectHttp(server, "alice");
  const { tools } = await client.listTools();
  for (const name of ["execute_code", "leak", "top_orders", "validate_code"])
    assert.ok(tools.some((t) => t.name === name), name);
  const { prompts } = await client.listPrompts();
  assert.ok(prompts.some((p) => p.name === "start_code_mode"));
  await client.listResources();
  assert.equal(holds(server, "demo.duckdb"), false, "DuckDB was opened before any call needed it");
  // Issue 23's idle target: what an idle server holds before any call opened DuckDB.
  const idle = rssKiB(server);
  console.log(`idle VmRSS after the listing methods: ${(idle / 1024).toFixed(1)} MB (target <= ${IDLE_RSS_KIB / 1024} MB)`);
  assert.ok(idle <= IDLE_RSS_KIB, `idle VmRSS ${idle} kB > ${IDLE_RSS_KIB} kB`);

  const v = await validate(client, "SELECT plan, count(*) AS n FROM customers GROUP BY plan ORDER BY plan");
  assert.equal(v.valid, true);
  assert.equal(v.action, "read");
  assert.equal(holds(server, "demo.duckdb"), true, "the first validate did not open DuckDB");
  const r = await execute(client, "SELECT plan, count(*) AS n FROM customers GROUP BY plan ORDER BY plan",
                          v.approval_token);
  assert.ok(!r.isError, errorText(r));
  assert.ok(r.structuredContent.rows.length > 0);
  console.log(`VmRSS after the first validate and execute: ${(rssKiB(server) / 1024).toFixed(1)} MB`);
  // The same verdicts as ever: a blocked field is still refused after a lazy open.
  const refused = await client.callTool({ name: "validate_code", arguments: { code: "SELECT email FROM customers" } });
  assert.equal(refused.structuredContent?.valid ?? false, false);
  await client.close();
});

test("many first calls at once open DuckDB once and all answer alike", async () => {
  const server = await start("lazy-race", "demo.duckdb");
  const clients = await Promise.all([0, 1, 2, 3].map(() => connectHttp(server, "alice")));
  assert.equal(holds(server, "demo.duckdb"), false);
  const code = "SELECT count(*) AS n FROM orders";
  const verdicts = await Promise.all(clients.flatMap(({ client }) => [validate(client, code), validate(client, code)]));
  for (const v of verdicts) assert.equal(v.valid, true);
  const counts = await Promise.all(clients.map(({ client }, i) => execute(client, code, verdicts[2 * i].approval_token)));
  const n = counts.map((r) => JSON.stringify(r.structuredContent.rows));
  assert.equal(new Set(n).size, 1, n.join(" "));
  const fds = readdirSync(`/proc/${server.proc.pid}/fd`).filter((fd) => {
    try { return readlinkSync(`/proc/${server.proc.pid}/fd/${fd}`) === path.join(work, "demo.duckdb"); }
    catch { return false; }
  });
  assert.equal(fds.length, 1, "the database was opened more than once");
  await Promise.all(clients.map(({ client }) => client.close()));
});

test("curated tools are analyzed at their first call: a good one runs, a refused one says why", async () => {
  const server = await start("lazy-tools", "demo.duckdb");
  const { client } = await connectHttp(server, "alice");
  const good = await client.callTool({ name: "top_orders", arguments: {} });
  assert.ok(!good.isError, errorText(good));
  assert.equal(good.structuredContent.rows.length, 3);
  for (let i = 0; i < 2; i++) {
    const bad = await client.callTool({ name: "leak", arguments: {} });
    assert.equal(bad.isError, true);
    assert.match(errorText(bad), /tool 'leak' \(line \d+\): its statement is refused: .*email/);
  }
  await client.close();
});

test("a file DuckDB cannot open: the server starts, and each call gets a clear error", async () => {
  const server = await start("lazy-broken", "broken.duckdb");
  const { client } = await connectHttp(server, "alice");
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === "validate_code"));
  for (let i = 0; i < 2; i++) {
    const r = await client.callTool({ name: "validate_code", arguments: { code: "SELECT 1" } });
    assert.equal(r.isError, true);
    assert.match(errorText(r), /DuckDB could not open '.*broken\.duckdb'/);
  }
  const t = await client.callTool({ name: "top_orders", arguments: {} });
  assert.equal(t.isError, true);
  assert.match(errorText(t), /DuckDB could not open/);
  assert.equal(server.proc.exitCode, null, "the server died");
  await client.close();
});
