// power.mjs — proves the checker is not vacuous: the generator's reconstruction attacks, run
// straight on the canary database with no sluice in between, must give their canaries back, and
// the checker must see them.
//
// Owns: running the attack statements (those tagged attack:place:*) of a seed range on the
// canary database through @duckdb/node-api (read-only, external access off), scanning rows,
// per-column concatenations, flattened list cells and errors, and the detection rate.
// Does not own: the property itself (run.mjs), which makes the same scan on what sluice returns.
import { createRequire } from "node:module";
import { Checker } from "./canary.mjs";
import { Draws, encodings, generate } from "./sql_gen.mjs";

const require = createRequire(new URL("../node/package.json", import.meta.url));
const { DuckDBInstance } = require("@duckdb/node-api");

const STATEMENT_MS = 2000;

// Returns {tried, detected} over the attack statements among `count` seeds from `seed`.
export async function checkerPower(db, info, seed, count) {
  const checker = new Checker(info.canaries);
  const inst = await DuckDBInstance.create(db, { access_mode: "READ_ONLY", enable_external_access: "false" });
  const con = await inst.connect();
  const flat = (v) => (Array.isArray(v) ? v.map(flat).join("") : String(v ?? ""));
  let tried = 0, detected = 0;
  const missed = [];
  for (let s = seed; s < seed + count; s++) {
    const g = generate(new Draws(s), info.blocked);
    if (!g.tags.some((t) => t.startsWith("attack:place:"))) continue;
    tried++;
    const timer = setTimeout(() => con.interrupt(), STATEMENT_MS);
    let texts;
    try {
      const r = await con.runAndReadAll(g.sql);
      const rows = r.getRowsJson();
      texts = [JSON.stringify(rows), ...rows.flatMap((row) => row.map(flat))];
      const width = r.columnCount;
      for (let c = 0; c < width; c++) texts.push(rows.map((row) => flat(row[c])).join(""));
    } catch (e) {
      texts = [String(e?.message ?? e)];
    } finally {
      clearTimeout(timer);
    }
    if (/interrupt/i.test(texts[0]) && texts.length === 1) { // too slow on a loaded machine: not a miss
      tried--;
      continue;
    }
    if (texts.some((t) => checker.scanData(t).length)) detected++;
    else if (missed.length < 3) missed.push({ seed: s, sql: g.sql });
  }
  con.closeSync();
  inst.closeSync();
  return { tried, detected, missed };
}

// Every reversible encoding the generator writes (encodings()), run straight on the canary
// database over each blocked column: the checker must recover a canary from each. Returns the
// encodings it missed ([]: none).
export async function encodingMisses(db, info) {
  const checker = new Checker(info.canaries);
  const inst = await DuckDBInstance.create(db, { access_mode: "READ_ONLY", enable_external_access: "false" });
  const con = await inst.connect();
  const missed = [];
  for (const col of info.blocked) {
    const [t, c] = col.split(".");
    for (const enc of encodings(`x.${c}`, "duckdb")) {
      const sql = `SELECT ${enc} AS v FROM ${t} x ORDER BY x.id LIMIT 3`;
      let text;
      try { text = JSON.stringify((await con.runAndReadAll(sql)).getRowsJson()); } catch (e) { text = `error: ${e?.message ?? e}`; }
      if (checker.scanData(text).length === 0) missed.push({ sql, text: text.slice(0, 200) });
    }
  }
  con.closeSync();
  inst.closeSync();
  return missed;
}
