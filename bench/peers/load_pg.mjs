// load_pg.mjs — exports the demo tables from a DuckDB file to CSV (through @duckdb/node-api) and
// prints the psql script that creates the same tables in PostgreSQL and \copy-loads the CSVs.
//
//   node load_pg.mjs DEMO.duckdb OUTDIR > load.sql && psql ... -f load.sql
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(new URL("../../tests/node/package.json", import.meta.url));
const { DuckDBInstance } = require("@duckdb/node-api");

const [dbPath, outDir] = process.argv.slice(2);
if (!outDir) {
  process.stderr.write("usage: load_pg.mjs DEMO.duckdb OUTDIR\n");
  process.exit(2);
}
const TABLES = ["sales_reps", "customers", "orders", "support_tickets", "contacts",
                "account_quarterly_metrics", "invoices"];
// DuckDB type -> PostgreSQL type (the demo uses only these).
function pgType(t) {
  if (/^DECIMAL/.test(t)) return t.replace("DECIMAL", "numeric");
  const map = { INTEGER: "integer", BIGINT: "bigint", VARCHAR: "text", DATE: "date",
                TIMESTAMP: "timestamp", DOUBLE: "double precision", BOOLEAN: "boolean" };
  if (!map[t]) throw new Error(`no PostgreSQL type for DuckDB ${t}`);
  return map[t];
}
const inst = await DuckDBInstance.create(dbPath, { access_mode: "READ_ONLY" });
const conn = await inst.connect();
const lines = ["\\set ON_ERROR_STOP on"];
for (const t of TABLES) {
  const cols = (await conn.runAndReadAll(`DESCRIBE ${t}`)).getRowObjectsJson();
  const csv = path.join(outDir, `${t}.csv`);
  await conn.run(`COPY ${t} TO '${csv}' (HEADER, DELIMITER ',')`);
  lines.push(`CREATE TABLE ${t} (${cols.map((c) => `${c.column_name} ${pgType(c.column_type)}`).join(", ")});`);
  lines.push(`\\copy ${t} FROM '${csv}' WITH (FORMAT csv, HEADER true)`);
}
lines.push("ANALYZE;");
process.stdout.write(lines.join("\n") + "\n");
