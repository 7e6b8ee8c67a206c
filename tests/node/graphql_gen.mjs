// graphql_gen.mjs — seeded generator of GraphQL documents for the differential test
// (graphql_diff.mjs) of sluice's parser and printer against graphql-js.
//
// Owns: random executable documents and SDL over the whole grammar (descriptions, variables,
// directives at every location, fragments, every literal kind with the escapes, Unicode and
// number edge cases the spec lists, block strings with indentation, CRLF and escaped triple
// quotes), random ignored tokens between tokens (whitespace, commas, comments, BOMs, every line
// terminator), rare documents nesting or counting tokens around sluice's limits, and mutations
// that turn a valid document into a near-valid one. Never emits a lone surrogate, so every
// document is valid UTF-8 on the C side.
// Does not own: comparing (graphql_diff.mjs).

import { prng } from './toml_gen.mjs'; // the project's seeded PRNG (mulberry32)

const NAMES = ['a', 'b', 'id', 'user', '_x', 'A1', '__typename', 'on', 'query', 'mutation',
  'subscription', 'type', 'fragment', 'true', 'false', 'null', 'extend', 'schema', 'input',
  'enum', 'union', 'scalar', 'interface', 'directive', 'implements', 'repeatable', '__schema',
  'averyveryveryveryverylongfieldnamethatgoesonandon'];
const TYPES = ['Int', 'String', 'T', 'User', 'Query', 'on', 'Boolean', '_T2'];
const INTS = ['0', '-0', '1', '42', '-17', '9007199254740993', '123456789012345678901234567890'];
const FLOATS = ['1.5', '-0.0', '0.0', '1e10', '1E10', '1e+10', '1e-10', '-1.0e-0', '6.0221e23',
  '0.1', '3.14159', '0e0', '-0e-0', '1.7976931348623157e309'];
const STRING_PARTS = ['a', 'b', ' ', 'hello', '\u00e9', '\u{1F600}', '\u4e2d', '#', "'", '\\n',
  '\\t', '\\"', '\\\\', '\\/', '\\b', '\\f', '\\r', '\\u00e9', '\\u0000', '\\u001F', '\\u007F',
  '\\u0085', '\\u{1F600}', '\\u{0}', '\\u{10FFFF}', '\\u{0000041}', '\\uD83D\\uDE00', '\\uFFFF',
  '\u0007', '\u0085', '\u2028', '\uFEFF', 'x'.repeat(40)];
const BLOCK_PARTS = ['a', 'text', ' ', '\t', '"', '""', '\\"""', '\\', '\\n', '\u00e9',
  '\u{1F600}', '#', '{', "'''", 'y'.repeat(75)];
const LOCATIONS = ['QUERY', 'MUTATION', 'SUBSCRIPTION', 'FIELD', 'FRAGMENT_DEFINITION',
  'FRAGMENT_SPREAD', 'INLINE_FRAGMENT', 'VARIABLE_DEFINITION', 'SCHEMA', 'SCALAR', 'OBJECT',
  'FIELD_DEFINITION', 'ARGUMENT_DEFINITION', 'INTERFACE', 'UNION', 'ENUM', 'ENUM_VALUE',
  'INPUT_OBJECT', 'INPUT_FIELD_DEFINITION', 'DIRECTIVE_DEFINITION'];
const IGNORED = [' ', ' ', ' ', '  ', '\t', ',', ', ', '\n', '\r\n', '\r', '\n  ', '\uFEFF',
  '# comment\n', '#\u00e9\u{1F600}\r\n', ',,\n\t'];
// Characters a mutation inserts: punctuation, quotes, escapes, digits, controls, Unicode.
const NOISE = ['{', '}', '(', ')', '[', ']', '"', '"""', "'", '\\', '$', '@', ':', '=', '!',
  '|', '&', '.', '..', '...', '0', '01', '0x1', '1.', '.5', '1e', '-', '-a', 'x', 'on', '#',
  '\u0001', '\u000B', '\u00e9', '\u{1F600}', '\\u', '\\u{', '\\uD800', '\\u{110000}', '\\q',
  '\n', '\r', ' ', ',', '"\\u{}"', 'extend', 'fragment', '""""', 'true', '\u0000'];

export const LIMIT_DEPTH = 256;
export const LIMIT_TOKENS = 15000;

export function generator(seed) {
  const { int, pick, chance } = prng(seed);
  const times = (n, f) => Array.from({ length: n }, f).flat();

  const name = () => pick(NAMES);
  const enumName = () => pick(NAMES.filter((n) => n !== 'true' && n !== 'false' && n !== 'null'));
  const fragName = () => pick(NAMES.filter((n) => n !== 'on'));

  const string = () => '"' + times(int(5), () => pick(STRING_PARTS)).join('') + '"';
  function blockString() {
    const eol = pick(['\n', '\r\n', '\r']);
    const lines = times(int(5), () => (chance(0.6) ? pick(['', ' ', '  ', '    ', '\t']) : '') +
      times(int(4), () => pick(BLOCK_PARTS)).join(''));
    if (chance(0.3)) lines.unshift('');
    if (chance(0.3)) lines.push(pick(['', '  ']));
    return '"""' + lines.join(eol) + '"""';
  }

  function value(depth, isConst) {
    const k = int(depth > 2 ? 8 : 11);
    switch (k) {
      case 0: return [pick(INTS)];
      case 1: return [pick(FLOATS)];
      case 2: return [string()];
      case 3: return [chance(0.5) ? blockString() : string()];
      case 4: return [pick(['true', 'false'])];
      case 5: return ['null'];
      case 6: return [enumName()];
      case 7: return isConst ? [pick(INTS)] : ['$', name()];
      case 8: case 9: return ['[', ...times(int(4), () => value(depth + 1, isConst)), ']'];
      default:
        return ['{', ...times(int(4), () => [name(), ':', ...value(depth + 1, isConst)]), '}'];
    }
  }
  const args = (isConst) => (chance(0.5) ? [] :
    ['(', ...times(1 + int(3), () => [name(), ':', ...value(0, isConst)]), ')']);
  const directives = (isConst) => times(chance(0.6) ? 0 : 1 + int(2), () => ['@', name(),
    ...args(isConst)]);
  function typeRef(depth = 0) {
    const t = depth < 3 && chance(0.3) ? ['[', ...typeRef(depth + 1), ']'] : [pick(TYPES)];
    return chance(0.4) ? [...t, '!'] : t;
  }
  const description = () => (chance(0.25) ? [chance(0.5) ? string() : blockString()] : []);

  function selectionSet(depth) {
    return ['{', ...times(1 + int(4), () => selection(depth)), '}'];
  }
  function selection(depth) {
    const k = int(10);
    if (k === 0) return ['...', fragName(), ...directives(false)];
    if (k === 1) return ['...', ...(chance(0.6) ? ['on', pick(TYPES)] : []), ...directives(false),
      ...selectionSet(depth + 1)];
    const alias = chance(0.2) ? [name(), ':'] : [];
    const sub = depth < 4 && chance(0.35) ? selectionSet(depth + 1) : [];
    return [...alias, name(), ...args(false), ...directives(false), ...sub];
  }
  const varDefs = () => (chance(0.5) ? [] : ['(', ...times(1 + int(3), () => [...description(),
    '$', name(), ':', ...typeRef(), ...(chance(0.3) ? ['=', ...value(0, true)] : []),
    ...directives(true)]), ')']);

  function operation() {
    if (chance(0.25)) return selectionSet(0);
    const op = pick(['query', 'query', 'mutation', 'subscription']);
    return [...description(), op, ...(chance(0.7) ? [name()] : []), ...varDefs(),
      ...directives(false), ...selectionSet(0)];
  }
  const fragment = () => [...description(), 'fragment', fragName(), 'on', pick(TYPES),
    ...directives(false), ...selectionSet(0)];

  const inputValue = () => [...description(), name(), ':', ...typeRef(),
    ...(chance(0.3) ? ['=', ...value(0, true)] : []), ...directives(true)];
  const argDefs = () => (chance(0.6) ? [] : ['(', ...times(1 + int(3), inputValue), ')']);
  const fieldDef = () => [...description(), name(), ...argDefs(), ':', ...typeRef(),
    ...directives(true)];
  const implementsList = () => (chance(0.5) ? [] : ['implements', ...(chance(0.2) ? ['&'] : []),
    ...times(1 + int(3), () => [pick(TYPES), '&']).slice(0, -1)]);
  const block = (item) => ['{', ...times(1 + int(3), item), '}'];
  const enumValue = () => [...description(), enumName(), ...directives(true)];
  const members = () => ['=', ...(chance(0.2) ? ['|'] : []),
    ...times(1 + int(3), () => [pick(TYPES), '|']).slice(0, -1)];
  const opTypes = () => block(() => [pick(['query', 'mutation', 'subscription']), ':',
    pick(TYPES)]);

  function typeSystem() {
    const ext = chance(0.3);
    const head = (word) => (ext ? ['extend', word] : [...description(), word]);
    const some = (parts) => (ext && parts.every((p) => p.length === 0) ? directives(true).concat(
      ['@', 'x']) : parts.flat());
    switch (int(8)) {
      case 0: return [...head('schema'), ...(ext ? some([directives(true), chance(0.5) ?
        opTypes() : []]) : [...directives(true), ...opTypes()])];
      case 1: return [...head('scalar'), pick(TYPES), ...some([directives(true)])];
      case 2: case 3: return [...head(pick(['type', 'interface'])), pick(TYPES),
        ...some([implementsList(), directives(true), chance(0.8) ? block(fieldDef) : []])];
      case 4: return [...head('union'), pick(TYPES), ...some([directives(true),
        chance(0.8) ? members() : []])];
      case 5: return [...head('enum'), pick(TYPES), ...some([directives(true),
        chance(0.8) ? block(enumValue) : []])];
      case 6: return [...head('input'), pick(TYPES), ...some([directives(true),
        chance(0.8) ? block(inputValue) : []])];
      default: return [...description(), 'directive', '@', name(), ...argDefs(),
        ...(chance(0.3) ? ['repeatable'] : []), 'on', ...(chance(0.2) ? ['|'] : []),
        ...times(1 + int(3), () => [pick(LOCATIONS), '|']).slice(0, -1)];
    }
  }

  // Rare documents at sluice's limits: nesting and token count either side of them.
  function atTheLimit() {
    const n = LIMIT_DEPTH - 3 + int(7);
    switch (int(4)) {
      case 0: return ['{', ...times(n - 1, () => ['a', '{']), 'a', ...times(n, () => '}')];
      case 1: return ['{', 'a', '(', 'b', ':', ...times(n - 1, () => '['), '1',
        ...times(n - 1, () => ']'), ')', '}'];
      case 2: return ['query', '(', '$', 'v', ':', ...times(n, () => '['), 'Int',
        ...times(n, () => ']'), ')', '{', 'a', '}'];
      default: {
        const t = LIMIT_TOKENS - 2 + int(5);
        return ['{', ...times(t - 2, () => 'a'), '}'];
      }
    }
  }

  function tokens() {
    if (chance(0.004)) return atTheLimit();
    return times(1 + int(3), () => {
      const k = int(10);
      return k < 4 ? operation() : k < 6 ? fragment() : typeSystem();
    });
  }

  // Joins tokens with random ignored text: none between punctuators now and then, always
  // some between two tokens that would otherwise merge.
  function render(toks) {
    const word = /^[A-Za-z0-9_-]|^\.|"$/;
    let out = chance(0.05) ? '\uFEFF' : '';
    toks.forEach((t, i) => {
      if (i > 0) {
        const glue = word.test(t) || /[A-Za-z0-9_."]$/.test(toks[i - 1]);
        out += !glue && chance(0.3) ? '' : pick(IGNORED);
      }
      out += t;
    });
    return out + (chance(0.2) ? pick(IGNORED) : '');
  }

  // One edit that usually breaks the document: delete, insert noise, duplicate, swap, cut.
  function mutate(text) {
    const cps = Array.from(text);
    const at = int(cps.length + 1);
    switch (int(6)) {
      case 0: cps.splice(at, 1 + int(3)); break;
      case 1: case 2: cps.splice(at, 0, pick(NOISE)); break;
      case 3: { const len = 1 + int(8); cps.splice(at, 0, ...cps.slice(at, at + len)); break; }
      case 4: if (at + 1 < cps.length) [cps[at], cps[at + 1]] = [cps[at + 1], cps[at]]; break;
      default: cps.length = at; break;
    }
    return cps.join('');
  }

  return {
    document(mutateShare = 0.3) {
      const text = render(tokens());
      return chance(mutateShare) ? mutate(text) : text;
    },
  };
}
