// toml_corpus.mjs — runs every file of the toml-test 1.0.0 list through toml2json.
//
// Owns: the conformance verdict: valid/*.toml must print JSON equal (toml_compare.mjs) to the
// sibling .json; invalid/*.toml must exit 1 with an error and no crash or sanitizer report.
// Does not own: the corpus (read in place, never copied) or the parser.
// Usage: node toml_corpus.mjs /path/to/toml2json   (env as in findCorpus)
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findCorpus, taggedDiff } from './toml_compare.mjs';

const toml2json = process.argv[2];
const { dir, tried } = findCorpus(process.env);
if (!dir) {
  console.error(`toml-test corpus not found; looked in:\n  ${tried.join('\n  ')}`);
  console.error('set SLUICE_TOML_TEST_DIR to the folder holding tests/files-toml-1.0.0');
  process.exit(1);
}
const tests = join(dir, 'tests');
const list = readFileSync(join(tests, 'files-toml-1.0.0'), 'utf8')
  .split('\n')
  .filter((l) => l.endsWith('.toml'));

const SANITIZER = /AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:/;
const counts = { valid: 0, validPass: 0, invalid: 0, invalidPass: 0 };
const failures = [];
for (const rel of list) {
  const file = join(tests, rel);
  const r = spawnSync(toml2json, [file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const sanitizer = SANITIZER.test(r.stderr || '');
  if (rel.startsWith('valid/')) {
    counts.valid++;
    if (r.status !== 0 || sanitizer) {
      failures.push(`${rel}: exit ${r.status ?? r.signal}: ${(r.stderr || '').split('\n')[0]}`);
      continue;
    }
    const want = JSON.parse(readFileSync(file.replace(/\.toml$/, '.json'), 'utf8'));
    const d = taggedDiff(want, JSON.parse(r.stdout));
    if (d) failures.push(`${rel}: ${d}`);
    else counts.validPass++;
  } else {
    counts.invalid++;
    const firstLine = (r.stderr || '').split('\n')[0];
    if (r.status !== 1 || sanitizer || !firstLine.startsWith(file + ':'))
      failures.push(`${rel}: accepted or failed badly (exit ${r.status ?? r.signal}) ${firstLine}`);
    else counts.invalidPass++;
  }
}
for (const f of failures) console.log(`FAIL ${f}`);
console.log(
  `toml-test 1.0.0: valid ${counts.validPass}/${counts.valid}, invalid ${counts.invalidPass}/${counts.invalid}, corpus ${dir}`,
);
process.exit(failures.length ? 1 : 0);
