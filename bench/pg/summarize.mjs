// summarize.mjs — folds the runs of bench/pg/run.sh into one report: per figure, the median of the
// runs' medians and their spread (min..max over runs), then prints the table docs/benchmarks.md
// quotes.
//
//   node summarize.mjs OUT.json micro1.json governed1.json micro2.json governed2.json ...
import { readFileSync, writeFileSync } from "node:fs";

const [out, ...files] = process.argv.slice(2);
const runs = files.map((f) => JSON.parse(readFileSync(f, "utf8")));
const micro = runs.filter((r) => r.sides), governed = runs.filter((r) => r.runs);
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const fold = (xs) => ({ median: med(xs), min: Math.min(...xs), max: Math.max(...xs), runs: xs.length });
const figures = {};
for (const side of Object.keys(micro[0].sides))
  figures[`${side}_us`] = fold(micro.map((r) => r.sides[side].median_us));
for (const ratio of Object.keys(micro[0].ratios)) figures[ratio] = fold(micro.map((r) => r.ratios[ratio]));
for (const g of governed[0].runs) {
  const key = `${g.server}/${g.workload}`;
  const same = governed.map((r) => r.runs.find((x) => x.server === g.server && x.workload === g.workload));
  figures[`${key}/p50_ms`] = fold(same.map((x) => x.p50_ms));
  figures[`${key}/ops_per_second`] = fold(same.map((x) => x.ops_per_second));
}
const report = { benchmark: "bench/pg: sql code mode on postgresql", date: new Date().toISOString(),
                 machine: "2 shared cores, other engineers' builds and tests running at the same time",
                 iterations_per_run: micro[0].iterations, governed_calls_per_run: governed[0].calls,
                 answers_agree: governed.every((r) => r.seed003_answers_agree), figures, raw: runs };
writeFileSync(out, JSON.stringify(report, null, 2) + "\n");
for (const [k, v] of Object.entries(figures))
  console.log(`${k.padEnd(44)} ${v.median.toFixed(3).padStart(10)}  (${v.min.toFixed(3)} .. ${v.max.toFixed(3)}, ${v.runs} runs)`);
