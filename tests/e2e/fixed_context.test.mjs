// fixed_context.test.mjs — issue 26: what an agent reads before its first program (tools/list plus
// the start_code_mode prompt, o200k_base tokens counted as bench/tokens counts them) stays within
// 1,000 tokens on every shipped example config and on the large surfaces (GitHub REST, GitHub
// GraphQL, a 300-table warehouse); and search/describe answer there, each answer small.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, readdirSync, existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { fixedContext, FIXED_CONTEXT_LIMIT } from "../../bench/tokens/fixed_context.mjs";
import { writeSurfaces } from "../../bench/tokens/surfaces.mjs";
import { Client, StdioClientTransport } from "./harness.mjs";
import { createRequire } from "node:module";

const require = createRequire(new URL("../node/package.json", import.meta.url));
const { countTokens } = require("gpt-tokenizer/encoding/o200k_base");
const bin = process.env.SLUICE_BIN;
const work = process.env.SLUICE_E2E_WORK;
const src = process.env.SLUICE_SOURCE_DIR;
const env = { DEMO_GRAPHQL_TOKEN: "x", COST_COACH_TOKEN: "x" };
let surfaces;

// An example config with its relative paths made absolute, upstreams pointed nowhere (nothing is
// called), and the demo's files from work.
function example(name) {
  const dir = path.join(src, "examples", name);
  const text = readFileSync(path.join(dir, "sluice.toml"), "utf8")
    .replace(/"\.\.\/\.\.\/demo\//g, `"${work}/`)
    .replace(/^(path|policies|entities|schema) = "(?!\/)([^"]+)"/gm, (_, k, p) => `${k} = "${path.join(dir, p)}"`)
    .replace(/^endpoint = .*$/m, 'endpoint = "http://127.0.0.1:9"');
  const f = path.join(work, `${name}.toml`);
  writeFileSync(f, text);
  return f;
}

before(() => {
  surfaces = writeSurfaces(work);
  // rebuilt when its SQL changed (a build tree keeps the last one)
  const db = path.join(work, "warehouse.duckdb"), stamp = db + ".sql", sql = readFileSync(surfaces.warehouseSql, "utf8");
  if (!existsSync(db) || !existsSync(stamp) || readFileSync(stamp, "utf8") !== sql) {
    execFileSync(bin, ["demo-db", "--force", "--sql", surfaces.warehouseSql, db]);
    writeFileSync(stamp, sql);
  }
});

const examples = readdirSync(path.join(src ?? ".", "examples")).filter((d) => existsSync(path.join(src, "examples", d, "sluice.toml")));
for (const name of examples) {
  test(`examples/${name}: fixed context within ${FIXED_CONTEXT_LIMIT} tokens`, async () => {
    const r = await fixedContext(bin, example(name), env);
    assert.ok(r.total <= FIXED_CONTEXT_LIMIT, `${name}: tools/list ${r.tools} + prompt ${r.prompt} = ${r.total}`);
  });
}

// Well under the 200 MB GitHub's spec cost before issue 26, with room for the allocator.
const PEAK_RSS_KIB = 128 * 1024;
for (const [label, key] of [["GitHub REST", "rest"], ["GitHub GraphQL", "gql"], ["300-table warehouse", "warehouse"]]) {
  test(`${label}: fixed context within ${FIXED_CONTEXT_LIMIT} tokens`, async () => {
    const r = await fixedContext(bin, surfaces[key], {});
    assert.ok(r.total <= FIXED_CONTEXT_LIMIT, `${label}: tools/list ${r.tools} + prompt ${r.prompt} = ${r.total}`);
    assert.ok(r.toolNames.includes("search") && r.toolNames.includes("describe"));
    assert.match(r.promptText, /search and describe/, "a large schema is not inlined: the prompt says to search");
    // the server stays usable at that size (issue 26: GitHub REST's 10 MB spec once cost 200 MB)
    console.log(`${label}: start-up ${r.startupMs} ms, peak RSS ${(r.peakKiB / 1024).toFixed(1)} MB`);
    assert.ok(r.peakKiB <= PEAK_RSS_KIB, `${label}: peak RSS ${r.peakKiB} KiB > ${PEAK_RSS_KIB} KiB`);
  });
}

async function connect(config) {
  const c = new Client({ name: "discovery", version: "1.0.0" }, { capabilities: {} });
  await c.connect(new StdioClientTransport({ command: bin, args: ["serve", "-c", config, "--stdio"], stderr: "ignore" }));
  return c;
}
const text = (r) => r.content.map((c) => c.text).join("\n");

test("search and describe answer small on GitHub REST, and mark what the caller may not call", async () => {
  const c = await connect(surfaces.rest);
  try {
    const s = text(await c.callTool({ name: "search", arguments: { query: "list repository issues" } }));
    assert.match(s.split("\n")[1], /^- issues\/list-for-repo \(operation, read\): GET \/repos\/\{owner\}\/\{repo\}\/issues/);
    assert.ok(countTokens(s) < 600, `search answer ${countTokens(s)} tokens`);
    const w = text(await c.callTool({ name: "search", arguments: { query: "contents" } }));
    assert.match(w, /repos\/create-or-update-file-contents \(operation, write; not callable: writes are off for you\)/);
    const d = text(await c.callTool({ name: "describe", arguments: { name: "issues/list-for-repo" } }));
    assert.match(d, /api\.get\(`\/repos\/\$\{owner\}\/\$\{repo\}\/issues`, query: \{ milestone\?: string; state\?: "open" \| "closed" \| "all";/);
    const miss = text(await c.callTool({ name: "describe", arguments: { name: "issues/list-for-rep" } }));
    assert.match(miss, /^Nothing is named "issues\/list-for-rep"\. \d+ match/);
  } finally { await c.close(); }
});

test("search and describe on the warehouse: ranked tables, keys, comments, blocked marks", async () => {
  const c = await connect(surfaces.warehouse);
  try {
    const s = text(await c.callTool({ name: "search", arguments: { query: "billing invoices" } }));
    assert.match(s.split("\n")[1], /^- billing_invoices \(table, ~12 rows\): The invoices of billing, one row each/);
    const p2 = text(await c.callTool({ name: "search", arguments: { query: "", page: 30 } }));
    assert.match(p2, /^300 matches \(page 30 of 30\):/);
    const d = text(await c.callTool({ name: "describe", arguments: { name: "billing_invoices sales_orders" } }));
    assert.match(d, /## billing_invoices \(table\) — about 12 rows\nThe invoices of billing, one row each\n- id INTEGER \[primary key\]/);
    assert.match(d, /- owner_email VARCHAR \[join\/filter only\]/);
    assert.match(d, /## sales_orders \(table\)/);
  } finally { await c.close(); }
});

test("search and describe on GitHub GraphQL: types and fields with arguments, paged", async () => {
  const c = await connect(surfaces.gql);
  try {
    const s = text(await c.callTool({ name: "search", arguments: { query: "Repository" } }));
    assert.match(s.split("\n")[1], /^- Repository \(type, \d+ fields\)/);
    const d = text(await c.callTool({ name: "describe", arguments: { name: "Repository" } }));
    assert.match(d, /^## Repository \(type\)\n/);
    assert.match(d, /- issues IssueConnection! \(/);
    assert.match(d, /more: describe \{name: "Repository", page: 2\}/);
    assert.ok(countTokens(d) < 4000, `describe answer ${countTokens(d)} tokens`);
  } finally { await c.close(); }
});
