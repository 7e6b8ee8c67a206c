// replicas.test.mjs — three sluice replicas behind nginx (round-robin, docs/deploy.md's config),
// sharing Redis and PostgreSQL, driven by the official MCP TypeScript SDK Client over MCP
// 2026-07-28. Started by ctest_replicas.sh (the PostgreSQL cluster, keys, demo data); this file
// starts Redis, the replicas and nginx, and kills and restarts them.
//
// The SDK (1.32) predates 2026-07-28, so its Client runs over StatelessTransport below: every
// JSON-RPC request becomes one self-contained POST (protocol version and capabilities in _meta,
// the Mcp-Method / Mcp-Name headers, no session), and the Client's opening `initialize` is
// answered from `server/discover`. Nothing else of the Client is changed: request ids, result
// validation and errors are the SDK's own. nginx adds X-Sluice-Upstream, so each step asserts
// which replica answered.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { Client } from "../e2e/harness.mjs";

const work = process.env.SLUICE_SCALE_WORK;
const sluiceBin = process.env.SLUICE_BIN;
const auditPg = process.env.SLUICE_SCALE_AUDIT_PG;
if (!work || !sluiceBin || !auditPg || !process.env.SLUICE_SCALE_REPLICA_PORTS)
  throw new Error("run through ctest_replicas.sh");

const V = "2026-07-28";
const KEY = "alice-key-9f2c41d0a7b3e6c85d1e";
const BOB_KEY = "bob-key-1d7e3a90c4f25b86e0aa";
const ADMIN = "admin-key-4be07d19c2a6f35e8d90";
const REDIS_PW = "redis-pw-61c3e0f8a2";
const sha = (s) => createHash("sha256").update(s).digest("hex");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const NAMES = ["a", "b", "c"];

let lbPort, lbUrl;
const replicas = {}; // name -> { port, proc, log }
let redis = null, nginxPid = 0;
const redisSock = path.join(work, "redis", "redis.sock");

// ---- the stateless transport under the SDK Client ------------------------------------------

class StatelessTransport {
  constructor(url, key) {
    this.url = url;
    this.key = key;
    this.upstream = null; // the replica that answered the last request
  }
  async start() {}
  async close() {
    this.onclose?.();
  }
  async send(msg) {
    if (msg.id === undefined) return; // 2026-07-28 has no notifications/initialized
    let reply;
    try {
      reply = msg.method === "initialize" ? await this.initialize(msg) : await this.post(msg);
    } catch (e) {
      reply = { jsonrpc: "2.0", id: msg.id, error: { code: -32000, message: String(e.message) } };
    }
    this.onmessage?.(reply);
  }
  async initialize(msg) {
    const d = await this.post({ jsonrpc: "2.0", id: msg.id, method: "server/discover", params: {} });
    if (d.error) return d;
    const { capabilities } = d.result;
    const serverInfo = d.result._meta?.["io.modelcontextprotocol/serverInfo"];
    return { jsonrpc: "2.0", id: msg.id,
             result: { protocolVersion: msg.params.protocolVersion, capabilities, serverInfo } };
  }
  async post(msg) {
    const params = { ...(msg.params ?? {}), _meta: { ...(msg.params?._meta ?? {}),
      "io.modelcontextprotocol/protocolVersion": V,
      "io.modelcontextprotocol/clientCapabilities": {} } };
    const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream",
                      Authorization: `Bearer ${this.key}`, "MCP-Protocol-Version": V,
                      "Mcp-Method": msg.method };
    if (msg.method === "tools/call") headers["Mcp-Name"] = msg.params.name;
    const r = await fetch(this.url, { method: "POST", headers, body: JSON.stringify({ ...msg, params }),
                                      signal: AbortSignal.timeout(20000) });
    this.upstream = nameOf(r.headers.get("x-sluice-upstream"));
    const text = await r.text();
    if ((r.headers.get("content-type") ?? "").includes("text/event-stream")) {
      const datas = text.split("\n").filter((l) => l.startsWith("data:")).map((l) => JSON.parse(l.slice(5)));
      const mine = datas.find((m) => m.id === msg.id);
      if (mine) return mine;
    }
    if (!text.startsWith("{")) throw new Error(`HTTP ${r.status} from ${this.upstream}: ${text.slice(0, 200)}`);
    return JSON.parse(text);
  }
}

function nameOf(upstream) {
  if (!upstream) return null;
  const port = Number(upstream.split(",").pop().trim().split(":").pop());
  return NAMES.find((n) => replicas[n]?.port === port) ?? upstream;
}

async function client(key = KEY) {
  const transport = new StatelessTransport(lbUrl, key);
  const c = new Client({ name: "scale-replicas", version: "1.0.0" }, { capabilities: {} });
  await c.connect(transport);
  return { c, t: transport };
}

// One tool call; returns { ok, text, structured, upstream } (a JSON-RPC error is a refusal too).
async function call(k, name, args) {
  try {
    const r = await k.c.callTool({ name, arguments: args });
    return { ok: !r.isError, text: r.content?.map((x) => x.text).join("\n") ?? "",
             structured: r.structuredContent, upstream: k.t.upstream };
  } catch (e) {
    return { ok: false, text: String(e.message), upstream: k.t.upstream };
  }
}

// Sends cheap requests until the next one will go to `name` (nginx round-robin is A, B, C, …).
async function aimAt(k, name) {
  for (let i = 0; i < 6; i++) {
    const next = NAMES[(NAMES.indexOf(k.t.upstream) + 1) % NAMES.length];
    if (next === name) return;
    await k.c.listTools();
  }
  throw new Error(`could not aim at replica ${name}`);
}

// ---- processes ------------------------------------------------------------------------------

async function waitFor(what, probe, ms = 10000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await probe()) return;
    await sleep(50);
  }
  throw new Error(`${what} did not come up within ${ms} ms`);
}

// Every process started here, so ctest_replicas.sh can stop them if this file dies early.
const track = (pid) => writeFileSync(path.join(work, "pids"), `${pid}\n`, { flag: "a" });

async function startRedis() {
  mkdirSync(path.dirname(redisSock), { recursive: true });
  redis = spawn("redis-server", ["--port", "0", "--unixsocket", redisSock, "--unixsocketperm", "700",
                                 "--dir", path.dirname(redisSock), "--requirepass", REDIS_PW,
                                 "--appendonly", "yes", "--appendfsync", "always", "--save", "",
                                 "--logfile", path.join(work, "redis.log")], { stdio: "ignore" });
  track(redis.pid);
  await waitFor("redis", () => existsSync(redisSock));
}

async function stopRedis() {
  const p = redis;
  redis = null;
  const exited = new Promise((r) => p.once("exit", r));
  p.kill("SIGTERM"); // graceful: the append-only file is complete
  await exited;
}

function config(name) {
  copyFileSync(path.join(work, "demo.duckdb"), path.join(work, `demo-${name}.duckdb`));
  const file = path.join(work, `${name}.toml`);
  writeFileSync(file, `
[server]
name = "sluice-scale"
[[api_keys]]
user = "alice"
key_sha256 = "${sha(KEY)}"
[[api_keys]]
user = "bob"
key_sha256 = "${sha(BOB_KEY)}"
[admin]
key_sha256 = "${sha(ADMIN)}"
[database]
path = "demo-${name}.duckdb"
[code_mode]
enabled = true
server_id = "sluice-scale"
token_secret_file = "token.key"
auto_approve_levels = ["low"]
sql_allow_writes = true
[state]
redis_url = "unix:${redisSock}"
redis_password_file = "redis.pw"
redis_timeout_ms = 2000
audit_postgres = "${auditPg}"
replica_id = "${name}"
[query_mode]
enabled = true
[[sources]]
name = "sales"
kind = "file"
file = "sales.csv"
`);
  return file;
}

async function startReplica(name) {
  const r = replicas[name];
  r.log = "";
  r.proc = spawn(sluiceBin, ["serve", "-c", r.config, "--http", `127.0.0.1:${r.port}`],
                 { cwd: work, stdio: ["ignore", "pipe", "pipe"] });
  track(r.proc.pid);
  r.proc.stdout.on("data", (d) => (r.log += d));
  r.proc.stderr.on("data", (d) => (r.log += d));
  await waitFor(`replica ${name}`, async () => {
    if (r.proc.exitCode !== null) throw new Error(`replica ${name} exited:\n${r.log}`);
    try { return (await fetch(`http://127.0.0.1:${r.port}/healthz`)).status > 0; } catch { return false; }
  });
}

async function startNginx() {
  // nginx.conf is docs/deploy.md's, with this run's ports (written by cluster.sh, which also
  // checks it is not sticky).
  const dir = path.join(work, "nginx");
  const args = ["-p", dir, "-c", path.join(dir, "nginx.conf"), "-e", "stderr"];
  // As the invoking user, workers too: a nobody worker cannot traverse a 0700 parent of the
  // clone (issue 20; cluster.sh's cluster_start_nginx does the same).
  if (process.getuid() === 0) args.push("-g", "user root;");
  const r = spawnSync("nginx", args, { encoding: "utf8" }); // daemonises; the pid file names it
  assert.equal(r.status, 0, `nginx: ${r.stderr}`);
  await waitFor("nginx", () => existsSync(path.join(dir, "nginx.pid")));
  nginxPid = Number(readFileSync(path.join(dir, "nginx.pid"), "utf8"));
  track(nginxPid);
}

before(async () => {
  writeFileSync(path.join(work, "redis.pw"), REDIS_PW + "\n", { mode: 0o600 });
  await startRedis();
  lbPort = Number(process.env.SLUICE_SCALE_LB_PORT);
  lbUrl = `http://127.0.0.1:${lbPort}/mcp`;
  const ports = process.env.SLUICE_SCALE_REPLICA_PORTS.split(",").map(Number);
  NAMES.forEach((n, i) => (replicas[n] = { port: ports[i], config: config(n) }));
  await Promise.all(NAMES.map(startReplica));
  await startNginx();
});

after(async () => {
  if (nginxPid) try { process.kill(nginxPid, "SIGTERM"); } catch {}
  for (const n of NAMES) {
    const r = replicas[n];
    if (r?.proc && r.proc.exitCode === null) r.proc.kill("SIGTERM");
    if (r?.log) writeFileSync(path.join(work, `replica-${n}.log`), r.log);
  }
  if (redis) redis.kill("SIGTERM");
});

const READ = "SELECT count(*) AS n FROM customers";
const WRITE = "UPDATE customers SET name = name WHERE id = 2";
let firstToken; // executed once in the first test; must stay used

async function validated(k, code) {
  const v = await call(k, "validate_code", { code });
  assert.ok(v.ok, v.text);
  return { token: v.structured.approval_token, on: v.upstream, structured: v.structured };
}

// ---- the tests ------------------------------------------------------------------------------

test("validate on one replica, execute on another; the replay refused on the third", async () => {
  const k = await client();
  await aimAt(k, "a");
  const v = await validated(k, READ);
  assert.equal(v.on, "a");
  const run = await call(k, "execute_code", { code: READ, approval_token: v.token });
  assert.equal(run.upstream, "b");
  assert.ok(run.ok, run.text);
  const replay = await call(k, "execute_code", { code: READ, approval_token: v.token });
  assert.equal(replay.upstream, "c");
  assert.equal(replay.ok, false);
  assert.match(replay.text, /already used/);
  firstToken = v.token;
});

test("the console on any replica reads the replica set's one audit table", async () => {
  const r = await fetch(`http://127.0.0.1:${replicas.c.port}/admin/api/audit?limit=50`,
                        { headers: { Authorization: `Bearer ${ADMIN}` } });
  assert.equal(r.status, 200);
  const doc = await r.json();
  assert.equal(doc.file, "sluice_audit");
  const mine = doc.records.filter((x) => x.code === READ);
  assert.ok(mine.some((x) => x.decision === "validated"), "the validation made on a");
  assert.ok(mine.some((x) => x.decision === "executed"), "the execution made on b");
  assert.ok(mine.some((x) => x.reason === "replayed"), "the replay refused on c");
  assert.ok(doc.records.every((x) => x.chain === "sluice_audit"));
  for (let i = 1; i < doc.records.length; i++) assert.ok(doc.records[i - 1].seq > doc.records[i].seq, "newest first");
  // the export on another replica reads the same table: b's execution, from a's console
  const e = await fetch(`http://127.0.0.1:${replicas.a.port}/admin/api/audit/export?format=jsonl&q=executed`,
                        { headers: { Authorization: `Bearer ${ADMIN}` } });
  assert.equal(e.status, 200);
  const exported = (await e.text()).trim().split("\n").map((l) => JSON.parse(l));
  assert.ok(exported.some((x) => x.code === READ && x.decision === "executed"), "b's execution in a's export");
  assert.ok(exported.every((x) => x.chain === "sluice_audit"));
});

test("an approval requested through one replica and decided through a second runs on the third", async () => {
  const k = await client();
  const v = await validated(k, WRITE);
  assert.equal(v.structured.requires_approval, true);
  const asked = await call(k, "execute_code", { code: WRITE, approval_token: v.token });
  assert.equal(asked.ok, false);
  const id = asked.text.match(/approval request ([0-9a-f]{32}) was recorded/)?.[1];
  assert.ok(id, asked.text);
  const recorder = asked.upstream;
  // `sluice approve --list` reads the same Redis: the request recorded on one replica is there.
  const list = spawnSync(sluiceBin, ["approve", "-c", replicas.a.config, "--list"],
                         { cwd: work, encoding: "utf8" });
  assert.equal(list.status, 0, list.stderr);
  assert.match(list.stdout, new RegExp(`^${id}  alice`, "m"));
  const approver = NAMES[(NAMES.indexOf(recorder) + 1) % 3];
  const runner = NAMES[(NAMES.indexOf(recorder) + 2) % 3];
  const d = await fetch(`http://127.0.0.1:${replicas[approver].port}/admin/approvals/${id}`, {
    method: "POST", headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ decision: "approve", as: "root" }) });
  const decision = await d.json();
  assert.equal(d.status, 200, JSON.stringify(decision));
  assert.equal(decision.state, "approved");
  await aimAt(k, runner);
  const ran = await call(k, "execute_code", { code: WRITE, approval_token: v.token });
  assert.equal(ran.upstream, runner);
  assert.ok(ran.ok, ran.text);
  const again = await call(k, "execute_code", { code: WRITE, approval_token: v.token });
  assert.equal(again.ok, false, "the approved token still runs once");
});

test("a replica killed in the middle of a burst loses no acknowledged audit record", async (t) => {
  const k = await client();
  const acked = [];
  let failures = 0, killed = false;
  const one = async (i) => {
    const code = `SELECT ${1000 + i} AS n`;
    const v = await call(k, "validate_code", { code });
    if (!v.ok) return void failures++;
    const r = await call(k, "execute_code", { code, approval_token: v.structured.approval_token });
    if (r.ok) acked.push(code);
    else failures++;
    if (acked.length >= 8 && !killed) {
      killed = true;
      replicas.c.proc.kill("SIGKILL");
    }
  };
  const lanes = Array.from({ length: 6 }, (_, lane) => (async () => {
    for (let i = lane; i < 48; i += 6) await one(i);
  })());
  await Promise.all(lanes);
  assert.ok(killed, "the kill happened during the burst");
  assert.ok(acked.length >= 20, `acknowledged ${acked.length}, failed ${failures}`);
  const verify = spawnSync(sluiceBin, ["audit", "verify", "--pg", auditPg], { encoding: "utf8" });
  assert.equal(verify.status, 0, verify.stdout + verify.stderr);
  assert.match(verify.stdout, /records, chain intact/);
  const q = spawnSync("psql", ["-X", "-At", "-d", auditPg, "-c",
    "SELECT line::json->>'code' FROM sluice_audit WHERE line::json->>'decision' = 'executed'"],
    { encoding: "utf8" });
  assert.equal(q.status, 0, q.stderr);
  const recorded = new Set(q.stdout.split("\n"));
  const missing = acked.filter((c) => !recorded.has(c));
  t.diagnostic(`burst: ${acked.length} executions acknowledged, ${failures} failed (replica c ` +
               `killed after 8); ${verify.stdout.trim()}`);
  assert.deepEqual(missing, [], "every acknowledged execution has its audit record");
  await startReplica("c"); // back for the next tests
  await sleep(2100); // past nginx's fail_timeout, so round-robin includes c again
});

test("Redis down: executions refuse naming Redis, and run again once it is back", async () => {
  const k = await client();
  await stopRedis();
  const v = await validated(k, READ); // validation needs no shared state
  const refused = await call(k, "execute_code", { code: READ, approval_token: v.token });
  assert.equal(refused.ok, false);
  assert.match(refused.text, /Redis at unix:/);
  assert.match(refused.text, /refuses to run it/);
  await startRedis();
  const w = await validated(k, READ);
  const ok = await call(k, "execute_code", { code: READ, approval_token: w.token });
  assert.ok(ok.ok, ok.text);
  // The append-only file kept the ids consumed before the outage.
  const old = await call(k, "execute_code", { code: READ, approval_token: firstToken });
  assert.equal(old.ok, false);
  assert.match(old.text, /already used/);
});

test("a query-mode session handle on the wrong replica, or of another principal, is refused", async () => {
  const k = await client();
  const loaded = await call(k, "load", { source: "sales" });
  assert.ok(loaded.ok, loaded.text);
  const handle = loaded.structured.session;
  const holder = loaded.upstream;
  assert.ok(handle?.startsWith(`${holder}.`), `handle ${handle} names ${holder}`);
  // After the kill above nginx's weights are uneven for a while: not a strict cycle, so call
  // until the holder answers; every other replica must refuse, naming the holder.
  const sum = { sql: "SELECT sum(amount) AS s FROM sales", session: handle };
  let answered = false, refused = 0;
  for (let i = 0; i < 9 && !answered; i++) {
    const q = await call(k, "query", sum);
    if (q.upstream === holder) {
      assert.ok(q.ok, q.text);
      assert.equal(q.structured.rows[0].s ?? q.structured.rows[0][0], 47);
      answered = true;
    } else {
      refused++;
      assert.equal(q.ok, false);
      assert.match(q.text, new RegExp(`held by replica '${holder}' and this is replica '${q.upstream}'`));
    }
  }
  assert.ok(answered && refused > 0, `holder answered: ${answered}, wrong replicas refused: ${refused}`);
  // On the right replica, another principal's use of the handle finds nothing of alice's.
  const bob = await client(BOB_KEY);
  let stolen;
  for (let i = 0; i < 9 && stolen?.upstream !== holder; i++)
    stolen = await call(bob, "query", sum);
  assert.equal(stolen.upstream, holder);
  assert.equal(stolen.ok, false);
  assert.match(stolen.text, /is not live on replica .*or it is not yours/);
  const forged = await call(bob, "query", { sql: "SELECT 1", session: "not-a-handle" });
  assert.equal(forged.ok, false);
  assert.match(forged.text, /not a query-mode session handle/);
});
