// attack_corpus.mjs — the outside attacker's corpus (issue 23, session 16's probe) against the
// three SQL engines: each statement of attack_statements.mjs for an engine goes through `sluice
// serve --stdio` (validate_code, then execute_code when a token is issued, every risk level
// auto-approved so an accepted statement runs), and every answer, error, warning, stderr line
// and audit line is scanned for the canaries every blocked cell holds (canary.mjs: substrings,
// reversed, upper case, hex, base64, digits, digests; encoded forms in result values).
//
// Owns: the configs of the three servers, the run and the scan, the verdict counts per engine
// and family. Does not own: the databases (ctest_attack_corpus.sh), the statements
// (attack_statements.mjs), the checker (canary.mjs), the server driver (pipeline.mjs).
//
// usage: node attack_corpus.mjs --bin SLUICE --work DIR --canaries FILE.json
//          --duckdb FILE --sqlite FILE --pg CONNINFO [--engine E] [--only SUBSTRING] [--verbose]
// Exit 1 on any hit (printed with its engine, family, statement and where it was seen), or when
// an engine ran nothing (a quiet run that ran nothing proves nothing).
import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { Checker } from "../property/canary.mjs";
import { Server, auditResultTexts, resultTexts, verdict, writeConfig } from "../property/pipeline.mjs";
import { STATEMENTS } from "./attack_statements.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt = null) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const BIN = path.resolve(opt("--bin", process.env.SLUICE_BIN ?? ""));
const WORK = path.resolve(opt("--work", "attack-work"));
const canaries = JSON.parse(readFileSync(opt("--canaries"), "utf8")).canaries;
const ONLY_ENGINE = opt("--engine");
const ONLY = opt("--only");
const VERBOSE = args.includes("--verbose");
const BLOCKED = ["ssn", "email"];

const DATABASES = {
  duckdb: `engine = "duckdb"\npath = "${path.resolve(opt("--duckdb"))}"\nmemory_limit = "256MB"\nthreads = 1`,
  sqlite: `engine = "sqlite"\npath = "${path.resolve(opt("--sqlite"))}"`,
  postgres: `engine = "postgres"\nconninfo = "${opt("--pg")}"`,
};

const checker = new Checker(canaries);
const redact = (s) => s.replace(/sl1\.[A-Za-z0-9_.-]+/g, "sl1.<token>");
const leaks = [];
const summary = {};

for (const engine of Object.keys(DATABASES)) {
  if (ONLY_ENGINE && engine !== ONLY_ENGINE) continue;
  const list = STATEMENTS.filter((s) => s.engines.includes(engine) && (!ONLY || s.sql.includes(ONLY)));
  for (const f of readdirSync(WORK).filter((f) => f.startsWith(`attack-${engine}.audit.jsonl`)))
    rmSync(path.join(WORK, f), { force: true });
  const config = writeConfig(WORK, `attack-${engine}`, null, path.join(WORK, "token.key"), BLOCKED, DATABASES[engine]);
  const audit = path.join(WORK, `attack-${engine}.audit.jsonl`);
  const server = new Server(BIN, config);
  await server.start();
  const counts = { statements: 0, refused: 0, ran: 0, failed: 0, leaks: 0 };
  let auditSeen = 0;
  for (const s of list) {
    const res = await server.run(s.sql);
    const v = verdict(res);
    counts.statements++;
    if (res.crash) throw new Error(`${engine}: the server crashed on ${s.sql}: ${res.crash}`);
    const outcome = !v.accepted ? "refused" : v.executed ? "ran" : "failed";
    counts[outcome]++;
    const seen = redact(JSON.stringify(res)) + server.takeStderr();
    const hits = [...checker.scan(seen), ...resultTexts(res).flatMap((t) => checker.scanEncoded(t))];
    const lines = existsSync(audit) ? readFileSync(audit, "utf8").split("\n").filter(Boolean) : [];
    for (const line of lines.slice(auditSeen))
      hits.push(...checker.scan(redact(line)), ...auditResultTexts(line).flatMap((t) => checker.scanEncoded(t)));
    auditSeen = lines.length;
    if (VERBOSE) {
      const why = outcome === "refused" ? v.rules.join(",") + ": " + (v.messages[0] ?? "").slice(0, 140)
                : outcome === "failed" ? (v.execError ?? "").slice(0, 140) : "";
      console.log(`${engine} ${outcome.padEnd(7)} [${s.family}] ${s.sql.slice(0, 110)}  ${why}`);
    }
    if (s.refuse && v.accepted) hits.push({ accepted: "a shape that must be refused was accepted" });
    if (hits.length > 0) {
      counts.leaks++;
      leaks.push({ engine, family: s.family, sql: s.sql, hit: hits[0], text: seen.slice(0, 800) });
    }
    (summary[`${engine} ${s.family}`] ??= { refused: 0, ran: 0, failed: 0, leaks: 0 })[outcome]++;
    if (hits.length > 0) summary[`${engine} ${s.family}`].leaks++;
  }
  await server.close();
  console.log(`${engine}: ${JSON.stringify(counts)}`);
  if (counts.statements > 0 && counts.ran === 0) leaks.push({ engine, note: "nothing ran: the corpus proves nothing" });
}
if (VERBOSE) for (const [k, c] of Object.entries(summary)) console.log(`  ${k}: ${JSON.stringify(c)}`);
for (const l of leaks) console.log(`LEAK ${JSON.stringify(l)}`);
process.exit(leaks.length > 0 ? 1 : 0);
