// make_vectors.mjs — generates the fixed JWT test vectors for tests/unit/test_jwt.c.
// Run once with `node tests/unit/data/jwt/make_vectors.mjs` (from the repository root) and commit
// the output; keys are fresh each run, so the tokens and JWKS must be regenerated together.
// The private keys are thrown away: only public JWKS and signed tokens are written.
import { generateKeyPairSync, createSign, createHmac, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = dirname(fileURLToPath(import.meta.url));
const NOW = 1900000000; // the test's clock
const ISS = 'https://as.example.com';
const AUD = 'https://mcp.example.com/mcp';

const b64u = (b) => Buffer.from(b).toString('base64url');
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const rsaOther = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ed = generateKeyPairSync('ed25519');
const secret = randomBytes(32).toString('hex');

const pub = (kp, kid, alg) => ({ ...kp.publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig' });
writeFileSync(join(dir, 'jwks.json'),
  JSON.stringify({ keys: [pub(rsa, 'rsa-1', 'RS256'), pub(ec, 'ec-1', 'ES256'),
    { ...ed.publicKey.export({ format: 'jwk' }), kid: 'ed-1' }] }, null, 1));
// What the C encoder must produce for the first two keys, byte for byte.
writeFileSync(join(dir, 'rsa-1.pem'), rsa.publicKey.export({ format: 'pem', type: 'spki' }));
writeFileSync(join(dir, 'ec-1.pem'), ec.publicKey.export({ format: 'pem', type: 'spki' }));
writeFileSync(join(dir, 'jwks_dup_kid.json'),
  JSON.stringify({ keys: [pub(rsa, 'same', 'RS256'), pub(rsaOther, 'same', 'RS256')] }));
writeFileSync(join(dir, 'jwks_private.json'),
  JSON.stringify({ keys: [{ ...rsa.privateKey.export({ format: 'jwk' }), kid: 'oops' }] }).replace(
    /"d":"[^"]*"/, '"d":"redacted"'));
writeFileSync(join(dir, 'hs256.secret'), secret + '\n');

function sign(header, claims, how) {
  const input = b64u(JSON.stringify(header)) + '.' + b64u(JSON.stringify(claims));
  let sig;
  if (how.hmac !== undefined) sig = createHmac('sha256', how.hmac).update(input).digest();
  else if (how.key === null) sig = Buffer.alloc(0);
  else sig = createSign('SHA256').update(input).sign({ key: how.key, dsaEncoding: 'ieee-p1363' });
  return input + '.' + b64u(sig);
}

const base = { iss: ISS, aud: AUD, sub: 'alice', groups: ['analysts', 'ops'], iat: NOW - 10,
  exp: NOW + 3600 };
const RS = { alg: 'RS256', typ: 'JWT', kid: 'rsa-1' };
const ES = { alg: 'ES256', typ: 'JWT', kid: 'ec-1' };
const rsaKey = { key: rsa.privateKey };
const rsaPem = rsa.publicKey.export({ format: 'pem', type: 'spki' });
const tokens = {
  valid_rs256: sign(RS, base, rsaKey),
  valid_es256: sign(ES, { ...base, sub: 'bob', groups: 'readers  writers' }, { key: ec.privateKey }),
  valid_hs256: sign({ alg: 'HS256', typ: 'JWT' }, base, { hmac: secret }),
  rs256_no_kid: sign({ alg: 'RS256' }, base, rsaKey),
  aud_array: sign(RS, { ...base, aud: ['https://other.example/mcp', AUD] }, rsaKey),
  expired: sign(RS, { ...base, exp: NOW - 61 }, rsaKey),
  expired_within_skew: sign(RS, { ...base, exp: NOW - 30 }, rsaKey),
  not_yet_valid: sign(RS, { ...base, nbf: NOW + 61 }, rsaKey),
  nbf_within_skew: sign(RS, { ...base, nbf: NOW + 30 }, rsaKey),
  no_exp: sign(RS, { ...base, exp: undefined }, rsaKey),
  wrong_audience: sign(RS, { ...base, aud: 'https://other.example/mcp' }, rsaKey),
  no_audience: sign(RS, { ...base, aud: undefined }, rsaKey),
  wrong_issuer: sign(RS, { ...base, iss: 'https://evil.example' }, rsaKey),
  wrong_signature: sign(RS, base, { key: rsaOther.privateKey }),
  alg_none: sign({ alg: 'none', typ: 'JWT' }, base, { key: null }),
  hs256_with_public_key: sign({ alg: 'HS256', kid: 'rsa-1' }, base, { hmac: rsaPem }),
  eddsa: sign({ alg: 'EdDSA', kid: 'ed-1' }, base, { key: null }),
  rs384: sign({ alg: 'RS384', kid: 'rsa-1' }, base, rsaKey),
  es256_claiming_rsa_kid: sign({ alg: 'ES256', kid: 'rsa-1' }, base, { key: ec.privateKey }),
  unknown_kid: sign({ ...RS, kid: 'nope' }, base, rsaKey),
  crit_header: sign({ ...RS, crit: ['exp'] }, base, rsaKey),
  no_user: sign(RS, { ...base, sub: undefined }, rsaKey),
  groups_not_strings: sign(RS, { ...base, groups: ['a', 7] }, rsaKey),
  dup_kid: sign({ alg: 'RS256', kid: 'same' }, base, rsaKey),
};
writeFileSync(join(dir, 'tokens.json'), JSON.stringify({ now: NOW, issuer: ISS, audience: AUD,
  tokens }, null, 1));
