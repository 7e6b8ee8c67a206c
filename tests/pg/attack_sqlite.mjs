// attack_sqlite.mjs DUCKDB SQLITE — copies the canaries of a canary DuckDB database (canary_db.mjs)
// into a SQLite demo database (`sluice demo-db --engine sqlite`), row for row by id, so the three
// engines of the attack corpus hold the same blocked values.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";

const require = createRequire(new URL("../node/package.json", import.meta.url));
const { DuckDBInstance } = require("@duckdb/node-api");

const [duck, lite] = process.argv.slice(2);
const inst = await DuckDBInstance.create(duck, { access_mode: "READ_ONLY" });
const con = await inst.connect();
const lit = (s) => (s === null ? "NULL" : `'${String(s).replaceAll("'", "''")}'`);
let sql = "BEGIN;\n";
for (const [table, cols] of [["customers", ["ssn", "email"]], ["sales_reps", ["email"]]]) {
  const rows = (await con.runAndReadAll(`SELECT id, ${cols.join(", ")} FROM ${table}`)).getRows();
  for (const [id, ...vals] of rows)
    sql += `UPDATE ${table} SET ${cols.map((c, i) => `${c} = ${lit(vals[i])}`).join(", ")} WHERE id = ${id};\n`;
}
sql += "COMMIT;\n";
con.closeSync();
inst.closeSync();
execFileSync("sqlite3", [lite], { input: sql });
