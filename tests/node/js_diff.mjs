// js_diff.mjs — differential test of the plan interpreter against Node itself.
//
// A seeded generator writes small plans (typed random expressions over the corners the spec
// names: number formatting, -0, 1e21, 0.1 + 0.2, NaN/Infinity in JSON, string escapes and
// surrogate pairs, \u{...}, == vs ===, default and comparator sort, optional chaining, ?? and
// ||, template literals, spread order, destructuring, Object.entries order with integer keys,
// error classes, Map and Set (SameValueZero keys, insertion order, iterators), Date parsing and
// formatting (UTC), issue 25's corners (holes in destructuring, labelled break/continue,
// instanceof, Object.is, Math incl. hypot, toString(radix)/toPrecision/toExponential,
// normalize and localeCompare (ICU: every USTRS pair agrees between Node 78 and Debian 72), api paths
// folded from literals), and a deterministic fake `api` provided identically to both sides). Each plan
// runs in Node (as an async function body) and in build/js_run; the JSON result, or the error
// class, must be equal. A disagreement prints the plan, both answers and the seed, and exits 1.
//
// Usage: node js_diff.mjs <js_run binary> [count=10000] [seed=1]
import { spawnSync } from "node:child_process";
import { generatePrograms, nodeRun } from "./js_gen.mjs";

// plans' local time is UTC (exec/js/date.c): Node's must be too
process.env.TZ = "UTC";

const [bin, countArg, seedArg] = process.argv.slice(2);
const COUNT = Number(countArg ?? 10000);

const programs = generatePrograms(COUNT, seedArg ?? 1);
const input = programs.map((p) => p + "\n\x1e\n").join("");
const res = spawnSync(bin, [], { input, maxBuffer: 1 << 30 });
if (res.status !== 0) {
  console.error("js_run failed:", res.status, res.stderr.toString());
  process.exit(1);
}
const ours = res.stdout.toString().trim().split("\n").map((l) => JSON.parse(l));
if (ours.length !== programs.length) {
  console.error(`js_run answered ${ours.length} of ${programs.length} plans`);
  process.exit(1);
}
let bad = 0;
for (let i = 0; i < programs.length; i++) {
  const want = await nodeRun(programs[i]);
  const got = ours[i];
  // an early SyntaxError in Node is our parser's syntax_error refusal
  const same = want.ok !== undefined ? got.ok === want.ok
    : got.error === want.error || (want.error === "SyntaxError" && got.refused === "syntax_error");
  if (!same) {
    if (bad < 5)
      console.error(`--- plan ${i} (seed ${seedArg ?? 1}) disagrees\n${programs[i]}\nnode: ${JSON.stringify(want)}\nours: ${JSON.stringify(got)}`);
    bad++;
  }
}
console.log(`${programs.length} plans, ${bad} disagreements`);
process.exit(bad === 0 ? 0 : 1);
