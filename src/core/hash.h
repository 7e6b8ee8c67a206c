/*
 * hash.h — SHA-256 and HMAC-SHA256 (OpenSSL's libcrypto); hex, base64url and constant-time
 * comparison (libsodium).
 *
 * Owns: initialising libsodium once per process (thread-safe), one-shot and streaming SHA-256,
 * HMAC-SHA256 over it, lower-case hex and unpadded base64url encoding with strict
 * (canonical-only) decoding, and equality that takes the same time whatever the bytes. Does not
 * own: where a key lives (token/secret.h keeps the token key in locked memory), tokens
 * (token/token.h).
 */
#ifndef SLUICE_CORE_HASH_H
#define SLUICE_CORE_HASH_H

#include "sluice/sluice.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SLUICE_HASH_BYTES       32u
#define SLUICE_HASH_HEX_CHARS   64u /* without the terminating NUL */
#define SLUICE_HASH_BLOCK_BYTES 64u /* SHA-256's block, which HMAC pads keys to */

/* Streaming state; opaque storage sized for OpenSSL's SHA256_CTX, which holds no pointers: a
 * copy (by assignment) goes on from where the original was, on its own — HMAC keeps the states
 * after the key's pads and copies them for each MAC (token/secret.c). */
typedef struct sluice_hash_state {
    _Alignas(16) unsigned char opaque[128];
} sluice_hash_state;

/* Initialises libsodium once (later calls are cheap and return the first result).
 * SLUICE_E_INTERNAL when libsodium cannot start (no entropy source). Every libsodium-backed
 * function here and in token/secret.h calls it, so callers need not (SHA-256 needs no start). */
sluice_status sluice_hash_init(void);

/* out = SHA-256(data[0..len)). data may be NULL when len is 0. */
void sluice_hash_sha256(const void *data, size_t len, uint8_t out[SLUICE_HASH_BYTES]);

/* Streaming form: start, feed any number of pieces, finish into out. */
void sluice_hash_start(sluice_hash_state *state);
void sluice_hash_update(sluice_hash_state *state, const void *data, size_t len);
void sluice_hash_finish(sluice_hash_state *state, uint8_t out[SLUICE_HASH_BYTES]);

/* HMAC-SHA256 (RFC 2104) under one key: the SHA-256 states after the key's inner and outer
 * padded blocks, made once, so a MAC hashes only its data and the inner digest. It is derived
 * from the key: its owner wipes it (sodium_memzero) as it would the key. */
typedef struct sluice_hash_hmac_key {
    sluice_hash_state keyed[2]; /* [0] inner, [1] outer: each after its pad */
} sluice_hash_hmac_key;

/* Keys h with key[0..len) (NULL when len is 0); a key longer than a block is hashed first, as
 * RFC 2104 says. */
void sluice_hash_hmac_init(sluice_hash_hmac_key *h, const void *key, size_t len);

/* out = HMAC-SHA256 of data[0..len) under h's key: the same bytes as libsodium's
 * crypto_auth_hmacsha256 (test_hash). h is only read, so one serves every MAC and thread. */
void sluice_hash_hmac(const sluice_hash_hmac_key *h,
                      const void *data,
                      size_t len,
                      uint8_t out[SLUICE_HASH_BYTES]);

/* Writes 2*len lower-case hex digits and a NUL into out (which holds 2*len+1 bytes). */
void sluice_hash_hex(const uint8_t *bytes, size_t len, char *out);

/* Decodes exactly out_len bytes from exactly 2*out_len hex digits (either case). SLUICE_E_INVALID
 * on any other length or a non-hex byte; out is then untouched. */
sluice_status sluice_hash_unhex(const char *hex, size_t hex_len, uint8_t *out, size_t out_len);

/* Characters sluice_hash_b64url_encode writes for len bytes (no padding, without the NUL). */
#define SLUICE_HASH_B64URL_CHARS(len) (((len) / 3u) * 4u + ((len) % 3u ? (len) % 3u + 1u : 0u))

/* Writes unpadded base64url of bytes and a NUL into out (SLUICE_HASH_B64URL_CHARS(len) + 1), in
 * time independent of the bytes (libsodium): for anything secret — keys (token/secret.c), and any
 * caller that has not said its bytes are public. */
void sluice_hash_b64url_encode(const uint8_t *bytes, size_t len, char *out);

/* The same characters as sluice_hash_b64url_encode, from a table indexed by the bytes, so its
 * memory accesses depend on them: only for bytes the reader may see anyway — an approval token's
 * payload and MAC, which travel to the client (token/token.c). ~5x fewer instructions. */
void sluice_hash_b64url_encode_public(const uint8_t *bytes, size_t len, char *out);

/* Decodes unpadded base64url text into out (cap bytes), *out_len = bytes written. Only the
 * canonical spelling is accepted: alphabet [A-Za-z0-9_-], zero unused bits, no padding, nothing
 * ignored, non-empty. SLUICE_E_INVALID otherwise; SLUICE_E_LIMIT when it does not fit. */
sluice_status
sluice_hash_b64url_decode(const char *text, size_t len, uint8_t *out, size_t cap, size_t *out_len);

/* true when a and b (len bytes each) are equal, in time independent of their contents. */
bool sluice_hash_equal(const void *a, const void *b, size_t len);

/* The value of one hex digit ('0'-'9', 'a'-'f', 'A'-'F'), or -1 for any other byte. Shared by
 * every parser of \u escapes and hex text (TOML, Cedar, token ids). */
int sluice_hex_digit(unsigned char c);

#endif
