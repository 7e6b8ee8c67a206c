// surfaces.mjs — the large surfaces issue 26 measures code mode's fixed context on, written into a
// work folder as sluice configs (no upstream needs to answer: only tools/list, the prompt, search
// and describe are read):
//   github-rest.toml     @octokit/openapi's api.github.com spec (~1,000 operations), JavaScript plans
//   github-graphql.toml  @octokit/graphql-schema's introspection, printed as SDL by graphql-js
//                        (its shipped schema.graphql defines a field twice, which graphql-js refuses too)
//   warehouse.toml       a DuckDB warehouse of 300 tables (warehouseSql), keys and comments included
// Each needs work/token.key; the warehouse needs `sluice demo-db --sql warehouse.sql warehouse.duckdb`
// (writeSurfaces returns the commands' inputs; the caller runs them).
import { writeFileSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(new URL("../../tests/node/package.json", import.meta.url));
export const nodeModules = path.dirname(require.resolve("graphql/package.json")).replace(/\/graphql$/, "");

// 300 tables of a sales warehouse: 10 subject areas x 30 tables, 6-10 columns each, one key and
// one reference to the area's previous table (a column <parent>_id), a comment on each table;
// WAREHOUSE_ROWS rows each, statuses open/closed/pending, amounts and references spread by id,
// so questions that join and filter have answers (bench/tokens/questions.mjs).
export const WAREHOUSE_ROWS = 12;
export function warehouseSql(tables = 300) {
  const areas = ["sales", "billing", "support", "marketing", "hr", "inventory", "shipping", "finance", "product", "web"];
  const nouns = ["orders", "items", "events", "accounts", "contacts", "invoices", "payments", "tickets", "visits",
                 "campaigns", "leads", "employees", "shifts", "stock", "warehouses", "parcels", "routes", "ledgers",
                 "budgets", "forecasts", "features", "releases", "sessions", "pages", "clicks", "refunds", "credits",
                 "regions", "channels", "notes"];
  const out = [];
  for (let i = 0; i < tables; i++) {
    const name = `${areas[i % areas.length]}_${nouns[Math.floor(i / areas.length) % nouns.length]}`;
    const parent = i >= areas.length ? `${areas[(i - areas.length) % areas.length]}_${nouns[Math.floor((i - areas.length) / areas.length) % nouns.length]}` : null;
    const cols = ["id INTEGER PRIMARY KEY", `${parent ? parent + "_id INTEGER" : "source_id INTEGER"}`,
                  "created_at TIMESTAMP", "status VARCHAR", "amount DECIMAL(12,2)", "owner_email VARCHAR"];
    for (let k = 0; k < i % 5; k++) cols.push(`attr_${k} VARCHAR`);
    out.push(`CREATE TABLE ${name} (${cols.join(", ")});`);
    out.push(`COMMENT ON TABLE ${name} IS 'The ${nouns[Math.floor(i / areas.length) % nouns.length]} of ${areas[i % areas.length]}, one row each';`);
    out.push(`INSERT INTO ${name} (id, ${parent ? parent + "_id" : "source_id"}, status, amount) SELECT i, (i * 5) % ${WAREHOUSE_ROWS} + 1, ` +
             `['open', 'closed', 'pending'][i % 3 + 1], (i * 37 + ${i}) % 100 + 0.25 FROM range(1, ${WAREHOUSE_ROWS + 1}) t(i);`);
  }
  return out.join("\n") + "\n";
}

// The naive side of the warehouse: one curated list tool per table, as a tool-per-table mirror
// has (the columns a caller may read, a status filter, pages of at most 100), in sluice's
// [[tools]] form; the config's blocked field (owner_email) is left out of the rows.
export function warehouseTools(tables = 300) {
  const sql = warehouseSql(tables);
  const comments = new Map([...sql.matchAll(/^COMMENT ON TABLE (\w+) IS '([^']*)';$/gm)].map((m) => [m[1], m[2]]));
  return [...sql.matchAll(/^CREATE TABLE (\w+) \((.*)\);$/gm)].map(([, table, defs]) => {
    const cols = defs.split(", ").map((c) => c.split(" ")[0]).filter((c) => c !== "owner_email");
    return `[[tools]]\nname = "list_${table}"\n` +
      `description = "List ${table} ordered by id (${comments.get(table)}). Filter by status (\\"open\\", \\"closed\\", ` +
      `\\"pending\\"; \\"\\" for all). Pages of at most 100 rows: pass limit (<= 100) and offset."\n` +
      `statement = "SELECT ${cols.join(", ")} FROM ${table} WHERE ($status = '' OR status = $status) ` +
      `ORDER BY id LIMIT least($limit, 100) OFFSET $offset"\n` +
      `parameters = [ { name = "status", type = "string", description = "open, closed, pending, or \\"\\" for all" },\n` +
      `               { name = "limit", type = "integer", description = "page size, at most 100" },\n` +
      `               { name = "offset", type = "integer", description = "rows to skip" } ]\n`;
  }).join("\n");
}

// GitHub's GraphQL schema as SDL: @octokit/graphql-schema's introspection, printed by graphql-js.
export function githubSdl() {
  const graphql = require("graphql");
  const intro = JSON.parse(readFileSync(path.join(nodeModules, "@octokit/graphql-schema/schema.json"), "utf8"));
  return graphql.printSchema(graphql.buildClientSchema(intro.data ?? intro));
}

// Writes the three configs (and warehouse.sql, gh.graphql) into work; returns their paths.
export function writeSurfaces(work) {
  const key = path.join(path.resolve(work), "token.key");
  const ghSpec = path.join(nodeModules, "@octokit/openapi/generated/api.github.com.json");
  const sdl = path.join(work, "github.graphql");
  writeFileSync(sdl, githubSdl());
  const common = (lang) => `[identity]\nuser = "agent"\n\n[code_mode]\nenabled = true\nlanguages = ["${lang}"]\n` +
    `token_secret_file = "${key}"\nauto_approve_levels = ["low", "medium"]\n`;
  const rest = path.join(work, "github-rest.toml");
  writeFileSync(rest, `[server]\nname = "github-rest"\n\n[database]\nengine = "openapi"\npath = "${ghSpec}"\n` +
    `endpoint = "http://127.0.0.1:9"\n\n${common("javascript")}`);
  const gql = path.join(work, "github-graphql.toml");
  writeFileSync(gql, `[server]\nname = "github-graphql"\n\n[database]\nengine = "graphql"\npath = "${sdl}"\n` +
    `endpoint = "http://127.0.0.1:9/graphql"\n\n${common("graphql")}`);
  writeFileSync(path.join(work, "warehouse.sql"), warehouseSql());
  const wh = path.join(work, "warehouse.toml");
  writeFileSync(wh, `[server]\nname = "warehouse"\n\n[database]\nengine = "duckdb"\npath = "${path.join(path.resolve(work), "warehouse.duckdb")}"\n` +
    `threads = 2\n\n${common("sql")}blocked_fields = ["owner_email"]\n`);
  return { rest, gql, warehouse: wh, warehouseSql: path.join(work, "warehouse.sql") };
}
