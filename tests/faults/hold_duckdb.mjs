// hold_duckdb.mjs — holds a DuckDB file open read-write (DuckDB's exclusive file lock) from
// another process, as a second program using the same database would: prints "locked" once it
// holds it, lets go when its stdin closes.
//   node hold_duckdb.mjs FILE
import { createRequire } from "node:module";

const require = createRequire(new URL("../node/package.json", import.meta.url));
const { DuckDBInstance } = require("@duckdb/node-api");

const instance = await DuckDBInstance.create(process.argv[2]);
const conn = await instance.connect();
await conn.run("SELECT 1");
process.stdout.write("locked\n");
process.stdin.resume();
process.stdin.on("end", () => {
  conn.closeSync?.();
  process.exit(0);
});
