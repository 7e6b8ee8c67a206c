// run.mjs — the blocked-field contract as a property (issue 17), over the real pipeline.
//
// Owns: setting up (canary database and a twin with other canaries, a watched directory with a
// sentinel file, a loopback listener that records every connection), generating statements
// (sql_gen.mjs) from consecutive seeds, running each through `sluice serve` (pipeline.mjs), and
// checking the properties:
//   1. leak: nothing returned (rows, per-column concatenations of rows, column names, errors,
//      explanations, violations, warnings) nor written to the server's stderr or audit log
//      contains a canary or a variant (canary.mjs). A hit counts only when the twin server, on the
//      same statement, does not show the same fragment (so it came from the blocked data, not
//      from the generator's own strings). Counterexamples are shrunk and printed with their seed.
//   2. escape: a statement the generator built from something code mode must never run (writes,
//      files, network, settings, refused functions) never executes; the database file never
//      changes (hash before/after), the watched directory gains nothing, the sentinel's content
//      never comes back, the listener is never reached.
//   3. over-blocking (measured, not asserted): statements the contract plainly allows (the
//      generator's own judgement) that are refused for blocked-field reasons, per construct.
//   4. contract (reported): statements the contract table refuses that were accepted and ran
//      (no canary recovered: e.g. a lossy function of a blocked value).
// Does not own: generation, canaries, the server driver.
//
// usage: node run.mjs --bin SLUICE --work DIR [--seed S] [--count N] [--seconds T]
//                     [--regress FILE] [--power N] [--concurrency C] [--engine postgres]
// --engine postgres (issue 21) loads the canary and twin databases into the PostgreSQL cluster
// named by PG_SOCKET/PG_PORT/PG_SUPERUSER (load_pg_canary.sh), serves them with engine
// "postgres" on the read role, generates in the PostgreSQL mode (PostgreSQL-only shapes mixed
// in) and renders the rest for PostgreSQL (toDialect): one
// generator, two engines.
// --power N first checks that the checker recovers every encoding the generator writes (run on
// DuckDB without sluice) and every form of missedForms(), then runs the attack statements of N seeds straight on the canary database and fails
// unless the checker recovers the canary from at least 95% of them (power.mjs).
import { createHash, randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { buildCanaryDb } from "./canary_db.mjs";
import { Checker, decodedTexts, missedForms } from "./canary.mjs";
import { checkerPower, encodingMisses } from "./power.mjs";
import { Server, auditResultTexts, resultTexts, verdict, writeConfig } from "./pipeline.mjs";
import { Draws, generate, toDialect } from "./sql_gen.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const BIN_ARG = opt("--bin", process.env.SLUICE_BIN);
const WORK = path.resolve(opt("--work", "property-work"));
const SEED = Number(opt("--seed", process.env.SEED ?? 1));
const COUNT = Number(opt("--count", process.env.N ?? 1000));
const SECONDS = Number(opt("--seconds", 0)); // 0: no time bound
const REGRESS = opt("--regress", null);
const POWER = Number(opt("--power", 0));
const MIN_POWER = 0.95;
const CONCURRENCY = Number(opt("--concurrency", 4));
const ENGINE = opt("--engine", "duckdb");
const MAX_SHRINK_RUNS = 300;
const BLOCKED_FIELDS = ["ssn", "email"];
const OVERBLOCK_RULES = new Set(["blocked_column", "blocked_predicate", "unanalyzable", "plan_refused"]);
if (!BIN_ARG) throw new Error("--bin SLUICE (or SLUICE_BIN) is required");
const BIN = path.resolve(BIN_ARG); // the server runs in the work directory

const sha = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");

// ---- setup ------------------------------------------------------------------------------------
async function setup() {
  mkdirSync(WORK, { recursive: true });
  const demo = path.join(WORK, "demo.duckdb");
  if (!existsSync(demo)) execFileSync(BIN, ["demo-db", demo], { stdio: "ignore" });
  const key = path.join(WORK, "token.key");
  if (!existsSync(key)) execFileSync(BIN, ["keygen", "-o", key], { stdio: "ignore" });
  const dbs = {};
  for (const [name, seed] of [["canary", 1], ["twin", 2]]) {
    const db = path.join(WORK, `${name}.duckdb`);
    for (const f of [db, `${db}.wal`, `${db}.canaries.json`]) rmSync(f, { force: true });
    dbs[name] = { db, info: await buildCanaryDb(demo, db, seed, BLOCKED_FIELDS) };
    let database = null;
    if (ENGINE === "postgres") {
      execFileSync("bash", [path.join(import.meta.dirname, "load_pg_canary.sh"), db, name, WORK], { stdio: "inherit" });
      database = `engine = "postgres"\nconninfo = "host=${process.env.PG_SOCKET} port=${process.env.PG_PORT} dbname=${name} user=sluice_read"\npool_size = 2`;
    }
    dbs[name].config = writeConfig(WORK, name, db, key, BLOCKED_FIELDS, database);
    for (const f of readdirSync(WORK).filter((f) => f.startsWith(`${name}.audit.jsonl`))) rmSync(path.join(WORK, f), { force: true });
  }
  const dir = path.join(WORK, "watched");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  const sentinel = `SENTINEL${randomBytes(8).toString("hex")}`;
  writeFileSync(path.join(dir, "sentinel.txt"), `${sentinel}\n`);
  const connections = [];
  const listener = createServer((s) => { connections.push(Date.now()); s.destroy(); });
  await new Promise((r) => listener.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${listener.address().port}`;
  return { dbs, dir, sentinel, connections, listener, url, hash: sha(dbs.canary.db) };
}

const env = await setup();
const checker = new Checker(env.dbs.canary.info.canaries);
if (POWER > 0) {
  const missed = [...missedForms(checker, env.dbs.canary.info.canaries[0]).map((f) => ({ form: f })),
                  ...await encodingMisses(env.dbs.canary.db, env.dbs.canary.info)];
  if (missed.length) {
    console.log(`the checker misses encoded forms of the canaries: ${JSON.stringify(missed)}`);
    process.exit(1);
  }
  const p = await checkerPower(env.dbs.canary.db, env.dbs.canary.info, SEED, POWER);
  console.log(`checker power: the canary came back from ${p.detected} of ${p.tried} reconstruction attacks run without sluice`);
  if (p.tried === 0 || p.detected < MIN_POWER * p.tried) {
    console.log(`the checker is too weak (below ${MIN_POWER * 100}%); missed: ${JSON.stringify(p.missed)}`);
    process.exit(1);
  }
}
const primary = new Server(BIN, env.dbs.canary.config);
await primary.start();
let twin = null;
const fill = (sql) => toDialect(sql, ENGINE).replaceAll("{DIR}", env.dir).replaceAll("{URL}", env.url);

// ---- checking one statement ---------------------------------------------------------------------
// Every text the client saw: `all`, the whole JSON of both replies (plain forms only: its
// envelope is random digits and hex), and `values`, the result values (resultTexts) plus each
// result column's values concatenated in row order (a per-character reconstruction returns one
// character per row), also searched for encoded forms.
function texts(r) {
  // Approval tokens are redacted: issued before any data is read, over code the generator wrote,
  // their bytes are a random nonce and a MAC (random base64 would match canary windows).
  const redact = (x) => JSON.stringify(x ?? null).replace(/sl1\.[A-Za-z0-9_.-]+/g, "sl1.<token>");
  const values = resultTexts(r);
  const rows = r.execute?.structuredContent?.rows;
  if (Array.isArray(rows) && rows.length > 1) {
    const width = Math.max(...rows.map((row) => (Array.isArray(row) ? row.length : 0)));
    // only text columns: numbers concatenated spell any digit string by chance
    for (let c = 0; c < width; c++)
      if (rows.every((row) => !Array.isArray(row) || row[c] === null || typeof row[c] === "string"))
        values.push(rows.map((row) => (Array.isArray(row) ? String(row[c] ?? "") : "")).join(""));
  }
  // a list or struct cell joined without its JSON punctuation (list(c ORDER BY pos) is the value)
  const flat = (v) => (Array.isArray(v) ? v.map(flat).join("") : v && typeof v === "object" ? Object.values(v).map(flat).join("") : String(v ?? ""));
  if (Array.isArray(rows)) for (const row of rows) if (Array.isArray(row)) for (const v of row) if (v && typeof v === "object") values.push(flat(v));
  return { all: [redact(r.validate), redact(r.execute), r.crash ?? "", ...values], values };
}
const scanAll = (t) => [...t.all.flatMap((x) => checker.scan(x)), ...t.values.flatMap((x) => checker.scanEncoded(x))];

async function twinServer() {
  if (!twin) {
    twin = new Server(BIN, env.dbs.twin.config);
    await twin.start();
  }
  return twin;
}

// Encoded kinds a value can show by chance (a number within SHIFT of one of 20,080: ~4.5% of
// random 9-digit numbers; a 9-digit window; a 6..8 character base-N word): they count only when
// the twin shows the same kind of its own canaries, i.e. the statement maps blocked values to
// it. Built on first use: a checker over 10,040 canaries takes seconds.
const TWIN_CONFIRMED = (kind) => kind === "number" || kind === "base-n" || kind.endsWith("/digits");
let twinChecker = null;

// A leak: hits on the primary whose fragment the twin (other canaries) does not also return.
async function leakOf(r, code, vars) {
  const hits = scanAll(texts(r));
  if (!hits.length) return null;
  const t = texts(await (await twinServer()).run(code, vars));
  // what the twin shows, and its decodings (a hit in a decoded text is compared decoded)
  const other = [...t.all, ...t.values.flatMap((x) => decodedTexts(x))].join("\n").toLowerCase();
  let real = hits.filter((h) => !other.includes(h.fragment.toLowerCase()));
  if (real.some((h) => TWIN_CONFIRMED(h.kind))) {
    twinChecker ??= new Checker(env.dbs.twin.info.canaries);
    const kinds = new Set(t.values.flatMap((x) => twinChecker.scanEncoded(x)).map((h) => h.kind));
    real = real.filter((h) => !TWIN_CONFIRMED(h.kind) || kinds.has(h.kind));
  }
  return real.length ? real : null;
}

function escapeOf(r, g) {
  const v = verdict(r);
  const problems = [];
  if (g.refusedFn && v.executed) problems.push("refused-class statement executed");
  if (texts(r).all.some((t) => t.includes(env.sentinel))) problems.push("sentinel file content returned");
  return problems.length ? problems : null;
}

// ---- statistics ---------------------------------------------------------------------------------
const stats = { run: 0, accepted: 0, executed: 0, clean: 0, cleanRefused: 0, cleanOtherRefused: 0, dirty: 0,
                dirtyAccepted: 0, falseHits: 0, crashes: 0, rules: {} };
const perTag = new Map(); // tag -> {clean, over, dirty, dirtyAccepted}
const counterexamples = [];
const overCauses = new Map(); // refusal message (names blanked) -> {n, first seed, sql}
const contractFindings = new Map(); // reason -> [{seed, sql}]

function account(g, r, seed) {
  const v = verdict(r);
  stats.run++;
  if (v.accepted) stats.accepted++;
  if (v.executed) stats.executed++;
  for (const rule of v.rules) stats.rules[rule] = (stats.rules[rule] ?? 0) + 1;
  const clean = g.dirty.length === 0 && !g.refusedFn;
  const over = clean && !v.accepted && v.rules.some((x) => OVERBLOCK_RULES.has(x));
  if (clean) {
    stats.clean++;
    if (over) {
      stats.cleanRefused++;
      // group by the message with names and numbers blanked: one line per cause
      const key = (v.messages.find((m, i) => OVERBLOCK_RULES.has(v.rules[i])) ?? "").replace(/'[^']*'|\b[a-z_]+\.[a-z_]+\b|\d+/g, "_").slice(0, 150);
      const o = overCauses.get(key) ?? { n: 0, seed, sql: g.sql };
      o.n++;
      overCauses.set(key, o);
    }
    else if (!v.accepted) stats.cleanOtherRefused++;
  } else if (!g.refusedFn) {
    stats.dirty++;
    if (v.executed) {
      stats.dirtyAccepted++;
      for (const reason of g.dirty) {
        const list = contractFindings.get(reason) ?? [];
        if (list.length < 5) list.push({ seed, sql: g.sql });
        contractFindings.set(reason, list);
      }
    }
  }
  for (const t of g.tags) {
    const s = perTag.get(t) ?? { clean: 0, over: 0, dirty: 0, dirtyAccepted: 0, overExample: null };
    if (clean) { s.clean++; if (over) { s.over++; s.overExample ??= { seed, sql: g.sql, why: v.messages[0] }; } }
    else if (!g.refusedFn) { s.dirty++; if (v.executed) s.dirtyAccepted++; }
    perTag.set(t, s);
  }
}

// ---- shrinking ----------------------------------------------------------------------------------
// Edits the draw stream (truncate, delete blocks, zero blocks, halve values) while the statement
// still fails the same way; a shorter statement text wins.
async function shrink(stream, fails) {
  let best = stream.slice();
  let bestSql = generate(new Draws(best), env.dbs.canary.info.blocked, ENGINE).sql;
  let runs = 0;
  const tryIt = async (cand) => {
    if (runs >= MAX_SHRINK_RUNS) return false;
    const g = generate(new Draws(cand), env.dbs.canary.info.blocked, ENGINE);
    if (g.sql.length >= bestSql.length && cand.length >= best.length) return false;
    runs++;
    if (await fails(g)) { best = cand; bestSql = g.sql; return true; }
    return false;
  };
  for (let progress = true; progress && runs < MAX_SHRINK_RUNS;) {
    progress = false;
    for (const size of [32, 16, 8, 4, 2, 1]) {
      for (let i = 0; i + size <= best.length; ) {
        const del = best.slice(0, i).concat(best.slice(i + size));
        if (await tryIt(del)) { progress = true; continue; }
        const zero = best.slice(0, i).concat(new Array(size).fill(0), best.slice(i + size));
        if (zero.some((x, j) => x !== best[j]) && await tryIt(zero)) { progress = true; continue; }
        i += size;
      }
    }
    for (let i = 0; i < best.length; i++) {
      if (best[i] === 0) continue;
      const half = best.slice();
      half[i] = best[i] / 2;
      if (await tryIt(half)) progress = true;
    }
  }
  return { sql: bestSql, runs };
}

async function reportLeak(seed, g, hits, kind) {
  const blocked = env.dbs.canary.info.blocked;
  const fails = async (cand) => {
    const r = await primary.run(fill(cand.sql), cand.vars);
    return kind === "leak" ? Boolean(await leakOf(r, fill(cand.sql), cand.vars)) : Boolean(escapeOf(r, cand));
  };
  const draws = new Draws(seed);
  generate(draws, blocked, ENGINE);
  const small = await shrink(draws.stream, fails);
  const cx = { kind, seed, sql: fill(g.sql), vars: g.vars, minimal: fill(small.sql), shrinkRuns: small.runs, evidence: hits };
  counterexamples.push(cx);
  console.log(`COUNTEREXAMPLE (${kind}, seed ${seed}):\n  minimal: ${cx.minimal}\n  original: ${cx.sql}${g.vars ? `\n  variables: ${JSON.stringify(g.vars)}` : ""}\n  evidence: ${JSON.stringify(hits).slice(0, 400)}`);
}

// ---- stderr -------------------------------------------------------------------------------------
let window = [];
async function checkStderr() {
  const err = primary.takeStderr();
  if (!err) return;
  const hits = checker.scan(err);
  if (!hits.length) { window = []; return; }
  // attribute: re-run the statements of the window one at a time
  const suspects = window;
  window = [];
  for (const { seed, g } of suspects) {
    await primary.run(fill(g.sql), g.vars);
    await new Promise((res) => setTimeout(res, 100));
    const h = checker.scan(primary.takeStderr());
    if (h.length) { await reportLeak(seed, g, [{ where: "stderr", ...h[0] }], "leak"); return; }
  }
  counterexamples.push({ kind: "leak", where: "stderr", seed: null, evidence: hits.slice(0, 3) });
  console.log(`COUNTEREXAMPLE (leak into stderr, not attributed): ${JSON.stringify(hits.slice(0, 3))}`);
}

// ---- main loop ----------------------------------------------------------------------------------
async function one(seed) {
  const g = generate(new Draws(seed), env.dbs.canary.info.blocked, ENGINE);
  const code = fill(g.sql);
  const r = await primary.run(code, g.vars);
  window.push({ seed, g });
  if (r.crash) {
    stats.crashes++;
    counterexamples.push({ kind: "crash", seed, sql: code, evidence: r.crash });
    console.log(`COUNTEREXAMPLE (crash, seed ${seed}): ${code}\n  ${r.crash}`);
    await primary.close();
    await primary.start();
    return;
  }
  account(g, r, seed);
  const esc = escapeOf(r, g);
  if (esc) await reportLeak(seed, g, esc, "escape");
  const hits = scanAll(texts(r));
  if (hits.length) {
    const real = await leakOf(r, code, g.vars);
    if (real) await reportLeak(seed, g, real, "leak");
    else stats.falseHits++;
  }
}

const started = Date.now();
const deadline = SECONDS > 0 ? started + SECONDS * 1000 : Infinity;
const regressSeeds = REGRESS && existsSync(REGRESS)
  ? readFileSync(REGRESS, "utf8").split("\n").map((l) => l.replace(/#.*/, "").trim()).filter(Boolean).map(Number) : [];
for (const s of regressSeeds) await one(s);
await checkStderr();
let nextIndex = 0;
async function worker() {
  while (nextIndex < COUNT && Date.now() < deadline) {
    const i = nextIndex++;
    await one(SEED + i);
    if (i % 50 === 0) await checkStderr();
  }
}
await Promise.all(Array.from({ length: CONCURRENCY }, worker));
await new Promise((res) => setTimeout(res, 200));
await checkStderr();
await primary.close();
if (twin) await twin.close();
env.listener.close();

// ---- after: the database, the watched directory, the listener, the audit log ------------------------
const after = [];
if (sha(env.dbs.canary.db) !== env.hash) after.push("the canary database file changed");
if (existsSync(`${env.dbs.canary.db}.wal`)) after.push("a WAL file appeared beside the canary database");
const watched = readdirSync(env.dir);
if (watched.length !== 1) after.push(`the watched directory gained files: ${watched.join(", ")}`);
if (env.connections.length) after.push(`the loopback listener was reached ${env.connections.length} times`);
// The chain hash, code hash, token and request ids and the policy version are sluice's own random
// hex: a digit run in them is chance, not data (everything the statement or the data put there
// is still scanned).
const RANDOM_AUDIT_FIELDS = ["prev", "code_hash", "token_id", "request_id", "session"];
function auditText(text) {
  return text.split("\n").filter(Boolean).map((line) => {
    try {
      const r = JSON.parse(line);
      for (const k of RANDOM_AUDIT_FIELDS) delete r[k];
      if (r.policy) delete r.policy.version;
      return JSON.stringify(r);
    } catch { return line; }
  }).join("\n");
}
// The .head and .replay files hold only a chain hash and token ids with their expiry times.
for (const f of readdirSync(WORK).filter((f) => f.startsWith("canary.audit.jsonl") &&
                                               !f.endsWith(".head") && !f.endsWith(".replay"))) {
  // The work directory's path is the runner's, in every statement that names a watched file: a
  // clone under /tmp/tmp.XWV... once matched a reversed canary fragment (issue 20).
  const raw = readFileSync(path.join(WORK, f), "utf8").split(WORK).join("<work>");
  // the error an audit line records is a value: encoded forms too, but none a twin must confirm
  // (there is none here; the reply's copy of that error was checked with the twin)
  const hits = f.endsWith(".jsonl")
    ? [...checker.scan(auditText(raw)), ...raw.split("\n").flatMap(auditResultTexts).flatMap((t) => checker.scanEncoded(t)).filter((h) => !TWIN_CONFIRMED(h.kind))]
    : checker.scan(raw);
  if (hits.length) after.push(`the audit log ${f} holds canary fragments: ${JSON.stringify(hits[0])}`);
}
for (const a of after) {
  counterexamples.push({ kind: "escape", evidence: a });
  console.log(`COUNTEREXAMPLE (after the run): ${a}`);
}


// ---- report -------------------------------------------------------------------------------------
const secs = (Date.now() - started) / 1000;
const pct = (a, b) => (b ? ((100 * a) / b).toFixed(1) + "%" : "-");
console.log(`\nengine: ${ENGINE}`);
console.log(`statements run: ${stats.run} (${regressSeeds.length} regression seeds first, then seeds ${SEED}..${SEED + nextIndex - 1}) in ${secs.toFixed(0)} s (${(stats.run / secs).toFixed(1)}/s)`);
// the bound of canary.mjs (DECODED_MIN) for this run: positions looked at x windows / 16^16
console.log(`decoded value text looked at: ${checker.decodedChars} characters; chance of a false decoded hit <= ${(checker.decodedChars * checker.long.size / 16 ** 16).toExponential(1)}`);
console.log(`accepted ${stats.accepted}, executed ${stats.executed}, crashes ${stats.crashes}, canary hits dismissed by the twin ${stats.falseHits}`);
console.log(`refusals by rule: ${JSON.stringify(stats.rules)}`);
console.log(`over-blocking: ${stats.cleanRefused} of ${stats.clean} statements the contract allows were refused for blocked-field reasons (${pct(stats.cleanRefused, stats.clean)}); ${stats.cleanOtherRefused} refused for other reasons (engine errors, function list)`);
console.log(`contract: ${stats.dirtyAccepted} of ${stats.dirty} statements the contract table refuses were accepted and ran`);
console.log("\nconstruct                      allowed  over-blocked  rate    | refused-by-contract  accepted");
for (const [t, s] of [...perTag].sort((a, b) => a[0].localeCompare(b[0])))
  console.log(`${t.padEnd(30)} ${String(s.clean).padStart(7)} ${String(s.over).padStart(13)}  ${pct(s.over, s.clean).padStart(6)}  | ${String(s.dirty).padStart(19)} ${String(s.dirtyAccepted).padStart(9)}`);
console.log("\nover-blocking by cause (refusal message, names blanked):");
for (const [k, o] of [...overCauses].sort((a, b) => b[1].n - a[1].n).slice(0, 12))
  console.log(`${String(o.n).padStart(6)}  ${k}\n        e.g. seed ${o.seed}: ${o.sql.slice(0, 300)}`);
if (process.env.PROPERTY_VERBOSE) {
  for (const [t, s] of perTag) if (s.overExample) console.log(`over-blocked example [${t}] seed ${s.overExample.seed}: ${s.overExample.sql}\n    ${s.overExample.why}`);
  for (const [reason, list] of contractFindings) for (const f of list) console.log(`contract [${reason}] seed ${f.seed}: ${f.sql}`);
}
console.log(`\n${counterexamples.length} counterexamples`);
process.exit(counterexamples.length ? 1 : 0);
