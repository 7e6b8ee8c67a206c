// limits.test.mjs — issue 8 section 2: validate_code and execute_code stay inside their time and
// memory bounds whatever the SQL, measured from OUTSIDE the server: `sluice serve` on the demo
// database over stdio through the official SDK client, its /proc/<pid>/status VmHWM and VmRSS
// sampled while each call runs, wall time taken around each call. Assertions are bounds, not
// speeds. Then the server must still answer an ordinary query.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { writeConfig, connectStdio, validate, execute, errorText } from "./codemode_harness.mjs";

const ANALYSIS_TIMEOUT_MS = 2000;
const ANALYSIS_MEMORY_MB = 256;
const EXEC_TIMEOUT_S = 5;
const MEMORY_LIMIT_MB = 512;
// Slack: one bound's overshoot (RSS polling, page-table copies) and process scheduling on a
// shared 2-core machine; the bounds under test are the configured values.
const RSS_SLACK_MB = 64;
const TIME_SLACK_MS = 3000;

// Folded while binding (constant generators), then the same shapes over table data (run time).
const FOLDING = [
  "SELECT len(range(100000000))",
  "SELECT len(range(10000 * 10000))",
  "SELECT len(range(CAST(CAST('100000000' AS VARCHAR) AS BIGINT)))",
  "SELECT count(*) FROM (SELECT unnest(generate_series(1, 100000000)))",
  "SELECT length(repeat('x', 2000000000))",
  "SELECT length(repeat(repeat('x', 50000), 50000))",
  "SELECT len(list_resize([1], 100000000))",
  "SELECT len(array_resize([1], 100000000))",
  "SELECT len(list_transform(range(20000), x -> range(20000)))",
  "SELECT len(flatten([range(50000000), range(50000000)]))",
];
const RUNTIME = [
  // A scalar subquery is not folded at bind time: it runs (bounded) at execute.
  "SELECT len(range((SELECT 100000000)))",
  "SELECT len(range((id::BIGINT % 1) + 100000000)) AS n FROM customers",
  "SELECT length(repeat(name, 100000000)) AS n FROM customers",
  "SELECT count(*) AS n FROM (SELECT unnest(generate_series(1, (id::BIGINT % 1) + 100000000)) FROM customers)",
  "SELECT len(list_resize([id], (id::BIGINT % 1) + 100000000)) AS n FROM customers",
  "SELECT length(string_agg(r::VARCHAR, ',')) AS n FROM range(100000000) t(r)",
];

function status(pid) {
  const s = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, "m").exec(s)[1]);
  return { hwm: kb("VmHWM") / 1024, rss: kb("VmRSS") / 1024 };
}

// Runs fn while sampling the server's RSS every 20 ms; returns its result, time and peaks.
async function measured(pid, fn) {
  let peakRss = status(pid).rss;
  const timer = setInterval(() => { try { peakRss = Math.max(peakRss, status(pid).rss); } catch {} }, 20);
  const t0 = performance.now();
  try {
    const result = await fn();
    return { result, ms: performance.now() - t0, peakRss, hwm: status(pid).hwm };
  } finally { clearInterval(timer); }
}

test("constant generators and run-time generators stay inside the configured bounds", async () => {
  const cfg = writeConfig("limits", { timeout: EXEC_TIMEOUT_S, autoApprove: ["low", "medium", "high"],
    extra: `analysis_timeout_ms = ${ANALYSIS_TIMEOUT_MS}\nanalysis_memory_mb = ${ANALYSIS_MEMORY_MB}\n` });
  const { client, close, pid } = await connectStdio(cfg);
  try {
    // Warm up (catalog, first connection), then take the baseline.
    const warm = await validate(client, "SELECT count(*) AS n FROM customers");
    assert.equal(warm.valid, true);
    const ok = await execute(client, "SELECT count(*) AS n FROM customers", warm.approval_token);
    assert.equal(ok.isError, undefined, errorText(ok));
    const base = status(pid);
    const rows = [];
    let executed = 0;
    for (const sql of [...FOLDING, ...RUNTIME]) {
      const v = await measured(pid, () => validate(client, sql));
      rows.push({ call: "validate", sql, ms: Math.round(v.ms), peakRssMb: Math.round(v.peakRss),
                  hwmGrowthMb: Math.round(v.hwm - base.hwm), valid: v.result.valid,
                  rules: (v.result.violations ?? []).map((x) => x.rule).join(",") });
      assert.ok(v.ms < 2 * ANALYSIS_TIMEOUT_MS + TIME_SLACK_MS, `validate took ${v.ms} ms: ${sql}`);
      assert.ok(v.hwm - base.hwm < ANALYSIS_MEMORY_MB + RSS_SLACK_MB,
                `validate grew VmHWM by ${v.hwm - base.hwm} MB: ${sql}`);
      if (FOLDING.includes(sql) && !v.result.valid) {
        const lim = v.result.violations.find((x) => x.rule === "analysis_limit");
        if (lim) assert.match(lim.message + lim.suggestion, /analysis_(timeout_ms|memory_mb)/);
      }
      if (!v.result.approval_token) continue;
      executed++;
      const e = await measured(pid, () => execute(client, sql, v.result.approval_token));
      rows.push({ call: "execute", sql, ms: Math.round(e.ms), peakRssMb: Math.round(e.peakRss),
                  hwmGrowthMb: Math.round(e.hwm - base.hwm), error: e.result.isError === true,
                  text: errorText(e.result).slice(0, 120) });
      assert.ok(e.ms < EXEC_TIMEOUT_S * 1000 + TIME_SLACK_MS, `execute took ${e.ms} ms: ${sql}`);
      assert.ok(e.hwm - base.hwm < MEMORY_LIMIT_MB + RSS_SLACK_MB,
                `execute grew VmHWM by ${e.hwm - base.hwm} MB: ${sql}`);
    }
    console.log(`baseline VmHWM ${base.hwm.toFixed(0)} MB, VmRSS ${base.rss.toFixed(0)} MB`);
    for (const r of rows)
      console.log(`${r.call.padEnd(8)} ${String(r.ms).padStart(5)} ms  peak RSS ${r.peakRssMb} MB  ` +
                  `VmHWM +${r.hwmGrowthMb} MB  ${r.call === "validate" ? `valid=${r.valid} ${r.rules}`
                  : `error=${r.error} ${r.text.split("\n")[0]}`}  | ${r.sql}`);
    // The folding family never validates: each is refused, most by the analysis bound itself.
    for (const r of rows.filter((x) => x.call === "validate" && FOLDING.includes(x.sql)))
      assert.equal(r.valid, false, `folding bomb validated: ${r.sql}`);
    assert.ok(rows.some((r) => r.rules.includes("analysis_limit")), "no analysis_limit refusal");
    // At least two run-time bombs got a token, so the execute bound was exercised.
    assert.ok(executed >= 2, `only ${executed} run-time cases reached execute_code`);
    // Still responsive afterwards.
    const again = await validate(client, "SELECT count(*) AS n FROM customers");
    const res = await execute(client, "SELECT count(*) AS n FROM customers", again.approval_token);
    assert.equal(res.isError, undefined, errorText(res));
  } finally { await close(); }
});

// Issue 8 section 4: a NUL byte in code or in a variable gets a reply with the request's id
// (the SDK client matches it, so these calls return instead of timing out).
test("a NUL byte in code is a located refusal; in a variable it is bound exactly", async () => {
  const { client, close } = await connectStdio(writeConfig("nul", { autoApprove: ["low", "medium", "high"] }));
  try {
    const v = await validate(client, "SELECT 1\u0000; DROP TABLE customers");
    assert.equal(v.valid, false);
    const nul = v.violations.find((x) => x.rule === "nul_byte");
    assert.ok(nul, JSON.stringify(v.violations));
    assert.match(nul.message, /byte offset 8/);
    assert.ok(!v.approval_token);
    const ok = await validate(client, "SELECT $v::VARCHAR AS v", { v: "a\u0000b" });
    assert.equal(ok.valid, true, JSON.stringify(ok.violations));
    const r = await execute(client, "SELECT $v::VARCHAR AS v", ok.approval_token, { v: "a\u0000b" });
    assert.equal(r.isError, undefined, errorText(r));
    assert.deepEqual(r.structuredContent.rows, [["a\u0000b"]]);
  } finally { await close(); }
});

// Issue 23 (46d69f7): DuckDB 1.4.4's filter pushdown plans nested subquery expressions in time
// exponential in their depth and never checks for an interrupt, so a statement nesting them deeper
// than 8 binds in the bounded child. Through the real client: 34 levels (hours in-process before
// the fix) are refused at analysis_timeout_ms with a message that names the depth and how to
// rewrite, 8 levels still validate in the server, and the server answers afterwards. 128 joined
// tables (minutes in-process) are refused the same way.
test("subqueries nested 34 deep and 128 joined tables are refused at the analysis deadline", async () => {
  const cfg = writeConfig("nesting", { autoApprove: ["low", "medium", "high"],
    extra: `analysis_timeout_ms = ${ANALYSIS_TIMEOUT_MS}\n` });
  const { client, close } = await connectStdio(cfg);
  const nested = (depth, wrap) => {
    let q = "SELECT 1 AS x";
    for (let i = 0; i < depth; i++) q = wrap(q);
    return q;
  };
  const scalar = (q) => `SELECT (${q}) AS x`;
  const exists = (q) => `SELECT 1 AS x WHERE EXISTS (${q})`;
  try {
    for (const wrap of [scalar, exists]) {
      const shallow = await validate(client, nested(8, wrap));
      assert.equal(shallow.valid, true, JSON.stringify(shallow.violations));
      const sql = nested(34, wrap);
      const t0 = performance.now();
      const v = await validate(client, sql);
      const ms = performance.now() - t0;
      assert.ok(ms < 2 * ANALYSIS_TIMEOUT_MS + TIME_SLACK_MS, `validate took ${ms} ms`);
      assert.equal(v.valid, false, `34 nested subqueries validated: ${sql.slice(0, 80)}`);
      assert.ok(!v.approval_token);
      const lim = v.violations.find((x) => x.rule === "analysis_limit");
      assert.ok(lim, JSON.stringify(v.violations));
      assert.match(lim.message, /nested subqueries/);
      assert.match(lim.message + lim.suggestion, /analysis_timeout_ms/);
    }
    // The same optimizer is super-linear in joined tables: 128 in a cycle of equalities planned
    // for minutes in the server; past 16 they bind in the child, under the deadline.
    const tables = Array.from({ length: 128 }, (_, i) => `orders o${i}`).join(", ");
    const cycle = Array.from({ length: 128 }, (_, i) => `o${i}.id = o${(i + 1) % 128}.id`).join(" AND ");
    const t0 = performance.now();
    const wide = await validate(client, `SELECT count(*) AS n FROM ${tables} WHERE ${cycle}`);
    const ms = performance.now() - t0;
    assert.ok(ms < 2 * ANALYSIS_TIMEOUT_MS + TIME_SLACK_MS, `validate took ${ms} ms`);
    assert.equal(wide.valid, false);
    const lim = wide.violations.find((x) => x.rule === "analysis_limit");
    assert.ok(lim, JSON.stringify(wide.violations));
    assert.match(lim.message, /joined tables/);
    const again = await validate(client, "SELECT count(*) AS n FROM customers");
    const res = await execute(client, "SELECT count(*) AS n FROM customers", again.approval_token);
    assert.equal(res.isError, undefined, errorText(res));
  } finally { await close(); }
});

// Planning time is input: every shape DuckDB's parser or optimizer is known to be slow on, grown
// past the fast path's budgets (text length, subquery nesting, table references, parse-tree
// objects), must come back
// within the analysis deadline — bound in the server when small, refused by the child's deadline
// or a size limit when not, never planned for minutes. Families and sizes: each family at a size
// inside the budgets and one past them.
const SHAPES = {
  joins: (n) => "SELECT o0.id FROM orders o0 " +
    range(1, n).map((i) => `JOIN orders o${i} ON o${i}.id = o${i - 1}.id`).join(" "),
  starjoin: (n) => "SELECT o0.id FROM orders o0 " + range(1, n).map((i) =>
    `JOIN orders o${i} ON o${i}.id = o0.id AND o${i}.customer_id = o${i - 1}.customer_id`).join(" "),
  cross_cycle: (n) => `SELECT count(*) AS n FROM ${range(0, n).map((i) => `orders o${i}`).join(", ")} ` +
    `WHERE ${range(0, n).map((i) => `o${i}.id = o${(i + 1) % n}.id`).join(" AND ")}`,
  clique: (n) => `SELECT count(*) AS n FROM ${range(0, n).map((i) => `orders o${i}`).join(", ")} WHERE ` +
    range(0, n).flatMap((i) => range(i + 1, n).map((j) => `o${i}.id = o${j}.id`)).join(" AND "),
  predicates: (n) => "SELECT id FROM orders WHERE " + range(0, n * 32).map((i) => `id <> ${i}`).join(" AND "),
  pair_predicates: (n) => "SELECT count(*) AS n FROM orders a, orders b WHERE " +
    range(0, n * 8).map((k) => `a.id + ${k} = b.id + ${k}`).join(" AND "),
  or_predicates: (n) => "SELECT count(*) AS n FROM orders a, orders b WHERE " +
    range(0, n * 8).map((k) => `(a.id = b.id + ${k} AND a.customer_id = ${k})`).join(" OR "),
  unions: (n) => nest(n, "SELECT 1 AS a", (q, i) => `SELECT a FROM (${q} UNION SELECT ${i}) u${i}`),
  lateral: (n) => nest(n, "SELECT 1 AS a", (q, i) => `SELECT t${i}.a FROM orders, LATERAL (${q}) t${i}`),
  derived: (n) => nest(n, "SELECT id AS a FROM orders", (q, i) => `SELECT a FROM (${q}) t${i}`),
  case_nest: (n) => `SELECT ${nest(n, "1", (q, i) => `CASE WHEN id > ${i} THEN ${q} ELSE ${i} END`)} AS x FROM orders`,
  or_and_nest: (n) => `SELECT id FROM orders WHERE ${nest(n, "id = 1", (q, i) => `(id = ${i} OR (id > ${i} AND ${q}))`)}`,
  cte_chain: (n) => `WITH c0 AS (SELECT id AS a FROM orders), ${range(1, n).map((i) =>
    `c${i} AS (SELECT a FROM c${i - 1} UNION ALL SELECT a FROM c${i - 1})`).join(", ")} SELECT count(*) AS n FROM c${n - 1}`,
  exists_tree: (n) => nest(Math.min(n, 10), "SELECT 1 AS x",
    (q) => `SELECT 1 AS x WHERE EXISTS (${q}) AND EXISTS (${q.replace(/SELECT 1 AS x/, "SELECT 2 AS x")})`),
  correlated: (n) => "SELECT id FROM orders o0 WHERE " +
    range(1, n).map((i) => `EXISTS (SELECT 1 FROM orders o${i} WHERE o${i}.id = o0.id)`).join(" AND "),
  scalar_list: (n) => "SELECT " + range(0, n).map((i) =>
    `(SELECT max(id) FROM orders x${i} WHERE x${i}.customer_id = o.customer_id) AS s${i}`).join(", ") + " FROM orders o",
  windows: (n) => "SELECT " + range(0, n).map((i) =>
    `sum(id) OVER (PARTITION BY customer_id ORDER BY id ROWS ${i} PRECEDING) AS w${i}`).join(", ") + " FROM orders",
  cube: (n) => `SELECT count(*) AS n FROM orders GROUP BY CUBE(${range(0, Math.min(n, 14)).map((i) => `id % ${i + 2}`).join(", ")})`,
  in_list: (n) => `SELECT id FROM orders WHERE id IN (${range(0, n * 200).join(", ")})`,
  group_by_terms: (n) => `SELECT count(*) AS n FROM orders GROUP BY ${range(2, n * 64).map((i) => `id % ${i}`).join(", ")}`,
  ctes: (n) => `WITH ${range(0, n * 8).map((i) => `c${i} AS (SELECT 1 AS a)`).join(", ")} SELECT 1 AS x`,
};
function range(a, b) { return Array.from({ length: Math.max(0, b - a) }, (_, i) => a + i); }
function nest(n, base, wrap) { let q = base; for (let i = 0; i < n; i++) q = wrap(q, i); return q; }

test("optimizer-heavy shapes come back within the analysis deadline", async () => {
  const deadline = 1000;
  const cfg = writeConfig("shapes", { autoApprove: ["low", "medium", "high"],
    extra: `analysis_timeout_ms = ${deadline}\nsql_max_joins = 64\n` });
  const { client, close } = await connectStdio(cfg);
  const rows = [];
  try {
    for (const [family, make] of Object.entries(SHAPES)) {
      for (const n of [12, 128]) {
        const sql = make(n);
        const t0 = performance.now();
        const v = await validate(client, sql);
        const ms = Math.round(performance.now() - t0);
        const rules = (v.violations ?? []).map((x) => x.rule).join(",");
        rows.push(`${family} ${n}: ${ms} ms valid=${v.valid} ${rules} (${sql.length} bytes)`);
        // the child's deadline, then the parent's own bind of a statement known to fit
        assert.ok(ms < 2 * deadline + TIME_SLACK_MS, `${family} ${n}: validate took ${ms} ms`);
      }
    }
  } finally {
    console.log(rows.join("\n"));
    await close();
  }
});

// On SQLite the analyzer also asks SQLite itself to prepare the statement (never run), and SQLite
// copies a CTE at every reference: 19 CTEs each joining the one before to itself (1 KB) grew the
// server by 150 MB. That prepare now runs first in the bounded child, held to
// analysis_memory_mb and analysis_timeout_ms (issue 23's probe of the SQLite engine).
test("SQLite's own prepare of validate stays inside the configured bounds", async () => {
  const memoryMb = 64;
  const cfg = writeConfig("lite-prepare", { engine: "sqlite", autoApprove: ["low", "medium", "high"],
    extra: `analysis_timeout_ms = ${ANALYSIS_TIMEOUT_MS}\nanalysis_memory_mb = ${memoryMb}\nsql_max_joins = 64\n` });
  const { client, close, pid } = await connectStdio(cfg);
  const chain = (n) => "WITH c0 AS (SELECT id AS a FROM orders), " +
    range(1, n).map((i) => `c${i} AS (SELECT x.a FROM c${i - 1} x JOIN c${i - 1} y USING (a))`).join(", ") +
    ` SELECT count(*) AS n FROM c${n - 1}`;
  try {
    const small = await validate(client, chain(4));
    assert.equal(small.valid, true, JSON.stringify(small.violations));
    const base = status(pid);
    const r = await measured(pid, () => validate(client, chain(19)));
    assert.ok(r.ms < 2 * ANALYSIS_TIMEOUT_MS + TIME_SLACK_MS, `validate took ${r.ms} ms`);
    assert.ok(r.hwm - base.hwm <= memoryMb + RSS_SLACK_MB, `validate grew VmHWM by ${r.hwm - base.hwm} MB`);
    assert.equal(r.result.valid, false);
    const lim = r.result.violations.find((x) => x.rule === "analysis_limit");
    assert.ok(lim, JSON.stringify(r.result.violations));
    assert.match(lim.message, /analysis_memory_mb \(64 MB\)/);
    const ok = await validate(client, "SELECT count(*) AS n FROM orders");
    assert.equal(ok.valid, true, JSON.stringify(ok.violations));
  } finally {
    await close();
  }
});
