// js_gen.mjs — the seeded generator of small plans shared by the differential test against Node
// (js_diff.mjs) and the interpreter benchmark (bench/jsinterp): typed random expressions over the
// corners the spec names (see js_diff.mjs). The same seed yields the same programs everywhere.
// Plans' local time is UTC (exec/js/date.c): a caller running them in Node sets TZ=UTC first.
let seed = 1;

function rnd() {
  // xorshift32: the same programs for the same seed, everywhere
  seed ^= seed << 13; seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5; seed >>>= 0;
  return seed / 4294967296;
}
const pick = (a) => a[Math.floor(rnd() * a.length)];
const int = (n) => Math.floor(rnd() * n);

const DATES = ['"2026-12-01"', '"2026-12-01T12:34:56.789Z"', '"2026-02-30"', '"2026-13-01"',
  '"2026-12-01T24:00:00"', '"2026-12-01T12:00"', '"2026-12"', '"2026"', '"+002026-12-01"',
  '"-000001-01-01T00:00:00Z"', '"2026-12-01T12:00:00.5Z"', '"2026-12-01T12:00:00+01:00"',
  '"2026-12-01T12:00:00-0530"', '"2026-12-01 08:00:00"', '"1969-12-31T23:59:59.999Z"', '"nope"',
  '""', "0", "-1", "1e12", "8.64e15", "8.64e15 + 1", "1.5", "NaN", "2026, 0, 31, 25", "99, 11",
  "2026, 1, 29, 23, 59, 59, 999"];
const DATE_GETTERS = ["getTime", "getFullYear", "getUTCFullYear", "getMonth", "getUTCMonth",
  "getDate", "getUTCDate", "getDay", "getHours", "getUTCMinutes", "getSeconds",
  "getMilliseconds", "getTimezoneOffset", "valueOf"];
const DATE_TEXT = ["toISOString", "toJSON", "toString", "toDateString", "toUTCString"];
const genDate = () => `new Date(${pick(DATES)})`;

const NUMS = ["0", "-0", "1", "-1", "2", "3", "10", "0.1", "0.2", "0.5", "1.5", "2.5", "-2.5",
  "1e21", "1e-7", "123.456", "1e300", "5e-324", "2**53", "NaN", "Infinity", "-Infinity",
  "0x1f", "1_000", "0.000001", "1.005", "100", "7", "-7", "1/3", "2/3*3"];
const STRS = ['""', '"a"', '"b"', '"abc"', '"B"', '"10"', '"9"', '" 12 "', '"1e3"', '"0x10"',
  '"x\\ny"', '"tab\\t"', '"q\\"uote"', '"\\u00e9"', '"\\u{1F600}"', '"a\\uD83D\\uDE00b"',
  '"\\uD800"', '"back\\\\slash"', '"Zebra"', '"apple"', '"\\x41"', "'single'", '"ß"'];

// Math functions whose results are exact in every implementation (or V8's own algorithm, hypot)
const MATH_EXACT = ["abs", "floor", "ceil", "round", "trunc", "sign", "sqrt", "fround", "clz32"];
// transcendental ones: libm and V8's fdlibm port differ in the last bit on 0.01-4% of ordinary
// arguments (docs/js-plans.md, Math): exact on the corner values where both are defined exactly,
// to 12 significant digits on ordinary ones (a last-bit difference changes that only when the
// 12-digit rounding boundary falls between the two doubles: ~1e-4 of those)
const MATH_TRANS = ["cbrt", "log", "log10", "log2", "exp", "log1p", "expm1", "sin", "cos", "tan",
  "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh"];
const CORNERS = ["0", "-0", "NaN", "Infinity", "-Infinity"];
const CUBES = ["27", "-27", "3375", "-0.125", "1000", "-64", "-3.375", "2 ** 99", "1e-300 * 0"];
function genMath(d) {
  switch (int(8)) {
    case 5: return `Number(Math.${pick(MATH_TRANS)}(${genNum(d - 1)}).toPrecision(12))`;
    case 6: return `Number(Math.${pick(["atan2", "pow"])}(${genNum(d - 1)}, ${genNum(d - 1)}).toPrecision(12))`;
    case 7: return `Math.cbrt(${pick(CUBES)})`;
    case 0: return `Math.${pick(MATH_EXACT)}(${genNum(d - 1)})`;
    case 1: return `Math.${pick(MATH_TRANS)}(${pick(CORNERS)})`;
    case 2: return `Math.hypot(${Array.from({ length: int(4) }, () => genNum(d - 1)).join(", ")})`;
    case 3: return `Math.${pick(["imul", "atan2", "pow"])}(${pick(CORNERS.concat(["1", "-1", "3"]))}, ${pick(CORNERS.concat(["1", "-1", "2"]))})`;
    default: return `(Object.is(${genNum(d - 1)}, ${genNum(d - 1)}) ? 1 : Object.is(${genAny(d - 1)}, ${genAny(d - 1)}) ? 2 : 3)`;
  }
}

// normalize and localeCompare (ICU in both; Node's 78 against Debian's 72, the issue 25 note
// names where they part): combining marks in both orders, Hangul syllables and jamo, ligatures,
// compatibility forms, case, accents, empty, surrogate pairs and a lone surrogate
const USTRS = ['""', '"e\\u0301"', '"\\u00e9"', '"E\\u0301"', '"e"', '"E"', '"\\uAC00"',
  '"\\u1100\\u1161"', '"\\u1100\\u1161\\u11A8"', '"\\uD55C\\uAE00"', '"\\uFB01"', '"fi"',
  '"\\uFB03x"', '"\\u212B"', '"A\\u030A"', '"\\u00C5"', '"\\u1E9B\\u0323"', '"q\\u0307\\u0323"',
  '"q\\u0323\\u0307"', '"\\u0344"', '"\\u00BD"', '"1/2"', '"\\u2460"', '"\\uFF8A"', '"\\u01C4"',
  '"\\u{1D400}"', '"\\u{1F600}"', '"a\\uD83D\\uDE00"', '"\\uD800"', '"resume"', '"r\\u00e9sum\\u00e9"',
  '"Resume"', '"apple"', '"Apple"', '"Zebra"', '"zebra"', '"a-b"', '"ab"', '"a b"', '"10"', '"9"',
  '"\\u00df"', '"ss"', '"\\u00e4"', '"a\\u0308"', '"\\u0131"', '"i"'];
const FORMS = ['', '"NFC"', '"NFD"', '"NFKC"', '"NFKD"', 'undefined', '"nfc"', '"NFX"'];
const genUStr = () => rnd() < 0.2 ? `(${pick(USTRS)} + ${pick(USTRS)})` : pick(USTRS);
const genNormalize = () => `${genUStr()}.normalize(${pick(FORMS)})`;
const genCollate = () => pick([`${genUStr()}.localeCompare(${genUStr()})`,
  `[${Array.from({ length: 2 + int(4) }, genUStr).join(", ")}].sort((a, b) => a.localeCompare(b)).join("|")`]);

function genNum(d) {
  if (d > 0 && rnd() < 0.03) return pick([genCollate, () => `${genNormalize()}.length`])();
  if (d <= 0 || rnd() < 0.3) return pick(NUMS);
  if (rnd() < 0.12) return genMath(d);
  switch (int(13)) {
    // Date, read-only: getters, Date.parse/UTC, differences in ms
    case 10: return `${genDate()}.${pick(DATE_GETTERS)}()`;
    case 11: return pick([`Date.parse(${pick(DATES.filter((x) => x.startsWith('"')))})`,
      `Date.UTC(${pick(["2026", "2026, 11", "2026, 0, 31, 25", "99, 0", "NaN"])})`,
      `(${genDate()} - ${genDate()})`]);
    case 8: return `new ${pick(["Set", "Map"])}(${genArr(d - 1)}.map((x, i) => [${pick(["x", "i % 2", "typeof x"])}, i])).size`;
    case 0: return `(${genNum(d - 1)} ${pick(["+", "-", "*", "/", "%"])} ${genNum(d - 1)})`;
    case 1: return `${genStr(d - 1)}.length`;
    case 2: return `${genArr(d - 1)}.length`;
    case 3: return `Math.${pick(["max", "min"])}(${genNum(d - 1)}, ${genNum(d - 1)})`;
    case 4: return `Math.${pick(["floor", "ceil", "round", "abs", "trunc", "sign"])}(${genNum(d - 1)})`;
    case 5: return `Number(${genStr(d - 1)})`;
    case 6: return `${genArr(d - 1)}.indexOf(${genAny(d - 1)})`;
    case 7: return `(${genBool(d - 1)} ? ${genNum(d - 1)} : ${genNum(d - 1)})`;
    case 9: return `(new Map(${genArr(d - 1)}.map((x, i) => [x, i])).get(${genAny(d - 1)}) ?? -1)`;
    default: return `parseInt(${genStr(d - 1)})`;
  }
}

function genStr(d) {
  if (d > 0 && rnd() < 0.03) return rnd() < 0.3 ? genCollate() : genNormalize();
  if (d <= 0 || rnd() < 0.3) return pick(STRS);
  switch (int(13)) {
    case 11: return `${genDate()}.${pick(DATE_TEXT)}()`;
    case 12: return pick([`String(${genDate()})`, `JSON.stringify({ d: ${genDate()} })`, `(${genDate()} + "")`,
      `\`\${${genDate()}}\``]);
    case 0: return `(${genStr(d - 1)} + ${genAny(d - 1)})`;
    case 1: return `\`<\${${genAny(d - 1)}}|\${${genNum(d - 1)}}>\``;
    case 2: return `String(${genAny(d - 1)})`;
    case 3: return `${genArr(d - 1)}.join(${pick(['","', '"-"', '""'])})`;
    case 4: return `${genStr(d - 1)}.slice(${pick(["0", "1", "-1", "-2"])})`;
    // case mapping is ASCII-only in plans (docs/js-plans.md): ASCII operands here
    case 5: return `${pick(['"abc"', '"Zebra"', '"B"', '" x "'])}.${pick(["toUpperCase", "toLowerCase", "trim"])}()`;
    case 6: return `JSON.stringify(${genAny(d - 1)})`;
    case 7: case 10: return rnd() < 0.25 ? `(${genNum(d - 1)}).toFixed(${int(4)})`
      // Number::toString(radix), toPrecision, toExponential (rounding: the larger n on a tie)
      : pick([`(${genNum(d - 1)}).toString(${pick(["2", "3", "8", "16", "36", "7", "10", "undefined"])})`,
        `(${genNum(d - 1)}).toPrecision(${pick(["1", "2", "3", "6", "17", "21", "undefined"])})`,
        `(${genNum(d - 1)}).toExponential(${pick(["0", "1", "2", "5", "20", "undefined"])})`]);
    case 8: return `${genStr(d - 1)}.padStart(${int(6)}, "*")`;
    case 9: return `${genStr(d - 1)}.split(${pick(['""', '"a"', '","'])}).join("|")`;
    default: return `(${genStr(d - 1)} ?? "n")`;
  }
}

function genBool(d) {
  if (d <= 0 || rnd() < 0.2) return pick(["true", "false"]);
  const ops = ["==", "===", "!=", "!==", "<", ">", "<=", ">="];
  switch (int(9)) {
    case 8: return `(${genDate()} ${pick(["<", ">", "<=", ">="])} ${genDate()})`;
    case 7: return `new Set(${genArr(d - 1)}).has(${genAny(d - 1)})`;
    case 0: return `(${genAny(d - 1)} ${pick(ops)} ${genAny(d - 1)})`;
    case 1: return `(${genNum(d - 1)} ${pick(ops)} ${genNum(d - 1)})`;
    case 2: return `(${genStr(d - 1)} ${pick(ops)} ${genStr(d - 1)})`;
    case 3: return `${genArr(d - 1)}.includes(${genAny(d - 1)})`;
    case 4: return `!${genAny(d - 1)}`;
    case 5: return `Number.isInteger(${genNum(d - 1)})`;
    default: return `${genStr(d - 1)}.startsWith(${genStr(d - 1)})`;
  }
}

function genArr(d) {
  if (d <= 0 || rnd() < 0.25) {
    const n = int(5);
    return `[${Array.from({ length: n }, () => (rnd() < 0.5 ? pick(NUMS) : pick(STRS))).join(", ")}]`;
  }
  switch (int(13)) {
    // Map and Set: SameValueZero keys (NaN, -0), insertion order, iterators spread
    case 10: return `[...new Set(${genArr(d - 1)})]`;
    case 11: return `[...new Map(${genArr(d - 1)}.map((x, i) => [${pick(["x", "String(x)", "i % 2", "typeof x"])}, i])).${pick(["keys", "values", "entries"])}()]`;
    case 12: return `Array.from(new ${pick(["Map", "Set"])}(${genArr(d - 1)}.map((x) => [x, typeof x])))`;
    case 0: return `${genArr(d - 1)}.map((x, i) => ${pick(["x", "i", "[x, i]", "String(x) + i", "typeof x"])})`;
    case 1: return `${genArr(d - 1)}.filter((x) => ${pick(["x", "!x", "typeof x === 'number'", "x > 1"])})`;
    case 2: return `[...${genArr(d - 1)}].sort()`;
    // a comparator must be consistent, or the order is implementation-defined: numbers only
    case 3: return `${genArr(d - 1)}.filter(Number.isFinite).sort((a, b) => ${pick(["a - b", "b - a", "0"])})`;
    case 4: return `[...${genArr(d - 1)}, ...${genArr(d - 1)}]`;
    case 5: return `${genArr(d - 1)}.slice(${int(3)}, ${int(5)})`;
    case 6: return `Object.keys(${genObj(d - 1)})`;
    case 7: return `Object.entries(${genObj(d - 1)})`;
    case 8: return `${genStr(d - 1)}.split("")`;
    default: return `[${genAny(d - 1)}, ${genAny(d - 1)}].flat()`;
  }
}

const KEYS = ["a", "b", "z", "10", "2", "1", "x_y", '"k k"', "$"];
function genObj(d) {
  if (d <= 0 || rnd() < 0.3) {
    const n = int(4);
    const parts = [];
    for (let i = 0; i < n; i++) parts.push(`${pick(KEYS)}: ${rnd() < 0.5 ? pick(NUMS) : pick(STRS)}`);
    return `({${parts.join(", ")}})`;
  }
  switch (int(5)) {
    case 4: return `Object.fromEntries(new Map(${genArr(d - 1)}.map((x, i) => [String(x), i])))`;
    case 0: return `({...${genObj(d - 1)}, ${pick(KEYS)}: ${genAny(d - 1)}, ...${genObj(d - 1)}})`;
    case 1: return `Object.fromEntries(${genArr(d - 1)}.map((x, i) => [String(x), i]))`;
    case 2: return `({ v: ${genAny(d - 1)}, w: [${genAny(d - 1)}] })`;
    default: return `(({ a, ...rest }) => ({ rest, a }))(${genObj(d - 1)})`;
  }
}

function genAny(d) {
  switch (int(9)) {
    case 0: case 1: return genNum(d);
    case 2: case 3: return genStr(d);
    case 4: return genBool(d);
    case 5: return genArr(d);
    case 6: return genObj(d);
    case 7: return pick(["null", "undefined", `(${genObj(d - 1)}?.a?.b ?? ${genNum(d - 1)})`,
      `(${genAny(d - 1)} || ${genAny(d - 1)})`, `(null ?? ${genAny(d - 1)})`]);
    default: return pick([`${genObj(d - 1)}.a`, `${genArr(d - 1)}[${int(3)}]`, `${genArr(d - 1)}.at(-1)`]);
  }
}

const CTORS = ["Error", "TypeError", "RangeError", "SyntaxError", "ReferenceError", "Object", "Array",
  "Date", "Map", "Set", "Promise", "Number", "String", "Boolean"];
const THROWERS = ["null.x", "undefinedName", "new RangeError('r')", "[].reduce((a, b) => a)",
  "JSON.parse('{')", "(1).toFixed(101)", "new Map().get.call", "throw new TypeError('t')", "throw 1"];

// issue 25's language corners: holes in destructuring, labels, instanceof, folded api paths
function genCorner(d) {
  switch (int(6)) {
    case 0:
      return `const [, a, , b = ${genNum(1)}, ...r] = ${genArr(d)};\nreturn [a, b, r];`;
    case 1:
      return `let p, q;\n[, p, , q] = ${pick([genStr(d), genArr(d)])};\nreturn [p, q];`;
    case 2: {
      const cond = () => pick(["i === 1", "typeof x === 'number'", "i > 2", "!x", "out.length > 4"]);
      const jump = () => pick(["continue outer", "break outer", "continue inner", "break inner", "break", "continue"]);
      return `const out = [];\nouter: for (const x of ${genArr(d)}) {\n  inner: for (let i = 0; i < ${int(5)}; i++) {\n` +
        `    if (${cond()}) ${jump()};\n    out.push([x, i]);\n    if (${cond()}) ${jump()};\n  }\n` +
        `  ${pick(["", "blk: { if (out.length > 3) break blk; out.push('b'); }", "w: while (true) { out.push('w'); break w; }"])}\n}\nreturn out;`;
    }
    case 3:
      return `try { ${pick(THROWERS)}; return "none"; } catch (e) {\n  return [${CTORS.filter(() => rnd() < 0.5).map((c) => `e instanceof ${c}`).join(", ")}];\n}`;
    case 4:
      return `return [${genAny(d)} instanceof ${pick(CTORS)}, ${genAny(d)} instanceof ${pick(CTORS)}, ${pick(["new Date(0)", "new Map()", "new Set()", "Promise.resolve(1)", "[]", "({})", "new Error('e')"])} instanceof ${pick(CTORS)}];`;
    default:
      return `return await api.${pick(["get", "post"])}(${pick(['"/users/" + "u12"', '"/a" + `/${1 + 1}` + "/c"', '"/x/" + "y" + "/z"'])});`;
  }
}

function genProgram() {
  const d = 1 + int(3);
  if (rnd() < 0.1) return genCorner(d);
  switch (int(9)) {
    case 7: {
      // grouping with a Map: get/set/has/delete, forEach's (value, key) order, size
      return `const m = new Map();\nfor (const x of ${genArr(d)}) {\n  const k = ${pick(["typeof x", "String(x).length", "x"])};\n` +
        `  if (!m.has(k)) m.set(k, []);\n  m.get(k).push(x);\n}\n${pick(["", "m.delete(\"number\");\n", "m.set(1, \"one\");\n"])}` +
        `const out = [];\nm.forEach((v, k) => out.push([k, v.length]));\nreturn { out, size: m.size, keys: [...m.keys()] };`;
    }
    case 0: {
      // statements: loops, destructuring, reduce
      return `const xs = ${genArr(d)};\nlet acc = ${pick(["0", '""', "[]"])};\n` +
        `for (const [i, x] of xs.map((v, k) => [k, v])) { acc = acc + x + i; }\n` +
        `return { acc, n: xs.length, r: xs.reduce((s, v) => s + String(v), "") };`;
    }
    case 1:
      return `try { const o = ${genAny(d)}; return o.q.r; } catch (e) { return e.name; }`;
    case 2: {
      // the fake api: Promise.all fan-out in order, failures caught and visible
      const n = 1 + int(4);
      return `const ids = [${Array.from({ length: n }, (_, i) => `"${i}${pick(["", "x", "fail"])}"`).join(", ")}];\n` +
        `const out = [];\nfor (const id of ids) {\n  try { out.push(await api.get(\`/users/\${id}\`)); }\n` +
        `  catch (e) { out.push({ failed: e.message }); }\n}\n` +
        `const all = await Promise.all(ids.slice(0, 2).map(async (id) => (await api.post("/b", { id })).n));\n` +
        `return { out, all };`;
    }
    case 3:
      return `const { a = ${genNum(1)}, b: [c, ...d] = [] , ...e } = ${genObj(d)};\nreturn [a, c, d, e];`;
    case 4:
      return `let s = 0, i = 0;\nwhile (i < ${int(20)}) { if (i % 3 === 0) { i++; continue; } s += i; i++; if (s > 40) break; }\nreturn s;`;
    case 5:
      return `const f = (x, y = ${genNum(1)}) => x ?? y;\nswitch (${genNum(1)}) { case 0: return f(null); case 1: return f(1, 2); default: return [f(), f(undefined, 3)]; }`;
    case 6:
      return `throw ${pick(["new TypeError('t')", "new RangeError('r')", "new Error('e')", "null.x", "undefinedName"])};`;
    default:
      return `return ${genAny(d)};`;
  }
}

// COUNT programs from SEED, in order.
export function generatePrograms(count, seedValue) {
  seed = Number(seedValue) >>> 0;
  const programs = [];
  for (let i = 0; i < count; i++) programs.push(genProgram());
  return programs;
}

// Runs one plan in Node as an async function body with the deterministic fake `api`, whose
// answers may come from FIXTURES ("method path" -> value). Returns {ok: JSON text} or {error}.
export function nodeRun(code, fixtures = {}, args = {}) {
  let n = 0;
  const api = {};
  for (const method of ["get", "post", "put", "patch", "delete"]) {
    api[method] = (path, body) => {
      const idx = n++;
      const fx = fixtures[`${method} ${path}`];
      if (fx !== undefined) return Promise.resolve(structuredClone(fx));
      if (typeof path === "string" && path.includes("fail"))
        return Promise.reject(new Error(`HTTP 500 from ${path}`));
      return Promise.resolve({ method, path: path ?? null, body: body ?? null, n: idx });
    };
  }
  const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
  return (async () => {
    try {
      const v = await new AsyncFunction("api", "args", code)(api, args);
      const text = JSON.stringify(v);
      return { ok: text === undefined ? "undefined" : text };
    } catch (e) {
      if (e instanceof Error) return { error: e.name };
      return { error: "throw" };
    }
  })();
}
