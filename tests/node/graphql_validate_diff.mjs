// graphql_validate_diff.mjs — differential test of sluice's GraphQL validation against
// graphql-js 16's `validate` on the rules sluice implements.
//
// Owns: a seeded generator of operations against a schema (the example API's,
// examples/graphql/schema.graphql): valid operations built from the schema (fields, arguments
// with literals and variables of every input kind, fragments, inline fragments, directives),
// then, for most documents, one mutation that breaks exactly one rule (unknown field, argument
// or fragment; a wrong literal; a missing required argument; an undefined, unused or
// mis-typed variable; a fragment on a scalar or an impossible type; a fragment cycle; an unused
// fragment; an unknown type or enum value (a typo, a recased or quoted value: graphql-js's
// "Did you mean" compared word for word); an unknown, misplaced or repeated directive; a leaf with a selection or an object
// without one; a type-system definition; duplicate names; a second anonymous operation).
// Same-named fields are generated on purpose (repeated response keys, a small alias pool, and
// mutations that alias one field onto another or repeat a field with other arguments), so
// OverlappingFieldsCanBeMerged is exercised both ways. Both sides judge each document;
// accept/reject must agree. graphql-js runs specifiedRules minus SingleFieldSubscriptions (the
// generator emits no subscriptions).
// Does not own: either validator.
// usage: node graphql_validate_diff.mjs GRAPHQL_VALIDATE SCHEMA.graphql [--seed N] [--count N] [--broad]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildSchema, parse, validate, specifiedRules, SingleFieldSubscriptionsRule, getNamedType, isLeafType, isNonNullType, isListType,
  isEnumType, isInputObjectType, isScalarType, isObjectType, isInterfaceType, getIntrospectionQuery,
} from 'graphql';
import { prng } from './toml_gen.mjs';

const args = process.argv.slice(2);
const [bin, schemaFile] = args;
const opt = (flag, dflt) => {
  const i = args.indexOf(flag);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const SEED = opt('--seed', Number(process.env.SEED ?? 1));
// --broad: a schema the mutations below were not written for (GitHub's): agreement is checked,
// rule coverage is not
const BROAD = args.includes('--broad');
const COUNT = opt('--count', Number(process.env.COUNT ?? 5000));
const schema = buildSchema(readFileSync(schemaFile, 'utf8'));
const rules = specifiedRules.filter((r) => r !== SingleFieldSubscriptionsRule);

function generator(seed) {
  const rnd = prng(seed).next;
  const int = (n) => Math.floor(rnd() * n);
  const pick = (a) => a[int(a.length)];
  const chance = (p) => rnd() < p;

  // A literal of input type t (valid), or a variable declared for it.
  function literal(t, ctx, depth = 0) {
    if (ctx && chance(0.2) && depth < 3) {
      const name = `v${ctx.vars.length}`;
      ctx.vars.push({ name, type: String(t) });
      return `$${name}`;
    }
    if (isNonNullType(t)) return literal(t.ofType, ctx, depth);
    if (chance(0.08)) return 'null';
    if (isListType(t)) return chance(0.5) ? `[${literal(t.ofType, ctx, depth + 1)}]` : literal(t.ofType, ctx, depth + 1);
    if (isEnumType(t)) return pick(t.getValues()).name;
    if (isInputObjectType(t)) {
      const fs = Object.values(t.getFields()).filter((f) => isNonNullType(f.type) || chance(0.5));
      return `{${fs.map((f) => `${f.name}: ${literal(f.type, ctx, depth + 1)}`).join(', ')}}`;
    }
    switch (t.name) {
      case 'Int': return String(int(100) - 10);
      case 'Float': return pick(['1.5', '2', '-0.25']);
      case 'String': return pick(['"a"', '"SMB"', '""""block"""']);
      case 'Boolean': return pick(['true', 'false']);
      case 'ID': return pick(['"7"', '7']);
      default: return '"x"';
    }
  }

  function args_of(field, ctx) {
    const as = field.args.filter((a) => isNonNullType(a.type) || chance(0.5));
    return as.length ? `(${as.map((a) => `${a.name}: ${literal(a.type, ctx)}`).join(', ')})` : '';
  }

  function directive(ctx) {
    if (!chance(0.15)) return '';
    return ` @${pick(['include', 'skip'])}(if: ${chance(0.3) ? (ctx.vars.push({ name: `v${ctx.vars.length}`, type: 'Boolean!' }), `$v${ctx.vars.length - 1}`) : 'true'})`;
  }

  function selection(type, ctx, depth) {
    const fields = isObjectType(type) || isInterfaceType(type) ? Object.values(type.getFields()) : [];
    const parts = [];
    const n = 1 + int(3);
    for (let i = 0; i < n; i++) {
      const r = rnd();
      if (r < 0.1) { parts.push('__typename'); continue; }
      if (r < 0.18 && depth < 3) { parts.push(`... on ${type.name}${directive(ctx)} { ${selection(type, ctx, depth + 1)} }`); continue; }
      if (r < 0.26 && depth < 3 && ctx.frags.length < 3) {
        const name = `F${ctx.frags.length}`;
        ctx.frags.push(null);
        const body = selection(type, ctx, depth + 1);
        ctx.frags[Number(name.slice(1))] = `fragment ${name} on ${type.name} { ${body} }`;
        parts.push(`...${name}${directive(ctx)}`);
        continue;
      }
      const f = pick(fields);
      if (f === undefined) { parts.push('__typename'); continue; }
      const named = getNamedType(f.type);
      const alias = chance(0.1) ? `a${int(ctx.aliases)}: ` : '';
      // mostly distinct response keys; some repeat, to merge or to conflict
      const key = alias || f.name;
      if (ctx.keys.has(`${depth}:${type.name}:${key}:${ctx.level}`) && !chance(0.15)) continue;
      ctx.keys.add(`${depth}:${type.name}:${key}:${ctx.level}`);
      const head = `${alias}${f.name}${args_of(f, ctx)}${directive(ctx)}`;
      if (isLeafType(named) || depth >= 3) {
        parts.push(isLeafType(named) ? head : `${head} { __typename }`);
      } else {
        ctx.level++;
        parts.push(`${head} { ${selection(named, ctx, depth + 1)} }`);
      }
    }
    return parts.length ? parts.join(' ') : '__typename';
  }

  function operation() {
    const ctx = { vars: [], frags: [], keys: new Set(), level: 0, aliases: chance(0.3) ? 3 : 99 };
    const mutation = chance(0.2);
    const root = mutation ? schema.getMutationType() : schema.getQueryType();
    const body = selection(root, ctx, 0);
    const vars = ctx.vars.length ? `(${ctx.vars.map((v) => `$${v.name}: ${v.type}`).join(', ')})` : '';
    const op = `${mutation ? 'mutation' : 'query'} Op${vars} { ${body} }`;
    return { text: [op, ...ctx.frags.filter(Boolean)].join('\n'), ctx };
  }

  const MUTATIONS = [
    (d) => d.replace(/\{ (\w+)/, '{ nope$1'),                                   // unknown field
    (d) => d.replace(/\(/, '(zzz: 1, '),                                        // unknown argument
    (d) => d.replace(/limit: -?\d+/, 'limit: "3"'),                            // wrong literal
    (d) => d.replace(/limit: -?\d+/, 'limit: 99999999999'),                    // Int out of range
    (d) => d.replace(/customer\(id: [^)]*\)/, 'customer'),                      // missing required
    (d) => d.replace(/\{ (\w+)/, '{ $1(id: $undefinedVar)'),                    // undefined var
    (d) => d.replace(/limit: -?\d+/, 'limit: $undefinedVar'),                    // undefined var
    (d) => d.replace('query Op', 'query Op($unused: Int)').replace('query Op($unused: Int)(', 'query Op($unused: Int, '),
    (d) => d.replace(/\$v0: [^,)]+/, '$v0: [Boolean]'),                          // var position
    (d) => `${d}\nfragment Unused on Customer { id }`,                           // unused fragment
    (d) => d.replace(/fragment F0 on \w+ \{/, 'fragment F0 on Customer { ...F0 '), // cycle
    (d) => d.replace(/fragment F0 on \w+/, 'fragment F0 on String'),             // non-composite
    (d) => d.replace(/\.\.\. on \w+/, '... on Order'),                          // impossible spread
    (d) => d.replace(/\{ (\w+)/, '{ $1 @nope'),                                 // unknown directive
    (d) => d.replace('query Op', 'query Op @include(if: true)'),               // misplaced
    (d) => d.replace(/ @(include|skip)\(if: (\w+)\)/, ' @$1(if: $2) @$1(if: $2)'), // repeated
    (d) => d.replace(/\b(name|segment|id) /, '$1 { x } '),                     // leaf selection
    (d) => d.replace(/(orders|supportTickets)(\([^)]*\))? \{[^{}]*\}/, '$1$2'),  // missing selection
    (d) => `${d}\ntype Extra { a: Int }`,                                        // type system
    (d) => `${d}\n${d.split('\n')[0]}`,                                          // duplicate op
    (d) => `${d}\n{ __typename }`,                                               // anonymous + named
    (d) => d.replace(/status: \w+/, 'status: SHOUTING'),                       // bad enum
    (d) => d.replace(/\{createdAt: (\w+)\}/, '{createdAt: $1, createdAt: ASC}'), // duplicate input field
    (d) => d.replace(/\{status: (\w+)\}/, '{status: $1, nope: 1}'),            // unknown input field
    (d) => d.replace(/\.\.\.F0/, '...Missing'),                                 // unknown fragment
    (d) => d.replace(/\(([a-z]+): /, '($1: 1, $1: '),                            // duplicate argument
    (d) => d.replace('query Op', 'query Op($x: Customer)').replace('query Op($x: Customer)(', 'query Op($x: Customer, '),
    (d) => d.replace(/\{ (\w+)/, '{ $1: __typename $1'),                        // alias onto a field
    (d) => d.replace(/\b(orders|customers)(\([^)]*\))? \{/, '$1(limit: 1) { id } $1$2 {'), // other args
    (d) => d.replace(/\b(name|segment|subject) /, 'id: $1 $1 '),               // alias onto id
    // unknown types and enum values, each with graphql-js's "Did you mean" to match
    (d) => d.replace(/ on ([A-Z][A-Za-z]{3,})/, (m, t) => ` on ${t.slice(0, -1)}`),          // type condition typo
    (d) => d.replace(/(\$\w+: \[?)([A-Z][A-Za-z]{2,})/, (m, p, t) => p + t[0] + t.slice(2)),  // variable type typo
    (d) => d.replace(/(?<!\$\w*)(\b\w+: )([A-Z][A-Z0-9_]+)\b/, (m, p, v) => p + v.toLowerCase()), // enum value recased
    (d) => d.replace(/(?<!\$\w*)(\b\w+: )([A-Z][A-Z0-9_]+)\b/, (m, p, v) => `${p}"${v}"`),      // enum value as a string
  ];

  // A typo of one field name (a letter dropped, doubled, swapped or recased): graphql-js's "Did
  // you mean" must be sluice's, word for word.
  function typo(d) {
    const names = [...d.matchAll(/[{ ]([a-z_][A-Za-z0-9_]{2,})(?=[ ({}])/g)].filter((m) => !/^(query|mutation|fragment|on|true|false|null)$/.test(m[1]));
    if (!names.length) return d;
    const m = pick(names);
    const w = m[1];
    const i = int(w.length - 1);
    const edits = [w.slice(0, i) + w.slice(i + 1), w.slice(0, i) + w[i] + w.slice(i), w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2),
      w.slice(0, i) + w[i].toUpperCase() + w.slice(i + 1), w + 'x', 'zz' + w.slice(2)];
    return d.slice(0, m.index + 1) + pick(edits) + d.slice(m.index + 1 + w.length);
  }

  // graphql-js's own introspection queries, some with a typo or an unknown type condition.
  function introspection() {
    const q = getIntrospectionQuery({ descriptions: chance(0.5), specifiedByUrl: chance(0.5), directiveIsRepeatable: chance(0.5),
      schemaDescription: chance(0.5), inputValueDeprecation: chance(0.5), oneOf: chance(0.5) });
    if (chance(0.3)) return q;
    if (chance(0.2)) return q.replace('fragment FullType on __Type', 'fragment FullType on __Typ');
    return typo(q);
  }

  return function next() {
    if (chance(0.05)) return introspection();
    const { text } = operation();
    if (chance(0.25)) return text;
    if (chance(0.15)) return typo(text);
    return pick(MUTATIONS)(text);
  };
}

function ours(docs, scratch) {
  const file = join(scratch, 'batch.jsonl');
  writeFileSync(file, docs.map((doc) => JSON.stringify({ doc })).join('\n') + '\n');
  const r = spawnSync(bin, [schemaFile, file], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`graphql_validate exited ${r.status ?? r.signal}: ${r.stderr}`);
  return r.stdout.split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l));
}

function theirs(doc) {
  let ast;
  try { ast = parse(doc); } catch { return { parsed: false, valid: false }; }
  const errors = validate(schema, ast, rules);
  return { parsed: true, valid: errors.length === 0, messages: errors.map((e) => e.message) };
}

const EXPECTED_RULES = ['FieldsOnCorrectType', 'KnownArgumentNames', 'ValuesOfCorrectType',
  'ProvidedRequiredArguments', 'NoUndefinedVariables', 'NoUnusedVariables',
  'VariablesInAllowedPosition', 'NoUnusedFragments', 'NoFragmentCycles',
  'FragmentsOnCompositeTypes', 'PossibleFragmentSpreads', 'KnownDirectives',
  'UniqueDirectivesPerLocation', 'ScalarLeafs', 'ExecutableDefinitions', 'UniqueOperationNames',
  'LoneAnonymousOperation', 'UniqueInputFieldNames', 'KnownFragmentNames', 'UniqueArgumentNames',
  'VariablesAreInputTypes', 'OverlappingFieldsCanBeMerged'];

const scratch = mkdtempSync(join(tmpdir(), 'graphql-validate-diff-'));
try {
  const next = generator(SEED);
  const docs = Array.from({ length: COUNT }, next);
  const got = ours(docs, scratch);
  let bad = 0, valid = 0;
  for (let i = 0; i < docs.length; i++) {
    const t = theirs(docs[i]);
    if (t.valid) valid++;
    // FieldsOnCorrectType, KnownTypeNames and enum values speak as graphql-js does, suggestions
    // included (an enum given a list or an object is printed shorter by sluice: not compared)
    const unknown = (ms) => (ms ?? []).filter((m) => m.startsWith('Cannot query field') || m.startsWith('Unknown type') ||
      / does not exist in ".*" enum\./.test(m) || /cannot represent non-enum value: [^[{]/.test(m)).sort();
    const sameWords = JSON.stringify(unknown(t.messages)) === JSON.stringify(unknown(got[i].messages));
    if (t.parsed !== got[i].parsed || t.valid !== got[i].valid || (t.parsed && !sameWords)) {
      if (bad++ < 10) {
        console.error(`disagreement on document ${i} (seed ${SEED}):\n${docs[i]}\n` +
          `  graphql-js: ${t.valid ? 'valid' : JSON.stringify(t.messages ?? 'syntax error')}\n` +
          `  sluice:     ${got[i].valid ? 'valid' : JSON.stringify(got[i].messages ?? 'syntax error')}`);
      }
    }
  }
  const fired = {};
  for (const g of got) for (const r of g.rules ?? []) fired[r] = (fired[r] ?? 0) + 1;
  console.log(`${docs.length} documents (${valid} valid for graphql-js), ${bad} disagreements`);
  console.log(`rules refused by sluice: ${JSON.stringify(fired)}`);
  // the generator must reach the rules it was written to break, or agreement proves little
  const missing = COUNT >= 2000 && !BROAD ? EXPECTED_RULES.filter((r) => !fired[r]) : [];
  if (missing.length) console.error(`never exercised: ${missing.join(', ')}`);
  process.exitCode = bad === 0 && missing.length === 0 && valid > COUNT / 10 && valid < COUNT * 0.9 ? 0 : 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
