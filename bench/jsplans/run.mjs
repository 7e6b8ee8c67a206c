// run.mjs — the driver of bench/jsplans/run.sh: starts the cost-coach API with --latency-ms,
// `sluice serve` (HTTP) with the example config, runs seed 000's budgets plan RUNS times through
// the official SDK client, and times the same calls made directly (listForecasts, then the ten
// getUser calls at once). usage: node run.mjs LATENCY_MS RUNS OUT.json
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { API_KEYS, work, startHttp, validate, execute } from "../../tests/e2e/codemode_harness.mjs";
import { Client, StreamableHTTPClientTransport, freePort } from "../../tests/e2e/harness.mjs";

const [latency, runs, out] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4]];
const src = process.env.SLUICE_SOURCE_DIR;
const SECRET = "bench-secret";
const PLAN = readFileSync(path.join(src, "tests/e2e/cost_coach.test.mjs"), "utf8")
  .match(/const SEED_PLAN = `([\s\S]*?)`;\n/)[1].replace(/\\`/g, "`").replace(/\\\$/g, "$");

const port = await freePort();
const api = spawn(process.execPath, [path.join(src, "examples/cost-coach/server.mjs"), "--port", String(port),
                  "--latency-ms", String(latency)], { env: { ...process.env, COST_COACH_TOKEN: SECRET }, stdio: ["ignore", "pipe", "inherit"] });
await new Promise((r) => api.stdout.on("data", (d) => String(d).includes("listening") && r()));
process.env.COST_COACH_TOKEN = SECRET;
process.env.SLUICE_E2E_KEY_ALICE = API_KEYS.alice;
const dir = path.join(src, "examples/cost-coach");
const cfg = readFileSync(path.join(dir, "sluice.toml"), "utf8")
  .replace(/^endpoint = .*$/m, `endpoint = "http://127.0.0.1:${port}"`)
  .replace(/^path = "openapi.yaml".*$/m, `path = "${dir}/openapi.yaml"`)
  .replace(/^policies = .*$/m, `policies = "${dir}/policies.cedar"`)
  .replace(/^token_secret_file = .*$/m, `token_secret_file = "token.key"`)
  .replace(/^\[database\]/m, `[[api_keys]]\nuser = "alice"\ngroups = ["StandardUsers"]\nkey_env = "SLUICE_E2E_KEY_ALICE"\n\n[database]`);
writeFileSync(path.join(work, "bench.toml"), cfg);
const server = await startHttp(path.join(work, "bench.toml"));
const transport = new StreamableHTTPClientTransport(new URL(server.url), {
  requestInit: { headers: { Authorization: `Bearer ${API_KEYS.alice}` } } });
const client = new Client({ name: "bench", version: "1" }, { capabilities: {} });
await client.connect(transport);

const h = { Authorization: `Bearer ${SECRET}`, "Content-Type": "application/json" };
const base = `http://127.0.0.1:${port}`;
async function direct() {
  const t0 = performance.now();
  const { items } = await (await fetch(`${base}/budgets/listForecasts`, { method: "POST", headers: h, body: '{"month":"2026-11"}' })).json();
  const top = items.filter((b) => b.forecast > b.limit).sort((a, b) => (b.forecast - b.limit) - (a.forecast - a.limit)).slice(0, 10);
  await Promise.all(top.map((b) => fetch(`${base}/users/${b.ownerId}`, { headers: h }).then((r) => r.json())));
  return performance.now() - t0;
}
const plan = [], upstream = [];
for (let i = 0; i < runs; i++) {
  const v = await validate(client, PLAN, { month: "2026-11" });
  const t0 = performance.now();
  const r = await execute(client, PLAN, v.approval_token, { month: "2026-11" });
  plan.push(performance.now() - t0);
  if (r.isError || r.structuredContent.value.length !== 10) throw new Error(JSON.stringify(r.content));
  upstream.push(await direct());
}
await client.close();
server.stop();
api.kill();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const result = {
  benchmark: "seed 000 budgets plan (1 + 10 concurrent calls) via execute_code vs the same calls made directly",
  latency_ms_per_request: latency, runs,
  plan_ms_median: Math.round(median(plan)), upstream_ms_median: Math.round(median(upstream)),
  sequential_would_be_ms: 11 * latency,
  ratio: Number((median(plan) / median(upstream)).toFixed(2)),
};
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(result, null, 2) + "\n");
console.log(JSON.stringify(result));
