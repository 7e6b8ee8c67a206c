// drive.mjs — the peer benchmark's driver: one official SDK client (stdio) drives, in one run and
// on the same data, (1) sluice serve on DuckDB, (2) the hand-rolled SDK + @duckdb/node-api server
// (duckdb_server.mjs), (3) @modelcontextprotocol/server-postgres on PostgreSQL, through two
// workloads:
//   trivial  the cheapest database round trip: sluice's curated `ping` tool (SELECT 1), the
//            peers' `query` tool with SELECT 1;
//   seed003  seed 003's question: sluice validate_code + execute_code (two calls, the governed
//            path), the peers' single `query` call with the same SQL;
//   seed003_1call  the same question in one governed call: validate_code {"execute": true}
//            (execute_on_validate on; the token is still minted, consumed and audited), against
//            the same single peer call.
//   seed003_new, seed003_new_1call  seed003 and seed003_1call with a text each server has never
//            seen: the SQL followed by "-- first seen N", N counting that server's ops (the same
//            texts to every server). The repeated workloads send one text over and over, and on a
//            read-only file sluice takes the analysis it kept for a text it validated before; these
//            show what a program asked for the first time costs.
// Per server and workload: ops/s, p50/p99 latency of one op, the server's CPU time per op, and
// the server process's peak RSS
// (VmHWM of /proc/PID/status, sampled after the workload; seed003 runs second, so its figure is
// the peak over both). Checks that the three servers return
// the same seed-003 customers.
//
//   node drive.mjs --sluice BIN --work DIR --pg URL [--calls N] [--warmup N] [--out FILE]
// DIR holds demo.duckdb and token.key. Exit 0 on success, 1 if the answers differ, 2 on error.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { parseArgs } from "node:util";
import { QUESTIONS } from "../tokens/questions.mjs";

const require = createRequire(new URL("../../tests/node/package.json", import.meta.url));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const { values: opt } = parseArgs({ options: {
  sluice: { type: "string" }, work: { type: "string" }, pg: { type: "string" }, out: { type: "string" },
  calls: { type: "string", default: "500" }, warmup: { type: "string", default: "50" } } });
if (!opt.sluice || !opt.work || !opt.pg) {
  process.stderr.write("usage: drive.mjs --sluice BIN --work DIR --pg URL [--calls N] [--warmup N] [--out FILE]\n");
  process.exit(2);
}
const CALLS = Number(opt.calls), WARMUP = Number(opt.warmup);
const SEED003 = QUESTIONS.find((q) => q.id === "seed003_enterprise_decline").sql;
const TRIVIAL = "SELECT 1 AS ok";
const here = (f) => new URL(f, import.meta.url).pathname;
// seed003_new's texts: seed 003 with a comment numbered per client (one client per server).
const seen = new WeakMap();
function firstSeen(client) {
  const n = (seen.get(client) ?? 0) + 1;
  seen.set(client, n);
  return `${SEED003}\n-- first seen ${n}`;
}

function sluiceConfig() {
  const file = path.join(opt.work, "peers-sluice.toml");
  writeFileSync(file, `[server]
name = "bench-peers"
[database]
engine = "duckdb"
path = "demo.duckdb"
threads = 2
[code_mode]
enabled = true
token_secret_file = "token.key"
auto_approve_levels = ["low", "medium"]
sql_max_rows = 1000
execute_on_validate = true
[[tools]]
name = "ping"
description = "SELECT 1"
statement = "${TRIVIAL}"
`);
  return file;
}

const textOf = (r) => (r.content ?? []).map((c) => c.text ?? "").join("\n");
function must(r, what) {
  if (r.isError) throw new Error(`${what}: ${textOf(r)}`);
  return r;
}

// The governed path for code: validate_code then execute_code with its token.
async function sluiceTwoCalls(c, code) {
  const v = must(await c.callTool({ name: "validate_code", arguments: { code } }), "validate_code");
  const r = must(await c.callTool({ name: "execute_code",
    arguments: { code, approval_token: v.structuredContent.approval_token } }), "execute_code");
  return r.structuredContent.rows.map((row) => Number(row[0]));
}

// The same in one call: validate_code {"execute": true}.
async function sluiceOneCall(c, code) {
  const r = must(await c.callTool({ name: "validate_code", arguments: { code, execute: true } }), "validate_code");
  if (!r.structuredContent.result) throw new Error(`validate_code did not run it: ${textOf(r)}`);
  return r.structuredContent.result.rows.map((row) => Number(row[0]));
}

const SERVERS = [
  { name: "sluice", command: opt.sluice, args: ["serve", "-c", sluiceConfig(), "--stdio"],
    trivial: (c) => c.callTool({ name: "ping", arguments: {} }).then((r) => must(r, "ping")),
    seed003: (c) => sluiceTwoCalls(c, SEED003),
    seed003_1call: (c) => sluiceOneCall(c, SEED003),
    seed003_new: (c) => sluiceTwoCalls(c, firstSeen(c)),
    seed003_new_1call: (c) => sluiceOneCall(c, firstSeen(c)) },
  { name: "duckdb-sdk", command: process.execPath, args: [here("./duckdb_server.mjs"), path.join(opt.work, "demo.duckdb")],
    ...peerWorkloads() },
  { name: "server-postgres", command: process.execPath,
    args: [path.join(here("../../tests/node/node_modules/@modelcontextprotocol/server-postgres/dist/index.js")), opt.pg],
    ...peerWorkloads() },
];

const peerQuery = async (c, sql) =>
  JSON.parse(textOf(must(await c.callTool({ name: "query", arguments: { sql } }), "query"))).map((row) => Number(row.id));

// A peer answers seed 003 in one ungoverned call either way.
function peerWorkloads() {
  const seed003 = (c) => peerQuery(c, SEED003), seed003New = (c) => peerQuery(c, firstSeen(c));
  return {
    trivial: (c) => c.callTool({ name: "query", arguments: { sql: TRIVIAL } }).then((r) => must(r, "query")),
    seed003, seed003_1call: seed003, seed003_new: seed003New, seed003_new_1call: seed003New,
  };
}

// The server's CPU time in ms so far: its threads (utime + stime) and its children it waited for
// (cutime + cstime: sluice's capped children), from /proc/PID/stat in clock ticks of 10 ms (Linux's
// USER_HZ). Less bent by a loaded machine than wall time: it counts the work, not the waiting.
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
}

function peakRssKiB(pid) {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : null;
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

// Servers take turns in ROUNDS blocks per workload, so the noise of a shared machine spreads over
// all of them instead of landing on whichever ran during a burst.
const ROUNDS = 5;

async function measure(conns, workload, calls) {
  const lat = new Map(conns.map((c) => [c.s.name, []]));
  const busy = new Map(conns.map((c) => [c.s.name, 0]));
  const cpu = new Map(conns.map((c) => [c.s.name, 0]));
  for (const c of conns) for (let i = 0; i < WARMUP; i++) await c.s[workload](c.client);
  for (let round = 0; round < ROUNDS; round++)
    for (const c of conns) {
      const n = Math.ceil(calls / ROUNDS);
      const t0 = performance.now(), cpu0 = cpuMs(c.pid);
      for (let i = 0; i < n; i++) {
        const s = performance.now();
        await c.s[workload](c.client);
        lat.get(c.s.name).push(performance.now() - s);
      }
      busy.set(c.s.name, busy.get(c.s.name) + performance.now() - t0);
      cpu.set(c.s.name, cpu.get(c.s.name) + cpuMs(c.pid) - cpu0);
    }
  return conns.map((c) => {
    const l = lat.get(c.s.name).sort((a, b) => a - b);
    const twoCalls = (workload === "seed003" || workload === "seed003_new") && c.s.name === "sluice";
    return { server: c.s.name, workload, calls_per_op: twoCalls ? 2 : 1,
             idle_rss_kib: c.idle, ops: l.length, ops_per_second: l.length / (busy.get(c.s.name) / 1000),
             p50_ms: pct(l, 50), p99_ms: pct(l, 99), server_cpu_ms_per_op: cpu.get(c.s.name) / l.length,
             peak_rss_kib: peakRssKiB(c.pid) };
  });
}

async function main() {
  const conns = [], answers = {};
  for (const s of SERVERS) {
    const transport = new StdioClientTransport({ command: s.command, args: s.args, stderr: "ignore", cwd: opt.work });
    const client = new Client({ name: "bench-peers", version: "1.0.0" }, { capabilities: {} });
    await client.connect(transport);
    conns.push({ s, client, pid: transport.pid, idle: peakRssKiB(transport.pid) });
    answers[s.name] = await s.seed003(client);
    const once = JSON.stringify(await s.seed003_1call(client));
    if (once !== JSON.stringify(answers[s.name])) throw new Error(`${s.name}: the one-call answer differs`);
  }
  const runs = [...await measure(conns, "trivial", CALLS),
                // The analytical query is ~100x heavier than SELECT 1: a tenth of the calls.
                ...await measure(conns, "seed003", Math.max(10, Math.round(CALLS / 10))),
                ...await measure(conns, "seed003_1call", Math.max(10, Math.round(CALLS / 10))),
                ...await measure(conns, "seed003_new", Math.max(10, Math.round(CALLS / 10))),
                ...await measure(conns, "seed003_new_1call", Math.max(10, Math.round(CALLS / 10)))];
  for (const c of conns) await c.client.close();
  const ref = JSON.stringify(answers.sluice);
  const agree = Object.values(answers).every((a) => JSON.stringify(a) === ref) && answers.sluice.length > 0;
  const run = (srv, w) => runs.find((r) => r.server === srv && r.workload === w);
  const ratios = {};
  for (const peer of ["duckdb-sdk", "server-postgres"])
    for (const w of ["trivial", "seed003", "seed003_1call", "seed003_new", "seed003_new_1call"]) {
      const a = run("sluice", w), b = run(peer, w);
      ratios[`${peer}/${w}`] = { throughput: a.ops_per_second / b.ops_per_second, p50_latency: b.p50_ms / a.p50_ms,
                                 p99_latency: b.p99_ms / a.p99_ms, peak_rss: a.peak_rss_kib / b.peak_rss_kib,
                                 server_cpu: a.server_cpu_ms_per_op > 0 ? b.server_cpu_ms_per_op / a.server_cpu_ms_per_op : null };
    }
  const report = {
    benchmark: "peers side by side: sluice vs SDK+DuckDB vs server-postgres", date: new Date().toISOString(),
    node: process.version, calls: CALLS, warmup: WARMUP, transport: "stdio, one official SDK client",
    seed003_answers_agree: agree, seed003_rows: answers.sluice.length, runs,
    ratios_sluice_over_peer: ratios,
    notes: "ratios > 1 favour sluice (throughput: sluice/peer; latency and server_cpu: peer/sluice); peak_rss is " +
           "sluice/peer (< 1 favours sluice). server-postgres's RSS and CPU are its Node process only, not the " +
           "PostgreSQL backends.",
  };
  if (opt.out) { mkdirSync(path.dirname(opt.out), { recursive: true }); writeFileSync(opt.out, JSON.stringify(report, null, 2) + "\n"); }
  const p = (v, n) => String(v).padStart(n);
  console.log(`${"server".padEnd(16)} ${"workload".padEnd(17)} ${p("ops", 5)} ${p("ops/s", 8)} ${p("p50 ms", 8)} ${p("p99 ms", 8)} ${p("peak RSS MiB", 13)}`);
  for (const r of runs)
    console.log(`${r.server.padEnd(16)} ${r.workload.padEnd(17)} ${p(r.ops, 5)} ${p(r.ops_per_second.toFixed(0), 8)} ` +
                `${p(r.p50_ms.toFixed(2), 8)} ${p(r.p99_ms.toFixed(2), 8)} ${p((r.peak_rss_kib / 1024).toFixed(1), 13)}`);
  for (const [k, v] of Object.entries(ratios))
    console.log(`sluice vs ${k}: throughput x${v.throughput.toFixed(2)}, p50 x${v.p50_latency.toFixed(2)}, ` +
                `p99 x${v.p99_latency.toFixed(2)}, server CPU x${v.server_cpu?.toFixed(2)}, peak RSS x${v.peak_rss.toFixed(2)}`);
  console.log(`seed 003 answers ${agree ? "agree" : "DIFFER"} across the three servers (${answers.sluice.length} rows)`);
  process.exit(agree ? 0 : 1);
}

main().catch((e) => { process.stderr.write(`bench/peers: ${e.stack ?? e}\n`); process.exit(2); });
