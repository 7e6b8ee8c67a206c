// estimate.test.mjs — cost known before approval, and bound into it (issue 24, item 2), on DuckDB
// through the official SDK client: validate_code reports DuckDB's own estimate (rows and the rows
// through the plan's operators) in its metadata and in words; max_estimated_rows refuses above;
// the estimate is signed into the token, and execute_code refuses when the live estimate grew
// past estimate_drift_factor since approval (the table grew sixteenfold under a token approved
// for it), while a token whose estimate moved less still runs. The data grows through sluice
// itself (approved INSERTs), so nothing else holds the DuckDB file.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { connectStdio, validate, execute, errorText, writeConfig } from "./codemode_harness.mjs";

const rules = (v) => v.violations.map((x) => x.rule);
const COUNT = "SELECT count(*) AS n FROM sales_reps WHERE name <> ''"; // a bare count(*) DuckDB answers from its catalog
const GROW = "INSERT INTO sales_reps (id, name, region, hired_on) " +
             "SELECT id, name, region, hired_on FROM sales_reps WHERE id > 0";

describe("DuckDB's estimate and the route's limit", () => {
  let s;
  before(async () => {
    s = await connectStdio(writeConfig("estimate-limit", { extra: "max_estimated_rows = 1000" }));
  });
  after(async () => s?.close());

  test("a narrow read reports DuckDB's estimate in metadata and words", async () => {
    const v = await validate(s.client, "SELECT name FROM customers WHERE id = $id", { id: 7 });
    assert.equal(v.valid, true, JSON.stringify(v.violations));
    assert.equal(v.metadata.estimateEngine, "DuckDB");
    assert.ok(v.metadata.estimatedRows >= 0 && v.metadata.estimatedRows <= 10, JSON.stringify(v.metadata));
    assert.match(v.explanation, /DuckDB estimates about \d+ rows?, with about \d+ rows? through the plan's operators, before running it\./);
  });

  test("a read DuckDB expects to return more than max_estimated_rows is refused with both figures", async () => {
    const v = await validate(s.client, "SELECT o.id, c.name FROM orders o JOIN customers c ON o.customer_id = c.id");
    assert.equal(v.valid, false);
    assert.deepEqual(rules(v), ["max_estimated_rows"]);
    assert.match(v.violations[0].message, /DuckDB estimates \d+ rows for this read; max_estimated_rows is 1000/);
    assert.equal(v.approval_token, null);
  });

  test("a LIMIT brings the same read under the limit", async () => {
    const v = await validate(s.client, "SELECT o.id, c.name FROM orders o JOIN customers c ON o.customer_id = c.id LIMIT 50");
    assert.equal(v.valid, true, JSON.stringify(v.violations));
    assert.equal(v.metadata.estimatedRows, 50);
  });
});

describe("the estimate is bound into the token", () => {
  let s;
  before(async () => {
    s = await connectStdio(writeConfig("estimate-drift", {
      autoApprove: ["low", "medium", "high"], extra: "sql_allow_writes = true" }));
  });
  after(async () => s?.close());

  async function grow(times) {
    for (let i = 0; i < times; i++) {
      const v = await validate(s.client, GROW);
      assert.equal(v.valid, true, JSON.stringify(v.violations));
      const r = await execute(s.client, GROW, v.approval_token);
      assert.ok(!r.isError, errorText(r));
    }
  }

  test("execute refuses a token whose estimate the data outgrew by more than the factor", async () => {
    const first = await validate(s.client, COUNT);
    const second = await validate(s.client, COUNT);
    assert.equal(first.valid, true, JSON.stringify(first.violations));
    assert.ok(first.approval_token && second.approval_token);
    const approvedCost = first.metadata.estimatedCost;
    await grow(1); // twice the rows: within estimate_drift_factor (default 10)
    const ok = await execute(s.client, COUNT, first.approval_token);
    assert.ok(!ok.isError, errorText(ok));
    assert.equal(ok.structuredContent.rows[0][0], 80);
    await grow(3); // sixteen times the rows the second token was approved for
    const r = await execute(s.client, COUNT, second.approval_token);
    assert.equal(r.isError, true);
    const text = errorText(r);
    assert.match(text, new RegExp(`the estimate moved since approval: 1 rows at a cost of ${Math.ceil(approvedCost)} were approved`));
    assert.match(text, /estimate_drift_factor \(10\)/);
    assert.match(text, /call validate_code again/);
    // validated again, the new estimate is approved and runs
    const again = await validate(s.client, COUNT);
    assert.ok(again.metadata.estimatedCost > 10 * approvedCost, JSON.stringify(again.metadata));
    const run = await execute(s.client, COUNT, again.approval_token);
    assert.ok(!run.isError, errorText(run));
    assert.equal(run.structuredContent.rows[0][0], 640);
  });
});
