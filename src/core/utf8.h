/*
 * utf8.h — encoding and decoding one UTF-8 sequence.
 *
 * Owns: the byte layout of UTF-8 (RFC 3629): writing a code point as 1-4 bytes and reading one
 * well-formed sequence back (no overlongs, no surrogates, nothing above U+10FFFF). The TOML and
 * Cedar string unescapers, the config's resource-file check, the executor's text values and the
 * MCP JSON writer share these, so every surface agrees on what is valid. Does not own: escapes
 * (each grammar has its own), whole-string validation policy.
 */
#ifndef SLUICE_CORE_UTF8_H
#define SLUICE_CORE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Longest UTF-8 sequence of one code point. */
#define SLUICE_UTF8_MAX_BYTES 4u

/* Writes cp (which the caller has checked is a Unicode scalar value, at most U+10FFFF and not a
 * surrogate) as UTF-8 into out (room for SLUICE_UTF8_MAX_BYTES); returns the byte count. Cannot
 * fail: a code point above U+10FFFF is the caller's bug and is written in four bytes anyway. */
size_t sluice_utf8_encode(uint32_t cp, char *out);

/* Reads the one well-formed sequence at s (len bytes available) into *out_cp (may be NULL) and
 * returns its length (1-4); 0 when the bytes there are not well-formed UTF-8 (truncated,
 * overlong, a surrogate, above U+10FFFF, a stray continuation byte) or len is 0. */
size_t sluice_utf8_decode(const char *s, size_t len, uint32_t *out_cp);

#endif
