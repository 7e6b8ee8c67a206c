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

  test("blocked fields still work in joins, filters and grouping", async () => {
    const code = "SELECT c.plan, count(*) AS n FROM customers c JOIN customers d ON d.ssn = c.ssn WHERE c.email LIKE '%@%' GROUP BY c.plan, c.ssn IS NULL ORDER BY 1";
    const v = await validate(conn.client, code);
    assert.equal(v.valid, true, JSON.stringify(v.violations));
    assert.match(v.explanation, /ssn|email/);
    const r = await execute(conn.client, code, v.approval_token);
    assert.ok(!r.isError, errorText(r));
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
    await assertStoppedByTimeout(conn.client, "SELECT sum(range % 7) AS s FROM range(100000000000)", 20000);
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
