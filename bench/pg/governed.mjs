// governed.mjs — the governed path on PostgreSQL against @modelcontextprotocol/server-postgres,
// one official SDK client (stdio), the same cluster, data and role (sluice_read) for both:
//   trivial  SELECT 1: sluice validate_code + execute_code (two calls), server-postgres `query`;
//   seed003  seed 003's CTE query, the same two ways.
// Servers take turns in ROUNDS blocks so the noise of a shared machine spreads over both. Per
// server and workload: ops/s and p50/p99 of one op. Checks both return the same seed-003 ids.
//
//   node governed.mjs --sluice BIN --work DIR --pg CONNINFO --pg-url URL [--calls N] [--out FILE]
// DIR holds token.key. Exit 0 on success, 1 if the answers differ, 2 on error.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { parseArgs } from "node:util";

const require = createRequire(new URL("../../tests/node/package.json", import.meta.url));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const { values: opt } = parseArgs({ options: {
  sluice: { type: "string" }, work: { type: "string" }, pg: { type: "string" }, "pg-url": { type: "string" },
  out: { type: "string" }, calls: { type: "string", default: "200" } } });
if (!opt.sluice || !opt.work || !opt.pg || !opt["pg-url"]) {
  process.stderr.write("usage: governed.mjs --sluice BIN --work DIR --pg CONNINFO --pg-url URL [--calls N] [--out FILE]\n");
  process.exit(2);
}
const CALLS = Number(opt.calls), ROUNDS = 5;
const SQL = {
  trivial: "SELECT 1 AS ok",
  seed003: readFileSync(new URL("../../tests/unit/data/sql/seeds/003_revenue_drop.sql", import.meta.url), "utf8"),
};
const textOf = (r) => (r.content ?? []).map((c) => c.text ?? "").join("\n");
const must = (r, what) => { if (r.isError) throw new Error(`${what}: ${textOf(r)}`); return r; };

// The governed path as policy allows it in one approval round: seed 003's plan is expensive by
// PostgreSQL's estimate (high risk, docs/risk.md), and server-postgres asks no one either.
function sluiceConfig() {
  const file = path.join(opt.work, "governed-pg.toml");
  writeFileSync(file, `[server]
name = "bench-pg"
[database]
engine = "postgres"
conninfo = "${opt.pg}"
[code_mode]
enabled = true
token_secret_file = "token.key"
auto_approve_levels = ["low", "medium", "high"]
blocked_fields = ["ssn", "email"]
sql_max_rows = 1000
`);
  return file;
}

const SERVERS = [
  { name: "sluice-postgres", command: opt.sluice, args: ["serve", "-c", sluiceConfig(), "--stdio"],
    run: async (c, sql) => {
      const v = must(await c.callTool({ name: "validate_code", arguments: { code: sql } }), "validate_code");
      const r = must(await c.callTool({ name: "execute_code",
        arguments: { code: sql, approval_token: v.structuredContent.approval_token } }), "execute_code");
      return r.structuredContent.rows.map((row) => Number(row[0]));
    } },
  { name: "server-postgres", command: process.execPath,
    args: [new URL("../../tests/node/node_modules/@modelcontextprotocol/server-postgres/dist/index.js", import.meta.url).pathname,
           opt["pg-url"]],
    run: async (c, sql) => JSON.parse(textOf(must(await c.callTool({ name: "query", arguments: { sql } }), "query")))
      .map((row) => Number(Object.values(row)[0])) },
];

const pct = (s, p) => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];

async function measure(conns, workload, calls) {
  const lat = new Map(conns.map((c) => [c.s.name, []]));
  for (const c of conns) for (let i = 0; i < 10; i++) await c.s.run(c.client, SQL[workload]);
  for (let round = 0; round < ROUNDS; round++)
    for (const c of conns)
      for (let i = 0; i < Math.ceil(calls / ROUNDS); i++) {
        const t = performance.now();
        await c.s.run(c.client, SQL[workload]);
        lat.get(c.s.name).push(performance.now() - t);
      }
  return conns.map((c) => {
    const l = lat.get(c.s.name).sort((a, b) => a - b);
    const total = l.reduce((a, b) => a + b, 0);
    return { server: c.s.name, workload, ops: l.length, ops_per_second: l.length / (total / 1000),
             p50_ms: pct(l, 50), p99_ms: pct(l, 99) };
  });
}

async function main() {
  const conns = [], answers = {};
  for (const s of SERVERS) {
    const transport = new StdioClientTransport({ command: s.command, args: s.args, stderr: "ignore", cwd: opt.work });
    const client = new Client({ name: "bench-pg", version: "1.0.0" }, { capabilities: {} });
    await client.connect(transport);
    conns.push({ s, client });
    answers[s.name] = await s.run(client, SQL.seed003);
  }
  const runs = [...await measure(conns, "trivial", CALLS), ...await measure(conns, "seed003", Math.max(10, CALLS / 4))];
  for (const c of conns) await c.client.close();
  const agree = JSON.stringify(answers["sluice-postgres"]) === JSON.stringify(answers["server-postgres"]) &&
                answers["server-postgres"].length > 0;
  const report = { benchmark: "governed path on postgresql vs server-postgres", date: new Date().toISOString(),
                   calls: CALLS, seed003_answers_agree: agree, runs };
  if (opt.out) writeFileSync(opt.out, JSON.stringify(report, null, 2) + "\n");
  else console.log(JSON.stringify(report, null, 2));
  process.exit(agree ? 0 : 1);
}
main().catch((e) => { process.stderr.write(`bench/pg: ${e.stack ?? e}\n`); process.exit(2); });
