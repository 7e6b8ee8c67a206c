// run.mjs — the driver of bench/jsinterp/run.sh: the same plans through our plan interpreter
// (build/js_run --time), Node (an async function body in this process, as js_diff.mjs runs it)
// and QuickJS (quickjs-emscripten, a fresh context per plan), in one run, side by side.
// Plans: COUNT generated programs (tests/node/js_gen.mjs, the differential test's seeded
// generator) and seed 000's budgets plan (verbatim, as tests/e2e/cost_coach.test.mjs holds it)
// repeated SEED_REPS times, its `api` answered from fixtures fetched from the real cost-coach
// REST server (examples/cost-coach/server.mjs) with the blocked fields stripped, as the gateway
// strips them. Each side's time per plan covers compile + run + the result's JSON text:
//   ours     arena, parse, interpret, result text (CLOCK_MONOTONIC inside js_run)
//   node     new AsyncFunction(...) + await + JSON.stringify (one warm isolate)
//   quickjs  newContext + evalCode + executePendingJobs + result text + dispose (one runtime)
//   quickjs_shared  evalCode + jobs + result text in one context for all plans, the fake api
//            compiled once (no fresh global object per plan: QuickJS's best case)
// RUNS runs after one warm-up run; per run, the median over plans; reported: the median of those
// over the runs, their min-max (spread), and ratios. Answers are compared with Node's.
// usage: node run.mjs JS_RUN COUNT SEED RUNS SEED_REPS OUT.json
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { generatePrograms, nodeRun } from "../../tests/node/js_gen.mjs";

// plans' local time is UTC (exec/js/date.c): Node's and QuickJS's must be too
process.env.TZ = "UTC";

const [bin, count, seed, runs, seedReps, out] = process.argv.slice(2);
const RUNS = Number(runs), COUNT = Number(count), REPS = Number(seedReps);
const root = new URL("../../", import.meta.url).pathname;
const require = createRequire(path.join(root, "tests/node/package.json"));
const { getQuickJS } = require("quickjs-emscripten");
const qjsVersion = JSON.parse(readFileSync(require.resolve("quickjs-emscripten/package.json"), "utf8")).version;

const SEED_PLAN = readFileSync(path.join(root, "tests/e2e/cost_coach.test.mjs"), "utf8")
  .match(/const SEED_PLAN = `([\s\S]*?)`;\n/)[1].replace(/\\`/g, "`").replace(/\\\$/g, "$");
const SEED_ARGS = { month: "2026-11" };
const BLOCKED = ["ssn", "password", "salary"];

// The cost-coach server's real answers for the calls the budgets plan makes.
async function fixtures() {
  const token = "bench-secret";
  const port = 20000 + Math.floor(Math.random() * 20000);
  const srv = spawn(process.execPath, [path.join(root, "examples/cost-coach/server.mjs"), "--port", String(port)],
                    { env: { ...process.env, COST_COACH_TOKEN: token }, stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((r) => srv.stdout.on("data", (d) => String(d).includes("listening") && r()));
  const h = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
  const base = `http://127.0.0.1:${port}`;
  const strip = (o) => Object.fromEntries(Object.entries(o).filter(([k]) => !BLOCKED.includes(k)));
  const fx = {};
  const list = await (await fetch(`${base}/budgets/listForecasts`, { method: "POST", headers: h, body: JSON.stringify(SEED_ARGS) })).json();
  fx["post /budgets/listForecasts"] = list;
  for (const id of new Set(list.items.map((b) => b.ownerId)))
    fx[`get /users/${id}`] = strip(await (await fetch(`${base}/users/${id}`, { headers: h })).json());
  srv.kill();
  return fx;
}

function runOurs(programs, fx, args) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "jsinterp-"));
  const file = path.join(dir, "fixtures.json");
  writeFileSync(file, JSON.stringify(fx));
  const res = spawnSync(bin, ["--time", "--fixtures", file, "--args", JSON.stringify(args)],
                        { input: programs.map((p) => p + "\n\x1e\n").join(""), maxBuffer: 1 << 30 });
  rmSync(dir, { recursive: true });
  if (res.status !== 0) throw new Error(`js_run: ${res.status} ${res.stderr}`);
  const lines = res.stdout.toString().trim().split("\n").map((l) => JSON.parse(l));
  return { ns: lines.map((l) => l.ns), answers: lines };
}

async function runNode(programs, fx, args) {
  const ns = [], answers = [];
  for (const p of programs) {
    const t0 = process.hrtime.bigint();
    answers.push(await nodeRun(p, fx, args));
    ns.push(Number(process.hrtime.bigint() - t0));
  }
  return { ns, answers };
}

// The same fake api as nodeRun's, written in the plan's own language inside QuickJS: a factory
// defined once per context, then one wrapper per plan.
const qjsFactory = (fx) => `globalThis.__mkApi = (() => { const __fx = ${JSON.stringify(fx)}; return () => { let __n = 0;
  const api = {}; for (const m of ["get", "post", "put", "patch", "delete"]) api[m] = (path, body) => { const idx = __n++;
  const f = __fx[m + " " + path]; if (f !== undefined) return Promise.resolve(JSON.parse(JSON.stringify(f)));
  if (typeof path === "string" && path.includes("fail")) return Promise.reject(new Error("HTTP 500 from " + path));
  return Promise.resolve({ method: m, path: path ?? null, body: body ?? null, n: idx }); }; return api; }; })();\n`;
const qjsPrelude = () => `(async () => { try { const v = await (async (api, args) => {\n`;
const qjsPostlude = (args) => `\n})(__mkApi(), ${JSON.stringify(args)}); const t = JSON.stringify(v);
  globalThis.__out = JSON.stringify({ ok: t === undefined ? "undefined" : t });
} catch (e) { globalThis.__out = JSON.stringify(e instanceof Error ? { error: e.name } : { error: "throw" }); } })();`;

// shared: one context for every plan (each plan still in its own function scope), which leaves
// out the cost of a fresh global object (and of compiling the fake api) per plan, which our
// arena-per-plan and any sandbox pay.
function runQuickJS(QuickJS, programs, fx, args, shared = false) {
  const rt = QuickJS.newRuntime();
  rt.setMemoryLimit(64 * 1024 * 1024);
  rt.setMaxStackSize(1024 * 1024);
  const factory = qjsFactory(fx), pre = qjsPrelude(), post = qjsPostlude(args);
  const ns = [], answers = [];
  const one = shared ? rt.newContext() : null;
  if (one) one.unwrapResult(one.evalCode(factory)).dispose();
  for (const p of programs) {
    const t0 = process.hrtime.bigint();
    const vm = one ?? rt.newContext();
    let answer;
    const r = vm.evalCode((shared ? "" : factory) + pre + p + post);
    if (r.error) {
      const e = vm.dump(r.error);
      r.error.dispose();
      answer = { error: e?.name ?? "throw" };
    } else {
      r.value.dispose();
      rt.executePendingJobs();
      const h = vm.getProp(vm.global, "__out");
      answer = vm.typeof(h) === "string" ? JSON.parse(vm.getString(h)) : { error: "pending" };
      h.dispose();
    }
    if (!shared) vm.dispose();
    else vm.setProp(vm.global, "__out", vm.undefined);
    ns.push(Number(process.hrtime.bigint() - t0));
    answers.push(answer);
  }
  one?.dispose();
  rt.dispose();
  return { ns, answers };
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b), m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const sameAnswer = (a, want) => (want.ok !== undefined ? a.ok === want.ok
  : a.error === want.error || (want.error === "SyntaxError" && a.refused === "syntax_error"));

async function bench(name, programs, fx, args, QuickJS) {
  const sides = { ours: [], node: [], quickjs: [], quickjs_shared: [] };
  let agree = null;
  for (let run = 0; run <= RUNS; run++) {
    const o = runOurs(programs, fx, args);
    const n = await runNode(programs, fx, args);
    const q = runQuickJS(QuickJS, programs, fx, args);
    const qs = runQuickJS(QuickJS, programs, fx, args, true);
    if (run === 0) {
      const agreeing = (side) => side.answers.filter((a, i) => sameAnswer(a, n.answers[i])).length;
      agree = { ours: agreeing(o), quickjs: agreeing(q), quickjs_shared: agreeing(qs) };
      continue; // the warm-up run
    }
    sides.ours.push(median(o.ns)); sides.node.push(median(n.ns));
    sides.quickjs.push(median(q.ns)); sides.quickjs_shared.push(median(qs.ns));
  }
  const us = (ns) => Math.round(ns / 10) / 100;
  const summary = Object.fromEntries(Object.entries(sides).map(([k, v]) =>
    [k, { median_us: us(median(v)), spread_us: [us(Math.min(...v)), us(Math.max(...v))] }]));
  return { name, plans: programs.length, agree_with_node: agree, per_plan: summary,
           ratio_ours_to_node: median(sides.ours) / median(sides.node),
           ratio_ours_to_quickjs: median(sides.ours) / median(sides.quickjs),
           ratio_ours_to_quickjs_shared: median(sides.ours) / median(sides.quickjs_shared) };
}

const QuickJS = await getQuickJS();
const fx = await fixtures();
const seedAnswer = await nodeRun(SEED_PLAN, fx, SEED_ARGS); // the fixtures must give the real answer
if (seedAnswer.ok === undefined || JSON.parse(seedAnswer.ok).length !== 10)
  throw new Error(`the budgets plan on the fixtures: ${JSON.stringify(seedAnswer)}`);
const results = [
  await bench(`generated (seed ${seed})`, generatePrograms(COUNT, seed), {}, {}, QuickJS),
  await bench("seed 000 budgets plan", Array(REPS).fill(SEED_PLAN), fx, SEED_ARGS, QuickJS),
];
const report = {
  benchmark: "plan interpreter vs Node vs QuickJS (quickjs-emscripten), time per plan",
  date: new Date().toISOString(), node: process.version, quickjs_emscripten: qjsVersion, runs: RUNS,
  measured: "per plan: compile + run + result JSON text; median over plans per run; median and min-max over runs",
  results,
};
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(report, null, 2) + "\n");
const pad = (s, n) => String(s).padStart(n);
console.log(`${"plans".padEnd(24)} ${pad("n", 5)} ${pad("ours us", 20)} ${pad("node us", 20)} ${pad("quickjs us", 20)} ` +
            `${pad("quickjs shared us", 20)} ${pad("/node", 6)} ${pad("/qjs", 6)} ${pad("/qjs-sh", 7)}  agree with node`);
for (const r of results) {
  const c = (s) => `${r.per_plan[s].median_us} [${r.per_plan[s].spread_us.join("-")}]`;
  const x = (v) => "x" + v.toFixed(2);
  console.log(`${r.name.padEnd(24)} ${pad(r.plans, 5)} ${pad(c("ours"), 20)} ${pad(c("node"), 20)} ${pad(c("quickjs"), 20)} ` +
              `${pad(c("quickjs_shared"), 20)} ${pad(x(r.ratio_ours_to_node), 6)} ${pad(x(r.ratio_ours_to_quickjs), 6)} ` +
              `${pad(x(r.ratio_ours_to_quickjs_shared), 7)}  ours ${r.agree_with_node.ours}, qjs ${r.agree_with_node.quickjs}, ` +
              `qjs-sh ${r.agree_with_node.quickjs_shared} of ${r.plans}`);
}
