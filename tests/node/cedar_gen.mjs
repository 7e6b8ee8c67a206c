// cedar_gen.mjs — differential test of sluice's Cedar engine against @cedar-policy/cedar-wasm.
//
// Generates seeded random cases (policies over the whole supported language, entity
// hierarchies with attributes and tags, requests with contexts), asks cedar-wasm, asks
// tests/programs/cedar_eval (one process per batch of cases), and compares the decision, the
// set of determining policies and the set of erroring policies. On a disagreement it shrinks
// the case (drops policies, conditions, entities, attributes) while it still disagrees and
// prints the minimal one. Exit 0 when all cases agree.
//
// usage: node cedar_gen.mjs CEDAR_EVAL_BINARY [--seed N] [--count N] [--batch N]
import { createRequire } from "module";
import { execFileSync } from "child_process";
import { writeFileSync, mkdtempSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";

const require = createRequire(import.meta.url);
const cedar = require("@cedar-policy/cedar-wasm/nodejs");

const args = process.argv.slice(2);
const bin = args[0];
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const SEED = opt("--seed", Number(process.env.SEED ?? 1));
const COUNT = opt("--count", Number(process.env.COUNT ?? 100000));
const BATCH = opt("--batch", 5000);
const MUTATE = Number(process.env.MUTATE ?? 0.08); // share of cases with a syntax mutation

// mulberry32: small, seeded, reproducible.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
let R = rng(SEED);
const int = (n) => Math.floor(R() * n);
const pick = (xs) => xs[int(xs.length)];
const chance = (p) => R() < p;

const TYPES = ["User", "Group", "Ns::Doc"];
const IDS = ["a", "b", "c"];
const ATTRS = ["a", "b", "age", "owner", "tags", "x y"];
const ACTIONS = ["read", "write", "admin"];

const uid = () => ({ type: pick(TYPES), id: pick(IDS) });
const actionUid = () => ({ type: "Action", id: pick(ACTIONS) });
const uidText = (u) => `${u.type}::${JSON.stringify(u.id)}`;

const IPS = ["127.0.0.1", "10.0.0.1/8", "10.1.2.3", "192.168.1.0/24", "224.0.0.1", "::1",
  "fe80::1/64", "ff02::1", "2001:db8::/32", "0.0.0.0/0", "1.2.3", "::ffff:1.2.3.4", "10.0.0.0/33",
  "127.0.0.1/4", "::1/127", "1:2:3:4:5:6:7:8"];
const DECIMALS = ["1.0", "-1.5", "0.0001", "2.25", "922337203685477.5807", "-922337203685477.5808",
  "1.23456", "1", "abc", "-0.0", "3.14"];
const DATETIMES = ["2024-01-01", "2024-02-29T12:00:00Z", "2023-02-29", "1969-12-31T23:59:59.999Z",
  "2024-06-01T08:30:00+0200", "2024-06-01T08:30:00.250-0130", "2024-13-01", "1970-01-01",
  "2024-01-01T24:00:00Z", "0001-01-01"];
const DURATIONS = ["1d", "2h30m", "-1h", "1d2h3m4s5ms", "0ms", "90s", "1m1ms", "h", "1s1d",
  "-9223372036854775808ms", "106751991167d"];
// Edge cases checked one by one against cedar-wasm while writing the engine; kept in the draw.
IPS.push("::", "1::2::3", "::ffff:0:0", "1:2:3:4:5:6:7:8/128", "1:2:3:4:5:6:7::8", ":1:2:3:4:5:6:7",
  "1:2:3:4:5:6:7:", "::1:2:3:4:5:6:7", "01::", "00001::", " 1.2.3.4", "1.2.3.04", "1.2.3.4/+8", "::1/00",
  "fe80::1%eth0", "1.2.3.4/-1", "FFFF::", "1:2:3:4:5:6:7:8:9", "1.2.3.4.5", "", "1.2.3.4//8");
DECIMALS.push("+1.0", "1.", ".5", "01.0", "-0.0001", "1.0000", "922337203685477.5808", "-922337203685477.5809",
  "1e3", " 1.0", "1..0", "00000000000000000000001.5");
DATETIMES.push("2024-02-30", "0000-01-01", "2024-01-01T00:00:00.000+0000", "2024-01-01T00:00:00z",
  "2024-01-01T00:00:00", "2024-01-01T00:00Z", "2024-01-01 00:00:00Z", "2024-01-01T00:00:00+00:00",
  "2024-01-01T00:00:00.1234Z", "2024-01-01T00:00:00+2359", "2024-01-01T00:00:00-0060",
  "9999-12-31T23:59:59.999-2359", "2024-04-31", "+2024-01-01", "2024-01-01Z");
DURATIONS.push("0d", "1ms1s", "-0ms", "1", "d", "-", "1D", "1.5h", " 1s", "1mm", "1msms", "9223372036854775807ms",
  "9223372036854775808ms", "-9223372036854775809ms", "106751991168d", "2562047788015h", "1d-1h", "--1h", "01h");
const STRINGS = ["", "a", "abc", "x y", "a*c", "tab\there", "\u00e9t\u00e9", "quote\"s", "admin", "*",
  "h*o", "hello", "\\abc", "a\\*c", "\u2603x", "a\nb"];
const PATTERNS = ["*", "a*", "*c", "a*c", "\\*", "a\\*c", "", "*b*", "ab*c*", "\u00e9*"];

function strLit(s) {
  const text = JSON.stringify(s).replace(/\\u00([0-9a-f]{2})/g, (_, h) => `\\u{${h}}`);
  // Sometimes spell a plain letter as an escape, to exercise the unescaper.
  return chance(0.1) ? text.replace(/[a-z]/, (ch) => pick([`\\u{${ch.charCodeAt(0).toString(16)}}`, `\\x${ch.charCodeAt(0).toString(16)}`])) : text;
}
// A `like` pattern literal with its characters spelled every way Cedar allows: a wildcard as
// `*`, `\u{2a}` or `\x2a` (all wildcards: only `\*` is a literal star), other characters
// raw or escaped (\u{..}, \x.., \\, \", \n, \t, \0).
const PATTERN_CHARS = ["a", "b", "c", "h", "o", "l", "e", " ", "\u00e9", "\u{1f600}", "\\", "\"", "\n", "\t", "\0"];
function spellChar(ch) {
  const cp = ch.codePointAt(0), hex = cp.toString(16);
  const named = { "\\": "\\\\", "\"": "\\\"", "\n": "\\n", "\t": "\\t", "\0": "\\0" };
  const ways = [`\\u{${hex}}`, `\\u{${hex.padStart(4, "0")}}`];
  if (cp < 0x80) ways.push(`\\x${hex.padStart(2, "0")}`, `\\x${hex.padStart(2, "0").toUpperCase()}`);
  if (named[ch] !== undefined) ways.push(named[ch], named[ch]);
  else if (cp <= 0xffff) ways.push(ch, ch, ch); // raw astral characters could be split by mutate()
  return pick(ways);
}
function patLit() {
  if (chance(0.3)) return strLit(pick(PATTERNS)).replace(/\\\\\*/g, "\\*");
  let text = "";
  for (let n = int(6); n > 0; n--) {
    const r = R();
    if (r < 0.3) text += pick(["*", "*", "\\u{2a}", "\\x2a", "\\x2A", "\\u{002a}"]); // wildcards
    else if (r < 0.4) text += "\\*"; // the only literal star
    else text += spellChar(pick(PATTERN_CHARS));
  }
  return `"${text}"`;
}
function longLit() {
  return pick(["0", "1", "2", "7", "42", "-3", "9223372036854775807", "-9223372036854775808",
    "4611686018427387904", "1000000"]);
}

function gen(type, d) {
  if (d <= 0 || chance(0.25)) return leaf(type);
  const g = GENS[type];
  return g(d - 1);
}
function anyType() {
  return pick(["bool", "long", "string", "entity", "set", "record", "ext", "bool", "long"]);
}
function leaf(type) {
  switch (type) {
    case "bool": return pick(["true", "false"]);
    case "long": return longLit();
    case "string": return strLit(pick(STRINGS));
    case "entity": return chance(0.6) ? pick(["principal", "resource", "action"]) : uidText(chance(0.8) ? uid() : actionUid());
    case "set": return pick(["[]", "[1, 2]", "[\"a\"]", `[${uidText(uid())}]`, "[1, \"a\"]"]);
    case "record": return pick(["context", "{}", "{a: 1}", "{\"x y\": true, b: \"s\"}"]);
    case "ext": return extLeaf();
    default: return leaf(anyType());
  }
}
// Random extension strings, mostly valid, sometimes just outside what Cedar accepts.
const digits = (n) => Array.from({ length: n }, () => int(10)).join("");
const pad = (v, n) => String(v).padStart(n, "0");
function randomIp() {
  if (chance(0.6)) {
    const oct = () => (chance(0.03) ? pick(["256", "01", "00"]) : String(int(256)));
    return `${oct()}.${oct()}.${oct()}.${oct()}${chance(0.5) ? `/${chance(0.03) ? pick(["33", "08", ""]) : int(33)}` : ""}`;
  }
  const groups = Array.from({ length: 8 }, () => (chance(0.4) ? "0" : int(65536).toString(16)));
  let text = groups.join(":");
  if (chance(0.5)) text = text.replace(/(^|:)0(:0)+(:|$)/, "::");
  if (chance(0.03)) text += pick([":", ":1.2.3.4", "1ffff"]);
  return `${chance(0.5) ? text.toUpperCase() : text}${chance(0.5) ? `/${chance(0.03) ? "129" : int(129)}` : ""}`;
}
function randomDecimal() {
  const d = `${chance(0.3) ? "-" : ""}${digits(1 + int(chance(0.1) ? 17 : 4))}`;
  return chance(0.05) ? d : `${d}.${digits(chance(0.05) ? 5 : 1 + int(4))}`;
}
function randomDatetime() {
  const y = chance(0.03) ? digits(3) : pad(int(10000), 4);
  const date = `${y}-${pad(chance(0.05) ? 13 : 1 + int(12), 2)}-${pad(chance(0.05) ? 31 + int(2) : 1 + int(29), 2)}`;
  if (chance(0.4)) return date;
  const time = `T${pad(int(chance(0.03) ? 25 : 24), 2)}:${pad(int(60), 2)}:${pad(int(chance(0.03) ? 61 : 60), 2)}`;
  const ms = chance(0.4) ? `.${digits(chance(0.05) ? 2 : 3)}` : "";
  const zone = pick(["Z", `${pick(["+", "-"])}${pad(int(chance(0.05) ? 25 : 24), 2)}${pad(int(60), 2)}`, chance(0.05) ? "" : "Z"]);
  return date + time + ms + zone;
}
function randomDuration() {
  const units = ["d", "h", "m", "s", "ms"].filter(() => chance(0.4));
  if (chance(0.05)) units.reverse();
  const num = () => (chance(0.03) ? digits(19) : String(int(chance(0.5) ? 100 : 100000)));
  const text = units.map((u) => num() + u).join("");
  return `${chance(0.3) ? "-" : ""}${text}`;
}
function extLeaf() {
  const fresh = chance(0.5);
  switch (int(4)) {
    case 0: return `ip(${strLit(fresh ? randomIp() : pick(IPS))})`;
    case 1: return `decimal(${strLit(fresh ? randomDecimal() : pick(DECIMALS))})`;
    case 2: return `datetime(${strLit(fresh ? randomDatetime() : pick(DATETIMES))})`;
    default: return `duration(${strLit(fresh ? randomDuration() : pick(DURATIONS))})`;
  }
}
function attrOf(d) {
  const obj = pick([() => pick(["principal", "resource", "context"]), () => gen("entity", d), () => gen("record", d)])();
  const a = pick(ATTRS);
  return /^[a-z]+$/.test(a) && chance(0.7) ? `${obj}.${a}` : `${obj}[${strLit(a)}]`;
}
const maybe = (t, d) => (chance(0.12) ? gen(anyType(), d) : gen(t, d)); // sometimes the wrong type

const GENS = {
  bool: (d) => {
    switch (int(20)) {
      case 0: return `${maybe("bool", d)} && ${maybe("bool", d)}`;
      case 1: return `${maybe("bool", d)} || ${maybe("bool", d)}`;
      case 2: return `!${maybe("bool", d)}`;
      case 3: { const t = anyType(); return `${gen(t, d)} ${pick(["==", "!="])} ${maybe(t, d)}`; }
      case 4: { const t = pick(["long", "long", "ext"]); return `${maybe(t, d)} ${pick(["<", "<=", ">", ">="])} ${maybe(t, d)}`; }
      case 5: return `${maybe("entity", d)} in ${chance(0.5) ? maybe("entity", d) : `[${maybe("entity", d)}, ${maybe("entity", d)}]`}`;
      case 6: { const a = pick(ATTRS); const b = pick(ATTRS);
        const key = /^[a-z]+$/.test(a) ? (chance(0.4) && /^[a-z]+$/.test(b) ? `${a}.${b}` : a) : strLit(a);
        return `${pick([() => maybe("entity", d), () => maybe("record", d)])()} has ${key}`; }
      case 7: return `${maybe("string", d)} like ${patLit()}`;
      case 8: return `${maybe("entity", d)} is ${pick(TYPES)}${chance(0.3) ? ` in ${maybe("entity", d)}` : ""}`;
      case 9: return `${maybe("set", d)}.contains(${gen(anyType(), d)})`;
      case 10: return `${maybe("set", d)}.${pick(["containsAll", "containsAny"])}(${maybe("set", d)})`;
      case 11: return `${maybe("set", d)}.isEmpty()`;
      case 12: return `${maybe("entity", d)}.hasTag(${chance(0.9) ? strLit(pick(ATTRS)) : gen("long", d)})`;
      case 13: return `${maybe("ext", d)}.${pick(["isIpv4", "isIpv6", "isLoopback", "isMulticast"])}()`;
      case 14: return `${maybe("ext", d)}.isInRange(${maybe("ext", d)})`;
      case 15: return `${maybe("ext", d)}.${pick(["lessThan", "lessThanOrEqual", "greaterThan", "greaterThanOrEqual"])}(${maybe("ext", d)})`;
      case 16: return `if ${maybe("bool", d)} then ${maybe("bool", d)} else ${maybe("bool", d)}`;
      case 17: return `(${gen("bool", d)})`;
      case 18: return attrOf(d);
      default: return `${maybe("entity", d)}.getTag(${strLit(pick(ATTRS))})`;
    }
  },
  long: (d) => {
    switch (int(8)) {
      case 0: return `${maybe("long", d)} ${pick(["+", "-", "*"])} ${maybe("long", d)}`;
      case 1: return `-${chance(0.5) ? longLit() : `(${maybe("long", d)})`}`;
      case 2: return `${maybe("ext", d)}.${pick(["toMilliseconds", "toSeconds", "toMinutes", "toHours", "toDays"])}()`;
      case 3: return `(if ${maybe("bool", d)} then ${maybe("long", d)} else ${maybe("long", d)})`;
      default: return attrOf(d);
    }
  },
  string: (d) => (chance(0.5) ? attrOf(d) : leaf("string")),
  entity: (d) => (chance(0.5) ? attrOf(d) : leaf("entity")),
  set: (d) => {
    if (chance(0.3)) return attrOf(d);
    const n = int(4);
    return `[${Array.from({ length: n }, () => gen(chance(0.7) ? "long" : anyType(), d)).join(", ")}]`;
  },
  record: (d) => {
    if (chance(0.3)) return attrOf(d);
    const keys = [...new Set(Array.from({ length: int(3) }, () => pick(ATTRS)))];
    return `{${keys.map((k) => `${/^[a-z]+$/.test(k) ? k : strLit(k)}: ${gen(anyType(), d)}`).join(", ")}}`;
  },
  ext: (d) => {
    switch (int(6)) {
      case 0: return `${maybe("ext", d)}.offset(${maybe("ext", d)})`;
      case 1: return `${maybe("ext", d)}.durationSince(${maybe("ext", d)})`;
      case 2: return `${maybe("ext", d)}.${pick(["toDate", "toTime"])}()`;
      case 3: return `${pick(["ip", "decimal", "datetime", "duration"])}(${maybe("string", d)})`;
      default: return extLeaf();
    }
  },
};

function scope(v) {
  const r = int(10);
  if (v === "action") {
    if (r < 4) return "action";
    if (r < 6) return `action == ${uidText(actionUid())}`;
    if (r < 8) return `action in ${uidText(actionUid())}`;
    return `action in [${uidText(actionUid())}, ${uidText(actionUid())}]`;
  }
  if (r < 4) return v;
  if (r < 5) return `${v} == ${uidText(uid())}`;
  if (r < 7) return `${v} in ${uidText(uid())}`;
  if (r < 8) return `${v} is ${pick(TYPES)}`;
  return `${v} is ${pick(TYPES)} in ${uidText(uid())}`;
}

function genPolicy() {
  const conds = Array.from({ length: int(3) }, () => ({ kind: chance(0.75) ? "when" : "unless", expr: gen("bool", 1 + int(3)) }));
  return { ann: chance(0.2) ? `@id(${strLit("p" + int(100))}) ` : "", effect: chance(0.65) ? "permit" : "forbid",
    p: scope("principal"), a: scope("action"), r: scope("resource"), conds };
}
const policyText = (p) => `${p.ann}${p.effect}(${p.p}, ${p.a}, ${p.r})${p.conds.map((c) => ` ${c.kind} { ${c.expr} }`).join("")};`;

function jsonValue(d) {
  const r = int(d > 0 ? 10 : 6);
  switch (r) {
    case 0: return chance(0.5);
    case 1: return pick([0, 1, 5, 10, -2, 42]);
    case 2: return pick(STRINGS);
    case 3: return { __entity: uid() };
    case 4: return { __extn: pick([{ fn: "ip", arg: pick(IPS.slice(0, 10)) }, { fn: "decimal", arg: pick(DECIMALS.slice(0, 6)) },
      { fn: "datetime", arg: pick(["2024-01-01", "2024-06-01T12:00:00Z", "1969-07-20T20:17:40-0500"]) },
      { fn: "duration", arg: pick(["1h", "-2d", "90s"]) }]) };
    case 5: return pick([5, "a", true]);
    case 6: case 7: return Array.from({ length: int(3) }, () => jsonValue(d - 1));
    default: { const o = {}; for (let i = int(3); i > 0; i--) o[pick(ATTRS)] = jsonValue(d - 1); return o; }
  }
}
function jsonRecord(d) {
  const o = {};
  for (let i = int(4); i > 0; i--) o[pick(ATTRS)] = jsonValue(d);
  return o;
}

function genCase() {
  const entities = [];
  const seen = new Set();
  for (let i = int(6); i > 0; i--) {
    const u = chance(0.85) ? uid() : actionUid();
    const k = uidText(u);
    if (seen.has(k)) continue;
    seen.add(k);
    // Parents mostly point "up" a fixed order so the hierarchy is acyclic (Cedar rejects
    // cycles; a few still get through to check that we reject them too).
    const rank = (x) => TYPES.indexOf(x.type) * 10 + IDS.indexOf(x.id) + (x.type === "Action" ? ACTIONS.indexOf(x.id) : 0);
    const parent = () => (u.type === "Action" ? actionUid() : uid());
    const parents = [];
    for (let j = int(3); j > 0; j--) {
      const p = parent();
      if (rank(p) > rank(u) || chance(0.03)) parents.push(p);
    }
    const e = { uid: u, attrs: jsonRecord(2), parents };
    if (chance(0.3)) e.tags = jsonRecord(1);
    entities.push(e);
  }
  return {
    policies: Array.from({ length: 1 + int(4) }, genPolicy),
    named: chance(0.15),
    mutation: chance(MUTATE) ? { where: R(), del: chance(0.5), token: chance(0.5) ? ` ${pick(TOKENS)} ` : pick(TOKENS) } : null,
    entities,
    principal: uid(),
    action: actionUid(),
    resource: uid(),
    context: jsonRecord(2),
  };
}

// Policies go as one text (ids policy0, policy1, ...) or, for some cases, as a map of our own
// ids to single-policy texts (sluice_cedar_policyset_add).
// Some cases carry a syntax mutation (a deleted character or an inserted token at a relative
// position), so parse acceptance is compared too: both must fail, or both must decide alike.
const TOKENS = ["(", ")", "[", "]", "{", "}", ",", ";", ".", "::", "==", "!", "-", "&&", "in", "has",
  "is", "like", "if", "then", "else", "when", "@x", "\"s\"", "\\", "1", "principal", "?principal",
  "//", "\n", "\u{41}", "true", "*", "<", "=", ":"];
function mutate(text, m) {
  if (!m) return text;
  const at = Math.floor(m.where * text.length);
  return m.del ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at) + m.token + text.slice(at);
}
const wire = (c) => ({
  ...c,
  named: undefined,
  mutation: undefined,
  policies: c.named ? Object.fromEntries(c.policies.map((p, i) => [`rule-${i}`, policyText(p)]))
    : mutate(c.policies.map(policyText).join("\n"), c.mutation),
});

function oracle(c) {
  const w = wire(c);
  const r = cedar.isAuthorized({ principal: w.principal, action: w.action, resource: w.resource, context: w.context,
    policies: { staticPolicies: w.policies }, entities: w.entities });
  if (r.type !== "success") return { failure: r.errors.map((e) => e.message).join("; ") };
  const d = r.response.diagnostics;
  return { decision: r.response.decision, reasons: [...d.reason].sort(), errors: d.errors.map((e) => e.policyId).sort(),
    messages: d.errors.map((e) => `${e.policyId}: ${e.error.message}`) };
}

const dir = mkdtempSync(join(tmpdir(), "cedar-diff-"));
function ours(cases) {
  const file = join(dir, "cases.jsonl");
  writeFileSync(file, cases.map((c) => JSON.stringify(wire(c))).join("\n") + "\n");
  const out = execFileSync(bin, [file], { maxBuffer: 1 << 30 }).toString().trim().split("\n");
  return out.map((l) => JSON.parse(l));
}

function agree(a, b) {
  if (a.failure !== undefined || b.failure !== undefined) return a.failure !== undefined && b.failure !== undefined;
  return a.decision === b.decision && JSON.stringify(a.reasons) === JSON.stringify(b.reasons) &&
    JSON.stringify(a.errors) === JSON.stringify(b.errors);
}
const disagrees = (c) => !agree(oracle(c), ours([c])[0]);

// Drops one piece at a time (policies, conditions, entities, parents, attributes, context keys)
// while the case still disagrees.
function shrink(c) {
  const clone = (x) => JSON.parse(JSON.stringify(x));
  let progress = true;
  while (progress) {
    progress = false;
    const candidates = [];
    c.policies.forEach((_, i) => candidates.push((k) => k.policies.splice(i, 1)));
    c.policies.forEach((p, i) => p.conds.forEach((_, j) => candidates.push((k) => k.policies[i].conds.splice(j, 1))));
    c.entities.forEach((_, i) => candidates.push((k) => k.entities.splice(i, 1)));
    c.entities.forEach((e, i) => e.parents.forEach((_, j) => candidates.push((k) => k.entities[i].parents.splice(j, 1))));
    c.entities.forEach((e, i) => Object.keys(e.attrs).forEach((a) => candidates.push((k) => delete k.entities[i].attrs[a])));
    c.entities.forEach((e, i) => e.tags && candidates.push((k) => delete k.entities[i].tags));
    Object.keys(c.context).forEach((a) => candidates.push((k) => delete k.context[a]));
    for (const cut of candidates) {
      const k = clone(c);
      cut(k);
      if (k.policies.length > 0 && disagrees(k)) {
        c = k;
        progress = true;
        break;
      }
    }
  }
  return c;
}

let failures = 0;
let done = 0;
const stats = { allow: 0, deny: 0, withErrors: 0, failure: 0 };
const t0 = Date.now();
while (done < COUNT && failures < 3) {
  const n = Math.min(BATCH, COUNT - done);
  const cases = Array.from({ length: n }, genCase);
  const expect = cases.map(oracle);
  const got = ours(cases);
  for (const e of expect) {
    if (e.failure !== undefined) { stats.failure++; if (process.env.CEDAR_GEN_DEBUG) console.log(e.failure.slice(0, 120)); }
    else stats[e.decision]++;
    if (e.errors && e.errors.length > 0) stats.withErrors++;
  }
  for (let i = 0; i < n && failures < 3; i++) {
    if (agree(expect[i], got[i])) continue;
    failures++;
    const small = shrink(cases[i]);
    console.log(`DISAGREEMENT (seed ${SEED}, case ${done + i}), shrunk:`);
    console.log(JSON.stringify(wire(small)));
    console.log("policies:\n" + JSON.stringify(wire(small).policies, null, 1));
    console.log("cedar-wasm:", JSON.stringify(oracle(small)));
    console.log("sluice:    ", JSON.stringify(ours([small])[0]));
  }
  done += n;
}
const secs = ((Date.now() - t0) / 1000).toFixed(1);
console.log(`outcomes: ${JSON.stringify(stats)}`);
console.log(`${done - failures} passed, ${failures} failed (seed ${SEED}, ${done} cases, ${secs}s)`);
process.exit(failures > 0 ? 1 : 0);
