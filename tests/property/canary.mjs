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
// Recognised, in every text (scan: replies with their envelope, errors, stderr, audit lines):
//   * any 4-character window with two or more rare letters, and any 6-character window with two
//     (either case, either direction): substrings of 4+ characters (except those inside the
//     digits, which no checker can tell from a number), concatenations, JSON, URL-encoding;
//   * the 9 digits, forward or reversed (digits only, arithmetic on the digit part);
//   * hex of any 6-character window of the canary with a letter in it, its upper case or its
//     reverse (12 hex digits; hex of six digits is "3d3d3d..." which numbers spell by chance);
//   * base64 of the canary (and its upper case / reverse) at the three byte alignments, as any
//     8-character window of whole groups (6 bytes);
//   * the first 16 hex digits of md5 / sha1 / sha256 of the canary, its lower and upper case;
// and, only in result values (scanEncoded: rows, values, column names, the program's error):
//   * the 9-digit number (or its reverse) in any base 2..36 (to_base, to_hex, printf('%x'), bin);
//   * the 9-digit number shifted or scaled by arithmetic: any number within ±SHIFT (1000) of it, or
//     k times it / it divided by k (k in 2..MAX_FACTOR), integers, decimals and 1.2e8 notation;
//   * decoded forms holding DECODED_MIN (16) consecutive characters of a canary or its 9 digits,
//     scanned again (two levels: hex of base64, char codes of a reversal...):
//     char codes in decimal or hex, one per item of any separated list (string_agg(ascii(c)),
//     list_transform(.., ord), unicode() per row: the rows' JSON "106],[107" is such a list) or
//     glued without separators ("106107113"); \uXXXX, \xXX, \NNN, %XX, &#N; and U+XXXX escapes;
//     hex strings (one byte or UTF-16 per char) and base64 at every alignment; and single
//     characters separated by punctuation, joined (string_split(.., '') and per-row characters).
// Not recognised (stated in the report): shorter fragments (1..3 characters, a 4..5 character
// window with fewer rare letters than above, fewer than 9 consecutive digits, a decoded piece of
// fewer than 16 characters, an encoded form outside result values), lossy functions
// (length, a single ascii(), hash()), and encodings with a key the checker does not know (a
// per-character shift by a constant, XOR, a substitution table of the program's own).
import { createHash } from "node:crypto";
import { prng } from "../node/toml_gen.mjs";

export const RARE = "jkqvwxz"; // scan() spells it in a regular expression too
export const DIGITS = 9;
const HEX_CHARS = 6; // canary characters per hex window (12 hex digits)
const B64_WINDOW = 8;
const DIGEST_PREFIX = 16;
const SHIFT = 1000; // a number this close to the digits is them, shifted (wider: chance, with thousands of canaries)
const MAX_FACTOR = 100; // ... or them times / divided by an integer up to this
const DECODE_DEPTH = 2; // decoded text is decoded again this many times
// A decoded text (char codes, escapes, hex, base64, joined characters) counts only when it holds
// this many consecutive characters of a canary. Chance: the 10,040 canaries of the DuckDB run
// (21 or 29 characters) have at most 10,040 x 2 x (29 - 16 + 1) = 281,120 such windows (both
// directions). Text decoded by chance from digits or hex (times, hashes, numbers) carries more
// than 4 bits per character (glued codes: ~6), so one position matches with probability at most
// 281,120 / 16^16 = 1.5e-14. A run prints how many decoded characters it looked at and this
// bound for them: 76,191 and 87,304 at 3,904 statements (CI scale), i.e. <= 1e-9 per run; even
// 1e9 characters (8,000 statements of 200 rows of 600 bytes) would stay below 1.5e-5. With
// 4 characters (the first widening, 4c85bdb) a position matched ~10,040 x 2 x 26 / 69^4 = 2e-2
// per position of random lower-case printable text: the false hits of that run.
const DECODED_MIN = 16;

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
    this.baseN = new Map(); // the digits in base 2..36 (lower case) -> canary
    this.numbers = []; // [value, canary] of the digits and their reverse, sorted by value
    this.byNumber = new Map(); // the same values -> canary
    this.long = new Map(); // DECODED_MIN characters of a canary or its reverse (lower case) -> canary
    this.decodedChars = 0; // characters of decoded text looked at (the chance bound below is per character)
    for (const c of canaries) this.add(c);
    this.numbers.sort((a, b) => a[0] - b[0]);
  }

  add(c) {
    const rare = (w) => [...w].filter((ch) => RARE.includes(ch)).length;
    for (const v of [c.toLowerCase(), reverse(c.toLowerCase())])
      for (let i = 0; i + DECODED_MIN <= v.length; i++) this.long.set(v.slice(i, i + DECODED_MIN), c);
    for (const v of [c.toLowerCase(), reverse(c.toLowerCase())])
      for (const [len, map, need] of [[4, this.frag4, 2], [6, this.frag6, 2]])
        for (let i = 0; i + len <= v.length; i++) if (rare(v.slice(i, i + len)) >= need) map.set(v.slice(i, i + len), c);
    const d = c.match(new RegExp(`\\d{${DIGITS}}`))[0];
    this.digits.set(d, c);
    this.digits.set(reverse(d), c);
    for (const n of [Number(d), Number(reverse(d))]) {
      if (n < 1e8) continue; // a reversal with leading zeros is a short number: chance
      this.numbers.push([n, c]);
      this.byNumber.set(n, c);
      for (let radix = 2; radix <= 36; radix++) {
        const f = n.toString(radix);
        // a form of decimal digits only is a number by chance unless it is longer than the digits
        if (radix !== 10 && (/[a-z]/.test(f) || f.length > DIGITS)) this.baseN.set(f, c);
      }
    }
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

  // A number in the text: the digits shifted (within SHIFT) or scaled by an integer factor.
  numberHit(n) {
    if (!Number.isFinite(n) || Math.abs(n) < 1e8 / MAX_FACTOR) return null;
    const near = (v) => { // the canary whose number is nearest v, if within SHIFT
      const a = this.numbers;
      let lo = 0, hi = a.length;
      while (lo < hi) { const mid = (lo + hi) >> 1; if (a[mid][0] < v) lo = mid + 1; else hi = mid; }
      for (const j of [lo - 1, lo]) if (j >= 0 && j < a.length && Math.abs(a[j][0] - v) <= SHIFT) return a[j];
      return null;
    };
    const v = Math.abs(n);
    const hit = near(v);
    if (hit) return hit[1];
    // scaled: v = d * k or d = v * k (k in 2..MAX_FACTOR), only the k that can reach 9 digits
    for (const [k0, k1, f] of [[Math.ceil(v / 1e9), Math.floor(v / 1e8), (k) => v / k], [Math.ceil(1e8 / v), Math.floor(1e9 / v), (k) => v * k]])
      for (let k = Math.max(2, k0); k <= Math.min(MAX_FACTOR, k1); k++) {
        const c = this.byNumber.get(f(k)); // exact: a non-integer is no key
        if (c !== undefined) return c;
      }
    return null;
  }

  // The plain forms, in any text: every output, error, audit and stderr line (the envelope too).
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
    // every window with two rare letters holds one: only the windows around rare letters are looked up
    for (const [len, map] of [[4, this.frag4], [6, this.frag6]]) {
      let next = 0; // first window start not yet looked up
      outer: for (const m of lower.matchAll(/[jkqvwxz]/g)) {
        for (let i = Math.max(next, m.index - len + 1); i <= m.index && i + len <= lower.length; i++) {
          const c = map.get(lower.slice(i, i + len));
          if (c !== undefined) {
            hits.push({ kind: "substring", fragment: lower.slice(i, i + len), canary: c });
            break outer;
          }
        }
        next = m.index + 1;
      }
    }
    windows(text, DIGITS, this.digits, "digits", new RegExp(`\\d{${DIGITS},}`, "g"));
    windows(lower, HEX_CHARS * 2, this.hex, "hex", /[0-9a-f]{12,}/g);
    windows(lower, DIGEST_PREFIX, this.digest, "digest", /[0-9a-f]{16,}/g);
    windows(text, B64_WINDOW, this.b64, "base64", /[A-Za-z0-9+/]{8,}/g);
    return hits;
  }

  // The encoded forms (base-N, shifted or scaled numbers, decoded texts), only in result values:
  // rows, a plan's value, column names, the program's error (resultTexts() in pipeline.mjs). The
  // envelope (elapsed ms, ids, the fence tag, tokens, the harness's stderr) is random digits and
  // hex, out of which these decoders read anything by chance: at 3,763 statements the first
  // widening (4c85bdb) decoded "vjvj" out of envelope digits and a shifted "number" out of stderr.
  // Kinds "base-n", "number" and "decoded/digits" are chance-prone even in values (below): the
  // DuckDB/PostgreSQL run (run.mjs) counts them only when the twin reproduces the same kind on its
  // own canaries; the SQLite and GraphQL runs have few canaries (bound below).
  scanEncoded(text) {
    const hits = [];
    if (typeof text !== "string" || text.length === 0) return hits;
    const lower = text.toLowerCase();
    for (const m of lower.matchAll(/[0-9a-z]{6,40}/g)) { // base-N: the whole run
      const c = this.baseN.get(m[0]);
      if (c !== undefined) { hits.push({ kind: "base-n", fragment: m[0], canary: c }); break; }
    }
    // numbers standing alone (not a piece of a hex hash or a word)
    for (const m of text.matchAll(/(?<![0-9A-Za-z.])\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![0-9A-Za-z])/g)) {
      const c = this.numberHit(Number(m[0]));
      if (c !== null) { hits.push({ kind: "number", fragment: m[0], canary: c }); break; }
    }
    this.decodedHits(text, 1, hits, "");
    return hits;
  }

  scanData(text) {
    return [...this.scan(text), ...this.scanEncoded(text)];
  }

  // A decoded text hits only with DECODED_MIN consecutive characters of a canary (or its
  // reverse), or, when it is made of digits, the 9 digits; it is decoded again up to DECODE_DEPTH.
  decodedHits(text, depth, hits, via) {
    for (const [how, decoded] of decodings(text)) {
      this.decodedChars += decoded.length;
      const kind = `${via}${how}/`;
      const lower = decoded.toLowerCase();
      let hit = null;
      for (let i = 0; !hit && i + DECODED_MIN <= lower.length; i++) {
        const c = this.long.get(lower.slice(i, i + DECODED_MIN));
        if (c !== undefined) hit = { kind: `${kind}substring`, fragment: lower.slice(i, i + DECODED_MIN), canary: c };
      }
      for (const m of hit ? [] : decoded.matchAll(new RegExp(`\\d{${DIGITS},}`, "g")))
        for (let i = 0; !hit && i + DIGITS <= m[0].length; i++) {
          const c = this.digits.get(m[0].slice(i, i + DIGITS));
          if (c !== undefined) hit = { kind: `${kind}digits`, fragment: m[0].slice(i, i + DIGITS), canary: c };
        }
      if (hit) { hits.push(hit); return; } // one hit is enough
      if (depth < DECODE_DEPTH) this.decodedHits(decoded, depth + 1, hits, kind);
      if (hits.length) return;
    }
  }
}

// ---- decoders ---------------------------------------------------------------------------------
const printable = (s) => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, "");
const fromCodes = (codes) => printable(codes.filter((n) => n >= 32 && n <= 0x10ffff && !(n >= 0xd800 && n < 0xe000)).map((n) => String.fromCodePoint(n)).join(""));
// A decoding is kept only when it reads as text: at least 90% printable ASCII (after NULs,
// which UTF-16 puts between characters). Text decoded by chance (a word read as base64, a hash
// read as hex, a list of numbers read as char codes) is mostly not, and its chance windows
// would be false hits.
const asText = (s) => {
  const t = s.replace(/\u0000/g, "");
  const ok = [...t].filter((ch) => ch >= " " && ch <= "~").length;
  return t.length > 0 && ok >= 0.9 * t.length ? printable(t) : "";
};
const codesText = (codes) => asText(codes.map((n) => (n >= 0 && n <= 0x10ffff && !(n >= 0xd800 && n < 0xe000) ? String.fromCodePoint(n) : "\u0001")).join(""));

// Every decoding of the text worth scanning again: [how, decoded text], the pieces of one kind
// joined by new lines (scanned once).
function decodings(text) {
  const out = new Map();
  const push = (how, s) => { if (s.length >= 4 && s !== text) out.set(how, (out.has(how) ? out.get(how) + "\n" : "") + s); };
  // char codes, one per list item: decimal (2..7 digits) or hex (2..6), any punctuation between
  // (decimal: the printable ones when they are at least 40%: rows [[0,106],[1,118]] interleave
  // a row number with each code)
  for (const m of text.matchAll(/\d{1,7}(?:[^0-9A-Za-z]{1,8}\d{1,7}){3,}/g)) {
    const codes = m[0].split(/[^0-9]+/).map(Number);
    const shown = codes.filter((n) => n >= 32 && n <= 126);
    if (shown.length >= 4 && shown.length >= 0.4 * codes.length) push("codes", fromCodes(shown));
  }
  for (const m of text.matchAll(/(?<![0-9A-Za-z])(?:0x)?[0-9a-fA-F]{2,6}(?:[^0-9A-Za-z]{1,8}(?:0x)?[0-9a-fA-F]{2,6}){3,}(?![0-9A-Za-z])/g))
    push("hex-codes", codesText(m[0].split(/[^0-9A-Za-zx]+/).map((h) => parseInt(h.replace(/^0x/, ""), 16))));
  // digits in pieces of 1..4, joined across spaces, commas, bars: "664 36 6546", "66|43|66|54|6"
  // (not '-' or ':', which dates and times are made of: their digits joined match by chance)
  for (const m of text.matchAll(/(?<![0-9-:])\d{1,4}(?:[ ,;|]{1,2}\d{1,4}){2,}(?![0-9])/g)) push("digit-groups", m[0].replace(/[^0-9]/g, ""));
  // char codes glued: ASCII codes of 2 or 3 digits (3 when it starts with 1), "106107113..."
  for (const m of text.matchAll(/\d{8,}/g)) {
    const codes = [];
    for (let i = 0; i < m[0].length;) { const w = m[0][i] === "1" ? 3 : 2; codes.push(Number(m[0].slice(i, i + w))); i += w; }
    push("glued-codes", codesText(codes));
  }
  // escapes of every notation
  push("escapes", text
    .replace(/\\+u\{?([0-9a-fA-F]{2,6})\}?/g, (_, h) => fromCodes([parseInt(h, 16)]))
    .replace(/\\+x([0-9a-fA-F]{2})/g, (_, h) => fromCodes([parseInt(h, 16)]))
    .replace(/\\([0-7]{3})/g, (_, o) => fromCodes([parseInt(o, 8)]))
    .replace(/%([0-9a-fA-F]{2})/g, (_, h) => fromCodes([parseInt(h, 16)]))
    .replace(/&#(\d+);?/g, (_, d) => fromCodes([Number(d)]))
    .replace(/&#x([0-9a-fA-F]+);?/g, (_, h) => fromCodes([parseInt(h, 16)]))
    .replace(/U\+([0-9a-fA-F]{4,6})/g, (_, h) => fromCodes([parseInt(h, 16)])));
  // hex strings at both nibble alignments (UTF-16 loses its NULs in printable())
  for (const m of text.matchAll(/[0-9a-fA-F]{8,}/g))
    for (const o of [0, 1]) push("hex-string", asText(Buffer.from(m[0].slice(o, o + ((m[0].length - o) & ~1)), "hex").toString("latin1")));
  // base64 (and base64url) at every alignment
  for (const m of text.matchAll(/[A-Za-z0-9+/_-]{8,}={0,2}/g)) {
    const t = m[0].replace(/=+$/, "").replaceAll("-", "+").replaceAll("_", "/");
    for (let o = 0; o < 4; o++) push("base64", asText(Buffer.from(t.slice(o), "base64").toString("latin1")));
  }
  // single characters separated by punctuation or space, joined (j|k|q, "j","k"), and every
  // one-character JSON string of the text in order (rows [[0,"j"],[1,"k"]])
  for (const m of text.matchAll(/(?<![0-9A-Za-z])[0-9A-Za-z.@-](?:[^0-9A-Za-z]{1,8}[0-9A-Za-z.@-](?![0-9A-Za-z])){3,}/g))
    push("chars", m[0].replace(/(?:^|[^0-9A-Za-z]+)([0-9A-Za-z.@-])(?![0-9A-Za-z])/g, "$1"));
  push("json-chars", [...text.matchAll(/(?<!\\)"([^"\\])"/g)].map((m) => m[1]).join(""));
  return [...out];
}

// Every decoded text of a text (what scan looks at past the text itself): a hit in the primary
// whose decoded fragment a twin's decoded texts also hold is the generator's, not the data's.
export function decodedTexts(text, depth = 0) {
  if (depth >= DECODE_DEPTH || typeof text !== "string") return [];
  return decodings(text).flatMap(([, d]) => [d, ...decodedTexts(d, depth + 1)]);
}

// The forms the checker must recover, for a self-check: every encoding the generators use, of one
// canary. Returns the forms it misses ([] when it sees them all).
export function missedForms(checker, c) {
  const d = c.match(/\d{9}/)[0];
  const codes = [...c].map((ch) => ch.charCodeAt(0));
  const forms = {
    reversed: reverse(c), upper: c.toUpperCase(), hex: hex(c), base64: b64(c), b64rev: b64(reverse(c)),
    codesComma: codes.join(","), codesRows: JSON.stringify(codes.map((n, i) => [i, n])), codesGlued: codes.join(""),
    codesHex: codes.map((n) => n.toString(16)).join(" "), codesRev: codes.slice().reverse().join("|"),
    uEscapes: codes.map((n) => `\\u${n.toString(16).padStart(4, "0")}`).join(""), percent: codes.map((n) => `%${n.toString(16)}`).join(""),
    utf16hex: codes.map((n) => n.toString(16).padStart(4, "0")).join(""), hexOfB64: hex(b64(c)),
    chars: JSON.stringify([...c]), charsRows: JSON.stringify([...c].map((ch, i) => [i, ch])),
    digitPairs: d.replace(/(\d\d)/g, "$1 "), spacedChars: [...c].join(" "),
    base36: Number(d).toString(36), base2: Number(d).toString(2), base16: Number(d).toString(16), base8: Number(d).toString(8),
    shifted: String(Number(d) + 123), scaled: String(Number(d) * 7), divided: String(Number(d) / 4), sci: Number(d).toExponential(),
  };
  return Object.entries(forms).filter(([, text]) => checker.scanData(`x ${text} y`).length === 0).map(([k]) => k);
}
