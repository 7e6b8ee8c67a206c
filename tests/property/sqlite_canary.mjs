// sqlite_canary.mjs — the blocked-field contract as a property on SQLite (engine "sqlite"): a
// SQLite database whose blocked columns (customers.ssn, customers.email) hold canaries in every
// cell, random programs that transform them the ways SQLite allows, each run through `sluice
// serve --stdio` (validate_code, then execute_code when accepted), and every reply, error, stderr
// and audit line scanned with the canary checker (canary.mjs: substrings of 4+, reversed, upper
// case, hex, base64, char codes, \u escapes, base-N and shifted numbers, digit runs, digests).
//
// Owns: the SQLite canary database, the SQLite program generator (functions, casts, hex, substr,
// replace, group_concat, json_*, printf, unicode/char, window functions, CTEs, subqueries,
// implicit column names, rowid, error texts, ORDER BY / WHERE bits), the counts. Every string
// the generator writes is drawn from letters a canary never holds, so a hit is the blocked data.
// Does not own: the checker (canary.mjs), the server driver (pipeline.mjs).
//
// usage: node sqlite_canary.mjs --bin SLUICE --work DIR [--seed S] [--count N] [--seconds T]
// Exit 1 on any counterexample (printed with its seed and program).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { Checker, makeCanaries, missedForms } from "./canary.mjs";
import { Server, auditResultTexts, resultTexts, verdict, writeConfig } from "./pipeline.mjs";
import { prng } from "../node/toml_gen.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const BIN = path.resolve(opt("--bin", process.env.SLUICE_BIN));
const WORK = path.resolve(opt("--work", "sqlite-canary-work"));
const SEED = Number(opt("--seed", 1));
const COUNT = Number(opt("--count", 300));
const SECONDS = Number(opt("--seconds", 0));
const ROWS = 24;
const BLOCKED = ["ssn", "email"];
// rules that refuse for blocked-field reasons: an untainted program refused by one is over-blocked
const BLOCK_RULES = new Set(["blocked_column", "blocked_predicate", "unanalyzable", "plan_refused"]);

// ---- the database ------------------------------------------------------------------------------
function buildDb(file) {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  const ssn = makeCanaries(SEED * 7919 + 1, Array(ROWS).fill("ssn"));
  const email = makeCanaries(SEED * 7919 + 2, Array(ROWS).fill("email"));
  const names = ["Ada", "Bo", "Cy", "Di", "Ed", "Fay", "Gus", "Hal"];
  const plans = ["free", "team", "enterprise"];
  const rows = [];
  for (let i = 0; i < ROWS; i++)
    rows.push(`(${i + 1}, '${names[i % names.length]}${i}', '${plans[i % 3]}', '${ssn[i]}', '${email[i]}', ${100 + i * 7})`);
  const orders = Array.from({ length: ROWS * 2 }, (_, i) => `(${i + 1}, ${1 + (i % ROWS)}, ${10 + (i * 13) % 90})`);
  const sql = "CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT NOT NULL, plan TEXT, ssn TEXT UNIQUE, email TEXT, score INTEGER);\n" +
    "CREATE TABLE orders(id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), amount INTEGER);\n" +
    `INSERT INTO customers VALUES ${rows.join(",")};\nINSERT INTO orders VALUES ${orders.join(",")};\n`;
  execFileSync("sqlite3", [file], { input: sql });
  return [...ssn, ...email];
}

// ---- the generator -------------------------------------------------------------------------------
// A value expression over column c (blocked or not), transformed up to depth times. Literals use
// only the letters "abcdefghilmnoprstuy" and digits: no canary fragment (canaries are made of
// "jkqvwxz" letters and 9-digit runs).
function gen(r, blockedShare) {
  const pick = (xs) => xs[r.int(xs.length)];
  const small = () => 1 + r.int(12);
  const lit = () => pick(["'-'", "'@'", "'a'", "'.'", "''", "'%'", "'_'", "'invalid'"]);
  const unary = [
    (x) => `hex(${x})`, (x) => `upper(${x})`, (x) => `lower(${x})`, (x) => `substr(${x}, ${small()}, ${small()})`,
    (x) => `substr(${x}, -${small()})`, (x) => `replace(${x}, ${lit()}, ${lit()})`, (x) => `trim(${x}, ${lit()})`,
    (x) => `unicode(substr(${x}, ${small()}, 1))`, (x) => `char(unicode(${x}), unicode(substr(${x}, 2)))`,
    (x) => `printf('%s.%s', ${x}, ${x})`, (x) => `printf('%.${small()}s', ${x})`, (x) => `quote(${x})`,
    (x) => `${x} || ${lit()}`, (x) => `CAST(${x} AS BLOB)`, (x) => `CAST(${x} AS INTEGER)`, (x) => `CAST(${x} AS REAL)`,
    (x) => `json_array(${x})`, (x) => `json_object('k', ${x})`, (x) => `json_quote(${x})`, (x) => `instr(${x}, ${lit()})`,
    (x) => `length(${x})`, (x) => `coalesce(${x}, ${lit()})`, (x) => `nullif(${x}, ${lit()})`, (x) => `iif(${x} > 'm', 1, 0)`,
    (x) => `CASE WHEN substr(${x}, ${small()}, 1) = 'k' THEN 1 ELSE 0 END`, (x) => `${x} COLLATE NOCASE`,
    (x) => `typeof(${x})`, (x) => `ltrim(${x}, '0123456789')`, (x) => `rtrim(${x}, '.-@')`, (x) => `format('%q', ${x})`,
    (x) => `abs(${x})`, (x) => `round(${x})`, (x) => `${x} + 0`, (x) => `unhex(hex(${x}))`, (x) => `concat(${x}, ${lit()})`,
    (x) => `concat_ws(${lit()}, ${x}, ${x})`, (x) => `json_extract(json_array(${x}), '$[0]')`,
    // reversible encodings (the checker recognises each): char codes per character over json_each
    // positions, \u escapes, the characters one per item, the digits as a number in hex / octal,
    // shifted or scaled, hex of the characters one by one
    (x) => `(SELECT group_concat(unicode(substr(${x}, value, 1)), ',') FROM json_each('[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29]'))`,
    (x) => `(SELECT group_concat(printf('\\u%04x', unicode(substr(${x}, value, 1))), '') FROM json_each('[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23]'))`,
    (x) => `(SELECT json_group_array(substr(${x}, value, 1)) FROM json_each('[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23]'))`,
    (x) => `(WITH RECURSIVE p(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM p WHERE i < 30) SELECT group_concat(hex(substr(${x}, i, 1)), ' ') FROM p)`,
    (x) => `printf('%x', CAST(substr(${x}, 7, 9) AS INTEGER))`, (x) => `printf('%o', CAST(substr(${x}, 7, 9) AS INTEGER))`,
    (x) => `CAST(substr(${x}, 7, 9) AS INTEGER) + 123`, (x) => `CAST(substr(${x}, 7, 9) AS INTEGER) * 7`,
    (x) => `char(unicode(substr(${x}, 5, 1)), unicode(substr(${x}, 4, 1)), unicode(substr(${x}, 3, 1)), unicode(substr(${x}, 2, 1)), unicode(${x}))`,
  ];
  const blocked = r.chance(blockedShare);
  const col = blocked ? pick(BLOCKED) : pick(["name", "plan", "CAST(score AS TEXT)"]);
  const expr = (c, depth) => {
    let e = `c.${c}`.replace("c.CAST(score AS TEXT)", "CAST(c.score AS TEXT)");
    for (let i = 0; i < depth; i++) e = pick(unary)(e);
    return e;
  };
  const x = () => expr(col, r.int(4));
  const where = () => pick(["", "", ` WHERE c.id <= ${small()}`, ` WHERE ${x()} LIKE 'j%'`, ` WHERE substr(${x()}, 1, 1) = 'k'`,
    ` WHERE ${x()} > 'm'`, ` WHERE ${x()} GLOB '*1*'`, ` WHERE c.${col === "name" ? "name" : "id"} IN (SELECT c2.id FROM customers c2 WHERE ${x().replaceAll("c.", "c2.")} IS NOT NULL)`]);
  const shapes = [
    () => `SELECT ${x()} FROM customers c${where()}`,
    () => `SELECT c.id, ${x()} AS v FROM customers c${where()} ORDER BY ${x()}`,
    () => `SELECT c.name FROM customers c${where()} ORDER BY ${x()} LIMIT ${small()}`,
    () => `SELECT group_concat(${x()}, '') FROM customers c${where()}`,
    () => `SELECT group_concat(${x()}) FROM (SELECT * FROM customers ORDER BY id) c`,
    () => `SELECT json_group_array(${x()}) FROM customers c`,
    () => `SELECT min(${x()}), max(${x()}) FROM customers c`,
    () => `SELECT c.plan, count(*) FROM customers c GROUP BY c.plan, ${x()}`,
    () => `SELECT row_number() OVER (ORDER BY ${x()}) AS n, c.name FROM customers c`,
    () => `SELECT lag(${x()}) OVER (ORDER BY c.id), first_value(${x()}) OVER () FROM customers c`,
    () => `WITH w(v) AS (SELECT ${x()} FROM customers c${where()}) SELECT v FROM w`,
    () => `WITH RECURSIVE r(i, s) AS (SELECT 1, ${x()} FROM customers c WHERE c.id = ${small()} UNION ALL SELECT i + 1, substr(s, 2) FROM r WHERE i < ${small()}) SELECT i, s FROM r`,
    () => `SELECT (SELECT ${x()} FROM customers c WHERE c.id = o.customer_id) FROM orders o LIMIT ${small()}`,
    () => `SELECT ${x()} FROM customers c UNION SELECT c.name FROM customers c`,
    () => `SELECT c.rowid, ${x()} FROM customers c WHERE c.rowid = ${small()}`,
    () => `SELECT * FROM customers c${where()}`,
    () => `SELECT value FROM customers c, json_each(json_array(${x()}))`,
    () => `SELECT json(${x()}) FROM customers c`,
    () => `SELECT CAST(${x()} AS INTEGER) / 0 FROM customers c`,
    () => `SELECT printf('%d', ${x()}) FROM customers c`,
    () => `SELECT c.name FROM customers c WHERE ${x()} = (SELECT ${x().replaceAll("c.", "c3.")} FROM customers c3 LIMIT 1)`,
    () => `SELECT count(*) FROM customers c WHERE ${x()} < 'm'`,
    () => `SELECT ${x()} AS name FROM customers c JOIN orders o ON o.customer_id = c.id LIMIT ${small()}`,
  ];
  return { sql: pick(shapes)(), blocked };
}

// ---- the run -------------------------------------------------------------------------------------
mkdirSync(WORK, { recursive: true });
const db = path.join(WORK, "canary.sqlite");
const canaries = buildDb(db);
const checker = new Checker(canaries);
const key = path.join(WORK, "token.key");
if (!existsSync(key)) execFileSync(BIN, ["keygen", "-o", key], { stdio: "ignore" });
const audit = path.join(WORK, "sqlite.audit.jsonl");
// a new chain each run: the log and its sidecars (.head, .approvals, .replay)
for (const f of readdirSync(WORK).filter((f) => f.startsWith("sqlite.audit.jsonl"))) rmSync(path.join(WORK, f), { force: true });
const config = writeConfig(WORK, "sqlite", db, key, BLOCKED, `engine = "sqlite"\npath = "${db}"`);
// the checker must see the canary in an unguarded read, or a quiet run proves nothing
const direct = execFileSync("sqlite3", [db, "SELECT group_concat(hex(substr(email, 3, 9)), '') FROM customers"]).toString();
if (checker.scanData(direct).length === 0) throw new Error("the checker recovers no canary from an unguarded read");
const missed = missedForms(checker, canaries[0]);
if (missed.length) throw new Error(`the checker misses the forms ${missed.join(", ")}`);
const server = new Server(BIN, config);
await server.start();
const r = prng(SEED);
const counts = { programs: 0, blocked: 0, untainted: 0, accepted: 0, executed: 0, refused: 0, leaks: 0, auditLeaks: 0, overBlocked: 0, auditLines: 0 };
const start = Date.now();
let auditSeen = 0;
const leaks = [];
for (let i = 0; i < COUNT && (SECONDS === 0 || Date.now() - start < SECONDS * 1000); i++) {
  const g = gen(r, 0.8);
  const res = await server.run(g.sql);
  const v = verdict(res);
  counts.programs++;
  counts[g.blocked ? "blocked" : "untainted"]++;
  counts.accepted += v.accepted;
  counts.executed += v.executed;
  counts.refused += !v.accepted;
  if (!g.blocked && !v.accepted && v.rules.some((x) => BLOCK_RULES.has(x))) counts.overBlocked++;
  const seen = JSON.stringify(res).replace(/sl1\.[A-Za-z0-9_.-]+/g, "sl1.<token>") + server.takeStderr();
  // plain forms everywhere; encoded forms only in the result values (canary.mjs scanEncoded)
  const hits = [...checker.scan(seen), ...resultTexts(res).flatMap((t) => checker.scanEncoded(t))];
  if (hits.length > 0) { counts.leaks++; leaks.push({ sql: g.sql, hit: hits[0], text: seen.slice(0, 600) }); }
  const lines = existsSync(audit) ? readFileSync(audit, "utf8").split("\n").filter(Boolean) : [];
  for (const line of lines.slice(auditSeen)) {
    counts.auditLines++;
    const ah = [...checker.scan(line.replace(/sl1\.[A-Za-z0-9_.-]+/g, "sl1.<token>")), ...auditResultTexts(line).flatMap((t) => checker.scanEncoded(t))];
    if (ah.length > 0) { counts.auditLeaks++; leaks.push({ sql: g.sql, hit: ah[0], audit: line.slice(0, 600) }); }
  }
  auditSeen = lines.length;
}
await server.close();
console.log(`sqlite canary property (seed ${SEED}): ${JSON.stringify(counts)}`);
for (const l of leaks.slice(0, 10)) console.log(`COUNTEREXAMPLE ${JSON.stringify(l)}`);
if (counts.programs === 0 || counts.executed === 0) { console.log("nothing ran: the property proves nothing"); process.exit(1); }
process.exit(leaks.length > 0 ? 1 : 0);
