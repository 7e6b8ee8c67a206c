// run.mjs — the token-economy benchmark. For each question in questions.mjs, two scripted agents
// (no LLM) answer it against `sluice serve` on the demo database, each through the official SDK
// client over stdio:
//   naive     a server with only the curated list/get tools of tools.toml; the agent pages
//             through them and joins/aggregates in JS (standing in for the model);
//   codemode  a server with only code mode; the agent loads the start_code_mode prompt, then
//             validate_code and execute_code with the question's one SQL statement.
// Everything the model would see counts as context: the tool definitions (tools/list), the prompt
// messages, every call (name + arguments) and every result (its text content), each once, in
// o200k_base tokens (gpt-tokenizer 4.0.0). The answers of both paths must agree.
// Questions with a `graphql` operation (seed 000's RecentCustomersSnapshot) answer the code-mode
// side on a GraphQL code-mode server instead: sluice in front of examples/graphql/server.mjs over
// the same demo database (its config generated from examples/graphql/sluice.toml); the naive side
// is the same REST-mirror tool chain, one tool per resource.
// Questions with a `javascript` plan (seed 000's budgets plan) answer the code-mode side on the
// cost-coach server: sluice (OpenAPI engine, its config generated from
// examples/cost-coach/sluice.toml) in front of examples/cost-coach/server.mjs; the naive side is
// rest_mirror.mjs, one tool per REST operation of the same spec, against the same server.
// That config opts its read-only route into execute_on_validate (see its comment), so the
// agent asks validate_code to run the plan in the same call ("execute": true), as a model does
// when validate_code offers it; the report marks such questions one_call. Everywhere else the
// configs leave it off and the agent validates, then executes.
// Questions with a `surface` (the world's: GitHub REST, GitHub GraphQL, a 300-table warehouse;
// see WORLD in questions.mjs) run on that surface's two servers: code mode in front of a local
// stub (github_rest_stub.mjs, github_graphql_stub.mjs) or the warehouse, after the search and
// describe calls the question's `discover` makes; naive through a mirror (rest_mirror.mjs with
// GitHub's spec, graphql_mirror.mjs, or one curated list tool per warehouse table).
// Questions with a `querymode` agent (seed 004) also run a third path: a server with only query
// mode, its invoices source served by examples/query-mode/server.mjs from the demo database; that
// answer must agree too, and its tokens are reported beside (not in the median).
//
//   node bench/tokens/run.mjs --sluice BIN --work DIR [--out FILE] [--only id,id] [--world | --demo] [--tamper]
// --world asks the world's questions only (the CI form, tests/bench/ctest_bench_tokens_world.sh),
// --demo the demo's only (tests/bench/ctest_bench_tokens_smoke.sh); by default all of them.
// --trace prints each read's tokens (what costs what) to stderr; --trace-text also each read's
// text under 5,000 tokens (where a cut would go).
// Issue 26's targets: median ratio >= x100 and code mode <= naive on every question.
// --tamper drops the naive answer's first row: the smoke test's proof that a disagreement fails.
// DIR must hold demo.duckdb (sluice demo-db) and token.key (sluice keygen).
// Exit status: 0 all answers agree, 1 some disagree, 2 usage or run error.
import { spawn, execFileSync } from "node:child_process";
import { writeFileSync, readFileSync, mkdirSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { parseArgs } from "node:util";
import { QUESTIONS, WORLD } from "./questions.mjs";
import { writeSurfaces, warehouseTools } from "./surfaces.mjs";
import { startGithubRest, githubSpecPath } from "./github_rest_stub.mjs";
import { startGithubGraphql } from "./github_graphql_stub.mjs";

const require = createRequire(new URL("../../tests/node/package.json", import.meta.url));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { countTokens } = require("gpt-tokenizer/encoding/o200k_base");

const { values: opt } = parseArgs({ options: {
  sluice: { type: "string" }, work: { type: "string" }, out: { type: "string" }, only: { type: "string" },
  tamper: { type: "boolean" }, world: { type: "boolean" }, demo: { type: "boolean" },
  trace: { type: "boolean" }, "trace-text": { type: "boolean" } } });
if (!opt.sluice || !opt.work) {
  process.stderr.write("usage: run.mjs --sluice BIN --work DIR [--out FILE] [--only id,id]\n");
  process.exit(2);
}
const PAGE = 100; // the page size every naive list call asks for (the tools' cap)

function writeConfigs(work) {
  const common = `[database]\nengine = "duckdb"\npath = "demo.duckdb"\nthreads = 2\n`;
  const codeMode = (enabled) => `[code_mode]\nenabled = ${enabled}\ntoken_secret_file = "token.key"
auto_approve_levels = ["low", "medium"]\nsql_max_rows = 1000\nsql_max_joins = 5
blocked_fields = ["ssn", "email"]\n`;
  const naive = path.join(work, "naive.toml");
  writeFileSync(naive, `[server]\nname = "bench-naive"\n${common}${codeMode(false)}\n` +
    readFileSync(new URL("./tools.toml", import.meta.url), "utf8"));
  const cm = path.join(work, "codemode.toml");
  writeFileSync(cm, `[server]\nname = "bench-codemode"\n${common}${codeMode(true)}`);
  return { naive, codemode: cm };
}

// The vendor-style REST server of examples/query-mode over the demo invoices, and a query-mode
// config pointing at it. Returns { config, stop }.
async function startQueryMode(work) {
  const { DuckDBInstance } = require("@duckdb/node-api");
  const inst = await DuckDBInstance.create(path.join(work, "demo.duckdb"), { access_mode: "READ_ONLY" });
  const c = await inst.connect();
  const rows = (await c.runAndReadAll(`SELECT id AS InvoiceID, customer_id AS ContactID,
    strftime(date, '%Y-%m-%d') AS Date, status AS Status, total::DOUBLE AS Total FROM invoices ORDER BY id`))
    .getRowObjectsJson().map((r) => ({ ...r, InvoiceID: Number(r.InvoiceID), ContactID: Number(r.ContactID) }));
  c.closeSync();
  inst.closeSync();
  const data = path.join(work, "qm-invoices.json");
  writeFileSync(data, JSON.stringify(rows));
  const server = spawn(process.execPath, [new URL("../../examples/query-mode/server.mjs", import.meta.url).pathname,
                                          "--data", data], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise((resolve, reject) => {
    server.stdout.on("data", (d) => { const m = /listening (\d+)/.exec(String(d)); if (m) resolve(Number(m[1])); });
    server.on("exit", () => reject(new Error("the query-mode REST server exited")));
  });
  const example = readFileSync(new URL("../../examples/query-mode/sluice.toml", import.meta.url), "utf8")
    .replace("127.0.0.1:8810", `127.0.0.1:${port}`).replace("requests_per_minute = 60\n", "")
    .replace("session_ttl_seconds = 600", `session_ttl_seconds = 600\nspill_dir = "${work}"`);
  const config = path.join(work, "querymode.toml");
  writeFileSync(config, example);
  return { config, stop: () => server.kill("SIGTERM") };
}

// The demo GraphQL API (examples/graphql/server.mjs) on the demo database, and a GraphQL
// code-mode config in front of it. Returns { config, env, stop }.
async function startGraphql(work) {
  const token = "bench-upstream-credential";
  const env = { ...process.env, DEMO_GRAPHQL_TOKEN: token };
  const example = new URL("../../examples/graphql/", import.meta.url).pathname;
  const server = spawn(process.execPath, [path.join(example, "server.mjs"), "--db", path.join(work, "demo.duckdb"), "--port", "0"],
                       { env, stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise((resolve, reject) => {
    server.stdout.on("data", (d) => { const m = /listening (\d+)/.exec(String(d)); if (m) resolve(Number(m[1])); });
    server.on("exit", () => reject(new Error("the demo GraphQL server exited")));
  });
  const config = path.join(work, "graphql.toml");
  writeFileSync(config, readFileSync(path.join(example, "sluice.toml"), "utf8")
    .replace(/^endpoint = .*$/m, `endpoint = "http://127.0.0.1:${port}/graphql"`)
    .replace(/^path = .*$/m, `path = "${path.join(example, "schema.graphql")}"`)
    .replace(/^policies = .*$/m, `policies = "${path.join(example, "policies.cedar")}"`)
    .replace(/^token_secret_file = .*$/m, `token_secret_file = "${path.join(path.resolve(work), "token.key")}"`));
  return { config, env, stop: () => server.kill("SIGTERM") };
}

// The cost-coach REST API (examples/cost-coach/server.mjs), a JavaScript code-mode config in
// front of it, and the REST-mirror command. Returns { config, env, mirror, stop }.
async function startCostCoach(work) {
  const token = "bench-upstream-credential";
  const env = { ...process.env, COST_COACH_TOKEN: token };
  const example = new URL("../../examples/cost-coach/", import.meta.url).pathname;
  const port = 20000 + Math.floor(Math.random() * 20000);
  const server = spawn(process.execPath, [path.join(example, "server.mjs"), "--port", String(port)],
                       { env, stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((resolve, reject) => {
    server.stdout.on("data", (d) => String(d).includes("listening") && resolve());
    server.on("exit", () => reject(new Error("the cost-coach REST server exited")));
  });
  const config = path.join(work, "costcoach.toml");
  writeFileSync(config, readFileSync(path.join(example, "sluice.toml"), "utf8")
    .replace(/^endpoint = .*$/m, `endpoint = "http://127.0.0.1:${port}"`)
    .replace(/^path = "openapi.yaml".*$/m, `path = "${path.join(example, "openapi.yaml")}"`)
    .replace(/^policies = .*$/m, `policies = "${path.join(example, "policies.cedar")}"`)
    .replace(/^token_secret_file = .*$/m, `token_secret_file = "${path.join(path.resolve(work), "token.key")}"`));
  const mirror = { command: process.execPath, args: [new URL("./rest_mirror.mjs", import.meta.url).pathname, `http://127.0.0.1:${port}`] };
  return { config, env, mirror, stop: () => server.kill("SIGTERM") };
}

// The world's surfaces the asked questions need: for each, { codemode, naive } clients.
// Returns { clients, stop }.
async function startWorld(work, needed) {
  const surfaces = writeSurfaces(work);
  const clients = {};
  const stops = [];
  const mirror = (file, ...args) => ({ command: process.execPath, args: [new URL(file, import.meta.url).pathname, ...args] });
  const withEndpoint = (config, url, name) => {
    const out = path.join(work, name);
    writeFileSync(out, readFileSync(config, "utf8").replace(/^endpoint = .*$/m, `endpoint = "${url}"`));
    return out;
  };
  if (needed.has("github-rest")) {
    const stub = await startGithubRest();
    stops.push(stub.stop);
    clients["github-rest"] = { codemode: await connect(withEndpoint(surfaces.rest, stub.url, "world-github-rest.toml")),
                               naive: await connect(null, null, mirror("./rest_mirror.mjs", stub.url, githubSpecPath)) };
  }
  if (needed.has("github-graphql")) {
    const stub = await startGithubGraphql();
    stops.push(stub.stop);
    clients["github-graphql"] = { codemode: await connect(withEndpoint(surfaces.gql, stub.url, "world-github-graphql.toml")),
                                  naive: await connect(null, null, mirror("./graphql_mirror.mjs", stub.url, path.join(work, "github.graphql"))) };
  }
  if (needed.has("warehouse")) {
    // the database is rebuilt when its SQL changed (sluice demo-db takes tens of seconds for 300 tables)
    const db = path.join(path.resolve(work), "warehouse.duckdb"), stamp = db + ".sql";
    const sql = readFileSync(surfaces.warehouseSql, "utf8");
    if (!existsSync(db) || !existsSync(stamp) || readFileSync(stamp, "utf8") !== sql) {
      execFileSync(opt.sluice, ["demo-db", "--force", "--sql", surfaces.warehouseSql, db], { stdio: "ignore" });
      writeFileSync(stamp, sql);
    }
    const naive = path.join(work, "warehouse-naive.toml");
    writeFileSync(naive, `[server]\nname = "warehouse-naive"\n\n[database]\nengine = "duckdb"\npath = "${db}"\nthreads = 2\n\n` +
      `[code_mode]\nenabled = false\n\n${warehouseTools()}`);
    clients.warehouse = { codemode: await connect(surfaces.warehouse), naive: await connect(naive) };
  }
  return { clients, stop: async () => {
    for (const c of Object.values(clients)) { await c.codemode.close(); await c.naive.close(); }
    stops.forEach((f) => f());
  } };
}

async function connect(config, env, command) {
  const transport = new StdioClientTransport({ ...(command ?? { command: opt.sluice, args: ["serve", "-c", config, "--stdio"] }),
                                               stderr: "ignore", ...(env ? { env } : {}) });
  const client = new Client({ name: "bench-tokens", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  return client;
}

const textOf = (result) => (result.content ?? []).map((c) => c.text ?? "").join("\n");

// The context ledger of one conversation: what the model would read, and how many round trips.
class Agent {
  constructor(client) { this.client = client; this.tokens = 0; this.trips = 0; this.calls = 0; this.rowsSeen = 0; }
  see(text, what = "") {
    const n = countTokens(text);
    this.tokens += n;
    if (opt.trace || opt["trace-text"])
      process.stderr.write(`  ${String(n).padStart(7)} ${what}\n` + (opt["trace-text"] && n < 5000 ? `${text}\n-----\n` : ""));
  }
  // Every page of tools/list (a server with many tools pages them; each page is a round trip).
  async listTools() {
    const tools = [];
    let cursor;
    do {
      const page = await this.client.listTools(cursor ? { cursor } : undefined);
      this.trips++;
      this.see(JSON.stringify(page.tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))), "tools/list");
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }
  async prompt(name, args) {
    const p = await this.client.getPrompt({ name, arguments: args });
    this.trips++;
    for (const m of p.messages) this.see(m.content.type === "resource" ? m.content.resource.text : m.content.text, `prompt ${name}`);
  }
  async call(name, args) {
    this.see(JSON.stringify({ name, arguments: args }), `call ${name}`);
    const r = await this.client.callTool({ name, arguments: args });
    this.trips++;
    this.calls++;
    this.see(textOf(r), `answer ${name}`);
    if (r.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${textOf(r)}`);
    this.last = textOf(r);
    return r.structuredContent;
  }
  // A call whose answer the model reads as text (a mirror's JSON array): { text }.
  async text(name, args) {
    await this.call(name, args);
    return { text: this.last };
  }
  // A curated call's rows as objects (the model reads them from the text; same data).
  async rows(name, args) {
    const s = await this.call(name, args);
    const cols = s.columns.map((c) => c.name);
    this.rowsSeen += s.rows.length;
    return s.rows.map((r) => Object.fromEntries(cols.map((c, i) => [c, r[i]])));
  }
  // Pages through a list tool until a short page.
  async pages(name, filters) {
    const all = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await this.rows(name, { ...filters, limit: PAGE, offset });
      all.push(...page);
      if (page.length < PAGE) return all;
    }
  }
}

// Answers compare as values: numbers (and numeric strings such as DECIMALs) to within a cent.
function same(a, b) {
  if (a.length !== b.length) return false;
  const num = (v) => (typeof v === "number" ? v : typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : null);
  return a.every((row, i) => row.length === b[i].length && row.every((v, j) => {
    const x = num(v), y = num(b[i][j]);
    return x !== null && y !== null ? Math.abs(x - y) < 0.011 : v === b[i][j];
  }));
}

async function timed(fn) {
  const t0 = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - t0 };
}

async function main() {
  const configs = writeConfigs(opt.work);
  const only = opt.only ? new Set(opt.only.split(",")) : null;
  const asked = (opt.world ? WORLD : opt.demo ? QUESTIONS : [...QUESTIONS, ...WORLD]).filter((x) => !only || only.has(x.id));
  const demo = asked.some((q) => !q.surface); // the demo database's servers
  const naiveClient = demo ? await connect(configs.naive) : null;
  const cmClient = demo ? await connect(configs.codemode) : null;
  const world = await startWorld(opt.work, new Set(asked.map((q) => q.surface).filter(Boolean)));
  const qm = asked.some((q) => !q.surface && q.querymode) ? await startQueryMode(opt.work) : null;
  const qmClient = qm ? await connect(qm.config) : null;
  const gql = asked.some((q) => !q.surface && q.graphql) ? await startGraphql(opt.work) : null;
  const gqlClient = gql ? await connect(gql.config, gql.env) : null;
  const cc = asked.some((q) => !q.surface && q.javascript) ? await startCostCoach(opt.work) : null;
  const ccClient = cc ? await connect(cc.config, cc.env) : null;
  const restClient = cc ? await connect(null, cc.env, cc.mirror) : null;
  const results = [];
  for (const q of asked) {
    const surface = q.surface ? world.clients[q.surface] : null;
    const na = new Agent(surface ? surface.naive : q.naiveServer === "rest" ? restClient : naiveClient);
    const n = await timed(async () => { await na.listTools(); return q.naive(na); });
    const ca = new Agent(surface ? surface.codemode : q.graphql ? gqlClient : q.javascript ? ccClient : cmClient);
    const code = q.graphql ?? q.javascript ?? q.sql;
    const vars = q.variables ? { variables: q.variables } : {};
    let oneCall = false;
    const c = await timed(async () => {
      const tools = await ca.listTools();
      // one call when the server offers it (some route has execute_on_validate on)
      oneCall = Boolean(tools.find((t) => t.name === "validate_code")?.inputSchema?.properties?.execute);
      await ca.prompt("start_code_mode", { question: q.question });
      if (q.discover) await q.discover(ca);
      const v = await ca.call("validate_code", { code, ...vars, ...(oneCall ? { execute: true } : {}) });
      if (!v.valid) throw new Error(`${q.id}: validate_code refused: ${JSON.stringify(v.violations)}`);
      if (oneCall && !v.result) throw new Error(`${q.id}: validate_code did not run it: ${JSON.stringify(v.warnings)}`);
      const r = oneCall ? v.result : await ca.call("execute_code", { code, approval_token: v.approval_token, ...vars });
      return q.graphql || q.javascript ? q.rows(r.value) : r.rows;
    });
    if (opt.tamper) n.value = n.value.slice(1);
    const agree = same(n.value, c.value) && n.value.length > 0;
    const r = {
      id: q.id, label: q.label, seed: q.seed, surface: q.surface ?? "demo", question: q.question, language: q.graphql ? "graphql" : q.javascript ? "javascript" : "sql",
      agree, answer_rows: c.value.length,
      naive: { tokens: na.tokens, round_trips: na.trips, tool_calls: na.calls, rows_seen: na.rowsSeen, wall_ms: Math.round(n.ms) },
      codemode: { tokens: ca.tokens, round_trips: ca.trips, tool_calls: ca.calls, wall_ms: Math.round(c.ms), one_call: oneCall },
      token_ratio: na.tokens / ca.tokens,
    };
    if (!agree) r.mismatch = { naive: n.value.slice(0, 5), codemode: c.value.slice(0, 5) };
    if (q.querymode) {
      const qa = new Agent(qmClient);
      const m = await timed(async () => { await qa.listTools(); return q.querymode(qa); });
      const qmAgree = same(m.value, c.value) && m.value.length > 0;
      r.querymode = { tokens: qa.tokens, round_trips: qa.trips, tool_calls: qa.calls, wall_ms: Math.round(m.ms),
                      agree: qmAgree, token_ratio: na.tokens / qa.tokens };
      r.agree = r.agree && qmAgree;
      if (!qmAgree) r.mismatch = { ...r.mismatch, querymode: m.value.slice(0, 5), codemode: c.value.slice(0, 5) };
      process.stderr.write(`${q.id}: query mode ${qa.tokens} tokens / ${qa.trips} trips, x${r.querymode.token_ratio.toFixed(1)} vs naive\n`);
    }
    results.push(r);
    process.stderr.write(`${q.id}: naive ${na.tokens} tokens / ${na.trips} trips, code mode ${ca.tokens} / ${ca.trips}, ` +
                         `x${r.token_ratio.toFixed(1)} ${agree ? "agree" : "DISAGREE"}\n`);
  }
  await naiveClient?.close();
  await cmClient?.close();
  if (qmClient) await qmClient.close();
  qm?.stop();
  if (gqlClient) await gqlClient.close();
  gql?.stop();
  if (ccClient) await ccClient.close();
  if (restClient) await restClient.close();
  cc?.stop();
  await world.stop();
  const ratios = results.map((r) => r.token_ratio).sort((x, y) => x - y);
  const quantile = (f) => { // linear between the closest ranks
    const x = f * (ratios.length - 1), lo = Math.floor(x);
    return ratios[lo] + (ratios[Math.min(lo + 1, ratios.length - 1)] - ratios[lo]) * (x - lo);
  };
  const median = quantile(0.5);
  const losses = results.filter((r) => r.codemode.tokens > r.naive.tokens).map((r) => r.id);
  const report = {
    benchmark: "token economy: naive tool chain vs SQL code mode", date: new Date().toISOString(),
    tokenizer: "gpt-tokenizer 4.0.0, o200k_base", page_size: PAGE, today: "2026-09-30",
    counted: "tools/list definitions, prompt messages, every call (name + arguments) and every result's text content, each once",
    questions: results, median_token_ratio: median,
    spread: { min: ratios[0], p25: quantile(0.25), p75: quantile(0.75), max: ratios[ratios.length - 1] },
    codemode_loses_on: losses,
    target: { median_token_ratio_min: 100, codemode_le_naive_every_question: true },
    met: median >= 100 && losses.length === 0 && results.every((r) => r.agree),
    all_agree: results.every((r) => r.agree),
  };
  if (opt.out) { mkdirSync(path.dirname(opt.out), { recursive: true }); writeFileSync(opt.out, JSON.stringify(report, null, 2) + "\n"); }
  printTable(report);
  process.exit(report.all_agree ? 0 : 1);
}

function printTable(rep) {
  const pad = (s, n) => String(s).padStart(n);
  console.log(`${"question".padEnd(30)} ${pad("naive tok", 10)} ${pad("trips", 6)} ${pad("ms", 7)} ` +
              `${pad("code tok", 9)} ${pad("trips", 6)} ${pad("ms", 6)} ${pad("ratio", 8)} answer`);
  for (const r of rep.questions)
    console.log(`${r.id.padEnd(30)} ${pad(r.naive.tokens, 10)} ${pad(r.naive.round_trips, 6)} ${pad(r.naive.wall_ms, 7)} ` +
                `${pad(r.codemode.tokens, 9)} ${pad(r.codemode.round_trips, 6)} ${pad(r.codemode.wall_ms, 6)} ` +
                `${pad("x" + r.token_ratio.toFixed(1), 8)} ${r.agree ? "same" : "DIFFERENT"}` +
                (r.codemode.one_call ? "  (one call: execute_on_validate)" : "") +
                (r.querymode ? `  (query mode: ${r.querymode.tokens} tok, ${r.querymode.round_trips} trips, ` +
                               `${r.querymode.wall_ms} ms, x${r.querymode.token_ratio.toFixed(1)})` : ""));
  const s = rep.spread;
  console.log(`median token ratio x${rep.median_token_ratio.toFixed(1)} (spread x${s.min.toFixed(1)} .. x${s.p25.toFixed(1)} | ` +
              `x${s.p75.toFixed(1)} .. x${s.max.toFixed(1)}; target x${rep.target.median_token_ratio_min}); ` +
              `code mode loses on: ${rep.codemode_loses_on.join(", ") || "none"}; answers ${rep.all_agree ? "all agree" : "DISAGREE"}`);
}

main().catch((e) => { process.stderr.write(`bench/tokens: ${e.stack ?? e}\n`); process.exit(2); });
