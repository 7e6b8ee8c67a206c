// canary.mjs — canary values for blocked columns, and the checker that recovers them.
//
// Owns: making one unique canary per blocked cell from a seed, and recognising a canary (or a
// part of one) in any text after the transformations the generator knows: upper/lower case,
// reversal, substrings, hex (either case), base64 (any alignment), digits only, md5/sha1/sha256.
// Does not own: writing the canaries into a database (canary_db.mjs), running statements
// (pipeline.mjs), deciding whether a hit came from blocked data (run.mjs confirms every hit on a
// twin database with other canaries).
//
// Shape: a canary is LETTERS5 SEP DIGITS9 SEP LETTERS5, the letters drawn from RARE ("jkqvwxz"),
// so that a run of four of them appears in no English word, name or subject of the demo data.
// Recognised:
//   * any 4-character window with two or more rare letters, and any 6-character window with two
//     (either case, either direction): substrings of 4+ characters (except those inside the
//     digits, which no checker can tell from a number), concatenations, JSON, URL-encoding;
//   * the 9 digits, forward or reversed (digits only, arithmetic on the digit part);
//   * hex of any 6-character window of the canary with a letter in it, its upper case or its
//     reverse (12 hex digits; hex of six digits is "3d3d3d..." which numbers spell by chance);
//   * base64 of the canary (and its upper case / reverse) at the three byte alignments, as any
//     8-character window of whole groups (6 bytes);
//   * the first 16 hex digits of md5 / sha1 / sha256 of the canary, its lower and upper case.
// Not recognised (stated in the report): shorter fragments (1..3 characters, a 4..5 character
// window with fewer rare letters than above, fewer than 9 consecutive digits) and lossy functions (length, ascii, hash()).
import { createHash } from "node:crypto";
import { prng } from "../node/toml_gen.mjs";

export const RARE = "jkqvwxz";
export const DIGITS = 9;
const HEX_CHARS = 6; // canary characters per hex window (12 hex digits)
const B64_WINDOW = 8;
const DIGEST_PREFIX = 16;

// Makes `count` distinct canaries of the given kind ("ssn" or "email") from one seed.
export function makeCanaries(seed, kinds) {
  const r = prng(seed);
  const letters = () => Array.from({ length: 5 }, () => RARE[r.int(RARE.length)]).join("");
  const seenDigits = new Set();
  const seenLetters = new Set();
  const out = [];
  for (const kind of kinds) {
    let digits, a, b;
    do { digits = String(100000000 + r.int(900000000)); } while (seenDigits.has(digits));
    do { a = letters(); b = letters(); } while (seenLetters.has(a + b));
    seenDigits.add(digits);
    seenLetters.add(a + b);
    out.push(kind === "email" ? `${a}.${digits}@${b}.invalid` : `${a}-${digits}-${b}`);
  }
  return out;
}

const reverse = (s) => [...s].reverse().join("");
const hex = (s) => Buffer.from(s, "utf8").toString("hex");
const b64 = (s) => Buffer.from(s, "utf8").toString("base64");

// A checker over a set of canaries: scan(text) returns the hits [{kind, fragment, canary}].
export class Checker {
  constructor(canaries) {
    this.frag4 = new Map(); // 4-character window with 2+ rare letters (lower case) -> canary
    this.frag6 = new Map(); // 6-character window with 2+ rare letters (lower case) -> canary
    this.digits = new Map();
    this.hex = new Map(); // 12 hex digits (lower case) -> canary
    this.b64 = new Map(); // 8 base64 chars (case kept) -> canary
    this.digest = new Map(); // 16 hex digits -> canary
    for (const c of canaries) this.add(c);
  }

  add(c) {
    const rare = (w) => [...w].filter((ch) => RARE.includes(ch)).length;
    for (const v of [c.toLowerCase(), reverse(c.toLowerCase())])
      for (const [len, map, need] of [[4, this.frag4, 2], [6, this.frag6, 2]])
        for (let i = 0; i + len <= v.length; i++) if (rare(v.slice(i, i + len)) >= need) map.set(v.slice(i, i + len), c);
    const d = c.match(new RegExp(`\\d{${DIGITS}}`))[0];
    this.digits.set(d, c);
    this.digits.set(reverse(d), c);
    for (const v of [c, c.toUpperCase(), reverse(c), reverse(c).toUpperCase()]) {
      for (let i = 0; i + HEX_CHARS <= v.length; i++)
        if (/[a-z]/i.test(v.slice(i, i + HEX_CHARS))) this.hex.set(hex(v.slice(i, i + HEX_CHARS)), c);
      for (let o = 0; o < 3; o++) {
        const enc = b64(v.slice(o)).replace(/=+$/, "");
        const whole = enc.length - ((v.length - o) % 3 === 0 ? 0 : 4); // drop a partial last group
        for (let i = 0; i + B64_WINDOW <= whole; i += 4) this.b64.set(enc.slice(i, i + B64_WINDOW), c);
      }
    }
    for (const v of [c, c.toLowerCase(), c.toUpperCase()])
      for (const alg of ["md5", "sha1", "sha256"])
        this.digest.set(createHash(alg).update(v).digest("hex").slice(0, DIGEST_PREFIX), c);
  }

  scan(text) {
    const hits = [];
    if (typeof text !== "string" || text.length === 0) return hits;
    const lower = text.toLowerCase();
    const windows = (src, len, map, kind, re) => {
      for (const m of src.matchAll(re)) {
        const s = m[0];
        for (let i = 0; i + len <= s.length; i++) {
          const c = map.get(s.slice(i, i + len));
          if (c !== undefined) {
            hits.push({ kind, fragment: s.slice(i, i + len), canary: c });
            return;
          }
        }
      }
    };
    for (const [len, map] of [[4, this.frag4], [6, this.frag6]])
      for (let i = 0; i + len <= lower.length; i++) {
        const c = map.get(lower.slice(i, i + len));
        if (c !== undefined) {
          hits.push({ kind: "substring", fragment: lower.slice(i, i + len), canary: c });
          break;
        }
      }
    windows(text, DIGITS, this.digits, "digits", new RegExp(`\\d{${DIGITS},}`, "g"));
    windows(lower, HEX_CHARS * 2, this.hex, "hex", /[0-9a-f]{12,}/g);
    windows(lower, DIGEST_PREFIX, this.digest, "digest", /[0-9a-f]{16,}/g);
    windows(text, B64_WINDOW, this.b64, "base64", /[A-Za-z0-9+/]{8,}/g);
    return hits;
  }
}
