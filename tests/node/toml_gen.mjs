// toml_gen.mjs — random TOML documents from a seed, for the differential test against smol-toml.
//
// Owns: a seeded PRNG and a generator of documents that exercise every TOML 1.0 construct
// (nested [tables], [[arrays of tables]], dotted and quoted keys, the four string kinds with
// escapes, edge integers and floats, the four date-time kinds, arrays, inline tables), and a
// mutator that breaks some of them on purpose. Keys come from a small pool so that duplicates and
// table redefinitions happen often. Does not own: judging the results (toml_smol_diff.mjs).

export function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  const pick = (xs) => xs[int(xs.length)];
  const chance = (p) => next() < p;
  return { next, int, pick, chance };
}

const BARE = ['a', 'b', 'c', 'port', 'name', 'x-y', 'k_1', '1', '0', 'true', 'inf', 'nan', '-'];
const STRING_PIECES = [
  'plain', ' ', 'é', '日本', '😀', '\\n', '\\t', '\\"', '\\\\', '\\u00e9', '\\U0001F600', '\\u0000',
  '\\b', '\\f', '\\r', '#', '=', "'", '[', ']', '{', '}', ',', '.',
];
const BAD_ESCAPES = ['\\q', '\\e', '\\x41', '\\uD800', '\\U00110000', '\\u12', '\\ '];

function basicString(r, multiline) {
  let s = '';
  const n = r.int(5);
  for (let i = 0; i < n; i++) {
    let piece = r.pick(STRING_PIECES);
    if (piece === '\\"' || piece === "'" || !multiline) piece = piece === "'" ? "'" : piece;
    s += piece;
  }
  if (r.chance(0.05)) s += r.pick(BAD_ESCAPES);
  if (multiline) {
    if (r.chance(0.3)) s = '\n' + s;
    if (r.chance(0.3)) s += '\\\n   more';
    if (r.chance(0.2)) s += '""x';
    return `"""${s}"""`;
  }
  return `"${s}"`;
}

function literalString(r, multiline) {
  const pieces = ['raw', ' ', '\\n', '\\', '"', 'é', '#', '😀'];
  let s = '';
  const n = r.int(4);
  for (let i = 0; i < n; i++) s += r.pick(pieces);
  if (multiline) {
    if (r.chance(0.3)) s = '\n' + s + '\nline';
    if (r.chance(0.2)) s += "''x";
    return `'''${s}'''`;
  }
  return `'${s}'`;
}

function integer(r) {
  return r.pick([
    () => String(r.int(1000) - 500),
    () => '+' + r.int(100),
    () => '1_000',
    () => '9223372036854775807',
    () => '-9223372036854775808',
    () => '9223372036854775808',
    () => '0x' + r.pick(['DEAD_beef', '7fffffffffffffff', '0', 'ff']),
    () => '0o' + r.pick(['755', '0', '17']),
    () => '0b' + r.pick(['1010', '0', '1_1']),
    () => r.pick(['007', '1__2', '_1', '1_', '0x', '+0x1', '0X1', '-0', '+0']),
  ])();
}

function float(r) {
  return r.pick([
    () => `${r.int(100)}.${r.int(1000)}`,
    () => `${r.pick(['', '+', '-'])}${r.int(10)}e${r.pick(['', '+', '-'])}${r.int(30)}`,
    () => `${r.int(9) + 1}.5E-${r.int(300)}`,
    () => r.pick(['inf', '+inf', '-inf', 'nan', '+nan', '-nan']),
    () => r.pick(['1_000.0_1', '0.0', '-0.0', '1e1_0', '6.626e-34', '5e+22']),
    () => r.pick(['1.', '.5', '1.e2', '1e', '01.5', '1._5', 'Inf', '1e2.5']),
  ])();
}

const pad = (n, w = 2) => String(n).padStart(w, '0');

function date(r) {
  const year = r.pick([1979, 2000, 2024, 2100, 1, 9999]);
  const month = r.chance(0.9) ? r.int(12) + 1 : r.pick([0, 13]);
  const day = r.chance(0.85) ? r.int(28) + 1 : r.pick([29, 30, 31, 0, 32]);
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

function time(r) {
  const h = r.chance(0.95) ? r.int(24) : 24;
  const m = r.chance(0.95) ? r.int(60) : 60;
  const s = r.chance(0.95) ? r.int(60) : r.pick([60, 61]);
  let t = `${pad(h)}:${pad(m)}`;
  if (r.chance(0.95)) t += `:${pad(s)}`;
  if (r.chance(0.3)) t += '.' + String(r.int(1000000)).slice(0, r.int(6) + 1);
  return t;
}

function datetime(r) {
  return r.pick([
    () => date(r),
    () => time(r),
    () => `${date(r)}${r.pick(['T', 't', ' '])}${time(r)}`,
    () => `${date(r)}T${time(r)}${r.pick(['Z', 'z', '+08:00', '-05:30', '+24:00', '-00:00'])}`,
  ])();
}

function key(r) {
  const parts = [];
  const n = r.chance(0.7) ? 1 : r.int(3) + 2;
  for (let i = 0; i < n; i++) {
    parts.push(
      r.pick([
        () => r.pick(BARE),
        () => r.pick(BARE),
        () => `"${r.pick(['a', 'a.b', '', 'é', '\\u0041', ' '])}"`,
        () => `'${r.pick(['b', 'c d', ''])}'`,
      ])(),
    );
  }
  return parts.join(r.pick(['.', ' . ', '.']));
}

function value(r, depth) {
  const kinds = [
    () => basicString(r, false),
    () => basicString(r, true),
    () => literalString(r, false),
    () => literalString(r, true),
    () => integer(r),
    () => float(r),
    () => r.pick(['true', 'false']),
    () => datetime(r),
  ];
  if (depth < 4) {
    kinds.push(() => array(r, depth + 1), () => inlineTable(r, depth + 1));
  }
  return r.pick(kinds)();
}

function array(r, depth) {
  const n = r.int(4);
  const items = [];
  for (let i = 0; i < n; i++) items.push(value(r, depth));
  const sep = r.chance(0.2) ? ',\n  ' : r.chance(0.1) ? ', # c\n' : ', ';
  return `[${items.join(sep)}${n && r.chance(0.2) ? ',' : ''}]`;
}

function inlineTable(r, depth) {
  const n = r.int(3);
  const items = [];
  for (let i = 0; i < n; i++) items.push(`${key(r)} = ${value(r, depth)}`);
  return `{${items.length ? ' ' + items.join(', ') + ' ' : ''}}`;
}

export function documentOf(r) {
  const lines = [];
  const sections = r.int(5);
  const keyvals = () => {
    const n = r.int(4);
    for (let i = 0; i < n; i++) lines.push(`${key(r)} = ${value(r, 0)}${r.chance(0.1) ? ' # note' : ''}`);
  };
  keyvals();
  for (let s = 0; s < sections; s++) {
    const aot = r.chance(0.35);
    const k = key(r);
    lines.push(aot ? `[[${k}]]` : `[${k}]`);
    keyvals();
  }
  return lines.join(r.chance(0.1) ? '\r\n' : '\n') + (r.chance(0.8) ? '\n' : '');
}

const NOISE = ['=', '[', ']', '{', '}', ',', '"', "'", '.', '#', '\n', '\\', '_', '0', ' ', 'x', '\t', '\r'];

// Breaks a document: deletes, inserts or duplicates something.
export function mutate(r, doc) {
  const at = r.int(doc.length + 1);
  return r.pick([
    () => doc.slice(0, at) + doc.slice(at + 1),
    () => doc.slice(0, at) + r.pick(NOISE) + doc.slice(at),
    () => {
      const lines = doc.split('\n');
      const i = r.int(lines.length);
      lines.splice(i, 0, lines[i]);
      return lines.join('\n');
    },
  ])();
}
