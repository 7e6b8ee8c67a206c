// js_bench.mjs — graphql-js 16 parse + validate (specifiedRules) of one operation against a
// schema built once, per second: the reference side of bench/graphql/run.sh.
// usage: node js_bench.mjs SCHEMA.graphql OPERATION.graphql SECONDS
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(join(dirname(fileURLToPath(import.meta.url)), '../../tests/node/package.json'));
const { buildSchema, parse, validate } = require('graphql');
const [schemaFile, opFile, secs] = process.argv.slice(2);
const schema = buildSchema(readFileSync(schemaFile, 'utf8'));
const op = readFileSync(opFile, 'utf8');
let iterations = 0;
let valid = true;
// warm up the JIT before timing, as the C side needs none
for (let i = 0; i < 2000; i++) validate(schema, parse(op));
const start = process.hrtime.bigint();
const limit = BigInt(Math.round(Number(secs) * 1e9));
let elapsed = 0n;
while (elapsed < limit) {
  for (let i = 0; i < 256; i++) {
    valid = valid && validate(schema, parse(op)).length === 0;
    iterations++;
  }
  elapsed = process.hrtime.bigint() - start;
}
console.log(JSON.stringify({ per_second: Math.round(iterations / (Number(elapsed) / 1e9)), iterations, valid }));
