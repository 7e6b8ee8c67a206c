// security.test.mjs — tries, and must fail, to write through the read path, reach files or the
// network, crash the server, exceed the row or time cap, and leak a blocked field (ssn, email),
// all through the official SDK client and the real validate_code → execute_code path. A code is
// "refused" when validate_code says valid:false or execute_code answers isError; every refusal
// must carry a message a model can act on.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { assertRefused, assertStoppedByTimeout, connectStdio, errorText, execute, validate, writeConfig } from "./codemode_harness.mjs";

const LEAKS = [
  "SELECT ssn FROM customers",
  "SELECT * FROM customers",
  "SELECT c.* FROM customers c",
  "SELECT customers FROM customers",
  "SELECT upper(ssn) FROM customers",
  "SELECT ssn || '' AS x FROM customers",
  "SELECT string_agg(ssn, ',') FROM customers",
  "SELECT list(ssn) FROM customers",
  "SELECT any_value(email) FROM customers",
  "SELECT max(ssn) FROM customers",
  "SELECT count(DISTINCT ssn) FROM customers",
  "SELECT to_json(c) FROM customers c",
  "SELECT struct_pack(x := ssn) FROM customers",
  "SELECT row(name, ssn) FROM customers",
  "SELECT name FROM customers UNION SELECT ssn FROM customers",
  "SELECT name FROM customers UNION ALL SELECT email FROM customers",
  "SELECT (SELECT c2.ssn FROM customers c2 WHERE c2.id = c.id) AS s FROM customers c",
  "WITH x AS (SELECT ssn AS s FROM customers) SELECT s FROM x",
  "SELECT s FROM (SELECT ssn AS s FROM customers) t",
  "SELECT CASE WHEN ssn LIKE '1%' THEN 'a' ELSE 'b' END AS k FROM customers",
  "SELECT substr(ssn, 1, 3) FROM customers",
  "SELECT md5(ssn) FROM customers",
  "SELECT COLUMNS('s.*') FROM customers",
  "SELECT * EXCLUDE (ssn) FROM customers",
  "SELECT * RENAME (ssn AS x) FROM customers",
  "SELECT #6 FROM customers",
  "SELECT first(email ORDER BY id) FROM customers",
  "SELECT row_number() OVER (PARTITION BY ssn) AS r FROM customers",
  "SELECT map([name], [ssn]) FROM customers",
  "SELECT [ssn, name] AS l FROM customers",
  "SELECT unnest([ssn, name]) AS u FROM customers",
  "SELECT greatest(name, ssn) FROM customers",
  "SELECT ssn IS NULL AS missing FROM customers",
  "SELECT email LIKE '%@example.com' AS m FROM customers",
  "SELECT json_object('s', ssn) FROM customers",
  "SELECT name FROM customers INTERSECT SELECT ssn FROM customers",
  "SELECT ssn FROM customers EXCEPT SELECT name FROM customers",
  "SELECT length(email) AS n FROM customers",
  "SELECT CAST(ssn AS VARCHAR) AS note FROM customers",
  "SELECT concat_ws('-', name, email) FROM customers",
  "SELECT printf('%s', ssn) AS p FROM customers",
  "SELECT * FROM (SELECT * FROM customers) t",
  "SELECT ssn AS name FROM customers",
  "SELECT coalesce(NULL, email) AS e FROM customers",
  "SELECT lower(c.email) FROM customers c JOIN orders o ON o.customer_id = c.id",
  "SELECT list_transform([1], x -> ssn) FROM customers",
  "SELECT array_agg(c) FROM customers c",
  "SELECT histogram(ssn) FROM customers",
  "SELECT mode(email) FROM customers",
  "SELECT name FROM customers ORDER BY ssn LIMIT 1 OFFSET 0 UNION ALL SELECT ssn FROM customers",
];

const ESCAPES = [
  "SELECT 1; DELETE FROM orders",
  "SELECT 1 AS a; SELECT 2 AS b",
  "WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d",
  "COPY customers TO '/tmp/sluice-leak.csv'",
  "COPY (SELECT name FROM customers) TO '/tmp/sluice-leak.csv'",
  "ATTACH '/tmp/sluice-x.db' AS x",
  "DETACH demo",
  "PRAGMA enable_profiling",
  "PRAGMA disable_optimizer",
  "SET threads = 8",
  "SET enable_external_access = true",
  "RESET ALL",
  "SET VARIABLE v = 1",
  "INSTALL httpfs",
  "LOAD httpfs",
  "CALL enable_logging()",
  "SELECT * FROM enable_logging(storage='file', storage_path='/tmp/sluice-log')",
  "SELECT * FROM enable_logging(storage='stdout')",
  "SELECT * FROM query('SELECT ssn FROM customers')",
  "SELECT * FROM query_table('customers')",
  "SELECT * FROM json_execute_serialized_sql('{}')",
  "SELECT * FROM read_csv('/etc/passwd')",
  "SELECT * FROM read_text('/etc/hostname')",
  "SELECT * FROM read_blob('/etc/hostname')",
  "SELECT * FROM read_json('/etc/os-release')",
  "SELECT * FROM read_parquet('https://example.com/x.parquet')",
  "SELECT * FROM '/etc/passwd'",
  "SELECT * FROM glob('/etc/*')",
  "SELECT * FROM duckdb_settings()",
  "SELECT current_setting('secret_directory') AS s",
  "SELECT getvariable('v') AS v",
  "SELECT nextval('s') AS n",
  "SELECT setseed(0.5)",
  "SUMMARIZE customers",
  "INSERT INTO orders VALUES (1, 1, DATE '2026-01-01', 1, 'x')",
  "UPDATE customers SET name = 'x'",
  "DELETE FROM customers",
  "MERGE INTO customers USING orders ON customers.id = orders.id WHEN MATCHED THEN DELETE",
  "TRUNCATE customers",
  "DROP TABLE customers",
  "CREATE TABLE t AS SELECT 1 AS a",
  "CREATE TEMP TABLE t AS SELECT 1 AS a",
  "CREATE MACRO m(x) AS x",
  "EXPORT DATABASE '/tmp/sluice-export'",
  "VACUUM",
  "CHECKPOINT",
  "BEGIN TRANSACTION",
  "PREPARE p AS SELECT 1",
  "EXPLAIN ANALYZE SELECT 1",
  "DESCRIBE SELECT * FROM read_csv_auto('customers.csv')",
];

const refused = assertRefused;

describe("security: a hostile client (DuckDB demo)", () => {
  let conn;
  before(async () => { conn = await connectStdio(writeConfig("security", { timeout: 3, maxRows: 100 })); });
  after(async () => conn?.close());

  test(`${LEAKS.length} distinct blocked-field leak attempts are refused`, async () => {
    assert.ok(new Set(LEAKS).size >= 40);
    for (const code of LEAKS) await refused(conn.client, code);
  });

  for (const code of ESCAPES) {
    test(`refuses: ${code}`, async () => refused(conn.client, code));
  }

  test("blocked fields still work in joins, filters and grouping (high risk: not auto-approved)", async () => {
    const code = "SELECT c.plan, count(*) AS n FROM customers c JOIN customers d ON d.ssn = c.ssn WHERE c.email IS NOT NULL GROUP BY c.plan, c.ssn IS NULL ORDER BY 1";
    const v = await validate(conn.client, code);
    assert.equal(v.valid, true, JSON.stringify(v.violations));
    assert.match(v.explanation, /ssn|email/);
    assert.equal(v.risk_level, "high");
    const r = await execute(conn.client, code, v.approval_token);
    assert.equal(r.isError, true, "a predicate on a blocked field is never auto-approved at low/medium");
    assert.match(errorText(r), /approv/i);
  });

  test("engine errors never echo a blocked value", async () => {
    const code = "SELECT name FROM customers WHERE CAST(ssn AS INTEGER) = 0";
    const v = await validate(conn.client, code);
    if (!v.valid) return; // refusing outright is also safe
    const r = await execute(conn.client, code, v.approval_token);
    assert.equal(r.isError, true);
    assert.ok(!/\d{3}-\d{2}-\d{4}/.test(errorText(r)), errorText(r));
  });

  test("the time cap really stops a runaway query", { timeout: 30000 }, async () => {
    // Streams 10^11 rows through an aggregate: long-running but constant memory, so only the
    // time cap can stop it (a cross join could hit the memory limit first under load).
    // DuckDB's own estimate (10^11 rows) makes it high risk (issue 24): this connection
    // auto-approves high, since it measures the time cap, not the approval.
    const runaway = await connectStdio(writeConfig("security-runaway", {
      timeout: 3, maxRows: 100, autoApprove: ["low", "medium", "high"] }));
    try {
      await assertStoppedByTimeout(runaway.client, "SELECT sum(range % 7) AS s FROM range(100000000000)", 20000);
    } finally {
      await runaway.close();
    }
  });

  test("the row cap holds (N and N+1 told apart)", async () => {
    for (const [limit, truncated] of [[100, false], [101, true]]) {
      const code = `SELECT range AS i FROM range(${limit})`;
      const v = await validate(conn.client, code);
      const r = await execute(conn.client, code, v.approval_token);
      assert.ok(!r.isError, errorText(r));
      assert.equal(r.structuredContent.row_count, 100);
      assert.equal(r.structuredContent.truncated, truncated);
    }
  });

  test("the server survived every attempt", async () => {
    await conn.client.ping();
    const code = "SELECT count(*) AS n FROM customers";
    const v = await validate(conn.client, code);
    const r = await execute(conn.client, code, v.approval_token);
    assert.ok(!r.isError, errorText(r));
    assert.ok(r.structuredContent.rows[0][0] >= 5000);
  });
});

// Issue 8 §1/§5: blocked values rebuilt through predicates are refused by rule blocked_predicate
// (or blocked_column when a compared column is returned); the analytics the contract allows are
// accepted and run (high risk auto-approved here so they can run without a human).
const RECONSTRUCTIONS = [
  // a generated relation equated with the blocked field: the generated value is the secret
  "SELECT r.range AS n FROM range(1000000000) r JOIN customers c ON c.ssn = r.range::VARCHAR",
  "SELECT u.x AS guess FROM unnest(['a@example.com', 'b@example.com']) u(x) WHERE u.x IN (SELECT email FROM customers)",
  "SELECT v.x FROM (VALUES ('000-00-0000'), ('111-11-1111')) v(x) SEMI JOIN customers c ON c.ssn = v.x",
  // per-character comparison with substr / left
  "SELECT p.pos, d.ch FROM range(1, 12) p(pos), unnest(['0','1','2','3','4','5','6','7','8','9','-']) d(ch), customers c WHERE c.id = 1 AND substr(c.ssn, p.pos::INTEGER, 1) = d.ch",
  "SELECT count(*) AS n FROM customers WHERE left(ssn, 3) = '123'",
  // binary search
  "SELECT count(*) AS n FROM customers WHERE id = 1 AND ssn < '5'",
  "SELECT count(*) AS n FROM customers WHERE id = 1 AND ssn BETWEEN '1' AND '5'",
  "SELECT count(*) AS n FROM customers WHERE id = 1 AND email LIKE 'a%'",
  "SELECT name FROM customers ORDER BY ssn LIMIT 1",
  // taint: a column equated with a blocked field is blocked in the output
  "SELECT x FROM (SELECT r.name AS x FROM sales_reps r JOIN customers c ON c.ssn = r.name) t",
];

describe("security: blocked values rebuilt through predicates (DuckDB demo)", () => {
  let conn;
  before(async () => { conn = await connectStdio(writeConfig("security-predicates", { autoApprove: ["low", "medium", "high"] })); });
  after(async () => conn?.close());

  for (const code of RECONSTRUCTIONS) {
    test(`refuses: ${code}`, async () => {
      const v = await validate(conn.client, code);
      assert.equal(v.valid, false, `accepted: ${code}`);
      assert.equal(v.approval_token, null);
      const rules = v.violations.map((x) => x.rule);
      assert.ok(rules.includes("blocked_predicate") || rules.includes("blocked_column"), JSON.stringify(v.violations));
      const message = v.violations.map((x) => x.message).join(" ");
      if (rules.includes("blocked_predicate")) assert.match(message, /may only be compared with =/);
      await refused(conn.client, code);
    });
  }

  const CONTROLS = [
    // [what, code, risk, minimum rows]
    ["a join on a blocked field against another table's column", "SELECT c.name, r.name AS rep FROM customers c JOIN sales_reps r ON r.email = c.email LIMIT 5", "high", 0],
    ["a join on a blocked field (self-join)", "SELECT c.name, d.segment FROM customers c JOIN customers d ON d.ssn = c.ssn LIMIT 5", "high", 5],
    ["a blocked field equal to a literal", "SELECT name FROM customers WHERE ssn = '000-00-0000' LIMIT 5", "high", 0],
    ["an uncorrelated scalar subquery (DuckDB's hidden error())", "SELECT customer_id FROM contacts WHERE last_contacted_at < (SELECT max(last_contacted_at) - INTERVAL 14 DAY FROM contacts) LIMIT 5", "low", 5],
    ["a scalar subquery against an average", "SELECT id FROM orders WHERE total_cents > (SELECT avg(total_cents) FROM orders) LIMIT 5", "low", 5],
    ["LATERAL with LIMIT", "SELECT c.name, l.t FROM customers c, LATERAL (SELECT total_cents AS t FROM orders o WHERE o.customer_id = c.id ORDER BY total_cents DESC LIMIT 2) l LIMIT 6", null, 6],
    ["LATERAL unnest", "SELECT c.name, u.x FROM customers c, LATERAL unnest([c.id, c.rep_id]) u(x) LIMIT 6", null, 6],
  ];
  for (const [what, code, risk, minRows] of CONTROLS) {
    test(`accepts ${what}`, async () => {
      const v = await validate(conn.client, code);
      assert.equal(v.valid, true, JSON.stringify(v.violations));
      if (risk) assert.equal(v.risk_level, risk);
      const r = await execute(conn.client, code, v.approval_token);
      assert.ok(!r.isError, errorText(r));
      assert.ok(r.structuredContent.row_count >= minRows, `${r.structuredContent.row_count} rows`);
    });
  }

  test("accepts a blocked field equal to a parameter", async () => {
    const code = "SELECT count(*) AS n FROM customers WHERE ssn = $ssn::VARCHAR";
    const v = await validate(conn.client, code, { ssn: "000-00-0000" });
    assert.equal(v.valid, true, JSON.stringify(v.violations));
    assert.equal(v.risk_level, "high");
    const r = await execute(conn.client, code, v.approval_token, { ssn: "000-00-0000" });
    assert.ok(!r.isError, errorText(r));
  });

  test("DESCRIBE customers shows names and types, marks the blocked fields, and reveals no value", async () => {
    const v = await validate(conn.client, "DESCRIBE customers");
    assert.equal(v.valid, true, JSON.stringify(v.violations));
    assert.match(JSON.stringify(v), /customers\.ssn[^"]*blocked field \[join\/filter only\]/);
    const r = await execute(conn.client, "DESCRIBE customers", v.approval_token);
    assert.ok(!r.isError, errorText(r));
    const names = r.structuredContent.rows.map((row) => row[0]);
    assert.ok(names.includes("ssn") && names.includes("email"), JSON.stringify(names));
    assert.ok(!/\d{3}-\d{2}-\d{4}/.test(errorText(r)));
  });

  for (const code of ["SUMMARIZE customers", "DESCRIBE (SELECT ssn FROM customers)", "SELECT error('x' || ssn) FROM customers"]) {
    test(`still refuses: ${code}`, async () => refused(conn.client, code));
  }
});
