/*
 * apikey.c — static API keys as a sluice_authenticator (see apikey.h).
 *
 * The authenticator keeps only SHA-256 digests. Matching hashes the presented key once and
 * compares the digest with every entry in constant time, so the work done does not depend on
 * which entry (if any) matches.
 */
#include "auth/apikey.h"

#include "core/hash.h"
#include "core/limits.h"

#include <sodium.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct key_entry {
    unsigned char digest[SLUICE_HASH_BYTES];
    sluice_identity identity; /* strings in the authenticator's arena */
} key_entry;

typedef struct apikey_state {
    sluice_arena *arena;
    key_entry *keys;
    size_t count; /* loaded */
    size_t cap;   /* allocated (wiped on destroy, loaded or not) */
} apikey_state;

static const char *const challenge = "Bearer realm=\"sluice\"";
static const char *const challenge_invalid = "Bearer realm=\"sluice\", error=\"invalid_token\"";

/* The key presented on the request, or NULL; *len its length. */
static const char *presented_key(const sluice_auth_request *rq, size_t *len, bool *bad_scheme)
{
    *bad_scheme = false;
    const char *a = rq->authorization;
    if (a != NULL) {
        if (strncasecmp(a, "Bearer", 6) != 0 || (a[6] != ' ' && a[6] != '\t')) {
            *bad_scheme = true;
            return NULL;
        }
        a += 6;
        while (*a == ' ' || *a == '\t')
            a++;
        size_t n = strlen(a);
        while (n > 0 && (a[n - 1] == ' ' || a[n - 1] == '\t'))
            n--;
        *len = n;
        return n > 0 ? a : NULL;
    }
    if (rq->api_key != NULL && rq->api_key[0] != '\0') {
        *len = strlen(rq->api_key);
        return rq->api_key;
    }
    return NULL;
}

static sluice_status authenticate(const sluice_authenticator *self,
                                  sluice_arena *arena,
                                  const sluice_auth_request *rq,
                                  sluice_identity *out,
                                  sluice_auth_failure *failure)
{
    const apikey_state *st = self->state;
    size_t len = 0;
    bool bad_scheme = false;
    const char *key = presented_key(rq, &len, &bad_scheme);
    if (key == NULL) {
        failure->www_authenticate = challenge;
        failure->message =
            bad_scheme ? "unsupported Authorization scheme: send 'Authorization: Bearer <key>'"
                       : "missing API key: send 'Authorization: Bearer <key>' or "
                         "'X-API-Key: <key>'";
        return SLUICE_E_AUTH;
    }
    unsigned char digest[SLUICE_HASH_BYTES];
    sluice_hash_sha256(key, len > SLUICE_LIMIT_CREDENTIAL_BYTES ? 0 : len, digest);
    const key_entry *match = NULL;
    for (size_t i = 0; i < st->count; i++) {
        bool same = sodium_memcmp(digest, st->keys[i].digest, sizeof digest) == 0;
        if (same && match == NULL)
            match = &st->keys[i];
    }
    sodium_memzero(digest, sizeof digest);
    if (match == NULL || len > SLUICE_LIMIT_CREDENTIAL_BYTES) {
        failure->www_authenticate = challenge_invalid;
        failure->message = "invalid API key";
        return SLUICE_E_AUTH;
    }
    if (sluice_identity_copy(arena, &match->identity, out) != SLUICE_OK) {
        failure->www_authenticate = challenge;
        failure->message = "out of memory";
        return SLUICE_E_AUTH;
    }
    return SLUICE_OK;
}

static void destroy(sluice_authenticator *self)
{
    if (self == NULL)
        return;
    apikey_state *st = self->state;
    if (st != NULL) {
        if (st->keys != NULL)
            sodium_memzero(st->keys, st->cap * sizeof *st->keys);
        sluice_arena_free(st->arena);
        free(st);
    }
    free(self);
}

/* Fills e->digest from the config entry. */
static sluice_status load_digest(const sluice_config_api_key *k,
                                 key_entry *e,
                                 sluice_arena *err_arena,
                                 sluice_error *err)
{
    const char *user = k->user != NULL ? k->user : "?";
    if ((k->sha256_hex != NULL) == (k->env != NULL))
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "api key for user '%s' (line %zu): set exactly one of key_sha256 "
                                "and key_env",
                                user, k->line);
    if (k->sha256_hex != NULL) {
        size_t n = 0;
        if (strlen(k->sha256_hex) != 2 * sizeof e->digest ||
            sodium_hex2bin(e->digest, sizeof e->digest, k->sha256_hex, strlen(k->sha256_hex), NULL,
                           &n, NULL) != 0 ||
            n != sizeof e->digest)
            return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                    "api key for user '%s' (line %zu): key_sha256 must be 64 hex "
                                    "characters (the SHA-256 of the key, e.g. from "
                                    "'printf %%s KEY | sha256sum')",
                                    user, k->line);
        return SLUICE_OK;
    }
    const char *value = getenv(k->env);
    if (value == NULL || value[0] == '\0')
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "api key for user '%s' (line %zu): environment variable '%s' is "
                                "not set",
                                user, k->line, k->env);
    size_t len = strlen(value);
    if (len < SLUICE_APIKEY_MIN_LENGTH || len > SLUICE_LIMIT_CREDENTIAL_BYTES)
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "api key for user '%s' (line %zu): the key in '%s' must be %u to "
                                "%u characters long (it has %zu)",
                                user, k->line, k->env, SLUICE_APIKEY_MIN_LENGTH,
                                SLUICE_LIMIT_CREDENTIAL_BYTES, len);
    sluice_hash_sha256(value, len, e->digest);
    return SLUICE_OK;
}

sluice_status sluice_apikey_new(const sluice_config_api_key *keys,
                                size_t count,
                                sluice_authenticator **out,
                                sluice_arena *err_arena,
                                sluice_error *err)
{
    if (sodium_init() < 0)
        return sluice_error_set(err, err_arena, SLUICE_E_INTERNAL, "libsodium failed to start");
    sluice_authenticator *auth = calloc(1, sizeof *auth);
    apikey_state *st = calloc(1, sizeof *st);
    if (auth != NULL)
        auth->state = st;
    if (auth == NULL || st == NULL || (st->arena = sluice_arena_new()) == NULL ||
        (count > 0 &&
         (st->keys = sluice_arena_calloc(st->arena, count, sizeof *st->keys)) == NULL)) {
        free(st);
        free(auth);
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    }
    st->cap = count;
    auth->authenticate = authenticate;
    auth->destroy = destroy;
    for (size_t i = 0; i < count; i++) {
        key_entry *e = &st->keys[i];
        sluice_status s = load_digest(&keys[i], e, err_arena, err);
        if (s == SLUICE_OK && (keys[i].user == NULL || keys[i].user[0] == '\0'))
            s = sluice_error_set(err, err_arena, SLUICE_E_CONFIG, "api key on line %zu has no user",
                                 keys[i].line);
        sluice_identity from = { keys[i].user, keys[i].groups.items, keys[i].groups.count,
                                 "api-key" };
        if (s == SLUICE_OK && sluice_identity_copy(st->arena, &from, &e->identity) != SLUICE_OK)
            s = sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
        if (s != SLUICE_OK) {
            destroy(auth);
            return s;
        }
        st->count++;
    }
    *out = auth;
    return SLUICE_OK;
}
