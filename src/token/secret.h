/*
 * secret.h — token signing keys: loading, locked storage, HMAC, and the keyring for rotation.
 *
 * Owns: the key line format, reading it from a file (`token_secret_file`, refused when group or
 * others may read it, as ssh does) or an environment variable (`token_secret_env`), keeping the
 * key bytes in sodium_malloc'd, mlock'd, read-only memory wiped on free, HMAC-SHA256 with them,
 * and the keyring: one current key that signs and verifies, previous keys that only verify.
 * Does not own: what is signed (token/token.h). Key bytes never leave this file: callers get
 * MACs, never the key, and nothing here logs or prints key material.
 *
 * Key line format (a file holds exactly one line; the env var holds the same text):
 *
 *     sluice-key-v1 <key_id> <base64url(secret), no padding>
 *
 * key_id is 1..64 bytes of [A-Za-z0-9._-]; the secret is 32..64 random bytes. `sluice keygen`
 * writes one.
 */
#ifndef SLUICE_TOKEN_SECRET_H
#define SLUICE_TOKEN_SECRET_H

#include "core/arena.h"
#include "core/error.h"
#include "core/limits.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SLUICE_SECRET_MIN_BYTES  32u
#define SLUICE_SECRET_MAX_BYTES  64u
#define SLUICE_SECRET_KEY_ID_MAX 64u
#define SLUICE_SECRET_MAC_BYTES  32u

typedef struct sluice_secret sluice_secret;
typedef struct sluice_secret_ring sluice_secret_ring;

/* Parses one key line from text (len bytes; a trailing newline is allowed) into a new key.
 * source names where the text came from, for messages ("env SLUICE_TOKEN_KEY", a path). On
 * return, success or not, the len bytes of text are wiped, so the secret's only copy is the
 * locked one. Errors (SLUICE_E_CONFIG) say what is wrong and how to make a key, never the key. */
sluice_status sluice_secret_parse(char *text,
                                  size_t len,
                                  const char *source,
                                  sluice_secret **out,
                                  sluice_arena *err_arena,
                                  sluice_error *err);

/* Reads a key file. Refused (SLUICE_E_CONFIG) when it is not a regular file, belongs to another
 * user (root excepted), or grants any permission to group or others; SLUICE_E_IO when unreadable.
 */
sluice_status sluice_secret_load_file(const char *path,
                                      sluice_secret **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err);

/* Reads a key line from environment variable `name`. SLUICE_E_CONFIG when unset or invalid. */
sluice_status sluice_secret_load_env(const char *name,
                                     sluice_secret **out,
                                     sluice_arena *err_arena,
                                     sluice_error *err);

/* true when the len bytes at id form a valid key id (1..64 of [A-Za-z0-9._-]). */
bool sluice_secret_key_id_valid(const char *id, size_t len);

/* Wipes and frees the key. NULL does nothing. */
void sluice_secret_free(sluice_secret *key);

/* The key id (NUL-terminated, not secret). */
const char *sluice_secret_key_id(const sluice_secret *key);

/* out = HMAC-SHA256(key, data). */
void sluice_secret_mac(const sluice_secret *key,
                       const void *data,
                       size_t len,
                       uint8_t out[SLUICE_SECRET_MAC_BYTES]);

/* true when mac is HMAC-SHA256(key, data); the comparison is constant-time. */
bool sluice_secret_mac_verify(const sluice_secret *key,
                              const void *data,
                              size_t len,
                              const uint8_t mac[SLUICE_SECRET_MAC_BYTES]);

/* Writes a fresh key line ("sluice-key-v1 <id> <secret>\n", NUL-terminated) into out. key_id
 * NULL picks "k<UTC yyyymmdd>-<8 random hex>". SLUICE_E_INVALID for a bad key_id, SLUICE_E_LIMIT
 * when cap is under SLUICE_LIMIT_SECRET_LINE_BYTES. The caller wipes out (sodium_memzero) after
 * use. */
sluice_status sluice_secret_generate(const char *key_id, char *out, size_t cap);

/* A keyring whose current key is `current` (taken over: freed with the ring, even on failure). */
sluice_status sluice_secret_ring_new(sluice_secret *current, sluice_secret_ring **out);

/* Adds a verify-only previous key (taken over, even on failure). SLUICE_E_CONFIG when its id
 * equals one already in the ring, SLUICE_E_LIMIT past SLUICE_LIMIT_PREVIOUS_KEYS. */
sluice_status sluice_secret_ring_add_previous(sluice_secret_ring *ring,
                                              sluice_secret *previous,
                                              sluice_arena *err_arena,
                                              sluice_error *err);

/* Builds a ring from the [code_mode] settings: the current key from file or env (exactly one of
 * the two must be set), a previous key from prev_file or prev_env (both NULL: none). A previous
 * key identical to the current one (same id and bytes: a rotation half done) is dropped. */
sluice_status sluice_secret_ring_load(const char *file,
                                      const char *env,
                                      const char *prev_file,
                                      const char *prev_env,
                                      sluice_secret_ring **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err);

/* The signing key. */
const sluice_secret *sluice_secret_ring_current(const sluice_secret_ring *ring);

/* The index-th verify-only previous key, or NULL past the last one. */
const sluice_secret *sluice_secret_ring_previous(const sluice_secret_ring *ring, size_t index);

/* The key (current or previous) whose id is the id_len bytes at key_id, or NULL. */
const sluice_secret *
sluice_secret_ring_find(const sluice_secret_ring *ring, const char *key_id, size_t id_len);

/* Frees the ring and every key in it. NULL does nothing. */
void sluice_secret_ring_free(sluice_secret_ring *ring);

#endif
