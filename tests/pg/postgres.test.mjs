// postgres.test.mjs — SQL code mode on PostgreSQL through the official SDK client (run by
// ctest_postgres.sh, which starts the cluster): the seeds' queries give DuckDB's answers, the
// attacks of security.test.mjs ported to PostgreSQL are refused by the analyzer or by the
// server, the row cap tells N from N+1, the time cap stops a runaway cross join, and the start-up
// probe warns loudly when the read role can write.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { assertRefused, assertStoppedByTimeout, connectStdio, errorText, execute, sluiceBin, validate, work,
         writeConfig }
  from "../e2e/codemode_harness.mjs";
import { admin } from "./pg_admin.mjs";

const READ = process.env.SLUICE_PG_READ;
const ADMIN = process.env.SLUICE_PG_ADMIN;
if (!READ || !ADMIN) throw new Error("run through ctest_postgres.sh");

const seedDir = path.join(import.meta.dirname, "..", "unit", "data", "sql", "seeds");
const seed = (f) => readFileSync(path.join(seedDir, f), "utf8");
const pgDatabase = (conninfo) => `engine = "postgres"\nconninfo = "${conninfo}"`;

// The attacks: each must be refused by validate_code, or fail at execute_code without a leak.
const LEAKS = [
  "SELECT ssn FROM customers",
  "SELECT * FROM customers",
  "SELECT c.* FROM customers c",
  "SELECT c FROM customers c",
  "SELECT customers FROM customers",
  "SELECT row_to_json(c) FROM customers c",
  "SELECT to_jsonb(c) AS j FROM customers c",
  "SELECT (c).ssn FROM customers c",
  "SELECT row(name, ssn) FROM customers",
  "SELECT upper(ssn) FROM customers",
  "SELECT ssn || '' AS x FROM customers",
  "SELECT string_agg(ssn, ',') FROM customers",
  "SELECT max(email) FROM customers",
  "SELECT count(DISTINCT ssn) FROM customers",
  "SELECT name FROM customers UNION SELECT ssn FROM customers",
  "SELECT name FROM customers INTERSECT SELECT email FROM customers",
  "SELECT (SELECT c2.ssn FROM customers c2 WHERE c2.id = c.id) AS s FROM customers c",
  "WITH x AS (SELECT ssn AS s FROM customers) SELECT s FROM x",
  "WITH RECURSIVE r(s, n) AS (SELECT ssn, 1 FROM customers UNION ALL SELECT s, n + 1 FROM r WHERE n < 2) SELECT s FROM r",
  "SELECT s FROM (SELECT ssn AS s FROM customers) t",
  "SELECT t.s FROM customers c, LATERAL (SELECT c.ssn AS s) t",
  "SELECT CASE WHEN ssn LIKE '1%' THEN 'a' ELSE 'b' END AS k FROM customers",
  "SELECT row_number() OVER (ORDER BY ssn) AS r FROM customers",
  "SELECT ssn IS NULL AS missing FROM customers",
  "SELECT email FROM customer_contacts",
  "SELECT * FROM customer_contacts",
  "SELECT json_build_object('s', ssn) FROM customers",
  "SELECT ARRAY[ssn, name] AS a FROM customers",
  "SELECT coalesce(NULL, email) AS e FROM customers",
  "SELECT ssn::text AS note FROM customers",
  // Blocked values rebuilt through predicates (issue 8): generated values equated with them.
  "SELECT g.s FROM generate_series(0, 999) g(n) CROSS JOIN LATERAL (SELECT lpad(g.n::text, 3, '0') AS s) x JOIN customers c ON substr(c.ssn, 1, 3) = x.s",
  "SELECT v.x FROM (VALUES ('123-45-6789')) v(x) JOIN customers c ON c.ssn = v.x",
  "SELECT x FROM unnest(ARRAY['a@example.com']) AS u(x) WHERE x IN (SELECT email FROM customers)",
  "SELECT count(*) FROM customers WHERE ssn < '5'",
  "SELECT count(*) FROM customers WHERE ssn BETWEEN '1' AND '2'",
  "SELECT count(*) FROM customers WHERE email LIKE 'a%'",
  "SELECT count(*) FROM customers WHERE left(ssn, 1) = '1'",
  "SELECT id FROM customers ORDER BY ssn LIMIT 1",
  "SELECT o.id FROM orders o JOIN customers c ON c.ssn = o.id::text",
];

const ESCAPES = [
  "SELECT 1; DELETE FROM orders",
  "SELECT 1 AS a; SELECT 2 AS b",
  "COMMIT; DROP TABLE customers",
  "SELECT 1; COMMIT; SET default_transaction_read_only = off; COMMIT; INSERT INTO orders VALUES (1); COMMIT",
  "WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d",
  "DO $$ BEGIN DELETE FROM orders; END $$",
  "SET ROLE sluice_admin",
  "RESET ROLE",
  "SET transaction_read_only = off",
  "COPY customers TO PROGRAM 'touch /tmp/sluice-pwned'",
  "COPY (SELECT name FROM customers) TO '/tmp/sluice-leak.csv'",
  "SELECT pg_read_file('/etc/hostname')",
  "SELECT * FROM pg_ls_dir('.') AS f",
  "SELECT lo_import('/etc/hostname')",
  "SELECT set_config('default_transaction_read_only', 'off', false)",
  "SELECT current_setting('data_directory')",
  "SELECT pg_sleep(60)",
  "SELECT pg_terminate_backend(1)",
  "SELECT pg_advisory_lock(42)",
  "SELECT txid_current()",
  "SELECT nextval('s')",
  "SELECT query_to_xml('SELECT ssn FROM customers', true, false, '')",
  "SELECT dblink_exec('dbname=demo', 'DROP TABLE orders')",
  "SELECT id FROM customers FOR UPDATE",
  "SELECT * INTO stolen FROM orders",
  "INSERT INTO orders (id) VALUES (1)",
  "UPDATE customers SET name = 'x'",
  "DELETE FROM customers",
  "TRUNCATE customers",
  "DROP TABLE customers",
  "CREATE TABLE t AS SELECT 1 AS a",
  "CREATE TEMP TABLE t (a int)",
  "PREPARE p AS SELECT 1",
  "LISTEN x",
  "NOTIFY x",
  "VACUUM",
  "BEGIN",
  "EXPLAIN ANALYZE DELETE FROM orders",
  "CALL p()",
  "SELECT public.my_function()",
];

const refused = assertRefused;

// Runs code through validate + execute; the rows.
async function rows(client, code, variables) {
  const v = await validate(client, code, variables);
  assert.equal(v.valid, true, `${code}: ${JSON.stringify(v.violations)}`);
  const r = await execute(client, code, v.approval_token, variables);
  assert.ok(!r.isError, errorText(r));
  return r.structuredContent;
}

// Numbers compared as numbers (DuckDB's HUGEINT sums and PostgreSQL's numeric render differently).
const normal = (table) => table.rows.map((row) => row.map((x) => (typeof x === "string" && /^-?\d+(\.\d+)?$/.test(x) ? Number(x) : x)));
// Rows that tie on the ORDER BY may come in either order: compare as sorted sets then.
const unordered = (table) => normal(table).map((r) => JSON.stringify(r)).sort();

describe("code mode on PostgreSQL (least-privilege role)", () => {
  let pg, duck;
  before(async () => {
    pg = await connectStdio(writeConfig("pg", { database: pgDatabase(READ), timeout: 3, maxRows: 100,
                                                autoApprove: ["low", "medium", "high"] }));
    duck = await connectStdio(writeConfig("pg-duck", { maxRows: 100 }));
  });
  after(async () => { await pg?.close(); await duck?.close(); });

  test("seed 003 (CTEs) gives DuckDB's answer verbatim", async () => {
    const code = seed("003_revenue_drop.sql");
    const p = await rows(pg.client, code);
    const d = await rows(duck.client, code);
    assert.ok(p.row_count > 0);
    assert.deepEqual(normal(p), normal(d));
  });

  test("seed 000 (LAG) gives DuckDB's answer; PostgreSQL 15 needs the subquery alias", async () => {
    const verbatim = seed("000_quarterly_metrics.sql");
    const v = await validate(pg.client, verbatim);
    assert.equal(v.valid, false);
    assert.match(v.violations[0].message, /subquery in FROM must have an alias/);
    assert.ok(v.violations[0].line > 0);
    const code = verbatim.replace(/\n\)\nWHERE/, "\n) AS m\nWHERE");
    assert.notEqual(code, verbatim);
    const p = await rows(pg.client, code);
    const d = await rows(duck.client, code);
    assert.ok(p.row_count > 0);
    assert.deepEqual(unordered(p), unordered(d)); // the seed orders by a key with ties
  });

  test("whitespace, comments and keyword case keep the hash; a literal changes it", async () => {
    const a = await validate(pg.client, "SELECT id FROM customers WHERE plan = 'pro' LIMIT 5");
    const b = await validate(pg.client, "select   id\n-- c\nfrom customers /* x */ where plan='pro' limit 5");
    const c = await validate(pg.client, "SELECT id FROM customers WHERE plan = 'free' LIMIT 5");
    assert.equal(a.code_hash, b.code_hash);
    assert.notEqual(a.code_hash, c.code_hash);
  });

  test(`${LEAKS.length} blocked-field leak attempts are refused`, async () => {
    for (const code of LEAKS) await refused(pg.client, code);
  });

  for (const code of ESCAPES) test(`refuses: ${code}`, async () => refused(pg.client, code));

  test("blocked fields still join and look up with = (and are at least high risk)", async () => {
    const code = "SELECT c.plan, count(*) AS n FROM customers c JOIN customers d ON d.ssn = c.ssn WHERE c.email = $1 GROUP BY c.plan";
    const v = await validate(pg.client, code, { 1: "nobody@example.com" });
    assert.equal(v.valid, true, JSON.stringify(v.violations));
    assert.equal(v.risk_level, "high");
    const r = await execute(pg.client, code, v.approval_token, { 1: "nobody@example.com" });
    assert.ok(!r.isError, errorText(r));
  });

  test("a column compared with a blocked one is blocked in the output (taint)", async () => {
    const v = await validate(pg.client, "SELECT d.name FROM customers c JOIN customers d ON d.name = c.ssn");
    assert.equal(v.valid, false);
    assert.match(JSON.stringify(v.violations), /compared with a blocked field/);
  });

  test("variables are parameters, never spliced", async () => {
    const t = await rows(pg.client, "SELECT count(*) AS n FROM customers WHERE plan = $1", { 1: "x' OR '1'='1" });
    assert.equal(t.rows[0][0], 0);
  });

  test("the row cap holds (N and N+1 told apart)", async () => {
    for (const [limit, truncated] of [[100, false], [101, true]]) {
      const t = await rows(pg.client, `SELECT i FROM generate_series(1, ${limit}) AS g(i)`);
      assert.equal(t.row_count, 100);
      assert.equal(t.truncated, truncated);
    }
  });

  test("the time cap stops a runaway cross join", { timeout: 30000 }, async () => {
    await assertStoppedByTimeout(pg.client, "SELECT count(*) AS n FROM orders a, orders b, orders c", 15000);
  });

  // Forms the first version refused though nothing blocked reaches the output: each runs and gives
  // the answer psql gets as the admin.
  const RESOLVED = [
    "SELECT c.plan, count(*) AS n FROM customers c WHERE c.email IN (SELECT d.email FROM customers d WHERE d.id < 100) GROUP BY c.plan ORDER BY c.plan",
    "SELECT (c).name FROM customers c ORDER BY c.id LIMIT 3",
    "SELECT count(*) AS n FROM orders NATURAL JOIN contacts",
    "SELECT j.plan, sum(j.total_cents) AS s FROM (customers c JOIN orders o ON o.customer_id = c.id) AS j GROUP BY j.plan ORDER BY j.plan",
    "SELECT id, rank() OVER w AS r FROM customers WINDOW w AS (PARTITION BY plan ORDER BY id) ORDER BY id LIMIT 5",
    "SELECT a, b FROM unnest(ARRAY[1, 2], ARRAY['x', 'y']) AS u(a, b)",
    "SELECT i, n FROM generate_series(10, 12) WITH ORDINALITY AS g(i, n)",
  ];
  for (const code of RESOLVED)
    test(`resolves: ${code.slice(0, 70)}`, async () => {
      const t = await rows(pg.client, code);
      assert.ok(t.row_count > 0);
      assert.deepEqual(t.rows.map((r) => r.join("|")), admin(code).split("\n"));
    });

  test("output columns carry their types from the catalog", async () => {
    const v = await validate(pg.client, "SELECT c.name, count(*) AS n, c.id::text AS t FROM customers c GROUP BY c.name, c.id LIMIT 1");
    assert.equal(v.valid, true, JSON.stringify(v.violations));
    const text = JSON.stringify(v);
    assert.match(text, /"text"/);
    assert.match(text, /"bigint"/);
  });

  test("an MCP cancellation reaches PostgreSQL: the backend's query is gone", { timeout: 30000 }, async () => {
    const code = "SELECT count(*) AS n FROM orders a, orders b, orders c WHERE a.id > 0";
    const running = () => Number(admin("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'sluice' " +
                                       "AND state = 'active' AND query LIKE 'FETCH%sluice_cursor'"));
    const slow = await connectStdio(writeConfig("pg-cancel", { database: pgDatabase(READ), timeout: 60,
                                                               autoApprove: ["low", "medium", "high"] }));
    try {
      const v = await validate(slow.client, code);
      assert.equal(v.valid, true, JSON.stringify(v.violations));
      const ac = new AbortController();
      const call = slow.client.callTool({ name: "execute_code", arguments: { code, approval_token: v.approval_token } },
                                        undefined, { signal: ac.signal, timeout: 60000 });
      call.catch(() => {});
      let seen = 0;
      for (let i = 0; i < 100 && seen === 0; i++) { await new Promise((r) => setTimeout(r, 50)); seen = running(); }
      assert.equal(seen, 1, "the query never ran on the server");
      const t0 = Date.now();
      ac.abort("e2e cancel");
      await assert.rejects(call, /e2e cancel/);
      let left = seen;
      for (let i = 0; i < 100 && left !== 0; i++) { await new Promise((r) => setTimeout(r, 50)); left = running(); }
      assert.equal(left, 0, "the query still runs on the server");
      assert.ok(Date.now() - t0 < 5000, `the server stopped only after ${Date.now() - t0} ms`);
    } finally {
      await slow.close();
    }
  });

  test("the server survived every attempt and wrote nothing", async () => {
    await pg.client.ping();
    const t = await rows(pg.client, "SELECT count(*) AS n FROM customers");
    assert.ok(t.rows[0][0] >= 5000);
    const o = await rows(pg.client, "SELECT count(*) AS n FROM orders");
    assert.ok(o.rows[0][0] > 0);
  });
});

// `sluice validate` opens the executor, so the start-up probe runs; its stderr is the evidence.
function probe(conninfo) {
  const file = writeConfig(`probe-${conninfo.includes("admin") ? "admin" : "read"}`, { database: pgDatabase(conninfo) });
  const code = path.join(work, "probe.sql");
  writeFileSync(code, "SELECT 1 AS one");
  return spawnSync(sluiceBin, ["validate", "-c", file, code], { encoding: "utf8" });
}

describe("the start-up write probe", () => {
  test("a role that can write is warned about loudly", () => {
    const r = probe(ADMIN);
    assert.match(r.stderr, /WARNING: the PostgreSQL read role can write/);
    assert.match(r.stderr, /superuser/);
  });

  test("the least-privilege role passes silently", () => {
    const r = probe(READ);
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /can write/);
  });
});

describe("the catalog is re-read on SIGHUP", () => {
  test("a new view is unknown until SIGHUP; a redefined view is judged by its new definition", async () => {
    admin("CREATE VIEW sighup_view AS SELECT id, name FROM customers; GRANT SELECT ON sighup_view TO sluice_read");
    const s = await connectStdio(writeConfig("pg-sighup", { database: pgDatabase(READ), autoApprove: ["low", "medium", "high"] }));
    try {
      const judge = (code) => validate(s.client, code);
      assert.equal((await judge("SELECT name FROM sighup_view")).valid, true);
      admin("CREATE VIEW sighup_late AS SELECT id, name FROM customers; GRANT SELECT ON sighup_late TO sluice_read; " +
            "CREATE OR REPLACE VIEW sighup_view AS SELECT id, ssn AS name FROM customers");
      const late = await judge("SELECT name FROM sighup_late");
      assert.equal(late.valid, false, "known before the reload");
      assert.match(JSON.stringify(late.violations), /unknown_table/);
      process.kill(s.pid, "SIGHUP");
      let now = late;
      for (let i = 0; i < 40 && !now.valid; i++) {
        await new Promise((r) => setTimeout(r, 50));
        now = await judge("SELECT name FROM sighup_late");
      }
      assert.equal(now.valid, true, JSON.stringify(now.violations));
      const redefined = await judge("SELECT name FROM sighup_view");
      assert.equal(redefined.valid, false);
      assert.match(JSON.stringify(redefined.violations), /blocked_column/);
    } finally {
      await s.close();
      admin("DROP VIEW sighup_view, sighup_late");
    }
  });
});
