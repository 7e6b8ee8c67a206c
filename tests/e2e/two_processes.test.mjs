// two_processes.test.mjs — two sluice processes on one config (friction 1 of issue 15): the HTTP
// server holds the audit log, and a stdio server (the Claude Desktop snippet), a third one and
// `sluice validate` started beside it all answer; each extra process writes its own writer chain
// ("<audit_log>.w2", ...), and `sluice audit verify <audit_log>` passes on everything they wrote.
// The console's audit page and export and `sluice audit search` read the second process's chain
// too (issue 24 item 6). A token one process issued does not run in another (each has its own consume-once store).
// When every writer slot is held, the message says another process holds the log, not that a
// chain is broken.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { connectHttp, connectStdio, errorText, execute, sluiceBin, startHttp, validate, work, writeConfig }
  from "./codemode_harness.mjs";
import { raw } from "./harness.mjs";

const ADMIN_KEY = "two-processes-admin-key-0123456789";

const LOG = path.join(work, "two.audit.jsonl");
let file, server, http, stdio;

function clean() {
  for (const f of [LOG, ...Array.from({ length: 8 }, (_, i) => `${LOG}.w${i + 2}`)])
    for (const s of ["", ".head", ".replay", ".approvals", ".tokens"]) rmSync(f + s, { force: true });
}

before(async () => {
  clean();
  // without session binding a token runs in any session of its principal: only the process
  // binding keeps a stdio token from running in a second stdio process of the same user
  process.env.SLUICE_E2E_TWO_ADMIN = ADMIN_KEY;
  file = writeConfig("two", { extra: "token_bind_session = false\n[admin]\nkey_env = \"SLUICE_E2E_TWO_ADMIN\"" });
  server = await startHttp(file);
  http = await connectHttp(server, "alice");
  stdio = await connectStdio(file);
});

after(async () => { await stdio?.close(); await http?.close(); server?.stop(); });

const SQL = "SELECT plan, count(*) AS n FROM customers GROUP BY plan ORDER BY plan";

test("the HTTP server and a stdio server on one config both validate and execute", async () => {
  for (const conn of [http, stdio]) {
    const v = await validate(conn.client, SQL);
    assert.equal(v.valid, true, JSON.stringify(v.violations));
    const r = await execute(conn.client, SQL, v.approval_token);
    assert.equal(r.isError, undefined, errorText(r));
    assert.ok(r.structuredContent.rows.length > 0);
  }
  assert.ok(existsSync(LOG), "the first process writes the configured log");
  assert.ok(existsSync(`${LOG}.w2`), "the second writes its own chain beside it");
  const second = readFileSync(`${LOG}.w2`, "utf8");
  assert.match(second, /"execute"|execute_code|executed/, "the stdio process audited its execute");
});

test("the console's audit page and export, and `sluice audit search`, read the second process's chain", async () => {
  // the stdio process (user stdio-user) writes only to two.audit.jsonl.w2; the console is the HTTP one's
  const get = (p) => raw({ port: server.port, method: "GET", path: p, headers: { Authorization: `Bearer ${ADMIN_KEY}` } });
  const page = await get("/admin/api/audit?limit=200");
  assert.equal(page.status, 200, page.body);
  const records = JSON.parse(page.body).records;
  const fromW2 = records.filter((r) => r.chain === "w2");
  assert.ok(fromW2.some((r) => r.user === "stdio-user" && r.decision === "executed"), JSON.stringify(records.map((r) => [r.chain, r.user, r.decision])));
  assert.ok(records.some((r) => r.chain !== "w2" && r.user === "alice"), "and the main chain's");
  const jsonl = await get("/admin/api/audit/export?format=jsonl&q=stdio-user");
  assert.equal(jsonl.status, 200, jsonl.body);
  const exported = jsonl.body.trim().split("\n").map((l) => JSON.parse(l));
  assert.ok(exported.length > 0 && exported.every((r) => r.user === "stdio-user"), jsonl.body);
  assert.ok(exported.some((r) => r.decision === "executed"));
  const csv = await get("/admin/api/audit/export?format=csv&q=stdio-user");
  assert.match(csv.body, /stdio-user/);
  // the CLI reads every chain, verifying each, and names the chain of every record
  const r = spawnSync(sluiceBin, ["audit", "search", LOG, "--user", "stdio-user", "--decision", "executed"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const found = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.ok(found.length >= 1 && found.every((x) => x.chain === "w2" && x.user === "stdio-user"), r.stdout);
  assert.match(r.stderr, /every chain intact/);
});

test("`sluice validate` answers while both servers run", () => {
  const q = path.join(work, "two.sql");
  writeFileSync(q, SQL);
  const r = spawnSync(sluiceBin, ["validate", "--json", "-c", file, q], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr + r.stdout);
  assert.equal(JSON.parse(r.stdout).valid, true);
});

test("a token from one process does not run in another (each has its own consume-once store)", async () => {
  const other = await connectStdio(file); // the same principal, writer slot w3
  try {
    const v = await validate(stdio.client, SQL);
    const r = await execute(other.client, SQL, v.approval_token);
    assert.equal(r.isError, true, "a second process ran the first one's token");
    const ok = await execute(stdio.client, SQL, v.approval_token);
    assert.equal(ok.isError, undefined, errorText(ok));
  } finally {
    await other.close();
  }
});

test("`sluice audit verify` checks every writer chain and passes", () => {
  const r = spawnSync(sluiceBin, ["audit", "verify", LOG], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, new RegExp(`${LOG.replace(/[.]/g, "[.]")}: \\d+ records, chain intact`));
  assert.match(r.stdout, /two\.audit\.jsonl\.w2: \d+ records, chain intact/);
});

test("an edited record in a writer chain fails verify, naming that file", () => {
  const w2 = `${LOG}.w2`;
  const before = readFileSync(w2, "utf8");
  writeFileSync(w2, before.replace(/"ts":"20/, '"ts":"19'));
  try {
    const r = spawnSync(sluiceBin, ["audit", "verify", LOG], { encoding: "utf8" });
    assert.equal(r.status, 1, r.stdout);
    assert.match(r.stdout, /two\.audit\.jsonl\.w2:\d+: /);
  } finally {
    writeFileSync(w2, before);
  }
});

test("with every writer slot held, the refusal says another process holds the log", async () => {
  const extra = [];
  try {
    for (let i = 0; i < 6; i++) extra.push(await connectStdio(file)); // slots w3 .. w8
    const r = spawnSync(sluiceBin, ["serve", "-c", file, "--stdio"], { input: "", encoding: "utf8" });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /held by other running sluice processes/);
    assert.doesNotMatch(r.stderr, /broken/);
  } finally {
    for (const c of extra) await c.close();
  }
});
