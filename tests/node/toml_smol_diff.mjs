// toml_smol_diff.mjs — differential test of our TOML parser (build/toml2json) against smol-toml.
//
// Owns: (a) every file of the toml-test 1.0.0 list through both parsers, (b) N random documents
// from a fixed seed (toml_gen.mjs; some deliberately broken), comparing accept/reject and the
// value trees (toml_compare.mjs, date-times to the millisecond since smol-toml uses Date). Known
// smol-toml departures from TOML 1.0 are allowed only through tests/diff/toml_smol_allowlist.txt,
// whose entries are checked against the corpus first. A disagreement prints a minimised document.
// Does not own: either parser.
// Usage: node toml_smol_diff.mjs TOML2JSON ALLOWLIST [COUNT] [SEED]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, TomlDate } from 'smol-toml';
import { findCorpus, taggedDiff } from './toml_compare.mjs';
import { documentOf, mutate, prng } from './toml_gen.mjs';

const [toml2json, allowlistPath, countArg, seedArg] = process.argv.slice(2);
const COUNT = Number(countArg || 2500);
const SEED = Number(seedArg || 20240527);
const scratch = mkdtempSync(join(tmpdir(), 'toml-smol-'));
const docPath = join(scratch, 'doc.toml');
const SANITIZER = /AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:/;

function ours(bytes) {
  writeFileSync(docPath, bytes);
  const r = spawnSync(toml2json, [docPath], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status === 0) return { ok: true, value: JSON.parse(r.stdout) };
  if (r.status !== 1 || SANITIZER.test(r.stderr))
    throw new Error(`toml2json crashed (exit ${r.status ?? r.signal}) on:\n${bytes}\n${r.stderr}`);
  return { ok: false, error: r.stderr.split('\n')[0].replace(docPath + ':', '') };
}

function tagged(v) {
  if (v instanceof TomlDate) {
    const type = v.isDate() ? 'date-local' : v.isTime() ? 'time-local' : v.isLocal() ? 'datetime-local' : 'datetime';
    return { type, value: v.toISOString() };
  }
  if (Array.isArray(v)) return v.map(tagged);
  switch (typeof v) {
    case 'bigint':
      return { type: 'integer', value: v.toString() };
    case 'number':
      return { type: 'float', value: Number.isNaN(v) ? 'nan' : v === Infinity ? 'inf' : v === -Infinity ? '-inf' : String(v) };
    case 'string':
      return { type: 'string', value: v };
    case 'boolean':
      return { type: 'bool', value: String(v) };
    default: {
      const out = {};
      for (const k of Object.keys(v)) out[k] = tagged(v[k]);
      return out;
    }
  }
}

function smol(text) {
  try {
    return { ok: true, value: tagged(parse(text, { integersAsBigInt: true })) };
  } catch (e) {
    return { ok: false, error: String(e.message).split('\n')[0] };
  }
}

function loadAllowlist() {
  const entries = [];
  for (const line of readFileSync(allowlistPath, 'utf8').split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const cut = line.indexOf(' ');
    const accepts = line.startsWith('accepts:');
    const file = line.slice(accepts ? 'accepts:'.length : 0, cut);
    entries.push({ file, accepts, regex: new RegExp(line.slice(cut + 1)), used: 0 });
  }
  return entries;
}

// null when the two agree (or the difference is allowlisted), else { kind, detail }.
function judge(bytes, allowlist) {
  const a = ours(bytes);
  const b = smol(bytes.toString('utf8'));
  if (a.ok && b.ok) {
    const d = taggedDiff(b.value, a.value, '$', { ms: true });
    return d ? { kind: 'value', detail: `ours vs smol-toml: ${d}` } : null;
  }
  if (!a.ok && !b.ok) return null;
  if (!a.ok) {
    const entry = allowlist.find((e) => !e.accepts && e.regex.test(a.error));
    if (entry) {
      entry.used++;
      return null;
    }
    return { kind: 'we-reject', detail: `we reject (${a.error}); smol-toml accepts` };
  }
  const json = JSON.stringify(a.value, null, 1);
  const entry = allowlist.find((e) => e.accepts && e.regex.test(json));
  if (entry) {
    entry.used++;
    return null;
  }
  return { kind: 'we-accept', detail: `we accept; smol-toml rejects (${b.error})` };
}

// Deletes lines, then single characters, while the same kind of disagreement remains.
function minimise(text, kind, allowlist) {
  const still = (t) => judge(Buffer.from(t), allowlist)?.kind === kind;
  let changed = true;
  while (changed) {
    changed = false;
    for (const sep of ['\n', '']) {
      const parts = sep ? text.split(sep) : [...text];
      for (let i = 0; i < parts.length; i++) {
        const candidate = [...parts.slice(0, i), ...parts.slice(i + 1)].join(sep);
        if (still(candidate)) {
          text = candidate;
          changed = true;
          break;
        }
      }
      if (changed) break;
    }
  }
  return text;
}

const failures = [];
function check(label, bytes, allowlist, stats) {
  const verdict = judge(bytes, allowlist);
  if (!verdict) {
    stats.agree++;
    return;
  }
  if (failures.length < 20) {
    const small = minimise(bytes.toString('utf8'), verdict.kind, allowlist);
    failures.push(`${label}: ${verdict.detail}\n--- minimal document ---\n${small}\n------------------------`);
  } else {
    failures.push(label);
  }
}

const { dir, tried } = findCorpus(process.env);
if (!dir) {
  console.error(`toml-test corpus not found; looked in:\n  ${tried.join('\n  ')}`);
  process.exit(1);
}
const tests = join(dir, 'tests');
const list = readFileSync(join(tests, 'files-toml-1.0.0'), 'utf8').split('\n').filter((l) => l.endsWith('.toml'));
const allowlist = loadAllowlist();

// Every allowlist entry must be decided by the 1.0.0 corpus the way we decide it.
for (const e of allowlist) {
  if (e.file.startsWith('spec:')) continue;
  // A corpus entry: the file is in the 1.0.0 list and we reject it (with the listed error, for
  // entries where we are the one rejecting).
  const a = list.includes(e.file) ? ours(readFileSync(join(tests, e.file))) : null;
  if (!a || a.ok || (!e.accepts && !e.regex.test(a.error)))
    failures.push(`allowlist entry ${e.file}: not in files-toml-1.0.0, accepted, or error ${a && a.error} does not match ${e.regex}`);
}

const corpusStats = { agree: 0 };
for (const rel of list) check(rel, readFileSync(join(tests, rel)), allowlist, corpusStats);

const r = prng(SEED);
const genStats = { agree: 0, accepted: 0, broken: 0 };
for (let i = 0; i < COUNT; i++) {
  let doc = documentOf(r);
  if (r.chance(0.35)) {
    doc = mutate(r, doc);
    genStats.broken++;
  }
  if (smol(doc).ok) genStats.accepted++;
  check(`generated #${i} (seed ${SEED})`, Buffer.from(doc), allowlist, genStats);
}
rmSync(scratch, { recursive: true, force: true });

for (const f of failures) console.log(`FAIL ${f}`);
console.log(`corpus: ${corpusStats.agree}/${list.length} agree with smol-toml (after allowlist)`);
console.log(
  `generated: ${genStats.agree}/${COUNT} agree (${genStats.broken} mutated, ${genStats.accepted} accepted by smol-toml), seed ${SEED}`,
);
console.log(`allowlist uses: ${allowlist.map((e) => `${e.file}=${e.used}`).join(', ')}`);
process.exit(failures.length ? 1 : 0);
