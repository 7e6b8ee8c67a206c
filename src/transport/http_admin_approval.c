/*
 * http_admin_approval.c — the admin approval endpoint (see http_admin_approval.h).
 */
#include "transport/http_admin_approval.h"

#include "codemode/approval_gate.h"
#include "core/clock.h"
#include "core/limits.h"
#include "state/approval.h"

#include <jansson.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MIN_KEY_BYTES 16u

sluice_status sluice_approval_http_init(sluice_approval_http *h,
                                        sluice_runtime *rt,
                                        const sluice_config_admin *admin,
                                        sluice_arena *err_arena,
                                        sluice_error *err)
{
    memset(h, 0, sizeof *h);
    atomic_init(&h->failures, 0);
    atomic_init(&h->window_start, 0);
    h->rt = rt;
    if (rt == NULL || rt->approvals == NULL ||
        (admin->key_sha256 == NULL && admin->key_env == NULL))
        return SLUICE_E_NOT_FOUND;
    if (sodium_init() < 0)
        return sluice_error_set(err, err_arena, SLUICE_E_INTERNAL, "libsodium failed to start");
    if (admin->key_sha256 != NULL) {
        size_t n = 0;
        if (sodium_hex2bin(h->digest, sizeof h->digest, admin->key_sha256,
                           strlen(admin->key_sha256), NULL, &n, NULL) != 0 ||
            n != sizeof h->digest)
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
    crypto_hash_sha256(h->digest, (const unsigned char *)key, len);
    return SLUICE_OK;
}

/* Failed credential checks are limited to SLUICE_ADMIN_FAILURES_PER_WINDOW per window: past
 * it every check fails (even a right key) until the window ends, so guessing is slow. */
static bool throttled(sluice_approval_http *h, int64_t now)
{
    int64_t start = atomic_load(&h->window_start);
    if (now - start >= SLUICE_ADMIN_FAILURE_WINDOW_S) {
        atomic_store(&h->window_start, now);
        atomic_store(&h->failures, 0);
    }
    return atomic_load(&h->failures) >= SLUICE_ADMIN_FAILURES_PER_WINDOW;
}

static bool key_ok(const sluice_approval_http *h, const char *authorization)
{
    if (authorization == NULL || strncasecmp(authorization, "Bearer ", 7) != 0)
        return false;
    const char *key = authorization + 7;
    size_t len = strlen(key);
    unsigned char digest[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(digest, (const unsigned char *)key,
                       len > SLUICE_LIMIT_CREDENTIAL_BYTES ? 0 : len);
    bool same = sodium_memcmp(digest, h->digest, sizeof digest) == 0;
    sodium_memzero(digest, sizeof digest);
    return same && len >= MIN_KEY_BYTES && len <= SLUICE_LIMIT_CREDENTIAL_BYTES;
}

sluice_admin_auth sluice_approval_http_check(sluice_approval_http *h, const char *authorization)
{
    int64_t now = sluice_runtime_now_s(h->rt);
    if (throttled(h, now))
        return SLUICE_ADMIN_THROTTLED;
    if (key_ok(h, authorization))
        return SLUICE_ADMIN_OK;
    atomic_fetch_add(&h->failures, 1);
    return SLUICE_ADMIN_BAD_KEY;
}

static int answer(sluice_arena *arena, const char **out_body, int status, json_t *doc)
{
    char *text = doc != NULL ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    *out_body = text != NULL ? sluice_arena_strdup(arena, text) : NULL;
    free(text);
    return status;
}

static int fail(sluice_arena *arena, const char **out_body, int status, const char *message)
{
    return answer(arena, out_body, status, json_pack("{s:s}", "error", message));
}

/* The decision in body: 1 approve, 0 reject, -1 malformed; *who the optional "as". */
static int decision_of(const char *body, size_t len, sluice_arena *arena, const char **who)
{
    json_t *doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
    const char *d = json_string_value(json_object_get(doc, "decision"));
    const json_t *as = json_object_get(doc, "as");
    int verdict = d == NULL                   ? -1
                  : strcmp(d, "approve") == 0 ? 1
                  : strcmp(d, "reject") == 0  ? 0
                                              : -1;
    if (as != NULL &&
        (!json_is_string(as) || json_string_length(as) == 0 || json_string_length(as) > 100))
        verdict = -1;
    *who = as != NULL && verdict >= 0 ? sluice_arena_strdup(arena, json_string_value(as)) : "admin";
    json_decref(doc);
    return *who != NULL ? verdict : -1;
}

int sluice_approval_http_post(void *ctx,
                              const char *path,
                              const char *authorization,
                              const char *body,
                              size_t len,
                              sluice_arena *arena,
                              const char **out_body,
                              const char **www_authenticate)
{
    sluice_approval_http *h = ctx;
    size_t prefix = strlen(SLUICE_APPROVAL_HTTP_PREFIX);
    if (strncmp(path, SLUICE_APPROVAL_HTTP_PREFIX, prefix) != 0)
        return 0;
    sluice_admin_auth auth = sluice_approval_http_check(h, authorization);
    if (auth == SLUICE_ADMIN_THROTTLED)
        return fail(arena, out_body, 429, SLUICE_ADMIN_THROTTLED_TEXT);
    if (auth != SLUICE_ADMIN_OK) {
        *www_authenticate = "Bearer realm=\"sluice-admin\"";
        return fail(arena, out_body, 401, SLUICE_ADMIN_BAD_KEY_TEXT);
    }
    const char *id = path + prefix;
    if (!sluice_approval_id_valid(id))
        return fail(arena, out_body, 404, "not an approval id (32 lower-case hex digits)");
    const char *who = NULL;
    int verdict = decision_of(body, len, arena, &who);
    if (verdict < 0)
        return fail(arena, out_body, 400,
                    "body must be {\"decision\": \"approve\" | \"reject\"} (optionally \"as\": "
                    "\"name\")");
    const sluice_approval_decision decision = { id, verdict == 1, who, true };
    sluice_approval d;
    sluice_error err = { 0 };
    sluice_status st = sluice_approval_decide(h->rt->approvals, &decision,
                                              sluice_runtime_now_s(h->rt), &d, arena, &err);
    if (st == SLUICE_OK)
        st = sluice_approval_gate_audit(h->rt, arena, &d, "admin-http", &err);
    if (st != SLUICE_OK)
        return fail(arena, out_body,
                    st == SLUICE_E_NOT_FOUND ? 404
                    : st == SLUICE_E_DENIED  ? 409
                                             : 500,
                    err.message != NULL ? err.message : "failed");
    return answer(arena, out_body, 200,
                  json_pack("{s:s, s:s, s:s}", "id", d.id, "state",
                            sluice_approval_state_name(d.state), "decided_by", d.decided_by));
}
