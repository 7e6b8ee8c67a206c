// hardening.test.mjs — issue 21 end to end, through the official SDK client (run by
// ctest_postgres.sh after postgres.test.mjs): the inputs that killed the server are answered and
// the server stays up; the attack classes found by the outside corpus (names PostgreSQL resolves
// differently, wrapped comparisons, row-count and order channels) are refused; and an engine
// error never carries a blocked value, on PostgreSQL, DuckDB and SQLite alike: every blocked
// value of the demo database is looked for in every answer, error and audit line.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { assertRefused, connectStdio, errorText, execute, validate, work, writeConfig } from "../e2e/codemode_harness.mjs";
import { admin } from "./pg_admin.mjs";

const READ = process.env.SLUICE_PG_READ;
if (!READ) throw new Error("run through ctest_postgres.sh");

// Every blocked value the demo database holds (PostgreSQL was loaded from the same demo file).
const SECRETS = admin("SELECT ssn FROM customers UNION ALL SELECT email FROM customers")
  .split("\n").filter((s) => s.length >= 6);

function assertNoSecret(text, where) {
  for (const s of SECRETS) assert.ok(!text.includes(s), `${where} carries the blocked value ${s}`);
}

// The classes of the outside corpus, each with variants an attacker who knows PostgreSQL tries.
const ATTACKS = [
  // 2. names PostgreSQL resolves differently
  "WITH RECURSIVE a AS (SELECT name FROM sales_reps), sales_reps AS (SELECT ssn AS name FROM customers) SELECT name FROM a",
  "WITH RECURSIVE a AS (SELECT n FROM b), b(n) AS (SELECT email FROM customers) SELECT n FROM a",
  "SELECT x.\"case\" FROM (SELECT CASE WHEN true THEN ssn END FROM customers) x",
  "SELECT t.value FROM customers c, json_array_elements_text(json_build_array(c.ssn)) t",
  "WITH RECURSIVE t(id, s) AS (SELECT id, ssn FROM customers UNION ALL SELECT id, s FROM t WHERE false) CYCLE s SET seen USING path SELECT path FROM t",
  "WITH RECURSIVE t(id, s) AS (SELECT id, ssn FROM customers UNION ALL SELECT id, s FROM t WHERE false) SEARCH BREADTH FIRST BY s SET ord SELECT id FROM t ORDER BY ord LIMIT 1",
  // 3. comparisons wrapped in OR, NOT, CASE, truth tests
  "SELECT id FROM customers WHERE ssn = '1' OR ssn = '2'",
  "SELECT id FROM customers WHERE NOT (ssn = '1')",
  "SELECT id FROM customers WHERE (ssn = '1') IS NOT TRUE",
  "SELECT id FROM customers WHERE (ssn = '1') = false",
  "SELECT id FROM customers WHERE CASE WHEN ssn = '1' THEN true END",
  "SELECT id FROM customers WHERE coalesce(email = 'a@b.c', false)",
  "SELECT count(*) FILTER (WHERE ssn = '1' OR ssn = '2') AS n FROM customers",
  // 4. row count, order, presence
  "SELECT count(*) AS n FROM customers c, generate_series(1, ascii(substr(c.ssn, 1, 1))) g",
  "SELECT count(*) AS n FROM (SELECT generate_series(1, length(email)) FROM customers) t",
  "SELECT count(*) AS n FROM customers c, unnest(string_to_array(c.ssn, '-')) WITH ORDINALITY u(p, k)",
  "SELECT count(*) AS n FROM customers c, ROWS FROM (generate_series(1, length(c.email))) g",
  "SELECT count(*) AS n FROM customers c, LATERAL (SELECT 1 LIMIT ascii(c.ssn)) x",
  "VALUES (1), (2) ORDER BY 1 LIMIT (SELECT ascii(ssn) FROM customers LIMIT 1)",
  "SELECT DISTINCT ON (ssn) name FROM customers LIMIT 1",
  "SELECT name FROM customers ORDER BY ssn = '123-45-6789' DESC LIMIT 1",
  "SELECT name, rank() OVER (PARTITION BY email) AS r FROM customers",
  "SELECT name FROM customers GROUP BY name, (ssn < '5')",
];

describe("issue 21 on PostgreSQL", () => {
  let pg;
  before(async () => {
    pg = await connectStdio(writeConfig("pg-hardening", { database: `engine = "postgres"\nconninfo = "${READ}"`,
                                                          timeout: 3, maxRows: 100,
                                                          autoApprove: ["low", "medium", "high"] }));
  });
  after(async () => { await pg?.close(); });

  test("the inputs that killed the server are answered, and it stays up", async () => {
    const v1 = await validate(pg.client, "VALUES ((SELECT 1))");
    assert.equal(v1.valid, true, JSON.stringify(v1.violations));
    const r = await execute(pg.client, "VALUES ((SELECT 1))", v1.approval_token);
    assert.ok(!r.isError, errorText(r));
    const v2 = await validate(pg.client, "VALUES (count(*) OVER w)");
    assert.equal(v2.valid, false);
    const chain = "SELECT 1" + "+1".repeat(70000);
    const v3 = await validate(pg.client, chain);
    assert.equal(v3.valid, false);
    assert.match(v3.violations[0].message, /limit is 2000/);
    const v4 = await validate(pg.client, "SELECT " + "(".repeat(5000) + "1" + ")".repeat(5000));
    assert.equal(v4.valid, false);
    assert.match(v4.violations[0].message, /limit is 100/);
    const v5 = await validate(pg.client, "SELECT 1 AS alive");
    assert.equal(v5.valid, true);
  });

  test(`${ATTACKS.length} attacks of the outside corpus's classes are refused`, async () => {
    for (const code of ATTACKS) {
      await assertRefused(pg.client, code);
      const v = await validate(pg.client, code);
      if (v.valid) assert.fail(`accepted: ${code}`);
    }
  });

  test("SIMILAR TO and LIKE ... ESCAPE work on ordinary columns", async () => {
    for (const code of ["SELECT count(*) AS n FROM customers WHERE name SIMILAR TO '(A|B)%'",
                        "SELECT count(*) AS n FROM customers WHERE name LIKE 'A!%%' ESCAPE '!'"]) {
      const v = await validate(pg.client, code);
      assert.equal(v.valid, true, JSON.stringify(v.violations));
      const r = await execute(pg.client, code, v.approval_token);
      assert.ok(!r.isError, errorText(r));
      assert.equal(String(r.structuredContent.rows[0][0]), admin(code));
    }
  });

  test("planning is bounded at validate: 40 chained CTEs are refused with the limit", async () => {
    let code = "WITH a0 AS (SELECT id FROM orders)";
    for (let i = 1; i <= 40; i++) code += `, a${i} AS (SELECT id FROM a${i - 1})`;
    const v = await validate(pg.client, code + " SELECT count(*) FROM a40");
    assert.equal(v.valid, false);
    assert.match(v.violations.map((x) => x.message).join(" "), /CTEs \(limit is 32\)/);
  });
});

// Planning is analysis: PostgreSQL plans a statement at validate under analysis_timeout_ms (as
// DuckDB binds it), and what the planner multiplies is counted before it is asked (issue 23's
// probe of the PostgreSQL engine with session 14's optimizer-heavy shapes).
describe("PostgreSQL's planning is bounded at validate", () => {
  const chain = (n, how) => "WITH c0 AS (SELECT id AS a FROM orders), " +
    Array.from({ length: n - 1 }, (_, k) =>
      `c${k + 1} AS ${how}(SELECT x.a FROM c${k} x JOIN c${k} y USING (a))`).join(", ") +
    ` SELECT count(*) AS n FROM c${n - 1}`;
  let pg;
  before(async () => {
    pg = await connectStdio(writeConfig("pg-planning", { database: `engine = "postgres"\nconninfo = "${READ}"`,
                                                         autoApprove: ["low", "medium", "high"],
                                                         extra: "analysis_timeout_ms = 300\nsql_max_joins = 64" }));
  });
  after(async () => { await pg?.close(); });

  test("a plan past analysis_timeout_ms is refused, naming the setting", async () => {
    // 4,096 grouping sets: PostgreSQL 15 plans them for seconds
    const cube = "SELECT count(*) AS n FROM orders GROUP BY CUBE(" +
      Array.from({ length: 12 }, (_, k) => `id % ${k + 2}`).join(", ") + ")";
    const v = await validate(pg.client, cube);
    assert.equal(v.valid, false);
    assert.equal(v.violations[0].rule, "analysis_limit", JSON.stringify(v.violations));
    assert.match(v.violations[0].message, /analysis_timeout_ms \(300 ms\)/);
  });

  test("NOT MATERIALIZED CTEs count at every reference; the server stays up", async () => {
    // 12 levels are 2^12 copies: before, PostgreSQL's backend grew until the OOM killer took
    // it, restarting the whole server
    const v = await validate(pg.client, chain(12, "NOT MATERIALIZED "));
    assert.equal(v.valid, false);
    assert.equal(v.violations[0].rule, "too_complex", JSON.stringify(v.violations));
    assert.match(v.violations[0].message, /NOT MATERIALIZED CTE included \(limit is 64\)/);
    const ok = await validate(pg.client, "SELECT count(*) AS n FROM orders");
    assert.equal(ok.valid, true, JSON.stringify(ok.violations));
  });

  test("a row estimate past 2^63 is read, not an internal error", async () => {
    // materialized, the same chain is planned once per CTE; its estimate overflows an integer
    const v = await validate(pg.client, chain(8, ""));
    assert.equal(v.valid, true, JSON.stringify(v.violations));
  });
});

// Statements that reference a blocked column somewhere other than a predicate and fail at run
// time with an error that would quote a value; each engine's version of the same mistake.
const ERRORS = {
  postgres: [
    "WITH m AS MATERIALIZED (SELECT ssn::int AS x FROM customers) SELECT count(*) AS n FROM m",
    "WITH m AS MATERIALIZED (SELECT email::date AS x FROM customers) SELECT count(*) AS n FROM m",
    "SELECT c.id FROM customers c JOIN customers d ON d.ssn = c.ssn WHERE c.name::int > 0",
    "SELECT count(*) AS n FROM customers WHERE ssn = $1 AND name::numeric > 0",
  ],
  duckdb: [
    "WITH m AS MATERIALIZED (SELECT CAST(ssn AS INTEGER) AS x FROM customers) SELECT count(*) AS n FROM m",
    "SELECT c.id FROM customers c JOIN customers d ON d.ssn = c.ssn WHERE CAST(c.name AS INTEGER) > 0",
    "SELECT count(*) AS n FROM customers WHERE ssn = $1 AND CAST(name AS INTEGER) > 0",
  ],
  sqlite: [
    "SELECT c.id FROM customers c JOIN customers d ON d.ssn = c.ssn WHERE json_extract(c.name, '$') > 0",
    "SELECT count(*) AS n FROM customers WHERE ssn = $1 AND json(name) IS NOT NULL",
  ],
};

describe("errors never carry a blocked value, on every SQL engine", () => {
  const engines = {
    postgres: () => writeConfig("err-pg", { database: `engine = "postgres"\nconninfo = "${READ}"`,
                                            autoApprove: ["low", "medium", "high"] }),
    duckdb: () => writeConfig("err-duck", { autoApprove: ["low", "medium", "high"] }),
    sqlite: () => writeConfig("err-lite", { engine: "sqlite", autoApprove: ["low", "medium", "high"] }),
  };
  for (const [engine, config] of Object.entries(engines))
    test(`${engine}: the error keeps its class and place, never the value; the audit line too`, async () => {
      const file = config();
      const s = await connectStdio(file);
      let failed = 0;
      try {
        for (const code of ERRORS[engine]) {
          const variables = code.includes("$1") ? { 1: SECRETS[0] } : undefined;
          const v = await validate(s.client, code, variables);
          if (!v.valid) continue; // refused outright: nothing can leak through an error
          const r = await execute(s.client, code, v.approval_token, variables);
          if (!r.isError) continue;
          failed++;
          const text = errorText(r);
          assertNoSecret(text, `${engine}: ${code}`);
          assert.match(text, /SQLSTATE|Error|error/, `${engine}: the error lost its class: ${text}`);
        }
      } finally {
        await s.close();
      }
      assert.ok(failed >= 1, `${engine}: no statement reached the engine's error path`);
      const audit = readFileSync(path.join(work, path.basename(file).replace(/\.toml$/, ".audit.jsonl")), "utf8");
      // the variables are the caller's own guess; only values the engine read must never show
      for (const line of audit.split("\n"))
        for (const secret of SECRETS.slice(1)) assert.ok(!line.includes(secret), `${engine} audit: ${secret}`);
    });
});

// One contract, three engines: each row of the rule table (docs/security.md, "Blocked fields:
// one contract for every SQL engine") with a statement every engine parses, and the verdict
// every engine must give. "DISTINCT ON where the engine sorts" is the one row whose statement
// differs by engine (PostgreSQL sorts; tests/unit/test_pgsql_lineage_shared.c).
const CONTRACT = [
  ["= a base-table column (join)", "SELECT c.name FROM customers c JOIN customers d ON d.ssn = c.ssn", true],
  ["= one literal", "SELECT name FROM customers WHERE ssn = '123-45-6789'", true],
  ["= one parameter", "SELECT name FROM customers WHERE ssn = $1", true],
  ["= one parameter, AND-ed", "SELECT name FROM customers WHERE id = 1 AND ssn = $1", true],
  ["IS [NOT] NULL", "SELECT count(*) AS n FROM customers WHERE email IS NULL", true],
  ["GROUP BY the bare column", "SELECT count(*) AS n FROM customers GROUP BY ssn", true],
  ["IN (SELECT col FROM table)", "SELECT name FROM customers WHERE ssn IN (SELECT ssn FROM customers WHERE id < 10)", true],
  ["through a subquery's column, bare", "SELECT count(*) AS n FROM (SELECT ssn AS s FROM customers) t WHERE t.s = $1", true],
  ["= a generated value", "SELECT v.x FROM (VALUES ('1')) v(x) JOIN customers c ON c.ssn = v.x", false],
  ["= an expression", "SELECT name FROM customers WHERE ssn = name || ''", false],
  ["<> / !=", "SELECT name FROM customers WHERE ssn <> '1'", false],
  ["a range", "SELECT name FROM customers WHERE ssn < '5'", false],
  ["a pattern", "SELECT name FROM customers WHERE email LIKE '%@x.com'", false],
  ["IN (list)", "SELECT name FROM customers WHERE ssn IN ('1', '2')", false],
  ["a function of it", "SELECT name FROM customers WHERE length(ssn) = 11", false],
  ["inside OR", "SELECT name FROM customers WHERE ssn = '1' OR ssn = '2'", false],
  ["inside NOT", "SELECT name FROM customers WHERE NOT (ssn = '1')", false],
  ["inside CASE", "SELECT name FROM customers WHERE CASE WHEN ssn = '1' THEN 1 ELSE 0 END = 1", false],
  ["inside IS TRUE", "SELECT name FROM customers WHERE (ssn = '1') IS TRUE", false],
  ["ORDER BY", "SELECT name FROM customers ORDER BY ssn LIMIT 1", false],
  ["LIMIT computed from it", "SELECT name FROM customers LIMIT (SELECT length(ssn) FROM customers LIMIT 1)", false],
  ["PARTITION BY", "SELECT name, row_number() OVER (PARTITION BY ssn) AS r FROM customers", false],
  ["a FROM function's argument (row count)", "SELECT count(*) AS n FROM customers c, generate_series(1, length(c.ssn)) g", false],
  ["the output", "SELECT ssn FROM customers", false],
  ["the output, transformed", "SELECT upper(email) AS e FROM customers", false],
];

describe("one contract, three engines (the rule table of docs/security.md)", () => {
  const servers = {};
  before(async () => {
    servers.postgres = await connectStdio(writeConfig("contract-pg", { database: `engine = "postgres"\nconninfo = "${READ}"` }));
    servers.duckdb = await connectStdio(writeConfig("contract-duck"));
    servers.sqlite = await connectStdio(writeConfig("contract-lite", { engine: "sqlite" }));
  });
  after(async () => { for (const s of Object.values(servers)) await s.close(); });
  for (const [row, code, allowed] of CONTRACT)
    test(`${allowed ? "allowed" : "refused"}: ${row}`, async () => {
      const variables = code.includes("$1") ? { 1: "123-45-6789" } : undefined;
      for (const [engine, s] of Object.entries(servers)) {
        const v = await validate(s.client, code, variables);
        assert.equal(v.valid, allowed, `${engine}: ${code}: ${JSON.stringify(v.violations)}`);
        if (!allowed)
          assert.ok(v.violations.some((x) => /blocked|unanalyzable|plan_refused/.test(x.rule)),
                    `${engine} refused ${code} for another reason: ${JSON.stringify(v.violations)}`);
      }
    });
});
