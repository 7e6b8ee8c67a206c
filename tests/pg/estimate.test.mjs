// estimate.test.mjs — cost known before approval (issue 24) on PostgreSQL, through the official
// SDK client (run by ctest_postgres.sh): validate_code reports PostgreSQL's own plan estimate
// (rows and total cost) in its metadata and in words in the explanation; max_estimated_rows and
// max_estimated_cost refuse above; an expensive plan raises the risk; and reads that try to hide
// their size (aggregates over huge inputs, LIMIT after a cross join) are caught by the cost.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { connectStdio, validate, writeConfig } from "../e2e/codemode_harness.mjs";

const READ = process.env.SLUICE_PG_READ;
if (!READ) throw new Error("run through ctest_postgres.sh");
const database = `engine = "postgres"\nconninfo = "${READ}"`;
const rules = (v) => v.violations.map((x) => x.rule);

describe("the estimate is reported", () => {
  let pg;
  before(async () => {
    pg = await connectStdio(writeConfig("pg-estimate", { database, autoApprove: ["low", "medium"] }));
  });
  after(async () => pg?.close());

  test("rows and cost in metadata and in words", async () => {
    const v = await validate(pg.client, "SELECT i FROM generate_series(1, 500) AS g(i)");
    assert.equal(v.valid, true, JSON.stringify(v.violations));
    assert.equal(v.metadata.estimatedRows, 500);
    assert.equal(v.metadata.estimateEngine, "PostgreSQL");
    assert.ok(v.metadata.estimatedCost > 0);
    assert.match(v.explanation, /PostgreSQL estimates about 500 rows at a plan cost of \d+ before running it\./);
  });

  test("a LIMIT is in the estimate", async () => {
    const v = await validate(pg.client, "SELECT id FROM orders LIMIT 7");
    assert.equal(v.metadata.estimatedRows, 7);
  });

  test("an expensive plan raises the risk above auto-approval", async () => {
    const v = await validate(pg.client,
      "SELECT count(*) AS n FROM generate_series(1, 100000) a(i), generate_series(1, 100000) b(j) WHERE a.i + b.j = 3");
    assert.equal(v.valid, true, JSON.stringify(v.violations));
    assert.equal(v.metadata.estimatedRows, 1);
    assert.ok(v.metadata.estimatedCost >= 1e8, `cost ${v.metadata.estimatedCost}`);
    assert.equal(v.risk_level, "high");
    assert.equal(v.auto_approved, false);
    assert.match(v.explanation, /estimates about 1 row at a plan cost/);
  });
});

describe("max_estimated_rows and max_estimated_cost refuse above", () => {
  let pg;
  before(async () => {
    pg = await connectStdio(writeConfig("pg-estimate-limits", {
      database, autoApprove: ["low", "medium", "high"],
      extra: "max_estimated_rows = 1000\nmax_estimated_cost = 50000" }));
  });
  after(async () => pg?.close());

  test("under both limits: valid", async () => {
    const v = await validate(pg.client, "SELECT i FROM generate_series(1, 1000) AS g(i)");
    assert.equal(v.valid, true, JSON.stringify(v.violations));
  });

  test("one row over max_estimated_rows: refused with both figures", async () => {
    const v = await validate(pg.client, "SELECT i FROM generate_series(1, 1001) AS g(i)");
    assert.equal(v.valid, false);
    assert.equal(v.approval_token, null);
    assert.deepEqual(rules(v), ["max_estimated_rows"]);
    assert.match(v.violations[0].message, /estimates 1001 rows for this read; max_estimated_rows is 1000/);
  });

  // Reads that return few rows but make the server do a lot: the row count does not see them,
  // the cost does.
  for (const code of [
    "SELECT count(*) AS n FROM generate_series(1, 10000000) AS g(i)",
    "SELECT a.i FROM generate_series(1, 3000) a(i), generate_series(1, 3000) b(j) WHERE a.i = b.j + 1 LIMIT 5",
    "SELECT max(o1.id) AS m FROM orders o1, orders o2, orders o3",
    "WITH x AS MATERIALIZED (SELECT i FROM generate_series(1, 10000000) g(i)) SELECT count(*) AS n FROM x",
  ]) {
    test(`refused by cost: ${code}`, async () => {
      const v = await validate(pg.client, code);
      assert.equal(v.valid, false, `${code}: ${JSON.stringify(v.metadata)}`);
      assert.ok(rules(v).some((r) => r === "max_estimated_cost" || r === "max_estimated_rows"), JSON.stringify(v.violations));
    });
  }
});
