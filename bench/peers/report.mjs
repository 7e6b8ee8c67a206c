// report.mjs — renders a peer benchmark result (drive.mjs --out) into docs/benchmarks.md: replaces
// the text between <!-- peers:begin --> and <!-- peers:end --> with the ratio table and the raw
// figures. Nothing else in the file is touched.
//
//   node bench/peers/report.mjs RESULT.json DOCS.md
import { readFileSync, writeFileSync } from "node:fs";

const [resultFile, docsFile] = process.argv.slice(2);
if (!docsFile) {
  process.stderr.write("usage: report.mjs RESULT.json DOCS.md\n");
  process.exit(2);
}
const rep = JSON.parse(readFileSync(resultFile, "utf8"));
const x = (v) => `x${v.toFixed(2)}`;
const mib = (k) => (k / 1024).toFixed(1);
const table = [
  `Measured ${rep.date.slice(0, 10)}; Node ${rep.node}; ${rep.transport}; ${rep.calls} trivial calls per server ` +
  `after ${rep.warmup} warm-up (seed 003: a tenth of that). Seed 003 answers ` +
  `${rep.seed003_answers_agree ? "identical on all three servers" : "DIFFER"} (${rep.seed003_rows} rows).`,
  "",
  "Ratios, sluice against each peer (throughput and latency: > 1 means sluice is faster; peak RSS: < 1 means sluice uses less):",
  "",
  "| peer | workload | throughput | p50 latency | p99 latency | peak RSS |",
  "|---|---|---:|---:|---:|---:|",
  ...Object.entries(rep.ratios_sluice_over_peer).map(([k, v]) => {
    const [peer, w] = k.split("/");
    return `| ${peer} | ${w} | ${x(v.throughput)} | ${x(v.p50_latency)} | ${x(v.p99_latency)} | ${x(v.peak_rss)} |`;
  }),
  "",
  "Raw figures (noisy shared machine; for the ratios' context only):",
  "",
  "| server | workload | MCP calls per op | ops/s | p50 ms | p99 ms | peak RSS MiB |",
  "|---|---|---:|---:|---:|---:|---:|",
  ...rep.runs.map((r) => `| ${r.server} | ${r.workload} | ${r.calls_per_op} | ${r.ops_per_second.toFixed(0)} | ` +
                         `${r.p50_ms.toFixed(2)} | ${r.p99_ms.toFixed(2)} | ${mib(r.peak_rss_kib)} |`),
].join("\n");

const docs = readFileSync(docsFile, "utf8");
const re = /(<!-- peers:begin -->)[\s\S]*?(<!-- peers:end -->)/;
if (!re.test(docs)) {
  process.stderr.write(`${docsFile}: no <!-- peers:begin --> ... <!-- peers:end --> markers\n`);
  process.exit(2);
}
writeFileSync(docsFile, docs.replace(re, (_, a, b) => `${a}\n${table}\n${b}`));
