/*
 * key_store.h — the live token keyring: re-read on request (SIGHUP) and when a key file changes,
 * swapped whole while the server runs, so the token key can be rotated without a restart.
 *
 * Owns: where the keys come from ([code_mode] token_secret_file/env and
 * token_previous_secret_file/env), the ring in use as a refcounted snapshot, when to re-read it
 * (a pending request, or a key file whose device, inode, size, mtime or ctime changed since the
 * last attempt), and the rule that a failed re-read keeps the ring in use and says so loudly in
 * the log: the store never holds an empty ring. A ring that was replaced is wiped and freed when
 * its last reader releases it. Does not own: the key format, locked memory or HMAC (secret.h).
 *
 * Thread-safe: any thread may acquire, release, refresh or reload; request_reload is also
 * async-signal-safe. Keys from environment variables are re-read too, but a process's
 * environment does not change, so rotate with key files.
 */
#ifndef SLUICE_TOKEN_KEY_STORE_H
#define SLUICE_TOKEN_KEY_STORE_H

#include "core/arena.h"
#include "core/error.h"
#include "token/secret.h"

typedef struct sluice_key_store sluice_key_store;

/* Where the keys are read from; borrowed, must outlive the store (the config does). */
typedef struct sluice_key_sources {
    const char *file, *env;           /* the current key: exactly one set */
    const char *prev_file, *prev_env; /* a verify-only previous key: at most one set */
} sluice_key_sources;

/* Loads the ring once. Fails (the ring_load errors, SLUICE_E_NOMEM) without a store. */
sluice_status sluice_key_store_open(const sluice_key_sources *sources,
                                    sluice_key_store **out,
                                    sluice_arena *err_arena,
                                    sluice_error *err);

/* The ring to sign or verify with, held until sluice_key_store_release. Re-reads first when a
 * reload was requested or a key file changed (a failed re-read keeps the ring and logs). Never
 * NULL: there is always a ring. */
const sluice_secret_ring *sluice_key_store_acquire(sluice_key_store *ks);

/* Gives back a ring from acquire; a replaced ring is wiped and freed with its last reader. */
void sluice_key_store_release(sluice_key_store *ks, const sluice_secret_ring *ring);

/* Re-reads the keys now; why names the cause in the log ("SIGHUP"). On failure (the
 * sluice_secret_ring_load errors) the ring in use stays, and the failure is logged as an error
 * naming the key that still signs. */
sluice_status sluice_key_store_reload(sluice_key_store *ks,
                                      const char *why,
                                      sluice_arena *err_arena,
                                      sluice_error *err);

/* Asks for a re-read at the next acquire or refresh. Async-signal-safe (a lock-free atomic store):
 * a SIGHUP handler calls it. */
void sluice_key_store_request_reload(sluice_key_store *ks);

/* acquire + release: applies a pending request or a file change now (the serve loop calls it
 * periodically, so a rotation shows in the log without waiting for a request). */
void sluice_key_store_refresh(sluice_key_store *ks);

/* Frees the store and its ring. Every acquired ring must have been released. NULL does nothing. */
void sluice_key_store_close(sluice_key_store *ks);

#endif
