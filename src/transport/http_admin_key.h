/*
 * http_admin_key.h — the one administrator-key check in front of everything under /admin/ that
 * is not a static file: the console's GET API (http_admin.c) and every POST (the approval
 * decision, http_admin_approval.c), both routed through http_admin.c, which checks once.
 *
 * Owns: the credential ([admin] key_sha256 or key_env, sent as "Authorization: Bearer <key>",
 * compared as SHA-256 digests in constant time; never an MCP API key or token), the bound on
 * guessing (SLUICE_ADMIN_FAILURES_PER_WINDOW wrong keys per SLUICE_ADMIN_FAILURE_WINDOW_S
 * seconds, then every check fails, even a right key, until the window ends) and the refusal
 * each failure answers (401 with a challenge, 429 naming the limit's value).
 * Does not own: the routes (http_admin.c), HTTP itself (transport/http.c).
 */
#ifndef SLUICE_TRANSPORT_HTTP_ADMIN_KEY_H
#define SLUICE_TRANSPORT_HTTP_ADMIN_KEY_H

#include "config/config.h"
#include "core/arena.h"
#include "core/clock.h"
#include "core/error.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* Wrong admin keys tolerated per window before every check fails until the window ends. */
#define SLUICE_ADMIN_FAILURES_PER_WINDOW 10
#define SLUICE_ADMIN_FAILURE_WINDOW_S    60
#define SLUICE_ADMIN_CHALLENGE           "Bearer realm=\"sluice-admin\""

typedef struct sluice_admin_key {
    const sluice_clock *clock; /* the window's clock (NULL: the system clock) */
    unsigned char digest[32];  /* SHA-256 of the admin key */
    pthread_mutex_t lock;      /* guards the two below */
    int failures;              /* wrong keys, and checks still under way, in this window */
    int64_t window_start;      /* seconds since the epoch */
} sluice_admin_key;

typedef enum sluice_admin_auth {
    SLUICE_ADMIN_OK,
    SLUICE_ADMIN_BAD_KEY,   /* answer 401 with a challenge */
    SLUICE_ADMIN_THROTTLED, /* answer 429 */
} sluice_admin_auth;

/* SLUICE_E_NOT_FOUND when [admin] sets no key (then nothing under /admin/ but the console's
 * static files is served); SLUICE_E_CONFIG when key_sha256 is not 64 hex digits or key_env is
 * unset or not 16 to SLUICE_LIMIT_CREDENTIAL_BYTES bytes. clock must outlive k. */
sluice_status sluice_admin_key_init(sluice_admin_key *k,
                                    const sluice_clock *clock,
                                    const sluice_config_admin *admin,
                                    sluice_arena *err_arena,
                                    sluice_error *err);

/* Checks "Authorization: Bearer <admin key>" (authorization may be NULL), counting a wrong key
 * against the bound. Thread-safe: a check counts as a failure from its start until the key is
 * known right, so concurrent guesses cannot get past the bound between its test and its count. */
sluice_admin_auth sluice_admin_key_check(sluice_admin_key *k, const char *authorization);

/* The answer to a failed check (auth not OK): returns the HTTP status (401 or 429) and writes
 * its JSON body {"error": "..."} into body (cap bytes); *challenge is the WWW-Authenticate
 * value for 401, else NULL. */
int sluice_admin_key_refusal(
    sluice_admin_key *k, sluice_admin_auth auth, char *body, size_t cap, const char **challenge);

#endif
