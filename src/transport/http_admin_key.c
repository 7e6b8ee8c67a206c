/*
 * http_admin_key.c — the administrator-key check and its bound on guessing (see
 * http_admin_key.h).
 */
#include "transport/http_admin_key.h"

#include "core/hash.h"
#include "core/limits.h"

#include <sodium.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MIN_KEY_BYTES 16u

sluice_status sluice_admin_key_init(sluice_admin_key *k,
                                    const sluice_clock *clock,
                                    const sluice_config_admin *admin,
                                    sluice_arena *err_arena,
                                    sluice_error *err)
{
    memset(k, 0, sizeof *k);
    pthread_mutex_init(&k->lock, NULL);
    k->clock = clock;
    if (admin->key_sha256 == NULL && admin->key_env == NULL)
        return SLUICE_E_NOT_FOUND;
    if (sodium_init() < 0)
        return sluice_error_set(err, err_arena, SLUICE_E_INTERNAL, "libsodium failed to start");
    if (admin->key_sha256 != NULL) {
        size_t n = 0;
        if (sodium_hex2bin(k->digest, sizeof k->digest, admin->key_sha256,
                           strlen(admin->key_sha256), NULL, &n, NULL) != 0 ||
            n != sizeof k->digest)
            return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                    "[admin] key_sha256 must be 64 hex digits");
        return SLUICE_OK;
    }
    const char *key = getenv(admin->key_env);
    size_t len = key != NULL ? strlen(key) : 0;
    if (len < MIN_KEY_BYTES || len > SLUICE_LIMIT_CREDENTIAL_BYTES)
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "[admin] key_env '%s' must hold a key of %u to %u bytes",
                                admin->key_env, MIN_KEY_BYTES, SLUICE_LIMIT_CREDENTIAL_BYTES);
    sluice_hash_sha256(key, len, k->digest);
    return SLUICE_OK;
}

static bool key_ok(const sluice_admin_key *k, const char *authorization)
{
    if (authorization == NULL || strncasecmp(authorization, "Bearer ", 7) != 0)
        return false;
    const char *key = authorization + 7;
    size_t len = strlen(key);
    unsigned char digest[SLUICE_HASH_BYTES];
    /* an over-long key is hashed as empty, so the time taken says nothing about its length */
    sluice_hash_sha256(key, len > SLUICE_LIMIT_CREDENTIAL_BYTES ? 0 : len, digest);
    bool same = sodium_memcmp(digest, k->digest, sizeof digest) == 0;
    sodium_memzero(digest, sizeof digest);
    return same && len >= MIN_KEY_BYTES && len <= SLUICE_LIMIT_CREDENTIAL_BYTES;
}

sluice_admin_auth sluice_admin_key_check(sluice_admin_key *k, const char *authorization)
{
    int64_t now = sluice_clock_now_s(k->clock);
    pthread_mutex_lock(&k->lock);
    if (now - k->window_start >= SLUICE_ADMIN_FAILURE_WINDOW_S) {
        k->window_start = now;
        k->failures = 0;
    }
    /* The check is counted as a failure before the key is compared (and given back when it was
     * right): counting after the comparison would let concurrent guesses all pass the test. */
    bool open = k->failures < SLUICE_ADMIN_FAILURES_PER_WINDOW;
    int64_t window = k->window_start;
    if (open)
        k->failures++;
    pthread_mutex_unlock(&k->lock);
    if (!open)
        return SLUICE_ADMIN_THROTTLED;
    if (!key_ok(k, authorization))
        return SLUICE_ADMIN_BAD_KEY;
    pthread_mutex_lock(&k->lock);
    if (k->window_start == window && k->failures > 0)
        k->failures--;
    pthread_mutex_unlock(&k->lock);
    return SLUICE_ADMIN_OK;
}

int sluice_admin_key_refusal(
    sluice_admin_key *k, sluice_admin_auth auth, char *body, size_t cap, const char **challenge)
{
    /* the texts hold no character JSON escapes, so they are written as they are */
    if (auth == SLUICE_ADMIN_THROTTLED) {
        pthread_mutex_lock(&k->lock);
        int64_t left =
            k->window_start + SLUICE_ADMIN_FAILURE_WINDOW_S - sluice_clock_now_s(k->clock);
        pthread_mutex_unlock(&k->lock);
        *challenge = NULL;
        snprintf(body, cap,
                 "{\"error\":\"too many wrong administrator keys (limit is %d per %d s); try "
                 "again in %lld s\"}",
                 SLUICE_ADMIN_FAILURES_PER_WINDOW, SLUICE_ADMIN_FAILURE_WINDOW_S,
                 (long long)(left > 0 ? left : 1));
        return 429;
    }
    *challenge = SLUICE_ADMIN_CHALLENGE;
    snprintf(body, cap, "{\"error\":\"%s\"}",
             "send the administrator key ([admin]) as 'Authorization: Bearer <key>'");
    return 401;
}
