// model_text.test.mjs — what the model reads from the demo config (friction 7 of issue 15),
// through the official SDK client over stdio: the blocked fields are listed once across
// code-mode://instructions and code-mode://policies; GROUP BY ALL is explained as grouping, a
// syntax error is not explained as "computes values without reading any table"; results are cut
// at an LLM-sized default cap with a note saying how to narrow them; the demo's
// top_customers_by_revenue honours the glossary's "not cancelled" (checked against DuckDB itself
// through @duckdb/node-api) and refuses a limit outside its (1-100); code-mode://schema shows
// primary and foreign keys, comments and the values of enum-like columns, never a blocked one's.
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, test } from "node:test";
import { connectStdio, errorText, execute, validate, work } from "./codemode_harness.mjs";

const require = createRequire(import.meta.url);
const { DuckDBInstance } = require("../node/node_modules/@duckdb/node-api");
const source = process.env.SLUICE_SOURCE_DIR;
let conn;

before(async () => {
  // the demo config as shipped, its relative paths resolved in the work tree
  mkdirSync(path.join(work, "examples/demo"), { recursive: true });
  copyFileSync(path.join(source, "examples/demo/sluice.toml"), path.join(work, "examples/demo/sluice.toml"));
  conn = await connectStdio(path.join(work, "examples/demo/sluice.toml"));
});
after(async () => { await conn?.close(); });

const read = async (uri) => (await conn.client.readResource({ uri })).contents[0].text;
const count = (text, word) => (text.match(new RegExp(`\`${word}\``, "g")) ?? []).length;

test("blocked fields are listed once, in code-mode://policies", async () => {
  const instructions = await read("code-mode://instructions");
  const policies = await read("code-mode://policies");
  for (const field of ["ssn", "email"]) {
    assert.equal(count(instructions, field), 0, `instructions list ${field}`);
    assert.equal(count(policies, field), 1, `policies list ${field} ${count(policies, field)} times`);
  }
  assert.match(instructions, /Blocked fields \(listed once, in `code-mode:\/\/policies`/);
});

test("GROUP BY ALL is explained as grouping, not as aggregating all rows", async () => {
  const v = await validate(conn.client, "SELECT plan, count(*) AS n FROM customers GROUP BY ALL");
  assert.equal(v.valid, true, JSON.stringify(v.violations));
  assert.doesNotMatch(v.explanation, /aggregates all rows/);
  assert.match(v.explanation, /per group .*GROUP BY ALL/);
  const plain = await validate(conn.client, "SELECT count(*) AS n FROM customers");
  assert.match(plain.explanation, /aggregates all rows/);
});

test("a syntax error is not explained as computing values without a table", async () => {
  const v = await validate(conn.client, "SELEC name FROM customers");
  assert.equal(v.valid, false);
  assert.doesNotMatch(v.explanation, /without reading any table/i);
  assert.match(v.violations[0].message, /syntax error/);
  assert.equal(v.violations[0].line, 1);
});

test("SELECT 1 is low risk, and a double is printed in its shortest form", async () => {
  const v = await validate(conn.client, "SELECT 1 AS one, 8943927.12::DOUBLE AS d");
  assert.equal(v.risk_level, "low");
  const r = await execute(conn.client, "SELECT 1 AS one, 8943927.12::DOUBLE AS d", v.approval_token);
  assert.equal(r.isError, undefined, errorText(r));
  assert.match(errorText(r), /\[1,8943927\.12\]/);
  assert.doesNotMatch(errorText(r), /8943927\.1199/);
});

test("results stop at an LLM-sized default cap, with a note on how to narrow them", async () => {
  const code = "SELECT id, name, plan, segment, created_at FROM customers ORDER BY id LIMIT 1000";
  const v = await validate(conn.client, code);
  assert.equal(v.valid, true, JSON.stringify(v.violations));
  const r = await execute(conn.client, code, v.approval_token);
  assert.equal(r.isError, undefined, errorText(r));
  assert.equal(r.structuredContent.truncated, true);
  assert.ok(r.structuredContent.row_count < 1000);
  assert.ok(JSON.stringify(r.structuredContent.rows).length <= 50000);
  assert.match(errorText(r), /truncated at the result size cap, max_result_bytes: more rows exist; aggregate/);
});

test("top_customers_by_revenue: the tool declares and enforces its (1-100) limit", async () => {
  const { tools } = await conn.client.listTools();
  const tool = tools.find((t) => t.name === "top_customers_by_revenue");
  assert.equal(tool.inputSchema.properties.limit.minimum, 1);
  assert.equal(tool.inputSchema.properties.limit.maximum, 100);
  for (const limit of [-1, 0, 101]) {
    const r = await conn.client.callTool({ name: "top_customers_by_revenue", arguments: { since: "2026-01-01", limit } });
    assert.equal(r.isError, true, `limit=${limit} ran`);
    assert.match(errorText(r), /arguments\.limit: must be [<>]= (1|100), got/);
    assert.doesNotMatch(errorText(r), /Binder Error/);
  }
});

test("top_customers_by_revenue counts orders not cancelled, as the glossary says", async () => {
  const r = await conn.client.callTool({ name: "top_customers_by_revenue", arguments: { since: "2026-01-01", limit: 5 } });
  assert.equal(r.isError, undefined, errorText(r));
  const db = await DuckDBInstance.create(path.join(work, "demo/demo.duckdb"), { access_mode: "READ_ONLY" });
  const c = await db.connect();
  const want = (await c.runAndReadAll(`SELECT c.id, SUM(o.total_cents) FROM customers c JOIN orders o ON o.customer_id = c.id
    WHERE o.order_date >= DATE '2026-01-01' AND o.status <> 'cancelled' GROUP BY c.id ORDER BY 2 DESC LIMIT 5`)).getRows();
  const cancelled = (await c.runAndReadAll(`SELECT count(*) FROM orders WHERE status = 'cancelled' AND order_date >= DATE '2026-01-01'`)).getRows();
  c.closeSync();
  assert.ok(Number(cancelled[0][0]) > 0, "the demo data has cancelled orders to leave out");
  assert.deepEqual(r.structuredContent.rows.map((row) => row[0]), want.map((row) => Number(row[0])));
  assert.deepEqual(r.structuredContent.rows.map((row) => Math.round(Number(row[4]) * 100)), want.map((row) => Number(row[1])));
});

test("code-mode://schema: keys, comments and enum-like values, but never a blocked column's values", async () => {
  const file = path.join(work, "keys.toml");
  writeFileSync(file, `[server]
name = "keys"
[identity]
user = "ana"
[database]
path = "keys.duckdb"
[code_mode]
enabled = true
token_secret_file = "demo/token.key"
blocked_fields = ["ssn"]
`);
  const keys = await connectStdio(file);
  try {
    const text = (await keys.client.readResource({ uri: "code-mode://schema" })).contents[0].text;
    assert.match(text, /## accounts — about 100 rows\nOne row per customer account\n- id INTEGER \[primary key\]/);
    assert.match(text, /- tier VARCHAR: one of 'bronze', 'gold', 'silver' — Pricing tier/);
    assert.match(text, /- account_id INTEGER \[references accounts\.id\]/);
    assert.match(text, /- status VARCHAR: one of 'open', 'paid'/);
    assert.match(text, /- name VARCHAR\n/, "a column of distinct names is not enum-like");
    assert.match(text, /- ssn VARCHAR \[join\/filter only\]\n/);
    assert.doesNotMatch(text, /ssn0|ssn1/, "a blocked column's values are shown");
  } finally {
    await keys.close();
  }
});

// What the model reads of validate_code is the verdict it acts on; the record for clients and
// audit (metadata, policy, code_hash) stays in structuredContent. Trimming must never hide a
// refusal: a blocked column in the output is still refused in the text, with its fix.
test("validate_code's text is the verdict: refusals and fixes in it, the record in structuredContent", async () => {
  const call = async (code) => conn.client.callTool({ name: "validate_code", arguments: { code } });
  const ok = await call("SELECT id, name FROM customers ORDER BY id LIMIT 3");
  const brief = JSON.parse(ok.content[0].text);
  assert.equal(brief.valid, true);
  assert.equal(brief.approval_token, ok.structuredContent.approval_token);
  assert.match(brief.explanation, /Reads customers/);
  for (const k of ["metadata", "policy", "code_hash"]) {
    assert.equal(k in brief, false, `${k} in the text`);
    assert.ok(k in ok.structuredContent, `${k} missing from structuredContent`);
  }
  for (const code of ["SELECT id, ssn FROM customers", "SELECT lower(email) AS e FROM customers",
                      "SELECT name FROM customers UNION ALL SELECT name FROM sales_reps UNION ALL SELECT ssn FROM customers"]) {
    const bad = await call(code);
    const text = JSON.parse(bad.content[0].text);
    assert.equal(text.valid, false, code);
    assert.equal(text.approval_token ?? null, null, code); // no token for refused code
    assert.deepEqual(text.violations, bad.structuredContent.violations, code);
    assert.ok(text.violations.some((v) => v.rule === "blocked_column" && v.suggestion), JSON.stringify(text.violations));
  }
});
