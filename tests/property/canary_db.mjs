// canary_db.mjs — a canary copy of the demo database: every blocked column holds unique canaries.
//
// Owns: copying a demo database (from `sluice demo-db`), finding every column the configured
// blocked fields name (a bare name blocks it in every table, "table.col" one column), replacing
// each cell with a canary (canary.mjs), checkpointing, and proving the canaries appear nowhere
// else: every other text value of every table is scanned with the checker and must not hit.
// Writes OUT and OUT.canaries.json ({seed, blocked: ["customers.ssn", ...], canaries: [...]}).
// Does not own: the checker (canary.mjs), serving the database (pipeline.mjs).
//
// usage: node canary_db.mjs DEMO.duckdb OUT.duckdb SEED BLOCKED_FIELD...
import { copyFileSync, existsSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Checker, makeCanaries } from "./canary.mjs";

const require = createRequire(new URL("../node/package.json", import.meta.url));
const { DuckDBInstance } = require("@duckdb/node-api");

const q = (id) => `"${id.replaceAll('"', '""')}"`;

export async function buildCanaryDb(demo, out, seed, blockedFields) {
  if (existsSync(out)) throw new Error(`${out} exists; remove it first`);
  copyFileSync(demo, out);
  const inst = await DuckDBInstance.create(out);
  const con = await inst.connect();
  const all = async (sql) => (await con.runAndReadAll(sql)).getRows();
  const columns = await all(
    "SELECT table_name, column_name, data_type FROM information_schema.columns " +
    "WHERE table_schema = 'main' ORDER BY table_name, column_name");
  const isBlocked = (t, c) => blockedFields.some((f) => f === c || f === `${t}.${c}`);
  const blocked = columns.filter(([t, c]) => isBlocked(t, c));
  if (blocked.length === 0) throw new Error(`no column matches ${blockedFields.join(", ")}`);
  const canaries = [];
  let salt = 0;
  for (const [t, c, type] of blocked) {
    if (type !== "VARCHAR") throw new Error(`${t}.${c} is ${type}: only VARCHAR canaries are made`);
    const ids = (await all(`SELECT rowid FROM ${q(t)} ORDER BY rowid`)).map((r) => r[0]);
    const values = makeCanaries(seed * 1000 + ++salt, ids.map(() => (c.includes("email") ? "email" : "ssn")));
    await con.run("CREATE OR REPLACE TEMP TABLE canary_values(rid BIGINT, v VARCHAR)");
    const app = await con.createAppender("canary_values", "main", "temp");
    ids.forEach((rid, i) => { app.appendBigInt(BigInt(rid)); app.appendVarchar(values[i]); app.endRow(); });
    app.closeSync();
    await con.run(`UPDATE ${q(t)} SET ${q(c)} = canary_values.v FROM canary_values WHERE ${q(t)}.rowid = canary_values.rid`);
    const left = await all(`SELECT count(*) FROM ${q(t)} WHERE ${q(c)} NOT IN (SELECT v FROM canary_values)`);
    if (Number(left[0][0]) !== 0) throw new Error(`${t}.${c}: ${left[0][0]} cells kept their value`);
    canaries.push(...values);
  }
  await con.run("DROP TABLE canary_values");
  await con.run("CHECKPOINT");
  // Nowhere else: no other text value of any table may contain a recognisable fragment.
  const checker = new Checker(canaries);
  for (const [t, c] of columns) {
    if (isBlocked(t, c)) continue;
    for (const [v] of await all(`SELECT DISTINCT CAST(${q(c)} AS VARCHAR) FROM ${q(t)}`)) {
      const hits = checker.scan(v ?? "");
      if (hits.length > 0) throw new Error(`${t}.${c} value ${v} looks like a canary (${JSON.stringify(hits[0])})`);
    }
  }
  con.closeSync();
  inst.closeSync();
  const info = { seed, blocked: blocked.map(([t, c]) => `${t}.${c}`), canaries };
  writeFileSync(`${out}.canaries.json`, JSON.stringify(info));
  return info;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [demo, out, seed, ...fields] = process.argv.slice(2);
  const info = await buildCanaryDb(demo, out, Number(seed), fields);
  console.log(`${out}: ${info.canaries.length} canaries in ${info.blocked.join(", ")}`);
}
