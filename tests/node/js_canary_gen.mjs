// js_canary_gen.mjs — the plan generator and canary forms of the canary property test (issue
// 25), shared by the interpreter-level run (js_canary.mjs, build/js_run) and the run through the
// gateway (tests/e2e/canary_gateway.mjs: the real server, the official SDK client, the audit).
// A seeded generator writes plans that read the blocked fields of records (each holding a
// canary) and carry them every way the language allows to the result, a thrown error,
// console.log or an outbound call; untainted plans (the same shapes over non-blocked fields)
// measure over-blocking.

// head: the plan's first lines, which read the records into `us`; an array: one picked per plan.
export function generator(seedArg, { head, echo }) {
  let seed = Number(seedArg ?? 1) >>> 0;
  const rnd = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 4294967296);
  const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
  // Canaries: an ssn-shaped string and a salary; a second record with others.
  const SSN = "739-41-5826", SALARY = 184273;
  const users = [
    { id: "u1", name: "Ann", team: "a", ssn: SSN, salary: SALARY },
    { id: "u2", name: "Bob", team: "b", ssn: "602-17-3948", salary: 91357 },
  ];
  const forms = (() => {
    const out = new Set();
    const add = (s) => { if (s.length >= 4) out.add(s.toLowerCase()); };
    for (const c of [SSN, String(SALARY), SSN.replaceAll("-", "")]) {
      for (let i = 0; i + 4 <= c.length; i++) add(c.slice(i, i + 4)); // substrings >= 4 (and so longer ones)
      const rev = [...c].reverse().join("");
      for (let i = 0; i + 4 <= rev.length; i++) add(rev.slice(i, i + 4));
      add(Buffer.from(c).toString("hex"));
      add(Buffer.from(c).toString("base64").replace(/=+$/, ""));
      add([...c].map((ch) => ch.charCodeAt(0)).join(","));
      add([...c].map((ch) => ch.charCodeAt(0)).join(", "));
    }
    // base-N of the numbers (radix 2..36 but 10): 6 digits or more, or 4 with a letter past "f"
    // (not a hex or decimal run); shorter ones occur by chance
    for (const n of [SALARY, Number(SSN.replaceAll("-", ""))])
      for (let radix = 2; radix <= 36; radix++) {
        const f = n.toString(radix);
        if (radix !== 10 && (f.length >= 6 || /[g-z]/.test(f))) out.add(f);
      }
    return [...out];
  })();
  const digitsOnly = (s) => s.replace(/[^0-9]/g, "");
  function leaks(text) {
    const t = text.toLowerCase();
    if (forms.some((f) => t.includes(f))) return true;
    const d = digitsOnly(text); // digit runs across separators
    if ([digitsOnly(SSN), String(SALARY)].some((c) => d.includes(c))) return true;
    // JSON-escaped (\u0037...): decoded, then looked at again
    const unescaped = text.replace(/\\+u([0-9a-fA-F]{4})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
    return unescaped !== text && leaks(unescaped);
  }

  // Transforms of a value expression `x` (string or number) that keep its information.
  const strT = [
    (x) => x, (x) => `String(${x})`, (x) => `${x} + ""`, (x) => `\`v=\${${x}}\``,
    (x) => `String(${x}).split("").reverse().join("")`, (x) => `[...String(${x})].map(c => c.charCodeAt(0))`,
    (x) => `String(${x}).replaceAll("-", "")`, (x) => `String(${x}).slice(0, 6)`,
    (x) => `String(${x}).padStart(20, "*")`, (x) => `String(${x}).toUpperCase()`,
    (x) => `JSON.stringify({ v: ${x} })`, (x) => `JSON.parse(JSON.stringify([${x}]))`,
    (x) => `String(${x}).split("-")`, (x) => `[${x}].concat([1])`, (x) => `String(${x}).at(-1)`,
    (x) => `Number(String(${x}).replaceAll("-", "")) + 1`, (x) => `String(${x}).codePointAt(2)`,
    (x) => `String(${x}).substring(1, 8)`, (x) => `String(${x}).repeat(2)`, (x) => `String(${x}).trim()`,
    (x) => `(${x}).toString()`, (x) => `[${x}, 1].join("|")`, (x) => `new Set([${x}])`,
    (x) => `[...new Set([${x}])]`, (x) => `new Map([[${x}, 1]])`, (x) => `[...new Map([["k", ${x}]]).values()]`,
    (x) => `Object.fromEntries([[${x}, 1]])`, (x) => `Object.keys({ [${x}]: 1 })`,
    (x) => `(await Promise.resolve(${x}))`, (x) => `(await Promise.all([${x}]))`,
    (x) => `[${x}].map(v => v)`, (x) => `[${x}].filter(v => true)`, (x) => `[${x}].find(v => v)`,
    (x) => `(() => { const [a] = [${x}]; return a })()`, (x) => `(({ v }) => v)({ v: ${x} })`,
    (x) => `{ ...{ v: ${x} } }`, (x) => `Math.max(Number(String(${x}).replaceAll("-", "")), 0)`,
    (x) => `Math.abs(Number(String(${x}).replaceAll("-", "")))`, (x) => `Number(String(${x}).replaceAll("-", "")) * 2 / 2`,
    (x) => `parseInt(String(${x}).replaceAll("-", ""), 10)`, (x) => `(${x} === ${x}) ? ${x} : 0`,
    (x) => `Number(String(${x}).replaceAll("-", "")).toString(36)`, (x) => `Number(String(${x}).replaceAll("-", "")).toString(2)`,
    (x) => `[...String(${x})].map(c => "\\\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")).join("")`,
    (x) => `String(${x}).toLowerCase().split("").reverse().join("-")`,
  ];
  // Ways to make a bit or count out of a blocked value (implicit flow).
  const bitT = [
    (x) => `(${x} > "5" ? 1 : 0)`, (x) => `(String(${x}).startsWith("7") && "yes")`,
    (x) => `us.filter(u => String(u.ssn) < String(${x})).length`,
    (x) => `(() => { let n = 0; for (const c of String(${x})) if (c === "7") n++; return n })()`,
    (x) => `(() => { let r = 0; if (String(${x}).length > 3) r = 1; return r })()`,
    (x) => `(() => { try { if (String(${x})[0] === "7") throw 1; return "no" } catch { return "yes" } })()`,
    (x) => `(() => { switch (String(${x})[0]) { case "7": return 7; default: return 0 } })()`,
    (x) => `us.slice().sort((a, b) => String(a.ssn) < String(b.ssn) ? -1 : 1).map(u => u.name)`,
    (x) => `us.findIndex(u => u.salary > 100000)`, (x) => `us.some(u => u.salary > 100000)`,
  ];
  const sources = ["us[0].ssn", "us[0].salary", "us[0]['ssn']", "(({ ssn }) => ssn)(us[0])",
                   "Object.values(us[0])[3]", "Object.entries(us[0])[4][1]", "[...Object.values(us[0])]",
                   "us.map(u => u.ssn)", "JSON.stringify(us)", "({ ...us[0] }).salary"];
  const cleanSources = ["us[0].name", "us[0].id", "us[1].team", "us.map(u => u.name)"];
  const sinks = [
    (e) => `return ${e};`, (e) => `return { out: ${e} };`, (e) => `return [1, ${e}];`,
    (e) => `throw new Error(String(${e}));`, (e) => `console.log(${e}); return 1;`,
    (e) => `throw ${e};`, echo,
  ];

  function gen(tainted) {
    let e = pick(tainted ? sources : cleanSources);
    const steps = 1 + Math.floor(rnd() * 3);
    for (let i = 0; i < steps; i++) e = (tainted && rnd() < 0.25 ? pick(bitT) : pick(strT))(e);
    return (Array.isArray(head) ? pick(head) : head) + pick(sinks)(e);
  }
  return { gen, leaks, forms, users, SSN, SALARY };
}

// What a client, a log or an audit line shows, scanned for the canaries (the runs through the
// gateway: canary_gateway.mjs, tests/jsmcp/mcp_canary.mjs). Every string and number a JSON value
// holds (keys too) but sluice's own hashes, times and tokens, which no plan can steer; a string
// that holds JSON (a tool's text content) is scanned value by value as well.
// sluice's request id ("%08x-%012llx": a random per-process prefix and a counter) is its own text,
// in records (the request_id member, skipped by jsonScanner) and in log lines: its random hex can
// hold a canary's digits by chance ("ce372851" holds "2851"), which is no leak.
export const withoutRequestIds = (line) => line.replace(/\b[0-9a-f]{8}-[0-9a-f]{12}\b/g, "request-id");

export function jsonScanner(leaks) {
  const ownText = (s) => /^[0-9a-f]{16,}$/i.test(s) || /^\d{4}-\d\d-\d\dT[\d:.]+Z?$/.test(s) ||
                         /^sl1\.[A-Za-z0-9_.-]+$/.test(s);
  // the random marker around untrusted data is sluice's own text too
  const unmarked = (s) => s.replace(/untrusted-data-[0-9a-f]+/g, "untrusted-data");
  function texts(v, out = []) {
    if (typeof v === "string") { if (!ownText(v)) out.push(unmarked(v)); }
    else if (typeof v === "number") out.push(String(v));
    else if (Array.isArray(v)) v.forEach((x) => texts(x, out));
    else if (v && typeof v === "object")
      for (const [k, x] of Object.entries(v)) { out.push(k); if (k !== "request_id") texts(x, out); }
    return out;
  }
  const leaksIn = (v) => texts(v).some((t) => leaks(t) || (/^[[{]/.test(t) && leaksInJson(t)));
  function leaksInJson(t) { try { return leaksIn(JSON.parse(t)); } catch { return false; } }
  return { texts, leaksIn };
}
