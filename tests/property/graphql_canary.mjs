// graphql_canary.mjs — the blocked-field contract as a property on GraphQL (engine "graphql"):
// a real GraphQL upstream (graphql_upstream.mjs, graphql-js over HTTP) whose blocked fields
// (graphql_blocked_fields: Person.ssn and Person.email on the interface, Employee.salary) hold
// canaries, and a seeded generator of operations that reach them every way GraphQL allows:
// aliases (one field twice under two), named and inline fragments, fragments on interfaces and
// on the union, nested lists, variables with defaults, @include/@skip, __typename,
// introspection, arguments the resolver echoes, connections (nodes, edges, cursors, pageInfo),
// filters and an order that name a blocked field, the blocked field as an argument
// (customerBySsn), and the upstream's error paths (resolver errors quoting the record,
// serialisation errors quoting a value, extensions carrying it, partial data with errors).
// Each operation runs through `sluice serve --stdio` three times: strip mode against upstream A,
// strip mode against twin upstream B (same records, other canaries), refuse mode against A.
// Asserted: no canary in any recognised form (canary.mjs: substrings of 4+, reversed, upper case,
// hex, base64, char codes, \u escapes, base-N, shifted numbers, digit runs, digests) in any reply, error, stderr line or audit line;
// and noninterference: what the caller gets from A and from B is the same (a difference is a
// derived leak: an order, a count or a bit of a blocked value).
// Over-blocking: an untainted operation (no blocked field selected or named in an argument)
// refused for a blocked-field reason, or answered with less data than the upstream gave.
//
// usage: node graphql_canary.mjs --bin SLUICE --work DIR [--seed S] [--count N] [--seconds T]
// Exit 1 on any counterexample (printed with its operation).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Checker, makeCanaries, missedForms } from "./canary.mjs";
import { Server, auditResultTexts, resultTexts, verdict, writeConfig } from "./pipeline.mjs";
import { SDL, records, startUpstream } from "./graphql_upstream.mjs";
import { prng } from "../node/toml_gen.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const BIN = path.resolve(opt("--bin", process.env.SLUICE_BIN));
const WORK = path.resolve(opt("--work", "graphql-canary-work"));
const SEED = Number(opt("--seed", 1));
const COUNT = Number(opt("--count", 300));
const SECONDS = Number(opt("--seconds", 0));
const BLOCKED = ["Person.ssn", "Person.email", "Employee.salary"];
const BLOCK_RULES = new Set(["graphql_blocked_fields", "blocked_predicate", "graphql_blocked_predicate"]);

// ---- the canaries --------------------------------------------------------------------------
function canarySet(seed) {
  const n = 8;
  const ssn = makeCanaries(seed * 7919 + 1, Array(2 * n).fill("ssn"));
  const email = makeCanaries(seed * 7919 + 2, Array(2 * n).fill("email"));
  const salary = makeCanaries(seed * 7919 + 3, Array(n).fill("ssn"));
  return {
    customers: Array.from({ length: n }, (_, i) => ({ ssn: ssn[i], email: email[i] })),
    employees: Array.from({ length: n }, (_, i) => ({ ssn: ssn[n + i], email: email[n + i], salary: salary[i] })),
    all: [...ssn, ...email, ...salary],
  };
}

// ---- the generator -------------------------------------------------------------------------
// Strings the generator writes use no canary letter pairs and no 9-digit runs.
export function generator(r) {
  const pick = (xs) => xs[r.int(xs.length)];
  return function gen(tainted) {
    const t = { blocked: false, predicate: false, error: false };
    // what an operation tries: select a blocked field, name one in an argument, provoke the
    // upstream's errors, or all of these; "clean" ones measure over-blocking
    const mode = tainted ? pick(["blocked", "predicate", "error", "error", "mixed"]) : "clean";
    const selects = mode === "blocked" || mode === "mixed";
    const provokes = mode === "error" || mode === "mixed";
    const names = mode === "predicate" || mode === "mixed";
    const frags = [];
    const vars = [];
    const values = {};
    let aliasN = 0;
    const alias = () => (r.chance(0.35) ? `a${aliasN++}: ` : "");
    const directive = () => {
      if (!r.chance(0.2)) return "";
      if (r.chance(0.5)) return pick([" @include(if: true)", " @skip(if: false)", " @skip(if: true)"]);
      const name = `inc${vars.length}`;
      vars.push(`$${name}: Boolean = ${pick(["true", "false"])}`);
      if (r.chance(0.5)) values[name] = r.chance(0.5);
      return ` @include(if: $${name})`;
    };
    const intArg = (name) => {
      if (r.chance(0.3)) {
        const v = `${name}${vars.length}`;
        vars.push(`$${v}: Int${r.chance(0.5) ? ` = ${1 + r.int(5)}` : ""}`);
        if (r.chance(0.6)) values[v] = 1 + r.int(6);
        return `${name}: $${v}`;
      }
      return `${name}: ${1 + r.int(6)}`;
    };
    const leafs = {
      Customer: { safe: ["id", "name", "plan", "score", "badge", "nickname"], blocked: ["ssn", "email"],
                  error: ["lookupStatus", "riskScore", "tier", "notes", "nickname"] },
      Employee: { safe: ["id", "name"], blocked: ["ssn", "email", "salary"], error: [] },
      Order: { safe: ["id", "total"], blocked: [], error: [] },
      Person: { safe: ["id", "name"], blocked: ["ssn", "email"], error: [] },
      Node: { safe: ["id"], blocked: [], error: [] },
      SearchResult: { safe: [], blocked: [], error: [] },
      CustomerConnection: { safe: ["totalCount"], blocked: [], error: [] },
      CustomerEdge: { safe: ["cursor"], blocked: [], error: [] },
      PageInfo: { safe: ["hasNextPage", "endCursor"], blocked: [], error: [] },
    };
    const objects = {
      Customer: [["orders", "Order", () => `(${intArg("first")})`]],
      Employee: [["manager", "Employee", () => ""]],
      Order: [["customer", "Customer", () => ""]],
      CustomerConnection: [["nodes", "Customer", () => ""], ["edges", "CustomerEdge", () => ""], ["pageInfo", "PageInfo", () => ""]],
      CustomerEdge: [["node", "Customer", () => ""]],
    };
    const spreads = { Person: ["Customer", "Employee"], Node: ["Customer", "Employee", "Order"],
                      SearchResult: ["Customer", "Employee", "Order"], Customer: ["Person", "Node"],
                      Employee: ["Person", "Node"], Order: ["Node"] };
    const leaf = (type) => {
      const l = leafs[type];
      const choices = [...l.safe];
      if (selects && l.blocked.length && r.chance(0.5)) { t.blocked = true; return pick(l.blocked); }
      if (provokes && l.error.length && r.chance(0.5)) {
        const f = pick(l.error);
        t.error = true;
        return f;
      }
      if (choices.length === 0) return "__typename";
      const f = pick(choices);
      if (f === "badge") return r.chance(0.5) ? `badge(label: "${pick(["gold", "red", "plain"])}")` : "badge";
      return f;
    };
    const sel = (type, depth) => {
      const items = [];
      const n = 1 + r.int(3);
      for (let i = 0; i < n; i++) {
        const k = r.int(10);
        if (k < 5 || depth <= 0) {
          const f = leaf(type);
          items.push(`${alias()}${f}${directive()}`);
          // the same field twice under different aliases
          if (r.chance(0.15)) items.push(`b${aliasN++}: ${f}`);
        } else if (k < 7 && objects[type]) {
          const [f, inner, argsOf] = pick(objects[type]);
          items.push(`${alias()}${f}${argsOf()}${directive()} ${sel(inner, depth - 1)}`);
        } else if (k < 8 && spreads[type]) {
          const on = pick(spreads[type]);
          items.push(`... on ${on}${directive()} ${sel(on, depth - 1)}`);
        } else if (k < 9 && spreads[type]) {
          const on = pick([type, ...spreads[type]]);
          const name = `F${frags.length}`;
          frags.push(null); // reserve the name before the body (nested fragments get later names)
          frags[frags.length - 1] = `fragment ${name} on ${on} ${sel(on, depth - 1)}`;
          items.push(`...${name}${directive()}`);
        } else {
          items.push(`${alias()}__typename`);
        }
      }
      return `{ ${items.join(" ")} }`;
    };
    // a filter, as a literal or through a variable (its bound value, or its default)
    const filter = () => {
      const f = {};
      if (r.chance(0.3)) f.name = pick(["Ada0", "Bo1", "none"]);
      if (r.chance(0.3)) f.plan = pick(["FREE", "TEAM", "ENTERPRISE"]);
      if (names && r.chance(0.5)) {
        t.predicate = true;
        const [k, v] = pick([["ssn", "abc-123-def"], ["email", "a@b.c"], ["ssnStartsWith", pick(["k", "q", "v", "kq"])]]);
        f[k] = v;
      }
      if (Object.keys(f).length === 0) return null;
      if (r.chance(0.3)) {
        const v = `filter${vars.length}`;
        vars.push(`$${v}: CustomerFilter`);
        values[v] = f;
        return `filter: $${v}`;
      }
      const lit = Object.entries(f).map(([k, x]) => (k === "plan" ? `${k}: ${x}` : `${k}: "${x}"`));
      return `filter: { ${lit.join(", ")} }`;
    };
    const connArgs = () => {
      const a = [];
      if (r.chance(0.6)) a.push(intArg("first"));
      const f = filter();
      if (f) a.push(f);
      if (r.chance(0.4)) {
        const o = names ? pick(["ID", "NAME", "SSN", "EMAIL"]) : pick(["ID", "NAME"]);
        if (o === "SSN" || o === "EMAIL") t.predicate = true;
        if (r.chance(0.3)) {
          const v = `order${vars.length}`;
          // the default alone, or a bound value that overrides it
          if (r.chance(0.5)) vars.push(`$${v}: CustomerOrder = ${o}`);
          else { vars.push(`$${v}: CustomerOrder = ID`); values[v] = o; }
          a.push(`orderBy: $${v}`);
        } else a.push(`orderBy: ${o}`);
      }
      return a.length ? `(${a.join(", ")})` : "";
    };
    const roots = [
      () => `${alias()}customers${connArgs()} ${sel("CustomerConnection", 3)}`,
      () => `${alias()}customer(id: "${1 + r.int(8)}") ${sel("Customer", 2)}`,
      () => `${alias()}employees(${intArg("first")}) ${sel("Employee", 2)}`,
      () => `${alias()}people(${intArg("first")}) ${sel("Person", 2)}`,
      () => `${alias()}node(id: "${pick(["1", "2", "101", "503", "none"])}") ${sel("Node", 2)}`,
      () => `${alias()}search(text: "${pick(["a", "d", "staff", "5"])}", first: 4) ${sel("SearchResult", 2)}`,
      () => {
        if (r.chance(0.5)) return `${alias()}echo(text: "${pick(["hello", "abc-123", "plain"])}")`;
        vars.push(`$text: String = "default"`);
        if (r.chance(0.5)) values.text = pick(["from-variables", "abc"]);
        return `${alias()}echo(text: $text)`;
      },
      () => `${alias()}__typename`,
      () => pick([`__type(name: "${pick(["Customer", "Person", "Employee", "CustomerFilter"])}") { name kind fields { name type { name kind ofType { name } } } inputFields { name } enumValues { name } }`,
                  `__schema { queryType { name } types { name kind possibleTypes { name } } }`]),
      () => {
        if (!names) return `${alias()}customer(id: "2") ${sel("Customer", 2)}`;
        t.predicate = true;
        return `${alias()}customerBySsn(ssn: "${pick(["abc-123-def", "none"])}") ${sel("Customer", 2)}`;
      },
    ];
    const body = Array.from({ length: 1 + r.int(2) }, () => pick(roots)()).join(" ");
    // variables that were named twice keep their first declaration
    const seen = new Set();
    const decl = vars.filter((v) => { const n = v.split(":")[0]; return !seen.has(n) && seen.add(n); });
    const head = decl.length ? `query Q(${decl.join(", ")}) ` : r.chance(0.5) ? "query Q " : "";
    const code = [head + `{ ${body} }`, ...frags].join("\n");
    return { code, variables: Object.keys(values).length ? values : null, tags: t, tainted: t.blocked || t.predicate };
  };
}

// ---- the run -------------------------------------------------------------------------------
// The upstream answer to the same request, straight from graphql-js (no sluice): to measure
// over-blocking and to show the checker recovers the canaries.
async function direct(port, code, variables) {
  const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: code, variables: variables ?? {} }),
  });
  return res.json();
}

const ownText = (s) => s.replace(/sl1\.[A-Za-z0-9_.-]+/g, "sl1.<token>").replace(/"elapsed_ms":\d+/g, "");

// What the caller gets, with what differs by run only (tokens, times, hashes) taken out, for the
// noninterference comparison.
function answer(res) {
  const e = res.execute;
  if (!e) return JSON.stringify({ refused: (res.validate?.structuredContent?.violations ?? []).map((v) => v.message) });
  const text = (e.content ?? []).map((c) => c.text ?? "").join("\n");
  const s = e.structuredContent ?? {};
  return JSON.stringify({ error: Boolean(e.isError), value: s.value ?? null, truncated: s.truncated ?? null,
                          text: e.isError ? text : null })
    .replace(/"elapsed_ms":\d+/g, "").replace(/[0-9a-f]{64}/g, "<hash>");
}

function main() {
  return (async () => {
    mkdirSync(WORK, { recursive: true });
    const setA = canarySet(SEED);
    const setB = canarySet(SEED + 100003);
    const checker = new Checker([...setA.all, ...setB.all]);
    const upA = await startUpstream(records(setA));
    const upB = await startUpstream(records(setB));
    const sdl = path.join(WORK, "schema.graphql");
    writeFileSync(sdl, SDL);
    const key = path.join(WORK, "token.key");
    if (!existsSync(key)) execFileSync(BIN, ["keygen", "-o", key], { stdio: "ignore" });
    // the checker must see the canaries in unguarded reads, or a quiet run proves nothing
    for (const q of ["{ people { ssn email } }", "{ customers(orderBy: SSN) { edges { cursor } } }", "{ customer(id: \"1\") { lookupStatus } }",
                     "{ customer(id: \"1\") { riskScore } }", "{ customer(id: \"1\") { notes } }", "{ employees { salary } }"])
      if (checker.scanData(JSON.stringify(await direct(upA.port, q))).length === 0)
        throw new Error(`the checker recovers no canary from the unguarded ${q}`);
    // every spelling of the resolver error (one per record: hex, char codes, \u, digits one by one...)
    for (let id = 1; id <= 8; id++)
      if (checker.scanData(JSON.stringify(await direct(upA.port, `{ customer(id: "${id}") { lookupStatus } }`))).length === 0)
        throw new Error(`the checker recovers no canary from the resolver error of customer ${id}`);
    const missed = missedForms(checker, setA.all[0]);
    if (missed.length) throw new Error(`the checker misses the forms ${missed.join(", ")}`);
    const extra = `languages = ["graphql"]\ngraphql_blocked_fields = ${JSON.stringify(BLOCKED)}\n` +
                  `graphql_allow_introspection = true\ngraphql_max_depth = 12\n`;
    const servers = [];
    for (const [name, up, mode] of [["gql-strip-a", upA, "strip"], ["gql-strip-b", upB, "strip"], ["gql-refuse-a", upA, "refuse"]]) {
      for (const f of readdirSync(WORK).filter((f) => f.startsWith(`${name}.audit.jsonl`))) rmSync(path.join(WORK, f), { force: true });
      const db = `engine = "graphql"\nendpoint = "http://127.0.0.1:${up.port}/graphql"\npath = "${sdl}"`;
      const config = writeConfig(WORK, name, null, key, [], db, `${extra}graphql_blocked_output = "${mode}"\n`);
      const server = new Server(BIN, config);
      await server.start();
      servers.push({ name, server, up, audit: path.join(WORK, `${name}.audit.jsonl`), auditSeen: 0 });
    }
    const r = prng(SEED);
    const gen = generator(r);
    const counts = { operations: 0, tainted: 0, untainted: 0, accepted: 0, executed: 0, refused: 0, upstream_errors: 0,
                     leaks: 0, audit_leaks: 0, audit_lines: 0, interference: 0, over_blocked_untainted: 0 };
    const bad = [];
    const start = Date.now();
    for (let i = 0; i < COUNT && (SECONDS === 0 || Date.now() - start < SECONDS * 1000); i++) {
      const g = gen(r.chance(0.75));
      counts.operations++;
      counts[g.tainted ? "tainted" : "untainted"]++;
      const runs = [];
      for (const s of servers) {
        const res = await s.server.run(g.code, g.variables);
        runs.push(res);
        const seen = ownText(JSON.stringify(res)) + s.server.takeStderr();
        // plain forms everywhere; encoded forms only in the result values (canary.mjs scanEncoded)
        const hits = [...checker.scan(seen), ...resultTexts(res).flatMap((t) => checker.scanEncoded(ownText(t)))];
        if (hits.length > 0) { counts.leaks++; bad.push({ kind: "leak", server: s.name, code: g.code, variables: g.variables, hit: hits[0], text: seen.slice(0, 700) }); }
        const lines = existsSync(s.audit) ? readFileSync(s.audit, "utf8").split("\n").filter(Boolean) : [];
        for (const line of lines.slice(s.auditSeen)) {
          counts.audit_lines++;
          const ah = [...checker.scan(ownText(line)), ...auditResultTexts(line).flatMap((t) => checker.scanEncoded(t))];
          if (ah.length > 0) { counts.audit_leaks++; bad.push({ kind: "audit", server: s.name, code: g.code, hit: ah[0], audit: line.slice(0, 700) }); }
        }
        s.auditSeen = lines.length;
      }
      const v = verdict(runs[0]);
      counts.accepted += v.accepted;
      counts.executed += v.executed;
      counts.refused += !v.accepted;
      if (v.accepted && !v.executed) counts.upstream_errors++;
      const [a, b] = [answer(runs[0]), answer(runs[1])];
      if (a !== b) {
        counts.interference++;
        bad.push({ kind: "interference", code: g.code, variables: g.variables, a: a.slice(0, 400), b: b.slice(0, 400) });
      }
      if (!g.tainted) {
        let over = !v.accepted && v.rules.some((x) => BLOCK_RULES.has(x));
        if (v.executed) {
          const want = await direct(upA.port, g.code, g.variables);
          const got = runs[0].execute.structuredContent?.value;
          over = over || (!want.errors && JSON.stringify(want.data) !== JSON.stringify(got));
        }
        if (over) {
          counts.over_blocked_untainted++;
          if (counts.over_blocked_untainted <= 3) console.log(`OVER-BLOCKED ${JSON.stringify({ code: g.code, rules: v.rules, messages: v.messages })}`);
        }
      }
    }
    for (const s of servers) await s.server.close();
    await upA.close();
    await upB.close();
    console.log(`graphql canary property (seed ${SEED}): ${JSON.stringify(counts)}`);
    for (const l of bad.slice(0, 12)) console.log(`COUNTEREXAMPLE ${JSON.stringify(l)}`);
    if (counts.operations === 0 || counts.executed === 0 || counts.audit_lines === 0) {
      console.log("nothing ran: the property proves nothing");
      return 1;
    }
    return bad.length > 0 ? 1 : 0;
  })();
}

process.exit(await main());
