// js_canary.mjs — the canary property test for plans (issue 25): a seeded generator writes plans
// that read the blocked fields of records (each holding a canary) and carry them every way the
// language allows — under another key, inside strings, JSON, templates, char codes, number
// arithmetic, Math, Map/Set, spread, destructuring, promises, sort/filter/find decisions, loops
// and branches — to the result, a thrown error or console.log. Each runs through the plan
// interpreter (build/js_run --blocked) with an upstream that answers records holding canaries,
// in strip and in refuse mode. Asserted: no canary, in any recognised form (as is, reversed,
// substrings of 4 or more, hex, base64, char codes, digit runs), appears in anything the run
// answers. Untainted plans (the same shapes over the non-blocked fields only) are counted for
// over-blocking: an untainted plan whose answer was redacted or refused is over-blocked.
// usage: node js_canary.mjs JS_RUN COUNT SEED   (prints the counts; exit 1 on a counterexample)
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const [bin, count, seedArg] = process.argv.slice(2);
const COUNT = Number(count ?? 2000);

import { generator } from "./js_canary_gen.mjs";

const { gen, leaks, forms, users } = generator(seedArg, {
  head: 'const us = await api.get("/users");\n',
  echo: (e) => `await api.get("/echo/" + String(${e})); return 1;`,
});

function runAll(plans, extra) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "jscanary-"));
  const fx = path.join(dir, "fx.json");
  writeFileSync(fx, JSON.stringify({ "get /users": users }));
  const res = spawnSync(bin, ["--fixtures", fx, "--blocked", "ssn,salary", ...extra],
                        { input: plans.map((p) => p + "\n\x1e\n").join(""), maxBuffer: 1 << 30 });
  rmSync(dir, { recursive: true });
  if (res.status !== 0) throw new Error(`js_run: ${res.status} ${res.stderr}`);
  return res.stdout.toString().trim().split("\n");
}

const tainted = Array.from({ length: COUNT }, () => gen(true));
const clean = Array.from({ length: Math.max(1, COUNT >> 2) }, () => gen(false));
let counterexamples = 0, refused = 0, redactedOrStripped = 0, overBlocked = 0, ran = 0;
for (const mode of [[], ["--refuse"]]) {
  const lines = runAll(tainted, mode);
  lines.forEach((line, i) => {
    ran++;
    if (leaks(line)) {
      counterexamples++;
      if (counterexamples <= 5) console.error(`counterexample (${mode.join(" ") || "strip"}):\n${tainted[i]}\n -> ${line}`);
    }
    if (/blocked_output/.test(line)) refused++;
    else if (/redacted|"ok":"undefined"|null/.test(line)) redactedOrStripped++;
  });
  runAll(clean, mode).forEach((line, i) => {
    // an untainted plan whose answer was redacted or refused for a blocked field is over-blocked
    if (/blocked_output|redacted/.test(line)) {
      overBlocked++;
      if (overBlocked <= 3) console.error(`over-blocked:\n${clean[i]}\n -> ${line}`);
    }
  });
}
console.log(JSON.stringify({ seed: Number(seedArg ?? 1), plans: ran, untainted_plans: clean.length * 2,
                             counterexamples, refused, redacted_or_stripped: redactedOrStripped,
                             over_blocked_untainted: overBlocked, forms: forms.length }));
process.exit(counterexamples === 0 ? 0 : 1);
