// wasm_bench.mjs — decisions per second of @cedar-policy/cedar-wasm on the same inputs as
// tests/programs/cedar_bench.c: the stateless isAuthorized (policy text parsed per call, the
// package's primary API) and statefulIsAuthorized (policy set preparsed once).
//
// usage: node wasm_bench.mjs POLICIES ENTITIES REQUESTS.jsonl [SECONDS]
import { createRequire } from "module";
import { readFileSync } from "fs";
import { fileURLToPath } from "url";
import { dirname, join } from "path";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "../../tests/node/package.json"));
const cedar = require("@cedar-policy/cedar-wasm/nodejs");

const [policiesPath, entitiesPath, requestsPath, secondsArg] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 2);
const policies = readFileSync(policiesPath, "utf8");
const entities = JSON.parse(readFileSync(entitiesPath, "utf8"));
const requests = readFileSync(requestsPath, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));

function run(name, decide) {
  let decisions = 0, allows = 0, allowsPerRound = 0;
  const t0 = process.hrtime.bigint();
  let elapsed = 0;
  while (elapsed < seconds) {
    for (let b = 0; b < 20; b++) {
      for (const r of requests) {
        const ans = decide(r);
        if (ans.type !== "success") throw new Error(JSON.stringify(ans.errors));
        const allow = ans.response.decision === "allow";
        allows += allow;
        if (decisions < requests.length) allowsPerRound += allow;
        decisions++;
      }
    }
    elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  }
  return { name, decisions, seconds: Number(elapsed.toFixed(3)), per_second: Math.round(decisions / elapsed), allows, allows_per_round: allowsPerRound };
}

const stateless = run("isAuthorized", (r) => cedar.isAuthorized({ ...r, policies: { staticPolicies: policies }, entities }));
const prep = cedar.preparsePolicySet("bench", { staticPolicies: policies });
if (prep.type !== "success") throw new Error(JSON.stringify(prep));
const stateful = run("statefulIsAuthorized", (r) => cedar.statefulIsAuthorized({ ...r, preparsedPolicySetId: "bench", entities }));
console.log(JSON.stringify({ version: cedar.getCedarVersion(), node: process.version, stateless, stateful }));
