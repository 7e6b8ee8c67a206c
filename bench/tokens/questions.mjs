// questions.mjs — the token benchmark's questions: for each, the ONE SQL statement a code-mode
// agent sends, and the naive agent — the chain of curated list/get calls (bench/tokens/tools.toml)
// a model would make, in the order it would make them, with the join and aggregation done in JS
// (standing in for the model). Both return rows; run.mjs checks they are the same answer.
//
// The naive agents are deliberately frugal: they use the most selective filter each tool offers
// and narrow before they fan out, so the naive token counts are a lower bound, not a straw man.
// "Today" is 2026-09-30, where the demo data ends.
// A question with `graphql` is answered in code mode by ONE GraphQL operation on a sluice in
// front of examples/graphql/server.mjs (the same demo database); `rows` flattens its response to
// the rows the naive agent builds.
// A question with `javascript` is answered in code mode by ONE JavaScript plan on a sluice in
// front of examples/cost-coach/server.mjs (the OpenAPI engine); its naive agent runs on `rest`,
// an MCP server with one tool per REST operation of the spec (rest_mirror.mjs).

import { readFileSync } from "node:fs";

const cents = (s) => Math.round(Number(s) * 100); // DECIMAL(…,2) arrives as a string
const countBy = (rows, key) => rows.reduce((m, r) => m.set(r[key], (m.get(r[key]) ?? 0) + 1), new Map());
const sumBy = (rows, key, val) => rows.reduce((m, r) => m.set(r[key], (m.get(r[key]) ?? 0) + val(r)), new Map());

export const QUESTIONS = [
  {
    id: "seed003_enterprise_decline",
    label: "003 enterprise decline",
    seed: "003",
    question: "Which enterprise customers had declining order revenue in 2026-Q2 (vs 2026-Q1) and more than three support tickets in 2026-Q2?",
    sql: `WITH current_revenue AS (
  SELECT customer_id, SUM(total_cents) AS current_total_cents
  FROM orders
  WHERE order_date >= DATE '2026-04-01' AND order_date < DATE '2026-07-01'
  GROUP BY customer_id
),
previous_revenue AS (
  SELECT customer_id, SUM(total_cents) AS previous_total_cents
  FROM orders
  WHERE order_date >= DATE '2026-01-01' AND order_date < DATE '2026-04-01'
  GROUP BY customer_id
),
ticket_counts AS (
  SELECT customer_id, COUNT(*) AS ticket_count
  FROM support_tickets
  WHERE created_at >= TIMESTAMP '2026-04-01 00:00:00' AND created_at < TIMESTAMP '2026-07-01 00:00:00'
  GROUP BY customer_id
)
SELECT c.id, c.name, current_revenue.current_total_cents, previous_revenue.previous_total_cents,
       ticket_counts.ticket_count
FROM customers c
JOIN current_revenue ON current_revenue.customer_id = c.id
JOIN previous_revenue ON previous_revenue.customer_id = c.id
JOIN ticket_counts ON ticket_counts.customer_id = c.id
WHERE c.plan = 'enterprise'
  AND current_revenue.current_total_cents < previous_revenue.previous_total_cents
  AND ticket_counts.ticket_count > 3
ORDER BY previous_revenue.previous_total_cents - current_revenue.current_total_cents DESC, c.id
LIMIT 20`,
    // customers(enterprise) -> Q2 tickets (narrow to > 3) -> each candidate's H1 orders.
    async naive(a) {
      const ent = await a.pages("list_customers", { plan: "enterprise" });
      const byId = new Map(ent.map((c) => [c.id, c]));
      const tickets = await a.pages("list_support_tickets",
        { customer_id: 0, status: "", start_date: "2026-04-01", end_date: "2026-07-01" });
      const tc = countBy(tickets.filter((t) => byId.has(t.customer_id)), "customer_id");
      const out = [];
      for (const [id, n] of [...tc].filter(([, n]) => n > 3).sort((x, y) => x[0] - y[0])) {
        const orders = await a.pages("list_orders",
          { customer_id: id, start_date: "2026-01-01", end_date: "2026-07-01" });
        const q2 = orders.filter((o) => o.order_date >= "2026-04-01");
        const q1 = orders.filter((o) => o.order_date < "2026-04-01");
        if (!q1.length || !q2.length) continue; // the inner joins need both quarters
        const cur = q2.reduce((s, o) => s + o.total_cents, 0);
        const prev = q1.reduce((s, o) => s + o.total_cents, 0);
        if (cur < prev) out.push([id, byId.get(id).name, cur, prev, n]);
      }
      out.sort((x, y) => (y[3] - y[2]) - (x[3] - x[2]) || x[0] - y[0]);
      return out.slice(0, 20);
    },
  },
  {
    id: "seed000_three_month_decline",
    label: "000 3-month decline",
    seed: "000",
    question: "The top 20 customers whose spend fell three months in a row (Jun→Jul→Aug→Sep 2026), with their Jul–Sep ticket volume, not contacted in the 14 days before 2026-09-30.",
    sql: `WITH spend AS (
  SELECT customer_id,
         SUM(CASE WHEN order_date < DATE '2026-07-01' THEN total_cents ELSE 0 END) AS jun,
         SUM(CASE WHEN order_date >= DATE '2026-07-01' AND order_date < DATE '2026-08-01' THEN total_cents ELSE 0 END) AS jul,
         SUM(CASE WHEN order_date >= DATE '2026-08-01' AND order_date < DATE '2026-09-01' THEN total_cents ELSE 0 END) AS aug,
         SUM(CASE WHEN order_date >= DATE '2026-09-01' THEN total_cents ELSE 0 END) AS sep
  FROM orders
  WHERE order_date >= DATE '2026-06-01' AND order_date < DATE '2026-10-01'
  GROUP BY customer_id
),
tickets AS (
  SELECT customer_id, COUNT(*) AS ticket_count
  FROM support_tickets
  WHERE created_at >= TIMESTAMP '2026-07-01 00:00:00' AND created_at < TIMESTAMP '2026-10-01 00:00:00'
  GROUP BY customer_id
)
SELECT c.id, c.name, s.jun - s.sep AS spend_drop_cents, COALESCE(t.ticket_count, 0) AS ticket_count
FROM spend s
JOIN customers c ON c.id = s.customer_id
JOIN contacts k ON k.customer_id = c.id
LEFT JOIN tickets t ON t.customer_id = c.id
WHERE s.jul < s.jun AND s.aug < s.jul AND s.sep < s.aug
  AND k.last_contacted_at < TIMESTAMP '2026-09-16 00:00:00'
ORDER BY spend_drop_cents DESC, c.id
LIMIT 20`,
    // orders Jun..Sep (no narrower filter exists) -> monthly spend -> contacts -> tickets -> names.
    async naive(a) {
      const orders = await a.pages("list_orders",
        { customer_id: 0, start_date: "2026-06-01", end_date: "2026-10-01" });
      const months = new Map();
      for (const o of orders) {
        const m = months.get(o.customer_id) ?? [0, 0, 0, 0];
        m[Number(o.order_date.slice(5, 7)) - 6] += o.total_cents;
        months.set(o.customer_id, m);
      }
      const falling = [...months].filter(([, m]) => m[1] < m[0] && m[2] < m[1] && m[3] < m[2]);
      const stale = new Set((await a.pages("list_contacts", { contacted_before: "2026-09-16" }))
        .map((k) => k.customer_id));
      const top = falling.filter(([id]) => stale.has(id))
        .map(([id, m]) => [id, m[0] - m[3]])
        .sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, 20);
      const tickets = await a.pages("list_support_tickets",
        { customer_id: 0, status: "", start_date: "2026-07-01", end_date: "2026-10-01" });
      const tc = countBy(tickets, "customer_id");
      const out = [];
      for (const [id, drop] of top) {
        const [c] = await a.rows("get_customer", { id });
        out.push([id, c.name, drop, tc.get(id) ?? 0]);
      }
      return out;
    },
  },
  {
    id: "seed000_rep_steepest_drop",
    label: "000 rep drop",
    seed: "000",
    question: "The five sales reps whose accounts had the steepest revenue drop in 2026-Q1, only where the account opened more than three tickets that quarter.",
    sql: `SELECT *
FROM (
    SELECT
        rep_id,
        customer_id,
        quarterly_revenue,
        LAG(quarterly_revenue) OVER (
            PARTITION BY customer_id
            ORDER BY quarter
        ) AS previous_quarter_revenue,
        ticket_count,
        quarter
    FROM account_quarterly_metrics
)
WHERE quarter = '2026-Q1'
  AND previous_quarter_revenue IS NOT NULL
  AND ticket_count > 3
ORDER BY
    (quarterly_revenue - previous_quarter_revenue) ASC, customer_id
LIMIT 5`,
    // 2026-Q1 metrics (narrow to > 3 tickets) -> 2025-Q4 metrics -> history of accounts lacking Q4.
    async naive(a) {
      const q1 = (await a.pages("list_account_quarterly_metrics", { quarter: "2026-Q1", customer_id: 0 }))
        .filter((r) => r.ticket_count > 3);
      const q4 = new Map((await a.pages("list_account_quarterly_metrics", { quarter: "2025-Q4", customer_id: 0 }))
        .map((r) => [r.customer_id, r]));
      const out = [];
      for (const r of q1) {
        let prev = q4.get(r.customer_id);
        if (!prev) { // LAG takes the latest earlier quarter the account has a row for
          const hist = (await a.pages("list_account_quarterly_metrics", { quarter: "", customer_id: r.customer_id }))
            .filter((h) => h.quarter < "2026-Q1");
          prev = hist[hist.length - 1];
        }
        if (prev) out.push([r.rep_id, r.customer_id, r.quarterly_revenue, prev.quarterly_revenue,
                            r.ticket_count, r.quarter]);
      }
      out.sort((x, y) => (cents(x[2]) - cents(x[3])) - (cents(y[2]) - cents(y[3])) || x[1] - y[1]);
      return out.slice(0, 5);
    },
  },
  {
    id: "seed004_invoices_by_status",
    label: "004 invoices",
    seed: "004",
    question: "How many invoices were there in 2026 by status, and what was the average total?",
    sql: `SELECT status, COUNT(*) AS invoice_count, ROUND(AVG(total), 2) AS avg_total
FROM invoices
WHERE date >= DATE '2026-01-01'
GROUP BY status
ORDER BY status`,
    // every 2026 invoice: an average needs every row (seed 004's point).
    async naive(a) {
      const inv = await a.pages("list_invoices",
        { status: "", start_date: "2026-01-01", end_date: "2027-01-01" });
      const n = countBy(inv, "status");
      const sum = sumBy(inv, "status", (r) => cents(r.total));
      return [...n.keys()].sort().map((s) => [s, n.get(s), Math.round(sum.get(s) / n.get(s)) / 100]);
    },
    // seed 004's own flow through query mode: the vendor REST API (examples/query-mode) loaded
    // into a session table, then one aggregate. The model sees a count, then four rows.
    async querymode(a) {
      await a.call("load", { source: "invoices", where: "Date >= '2026-01-01'" });
      return (await a.call("query", { sql: `SELECT Status, count(*) AS invoice_count, round(avg(Total), 2) AS avg_total
FROM invoices GROUP BY Status ORDER BY Status` })).rows;
    },
  },
  {
    id: "seed000_graphql_snapshot",
    label: "000 GraphQL snapshot",
    seed: "000",
    question: "For the three most recently onboarded customers, give me their name, segment, their last two orders with total, and any open support tickets",
    // the seed's operation, verbatim (the file the e2e test and the fuzzer use)
    graphql: readFileSync(new URL("../../tests/fuzz/corpus/fuzz_graphql/seed000_snapshot.graphql", import.meta.url), "utf8"),
    rows: (data) => data.customers.flatMap((c) => [
      ...c.orders.map((o) => [c.id, c.name, c.segment, "order", o.id, Math.round(o.total * 100), o.placedAt]),
      ...c.supportTickets.map((t) => [c.id, c.name, c.segment, "ticket", t.id, t.subject, t.priority]),
    ]),
    // One tool per resource, as a REST mirror has: every customer (no sort by onboarding date),
    // then each of the newest three's orders and open tickets.
    async naive(a) {
      const desc = (k) => (x, y) => (x[k] < y[k] ? 1 : x[k] > y[k] ? -1 : y.id - x.id);
      const newest = (await a.pages("list_customers", { plan: "" })).sort(desc("created_at")).slice(0, 3);
      const out = [];
      for (const c of newest) {
        const orders = (await a.pages("list_orders", { customer_id: c.id, start_date: "1970-01-01", end_date: "2100-01-01" }))
          .sort(desc("order_date")).slice(0, 2);
        const open = (await a.pages("list_support_tickets",
          { customer_id: c.id, status: "open", start_date: "1970-01-01", end_date: "2100-01-01" })).sort(desc("created_at"));
        out.push(...orders.map((o) => [c.id, c.name, c.segment, "order", o.id, o.total_cents, o.order_date]),
                 ...open.map((t) => [c.id, c.name, c.segment, "ticket", t.id, t.subject, t.priority]));
      }
      return out;
    },
  },
  {
    id: "seed000_budgets_plan",
    label: "000 budgets (JS plan)",
    seed: "000",
    question: "Which budgets are forecast over their limit this month (2026-11), the ten furthest over, with each owner's name and team?",
    // the seed's plan, verbatim (as the e2e test holds it)
    javascript: readFileSync(new URL("../../tests/e2e/cost_coach.test.mjs", import.meta.url), "utf8")
      .match(/const SEED_PLAN = `([\s\S]*?)`;\n/)[1].replace(/\\`/g, "`").replace(/\\\$/g, "$"),
    variables: { month: "2026-11" },
    rows: (value) => value.map((r) => [r.budget, r.owner, r.team, r.amount, r.forecast_delta]),
    // One tool per REST operation: listForecasts, then getUser for each of the ten owners.
    naiveServer: "rest",
    async naive(a) {
      const { items } = await a.call("listForecasts", { month: "2026-11" });
      a.rowsSeen += items.length;
      const top = items.filter((b) => b.forecast > b.limit)
        .sort((x, y) => (y.forecast - y.limit) - (x.forecast - x.limit)).slice(0, 10);
      const out = [];
      for (const b of top) {
        const u = await a.call("getUser", { id: b.ownerId });
        a.rowsSeen++;
        out.push([b.name, u.name, u.team, b.limit, b.forecast - b.limit]);
      }
      return out;
    },
  },
  {
    id: "own_open_ticket_leaders",
    label: "own open tickets",
    seed: "own",
    question: "Which 10 customers have the most open support tickets, and what plan are they on?",
    sql: `SELECT c.id, c.name, c.plan, COUNT(*) AS open_tickets
FROM support_tickets t
JOIN customers c ON c.id = t.customer_id
WHERE t.status = 'open'
GROUP BY c.id, c.name, c.plan
ORDER BY open_tickets DESC, c.id
LIMIT 10`,
    // open tickets (status filter) -> count per customer -> get_customer for the top ten.
    async naive(a) {
      const open = await a.pages("list_support_tickets",
        { customer_id: 0, status: "open", start_date: "2025-01-01", end_date: "2026-10-01" });
      const top = [...countBy(open, "customer_id")].sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, 10);
      const out = [];
      for (const [id, n] of top) {
        const [c] = await a.rows("get_customer", { id });
        out.push([id, c.name, c.plan, n]);
      }
      return out;
    },
  },
];

// The world's questions (issue 26): broad surfaces nobody here wrote, each with `surface`:
//   github-rest     @octokit/openapi's api.github.com (~1,000 operations) against
//                   github_rest_stub.mjs; naive = rest_mirror.mjs, one tool per operation;
//   github-graphql  @octokit/graphql-schema against github_graphql_stub.mjs; naive =
//                   graphql_mirror.mjs (the whole schema, then a query);
//   warehouse       a DuckDB warehouse of 300 tables (surfaces.mjs); naive = one list tool per table.
// The code-mode agent reads the fixed context, then `discover` (the search and describe calls a
// model makes before it can write the program), then validates and executes.
const parse = (r) => JSON.parse(r.text);
export const WORLD = [
  {
    id: "github_rest_recent_issues",
    label: "GitHub REST issues",
    seed: "002",
    surface: "github-rest",
    question: "The five most recently updated open issues of octo/hello: number, title, author login and comment count.",
    javascript: `const issues = await api.get("/repos/octo/hello/issues", { state: "open", sort: "updated", per_page: 5 });
return issues.map((i) => ({ number: i.number, title: i.title, author: i.user.login, comments: i.comments }));`,
    rows: (value) => value.map((i) => [i.number, i.title, i.author, i.comments]),
    async discover(a) {
      await a.call("search", { query: "list repository issues" });
      await a.call("describe", { name: "issues/list-for-repo" });
      await a.call("describe", { name: "issue" });
    },
    async naive(a) {
      const issues = parse(await a.text("issues_list-for-repo", { owner: "octo", repo: "hello", state: "open", sort: "updated", per_page: 5 }));
      a.rowsSeen += issues.length;
      return issues.map((i) => [i.number, i.title, i.user.login, i.comments]);
    },
  },
  {
    id: "github_rest_pull_files",
    label: "GitHub REST pull files",
    seed: "002",
    surface: "github-rest",
    question: "For the three most recently updated open pull requests of octo/hello: the files each changes and its reviews' states.",
    javascript: `const pulls = await api.get("/repos/octo/hello/pulls", { state: "open", sort: "updated", per_page: 3 });
const out = [];
for (const p of pulls) {
  const files = await api.get(\`/repos/octo/hello/pulls/\${p.number}/files\`);
  const reviews = await api.get(\`/repos/octo/hello/pulls/\${p.number}/reviews\`);
  out.push({ number: p.number, files: files.map((f) => f.filename).join(","), reviews: reviews.map((r) => r.state).join(",") });
}
return out;`,
    rows: (value) => value.map((p) => [p.number, p.files, p.reviews]),
    async discover(a) {
      await a.call("search", { query: "pull request files reviews" });
      await a.call("describe", { name: "pulls/list pulls/list-files pulls/list-reviews" });
    },
    async naive(a) {
      const pulls = parse(await a.text("pulls_list", { owner: "octo", repo: "hello", state: "open", sort: "updated", per_page: 3 }));
      const out = [];
      for (const p of pulls) {
        const files = parse(await a.text("pulls_list-files", { owner: "octo", repo: "hello", pull_number: p.number }));
        const reviews = parse(await a.text("pulls_list-reviews", { owner: "octo", repo: "hello", pull_number: p.number }));
        a.rowsSeen += files.length + reviews.length;
        out.push([p.number, files.map((f) => f.filename).join(","), reviews.map((r) => r.state).join(",")]);
      }
      return out;
    },
  },
  {
    id: "github_graphql_open_issues",
    label: "GitHub GraphQL issues",
    seed: "002",
    surface: "github-graphql",
    question: "How many open issues does octo/demo have, and what are the first five titles?",
    graphql: `query OpenIssues { repository(owner: "octo", name: "demo") { issues(first: 5, states: OPEN) { totalCount nodes { number title } } } }`,
    rows: (data) => data.repository.issues.nodes.map((n) => [data.repository.issues.totalCount, n.number, n.title]),
    async discover(a) {
      await a.call("search", { query: "repository" });
      await a.call("describe", { name: "Repository IssueConnection" }); // both types, one call
    },
    async naive(a) {
      await a.text("introspect_schema", {});
      const { data } = parse(await a.text("query_graphql", { query: this.graphql }));
      return this.rows(data);
    },
  },
  {
    id: "warehouse_open_orders_items",
    label: "warehouse orders/items",
    seed: "002",
    surface: "warehouse",
    question: "The five open sales orders with the largest total of sales items: order id, order amount, item count, items total.",
    sql: `SELECT o.id, o.amount, COUNT(*) AS items, SUM(i.amount) AS items_total
FROM sales_orders o JOIN sales_items i ON i.sales_orders_id = o.id
WHERE o.status = 'open'
GROUP BY o.id, o.amount
ORDER BY items_total DESC, o.id
LIMIT 5`,
    async discover(a) {
      await a.call("search", { query: "sales orders items" });
      await a.call("describe", { name: "sales_orders sales_items" });
    },
    async naive(a) {
      const orders = new Map((await a.pages("list_sales_orders", { status: "open" })).map((o) => [o.id, o]));
      const items = (await a.pages("list_sales_items", { status: "" })).filter((i) => orders.has(i.sales_orders_id));
      const count = countBy(items, "sales_orders_id");
      const total = sumBy(items, "sales_orders_id", (i) => cents(i.amount));
      return [...count.keys()].map((id) => [id, orders.get(id).amount, count.get(id), total.get(id) / 100])
        .sort((x, y) => y[3] - x[3] || x[0] - y[0]).slice(0, 5);
    },
  },
  {
    id: "warehouse_open_invoices_by_area",
    label: "warehouse invoices by area",
    seed: "002",
    surface: "warehouse",
    question: "Across the ten subject areas' invoices tables, how many invoices are open and what do they amount to, per area?",
    sql: "SELECT * FROM (\n" + ["sales", "billing", "support", "marketing", "hr", "inventory", "shipping", "finance", "product", "web"]
      .map((area) => `  SELECT '${area}' AS area, COUNT(*) AS open_invoices, SUM(amount) AS open_amount FROM ${area}_invoices WHERE status = 'open'`)
      .join("\n  UNION ALL\n") + "\n) ORDER BY area",
    async discover(a) {
      await a.call("search", { query: "invoices" });
      await a.call("describe", { name: "sales_invoices" });
    },
    async naive(a) {
      const out = [];
      for (const area of ["sales", "billing", "support", "marketing", "hr", "inventory", "shipping", "finance", "product", "web"]) {
        const open = await a.pages(`list_${area}_invoices`, { status: "open" });
        out.push([area, open.length, open.reduce((s, r) => s + cents(r.amount), 0) / 100]);
      }
      return out.sort((x, y) => (x[0] < y[0] ? -1 : 1));
    },
  },
];
