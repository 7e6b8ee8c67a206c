// toml_compare.mjs — compares two values in toml-test's tagged JSON the way toml-test does.
//
// Owns: equality of tagged trees: integers exactly (BigInt), floats numerically (nan equals nan,
// signed infinities), date-times after normalising separator, case and fractional zeros,
// strings and booleans exactly, tables by key set, arrays in order.
// Does not own: running parsers (toml_corpus.mjs, toml_smol_diff.mjs).

import { existsSync } from 'node:fs';
import { join } from 'node:path';

const DATETIME_TYPES = new Set(['datetime', 'datetime-local', 'date-local', 'time-local']);

// "1987-07-05 17:45:56.600z" and "1987-07-05T17:45:56.6Z" are the same value. With ms, digits
// past the millisecond are dropped (for parsers built on JavaScript's Date).
export function normaliseDatetime(text, ms = false) {
  let s = text.toUpperCase().replace(' ', 'T');
  if (ms) s = s.replace(/\.(\d{3})\d+/, '.$1');
  s = s.replace(/\.(\d*?)0*(?=$|Z|[+-])/, (_, digits) => (digits.length ? '.' + digits : ''));
  return s;
}

function floatOf(text) {
  if (/^[+-]?nan$/.test(text)) return NaN;
  if (/^[+-]?inf$/.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  return Number(text.replace(/_/g, ''));
}

function isTagged(v) {
  return (
    v !== null &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    Object.keys(v).length === 2 &&
    typeof v.type === 'string' &&
    typeof v.value === 'string'
  );
}

function scalarDiff(want, got, path, opts) {
  if (want.type !== got.type) return `${path}: type ${got.type}, expected ${want.type}`;
  let same;
  if (want.type === 'integer') {
    try {
      same = BigInt(want.value) === BigInt(got.value);
    } catch {
      same = false;
    }
  } else if (want.type === 'float') {
    const a = floatOf(want.value), b = floatOf(got.value);
    same = (Number.isNaN(a) && Number.isNaN(b)) || a === b;
  } else if (DATETIME_TYPES.has(want.type)) {
    same = normaliseDatetime(want.value, opts.ms) === normaliseDatetime(got.value, opts.ms);
  } else {
    same = want.value === got.value;
  }
  return same ? null : `${path}: ${JSON.stringify(got.value)}, expected ${JSON.stringify(want.value)}`;
}

// Returns null when equal, else a sentence naming the first difference. opts.ms: compare
// date-times to the millisecond.
export function taggedDiff(want, got, path = '$', opts = {}) {
  if (Array.isArray(want) || Array.isArray(got)) {
    if (!Array.isArray(want) || !Array.isArray(got)) return `${path}: array vs non-array`;
    if (want.length !== got.length) return `${path}: ${got.length} elements, expected ${want.length}`;
    for (let i = 0; i < want.length; i++) {
      const d = taggedDiff(want[i], got[i], `${path}[${i}]`, opts);
      if (d) return d;
    }
    return null;
  }
  if (isTagged(want) || isTagged(got)) {
    if (!isTagged(want) || !isTagged(got)) return `${path}: scalar vs table`;
    return scalarDiff(want, got, path, opts);
  }
  if (typeof want !== 'object' || typeof got !== 'object' || !want || !got)
    return `${path}: not a table`;
  const wk = Object.keys(want).sort(), gk = Object.keys(got).sort();
  if (JSON.stringify(wk) !== JSON.stringify(gk))
    return `${path}: keys ${JSON.stringify(gk)}, expected ${JSON.stringify(wk)}`;
  for (const k of wk) {
    const d = taggedDiff(want[k], got[k], `${path}.${JSON.stringify(k)}`, opts);
    if (d) return d;
  }
  return null;
}

// Where the toml-test corpus is: $SLUICE_TOML_TEST_DIR, else next to the source tree, else the
// shared default. Returns { dir, tried }.
export function findCorpus(env) {
  const tried = [];
  if (env.SLUICE_TOML_TEST_DIR) tried.push(env.SLUICE_TOML_TEST_DIR);
  if (env.SLUICE_SOURCE_DIR) tried.push(join(env.SLUICE_SOURCE_DIR, '..', 'shared', 'testdata', 'toml-test'));
  tried.push('/work/shared/testdata/toml-test');
  const dir = tried.find((d) => existsSync(join(d, 'tests', 'files-toml-1.0.0')));
  return { dir, tried };
}
