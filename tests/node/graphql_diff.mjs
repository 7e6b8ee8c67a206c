// graphql_diff.mjs — differential test of sluice's GraphQL parser and printer against
// graphql-js 16 (the reference implementation).
//
// Owns: running the spec examples (graphql_corpus.mjs) and COUNT seeded documents
// (graphql_gen.mjs) through tests/programs/graphql_print (one process per batch) and through
// graphql-js parse (maxTokens = sluice's token limit) + print, and judging each pair:
//   - both accept: the printed forms must be identical;
//   - both reject: the message and the line/column must be identical (columns in characters;
//     graphql-js counts UTF-16 units, converted here);
//   - sluice refuses at a limit: graphql-js must refuse at the same token for the token limit,
//     and for the nesting limit the document must really nest deeper than the limit.
// Anything else is a disagreement, shrunk (chunks of characters removed while the pair still
// disagrees) and printed. Exit 0 when all agree.
// Does not own: either parser.
// usage: node graphql_diff.mjs GRAPHQL_PRINT [--seed N] [--count N] [--batch N]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kind, parse, print, visit } from 'graphql';
import { SPEC_EXAMPLES } from './graphql_corpus.mjs';
import { LIMIT_DEPTH, LIMIT_TOKENS, generator } from './graphql_gen.mjs';

const args = process.argv.slice(2);
const bin = args[0];
const opt = (flag, dflt) => {
  const i = args.indexOf(flag);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const SEED = opt('--seed', Number(process.env.SEED ?? 1));
const COUNT = opt('--count', Number(process.env.COUNT ?? 50000));
const BATCH = opt('--batch', 5000);
const scratch = mkdtempSync(join(tmpdir(), 'graphql-diff-'));

function ours(docs) {
  const file = join(scratch, 'batch.jsonl');
  writeFileSync(file, docs.map((doc) => JSON.stringify({ doc })).join('\n') + '\n');
  const r = spawnSync(bin, [file], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`graphql_print exited ${r.status ?? r.signal}: ${r.stderr}`);
  const lines = r.stdout.split('\n').filter((l) => l.length > 0);
  if (lines.length !== docs.length) throw new Error(`graphql_print gave ${lines.length} answers for ${docs.length}`);
  return lines.map((l) => JSON.parse(l));
}

// Line and column (in code points) of a UTF-16 offset, counting line ends as sluice does.
function locate(body, pos) {
  let line = 1, column = 1;
  for (let i = 0; i < pos; i++) {
    const c = body.charCodeAt(i);
    if (c === 0x0a || c === 0x0d) {
      if (c === 0x0d && i + 1 < pos && body.charCodeAt(i + 1) === 0x0a) i++;
      line++;
      column = 1;
    } else if (!(c >= 0xdc00 && c <= 0xdfff && i > 0 && body.charCodeAt(i - 1) >= 0xd800 && body.charCodeAt(i - 1) <= 0xdbff)) {
      column++;
    }
  }
  return { line, column };
}

// Deepest nesting as sluice counts it: selection sets, list and object values, list types.
function depthOf(ast) {
  let depth = 0, deepest = 0;
  const nests = new Set([Kind.SELECTION_SET, Kind.LIST, Kind.OBJECT, Kind.LIST_TYPE]);
  visit(ast, {
    enter(node) { if (nests.has(node.kind)) deepest = Math.max(deepest, ++depth); },
    leave(node) { if (nests.has(node.kind)) depth--; },
  });
  return deepest;
}

function reference(doc) {
  try {
    const ast = parse(doc, { maxTokens: LIMIT_TOKENS });
    return { ok: true, printed: print(ast), ast };
  } catch (e) {
    if (!e.locations) return { ok: false, crash: String(e) }; // e.g. RangeError: stack
    const pos = e.positions[0];
    // sluice cannot put NUL in a message and never cuts a character in half
    const message = e.message.toWellFormed().replaceAll('\0', '\uFFFD');
    return { ok: false, message, pos, ...locate(doc, pos) };
  }
}

// null when sluice (o) and graphql-js (j) agree on doc, else what differs.
function judge(doc, o, j) {
  if (o.ok === false && o.status === 'limit') {
    if (/tokens/.test(o.message))
      return !j.ok && /Document contains more that \d+ tokens/.test(j.message) && j.line === o.line && j.column === o.column ? null : 'token limit';
    if (/nesting/.test(o.message)) return j.ok ? (depthOf(j.ast) > LIMIT_DEPTH ? null : 'depth limit on a shallow document') : null;
    return 'unexpected limit';
  }
  if (j.crash) return null; // graphql-js itself fell over (deep recursion); nothing to compare
  if (o.ok !== j.ok) return o.ok ? 'sluice accepts, graphql-js rejects' : 'sluice rejects, graphql-js accepts';
  if (o.ok) return o.printed === j.printed ? null : 'printed form';
  if (o.message !== j.message) return 'error message';
  return o.line === j.line && o.column === j.column ? null : 'error position';
}

function describe(doc, o, j) {
  return `document: ${JSON.stringify(doc)}\n  sluice:     ${JSON.stringify(o)}\n  graphql-js: ${JSON.stringify({ ...j, ast: undefined })}`;
}

// Removes ever smaller chunks of code points while some disagreement remains.
function shrink(doc) {
  let cur = Array.from(doc);
  for (let size = Math.max(1, cur.length >> 1); size >= 1; size = size >> 1) {
    let progress = true;
    while (progress && cur.length > 1) {
      progress = false;
      const cands = [];
      for (let i = 0; i + size <= cur.length; i += size) cands.push(cur.slice(0, i).concat(cur.slice(i + size)).join(''));
      const res = ours(cands);
      for (let k = 0; k < cands.length; k++) {
        if (judge(cands[k], res[k], reference(cands[k]))) {
          cur = Array.from(cands[k]);
          progress = true;
          break;
        }
      }
    }
  }
  return cur.join('');
}

function runBatch(docs, label) {
  const results = ours(docs);
  const tally = { accepted: 0, rejected: 0, limits: 0 };
  for (let i = 0; i < docs.length; i++) {
    const j = reference(docs[i]);
    const why = judge(docs[i], results[i], j);
    if (why) {
      console.error(`graphql-js disagreement (${label} #${i}): ${why}\n${describe(docs[i], results[i], j)}`);
      const small = shrink(docs[i]);
      const so = ours([small])[0];
      console.error(`shrunk to:\n${describe(small, so, reference(small))}`);
      return null;
    }
    if (results[i].ok) tally.accepted++;
    else if (results[i].status === 'limit') tally.limits++;
    else tally.rejected++;
  }
  return tally;
}

function main() {
  const total = { accepted: 0, rejected: 0, limits: 0 };
  const add = (t) => { for (const k of Object.keys(total)) total[k] += t[k]; };
  const spec = runBatch(SPEC_EXAMPLES, 'spec example');
  if (!spec) return 1;
  add(spec);
  const gen = generator(SEED);
  for (let done = 0; done < COUNT; done += BATCH) {
    const docs = Array.from({ length: Math.min(BATCH, COUNT - done) }, () => gen.document());
    const t = runBatch(docs, `seed ${SEED} batch ${done / BATCH}`);
    if (!t) return 1;
    add(t);
  }
  console.log(`graphql-js agrees on ${SPEC_EXAMPLES.length} spec examples and ${COUNT} generated documents ` +
    `(seed ${SEED}): ${total.accepted} accepted with identical printed forms, ${total.rejected} rejected with ` +
    `identical errors, ${total.limits} refused at sluice's limits`);
  return 0;
}

let rc = 1;
try {
  rc = main();
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(rc);
