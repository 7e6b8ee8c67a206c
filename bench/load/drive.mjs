// drive.mjs — the load driver: C concurrent HTTP clients (each its own keep-alive connection and
// MCP 2025-11-25 session) share TOTAL tools/call requests against one MCP endpoint, rotating a
// mixed workload — the curated `ping` tool, validate_code, execute_code (with the token the
// client's previous validate_code returned) — so a third of the calls are each. While it runs,
// the server processes named by --pid are sampled once a second: resident memory (VmRSS) and
// open file descriptors (/proc/PID/fd). Reports errors (HTTP failures, JSON-RPC errors, isError
// results: the target is 0), p50/p99/max latency per kind, throughput, the RSS and fd series
// and their growth after warm-up, and whether the driver itself was the limit (its CPU time over
// the wall time, one core being all a Node process uses).
//
//   node drive.mjs --url http://127.0.0.1:PORT/mcp --pid PID[,PID...] [--clients 100]
//                  [--total 10000] [--warmup-seconds 2] [--out FILE] [--protocol 2026-07-28]
// --url is any MCP endpoint (one server, or a load balancer in front of replicas: then give
// every replica's pid, and --protocol 2026-07-28, since a 2025-11-25 session lives on one replica).
// Exit 0 when the run completed with 0 errors, 1 with errors, 2 on usage.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { McpClient, PROTOCOL } from "./mcp_http.mjs";
import { parseArgs } from "node:util";

const { values: opt } = parseArgs({
  options: {
    url: { type: "string" },
    pid: { type: "string" },
    clients: { type: "string", default: "100" },
    total: { type: "string", default: "10000" },
    "warmup-seconds": { type: "string", default: "2" },
    out: { type: "string" },
    protocol: { type: "string", default: PROTOCOL },
  },
});
if (!opt.url || !opt.pid) {
  process.stderr.write("usage: drive.mjs --url URL --pid PID[,PID...] [--clients N] [--total N] " +
    "[--warmup-seconds S] [--out FILE] [--protocol 2025-11-25|2026-07-28]\n");
  process.exit(2);
}
const PIDS = opt.pid.split(",").map(Number);
const CLIENTS = Number(opt.clients), TOTAL = Number(opt.total);
const WARMUP_S = Number(opt["warmup-seconds"]);
const SQL = "SELECT id, name FROM customers WHERE plan = 'enterprise' ORDER BY id LIMIT 5";

// The next call of the rotation ping -> validate_code -> execute_code.
function step(client, n) {
  switch (n % 3) {
    case 0: return ["ping", () => client.call("ping", {})];
    case 1: return ["validate_code", async () => {
      const r = await client.call("validate_code", { code: SQL });
      client.token = r.structuredContent.approval_token;
      if (!client.token) throw new Error("validate_code: no approval_token");
    }];
    default: return ["execute_code", async () => {
      const r = await client.call("execute_code", { code: SQL, approval_token: client.token });
      if (!Array.isArray(r.structuredContent?.rows) || r.structuredContent.rows.length !== 5)
        throw new Error(`execute_code: expected 5 rows, got ${JSON.stringify(r.structuredContent).slice(0, 200)}`);
    }];
  }
}

function sample(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return { rss_kib: m ? Number(m[1]) : null, fds: readdirSync(`/proc/${pid}/fd`).length };
}

const pct = (sorted, p) => sorted.length === 0 ? null
  : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const round3 = (x) => x === null ? null : Math.round(x * 1000) / 1000;

async function main() {
  const clients = Array.from({ length: CLIENTS }, () => new McpClient(opt.url, { protocol: opt.protocol }));
  await Promise.all(clients.map((c) => c.open()));
  const lat = { ping: [], validate_code: [], execute_code: [] };
  // When each kind first answered (s since t0): the server opens DuckDB, analyzes a curated tool
  // and fills its caches on the first call that needs them, so the memory baseline is taken
  // WARMUP_S after the last kind's first answer, not WARMUP_S after the start.
  const firstDone = {};
  const errors = [];
  const samples = [];
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const takeSample = () => samples.push({ t_s: round3((performance.now() - t0) / 1000),
    per_pid: PIDS.map((p) => ({ pid: p, ...sample(p) })) });
  takeSample();
  const sampler = setInterval(takeSample, 1000);
  let issued = 0;
  // Each client runs calls until TOTAL have been issued overall; the rotation is per client, so
  // every execute_code follows its own client's validate_code.
  await Promise.all(clients.map(async (c) => {
    let n = 0;
    while (issued < TOTAL) {
      issued++;
      const [kind, run] = step(c, n++);
      const s = performance.now();
      try {
        await run();
        lat[kind].push(performance.now() - s);
        firstDone[kind] ??= (performance.now() - t0) / 1000;
      } catch (e) {
        errors.push(String(e.message));
        if (kind === "validate_code") n++; // no token: skip the execute that needed it
      }
    }
  }));
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  takeSample();
  await Promise.all(clients.map((c) => c.close()));
  report({ lat, errors, samples, wall, cpu, firstDone });
}

// Growth after warm-up: last sample minus the first sample taken WARMUP_S after every kind of
// call had answered once (firstAll), per pid; a run too short for that measures from the first
// sample after firstAll. Descriptors too: the first calls open the database file.
function growth(samples, firstAll) {
  let after = samples.filter((s) => s.t_s >= firstAll + WARMUP_S);
  if (after.length < 2) after = samples.filter((s) => s.t_s >= firstAll);
  if (after.length === 0) after = samples;
  const base = after[0];
  const last = samples[samples.length - 1];
  return PIDS.map((pid, i) => ({ pid, rss_kib_after_warmup: base.per_pid[i].rss_kib,
    rss_kib_last: last.per_pid[i].rss_kib, rss_growth_kib: last.per_pid[i].rss_kib - base.per_pid[i].rss_kib,
    rss_max_kib: Math.max(...after.map((s) => s.per_pid[i].rss_kib)),
    fds_start: base.per_pid[i].fds, fds_max: Math.max(...samples.map((s) => s.per_pid[i].fds)),
    fds_end: last.per_pid[i].fds }));
}

function report({ lat, errors, samples, wall, cpu, firstDone }) {
  const firstAll = Object.keys(lat).every((k) => k in firstDone)
    ? Math.max(...Object.values(firstDone)) : 0;
  const all = [...lat.ping, ...lat.validate_code, ...lat.execute_code].sort((a, b) => a - b);
  const kinds = Object.fromEntries(Object.entries(lat).map(([k, l]) => {
    l.sort((a, b) => a - b);
    return [k, { calls: l.length, p50_ms: round3(pct(l, 50)), p99_ms: round3(pct(l, 99)), max_ms: round3(l.at(-1) ?? null) }];
  }));
  const driverCpu = (cpu.user + cpu.system) / 1e6 / wall;
  const out = {
    url: opt.url, protocol: opt.protocol, clients: CLIENTS, total: TOTAL, completed: all.length, errors: errors.length,
    first_errors: [...new Set(errors)].slice(0, 5), wall_seconds: round3(wall),
    calls_per_second: Math.round(all.length / wall), p50_ms: round3(pct(all, 50)), p99_ms: round3(pct(all, 99)),
    max_ms: round3(all.at(-1) ?? null), by_kind: kinds,
    // One Node process runs on one core: near 1.0 the driver, not the server, sets the pace.
    driver_cpu_cores: round3(driverCpu), driver_is_the_limit: driverCpu > 0.85,
    first_calls_answered_s: round3(firstAll),
    resources: growth(samples, firstAll), samples,
  };
  const text = JSON.stringify(out, null, 1);
  if (opt.out) writeFileSync(opt.out, text + "\n");
  const { samples: _s, ...summary } = out;
  process.stdout.write(JSON.stringify(summary) + "\n");
  process.exitCode = errors.length === 0 ? 0 : 1;
}

main().catch((e) => {
  process.stderr.write(`load driver: ${e.stack ?? e}\n`);
  process.exit(2);
});
