// export.mjs — writes the demo database's invoices as the REST server serves them (the same
// export tests/querymode/querymode.test.mjs makes), and prints the 2026 row count.
//   node export.mjs DEMO.duckdb OUT.json
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(new URL("../../tests/node/package.json", import.meta.url));
const { DuckDBInstance } = require("@duckdb/node-api");
const [db, out] = process.argv.slice(2);
const inst = await DuckDBInstance.create(db, { access_mode: "READ_ONLY" });
const c = await inst.connect();
const rows = (await c.runAndReadAll(
  `SELECT id AS InvoiceID, customer_id AS ContactID, strftime(date, '%Y-%m-%d') AS Date,
          status AS Status, total::DOUBLE AS Total FROM invoices ORDER BY id`)).getRowObjectsJson();
writeFileSync(out, JSON.stringify(rows.map((r) => ({ ...r, InvoiceID: Number(r.InvoiceID),
                                                     ContactID: Number(r.ContactID) }))));
console.log(rows.filter((r) => r.Date >= "2026-01-01").length);
c.closeSync();
inst.closeSync();
