// report.mjs — renders a token benchmark result (run.mjs --out) into docs/benchmarks.md: replaces
// the text between <!-- tokens:begin --> and <!-- tokens:end --> with the table, and draws the
// chart (chart.gp, gnuplot) next to it. Nothing else in the file is touched.
//
//   node bench/tokens/report.mjs RESULT.json DOCS.md PNG
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const [resultFile, docsFile, pngFile] = process.argv.slice(2);
if (!pngFile) {
  process.stderr.write("usage: report.mjs RESULT.json DOCS.md PNG\n");
  process.exit(2);
}
const rep = JSON.parse(readFileSync(resultFile, "utf8"));
const k = (n) => n.toLocaleString("en-US");
const rows = rep.questions.map((q) =>
  `| ${q.label ?? q.id} | ${k(q.naive.tokens)} | ${q.naive.round_trips} | ${k(q.naive.rows_seen)} | ${k(q.naive.wall_ms)} | ` +
  `${k(q.codemode.tokens)} | ${q.codemode.round_trips} | ${k(q.codemode.wall_ms)} | **x${q.token_ratio.toFixed(1)}** | ` +
  `x${(q.naive.wall_ms / Math.max(1, q.codemode.wall_ms)).toFixed(1)} | ${q.agree ? "same" : "**DIFFERENT**"} (${q.answer_rows} rows) |`);
const table = [
  `Measured ${rep.date.slice(0, 10)}; ${rep.tokenizer}; page size ${rep.page_size}; counted: ${rep.counted}.`,
  "",
  "| question | naive tokens | naive round trips | rows through context | naive ms | code-mode tokens | code-mode round trips | code-mode ms | token ratio | time ratio | answers |",
  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
  ...rows,
  "",
  `**Median token ratio: x${rep.median_token_ratio.toFixed(1)}** (min x${rep.spread.min.toFixed(1)}, quartiles ` +
  `x${rep.spread.p25.toFixed(1)} / x${rep.spread.p75.toFixed(1)}, max x${rep.spread.max.toFixed(1)}; target ` +
  `x${rep.target.median_token_ratio_min} and code mode <= naive on every question: ${rep.met ? "met" : "not met"}` +
  `${rep.codemode_loses_on.length ? `, code mode loses on ${rep.codemode_loses_on.join(", ")}` : ""}); ` +
  `answers ${rep.all_agree ? "identical on every question" : "DIFFER on some question"}.`,
  "",
  `![context tokens per question](${path.basename(pngFile)})`,
].join("\n");

const docs = readFileSync(docsFile, "utf8");
const re = /(<!-- tokens:begin -->)[\s\S]*?(<!-- tokens:end -->)/;
if (!re.test(docs)) {
  process.stderr.write(`${docsFile}: no <!-- tokens:begin --> ... <!-- tokens:end --> markers\n`);
  process.exit(2);
}
writeFileSync(docsFile, docs.replace(re, (_, a, b) => `${a}\n${table}\n${b}`));

const tmp = mkdtempSync(path.join(tmpdir(), "sluice-tokens-chart-"));
try {
  const data = path.join(tmp, "data.tsv");
  writeFileSync(data, rep.questions.map((q) =>
    [q.label ?? q.id, q.naive.tokens, q.codemode.tokens, q.token_ratio].join("\t")).join("\n") + "\n");
  execFileSync("gnuplot", ["-e", `data='${data}'; out='${pngFile}'`, new URL("./chart.gp", import.meta.url).pathname],
               { stdio: ["ignore", "inherit", "inherit"] });
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
