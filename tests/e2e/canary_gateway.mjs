// canary_gateway.mjs — the canary property test for plans through the gateway (issue 25): the
// cost-coach API (examples/cost-coach/server.mjs --canaries: u1 and u2 carry canary SSNs and
// salaries) behind `sluice serve` over HTTP, driven by the official MCP SDK client. Generated
// plans (tests/node/js_canary_gen.mjs) read the blocked fields and carry them every way the
// language allows to the result, a thrown error, console.log or an outbound call (getUser takes
// ssn as a passable field here, so some calls go out and their records must show the path
// redacted). Each runs validate_code + execute_code (a high-risk plan is approved by
// elicitation), against one server that strips and one that refuses, each writing an audit log.
// Asserted: no canary in any recognised form (as is, reversed, substrings of 4 or more, hex,
// base64, char codes, digit runs) in any response the client receives, nor in any line of
// either audit log. Untainted plans count over-blocking (refused or redacted).
// usage: node canary_gateway.mjs COUNT SEED   (env as ctest_canary_gateway.sh sets it)
// prints the counts as JSON; exit 1 on a counterexample.
import { readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import path from "node:path";
import { API_KEYS, work, startHttp, validate, execute, connectApproving } from "./codemode_harness.mjs";
import { freePort } from "./harness.mjs";
import { generator, jsonScanner } from "../node/js_canary_gen.mjs";

const [countArg, seedArg] = process.argv.slice(2);
const COUNT = Number(countArg ?? 100);
const SEED = Number(seedArg ?? 1);
const src = process.env.SLUICE_SOURCE_DIR;
const UPSTREAM_SECRET = "canary-upstream-credential-3";

const { gen, leaks, forms } = generator(SEED, {
  head: 'const us = await Promise.all(["u1", "u2"].map(id => api.get(`/users/${id}`)));\n',
  echo: (e) => `await api.get(\`/users/\${String(${e})}\`); return 1;`,
});

const { texts, leaksIn } = jsonScanner(leaks);

function config(name, refuse) {
  API_KEYS.alice = "alice-key-0123456789abcdef";
  process.env.SLUICE_E2E_KEY_ALICE = API_KEYS.alice;
  const dir = path.join(src, "examples/cost-coach");
  const text = readFileSync(path.join(dir, "sluice.toml"), "utf8")
    .replace(/^endpoint = .*$/m, `endpoint = "http://127.0.0.1:${upstreamPort}"`)
    .replace(/^path = "openapi.yaml".*$/m, `path = "${dir}/openapi.yaml"`)
    .replace(/^policies = .*$/m, `policies = "${dir}/policies.cedar"`)
    .replace(/^token_secret_file = .*$/m,
             `token_secret_file = "token.key"\naudit_log = "${name}.audit.jsonl"` +
             (refuse ? '\nopenapi_blocked_output = "refuse"' : ""))
    .replace(/^\[database\]/m, '[[api_keys]]\nuser = "alice"\ngroups = ["StandardUsers"]\n' +
             'key_env = "SLUICE_E2E_KEY_ALICE"\n\n[database]')
    .replace(/^\[policy\]/m, '[[code_mode.operations]]\nid = "getUser"\ncategory = "read"\n' +
             'passable_fields = ["ssn"]\n\n[policy]');
  const file = path.join(work, `${name}.toml`);
  writeFileSync(file, text);
  // a fresh chain each run: the log, its head, approvals and replay store go together
  for (const f of readdirSync(work)) if (f.startsWith(`${name}.audit.jsonl`)) rmSync(path.join(work, f));
  return file;
}

let upstreamPort;
async function startUpstream() {
  upstreamPort = await freePort();
  const proc = spawn(process.execPath, [path.join(src, "examples/cost-coach/server.mjs"), "--port",
                     String(upstreamPort), "--canaries"],
                     { env: { ...process.env, COST_COACH_TOKEN: UPSTREAM_SECRET }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  await new Promise((resolve, reject) => {
    proc.stdout.on("data", (d) => { out += d; if (out.includes("listening")) resolve(); });
    proc.stderr.on("data", (d) => (out += d));
    proc.on("exit", (c) => reject(new Error(`upstream exited ${c}: ${out}`)));
  });
  return proc;
}

const counts = { seed: SEED, plans: 0, untainted_plans: 0, counterexamples: 0, refused_or_failed: 0,
                 answered: 0, over_blocked_untainted: 0, audit_lines: 0, audit_counterexamples: 0,
                 forms: forms.length };
const tainted = Array.from({ length: COUNT }, () => gen(true));
const clean = Array.from({ length: Math.max(1, COUNT >> 2) }, () => gen(false));

async function runOne(client, code) {
  const v = await validate(client, code);
  if (!v.valid) return { v, seen: [v] };
  const r = await execute(client, code, v.approval_token);
  return { v, r, seen: [v, r] };
}

process.env.COST_COACH_TOKEN = UPSTREAM_SECRET;
const upstream = await startUpstream();
const audits = [];
try {
  for (const refuse of [false, true]) {
    const name = `canary-${refuse ? "refuse" : "strip"}`;
    const server = await startHttp(config(name, refuse));
    audits.push(path.join(work, `${name}.audit.jsonl`));
    const client = await connectApproving(server);
    try {
      for (const code of tainted) {
        const { r, seen } = await runOne(client, code);
        counts.plans++;
        if (!r || r.isError) counts.refused_or_failed++; else counts.answered++;
        if (leaksIn(seen)) {
          counts.counterexamples++;
          if (counts.counterexamples <= 5)
            console.error(`counterexample (${name}):\n${code}\n -> ${JSON.stringify(texts(seen).filter((t) => leaks(t))).slice(0, 600)}`);
        }
      }
      for (const code of clean) {
        const { v, r, seen } = await runOne(client, code);
        counts.untainted_plans++;
        if (leaksIn(seen)) counts.counterexamples++;
        // a plan may throw or call a missing user by design: over-blocked is a refusal or a
        // redaction for a blocked field, which an untainted plan never deserves
        const text = JSON.stringify(seen);
        if (!v.valid || /redacted|blocked_output|blocked field/.test(text)) {
          counts.over_blocked_untainted++;
          if (counts.over_blocked_untainted <= 3)
            console.error(`over-blocked (${name}):\n${code}\n -> ${text.slice(0, 400)}`);
        }
      }
    } finally {
      await client.close();
      server.stop();
    }
  }
} finally {
  upstream.kill("SIGTERM");
}
for (const file of audits) {
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    counts.audit_lines++;
    if (leaksIn(JSON.parse(line))) {
      counts.audit_counterexamples++;
      if (counts.audit_counterexamples <= 5) console.error(`audit counterexample (${file}):\n${line.slice(0, 600)}`);
    }
  }
}
console.log(JSON.stringify(counts));
process.exit(counts.counterexamples === 0 && counts.audit_counterexamples === 0 && counts.audit_lines > 0 ? 0 : 1);
