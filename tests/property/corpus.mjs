// corpus.mjs — seeds for the libFuzzer SQL target (tests/fuzz/corpus/fuzz_sql_analyzer/) from the
// property's generator: for every construct tag, the shortest statement among the first SCAN
// seeds that carries it, until each tag is covered (a modest, varied corpus, not thousands).
//
// usage: node corpus.mjs OUT_DIR [SCAN]
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Draws, generate } from "./sql_gen.mjs";

const [out, scan = "5000"] = process.argv.slice(2);
const BLOCKED = ["customers.ssn", "customers.email", "sales_reps.email"];
const best = new Map(); // tag -> {seed, sql}
for (let s = 1; s <= Number(scan); s++) {
  const g = generate(new Draws(s), BLOCKED);
  if (g.refusedFn) continue;
  for (const t of g.tags) if (!best.has(t) || best.get(t).sql.length > g.sql.length) best.set(t, { seed: s, sql: g.sql });
}
const chosen = new Map([...best.values()].map((v) => [v.seed, v.sql]));
mkdirSync(out, { recursive: true });
for (const [seed, sql] of chosen) writeFileSync(path.join(out, `property_seed_${seed}`), sql);
console.log(`${chosen.size} statements cover ${best.size} constructs`);
