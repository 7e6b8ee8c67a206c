/*
 * caller_assertion.c — the signed caller assertion for HTTP upstreams (see caller_assertion.h).
 */
#include "exec/caller_assertion.h"

#include "core/hash.h"
#include "exec/http_credential.h"

#include <jansson.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

/* HMAC-SHA256 keys shorter than the hash are guessable by brute force offline once an upstream
 * logs a token: refuse them. */
#define ASSERTION_KEY_MIN 32

struct sluice_caller_assertion {
    const char *header; /* the header name */
    const char *issuer;
    const char *audience;
    sluice_hash_hmac_key *hmac; /* derived from the key, which is not kept */
};

static void wipe_free(void *p)
{
    sluice_caller_assertion *a = p;
    sodium_memzero(a->hmac, sizeof *a->hmac);
}

sluice_status sluice_caller_assertion_open(const sluice_config_database *db,
                                           const char *issuer,
                                           const char *endpoint,
                                           sluice_arena *arena,
                                           sluice_caller_assertion **out,
                                           sluice_arena *err_arena,
                                           sluice_error *err)
{
    *out = NULL;
    if (db->caller_assertion_header == NULL)
        return SLUICE_OK;
    if (sluice_hash_init() != SLUICE_OK) /* the jti's random bytes */
        return sluice_error_set(err, err_arena, SLUICE_E_INTERNAL, "libsodium did not start");
    char *secret = NULL;
    sluice_status st = sluice_http_credential_read(
        "[database] caller_assertion_secret", db->caller_assertion_secret_env,
        db->caller_assertion_secret_file, &secret, err_arena, err);
    if (st != SLUICE_OK)
        return st;
    size_t len = secret != NULL ? strlen(secret) : 0;
    if (len < ASSERTION_KEY_MIN) {
        if (secret != NULL)
            sodium_memzero(secret, len);
        free(secret);
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "[database] caller_assertion_secret is %zu bytes; the key that "
                                "signs caller assertions needs at least %d (run 'sluice keygen')",
                                len, ASSERTION_KEY_MIN);
    }
    sluice_caller_assertion *a = sluice_arena_calloc(arena, 1, sizeof *a);
    sluice_hash_hmac_key *hmac = sluice_arena_alloc(arena, sizeof *hmac);
    if (a != NULL && hmac != NULL)
        sluice_hash_hmac_init(hmac, secret, len);
    sodium_memzero(secret, len);
    free(secret);
    if (a == NULL || hmac == NULL)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    a->header = db->caller_assertion_header;
    a->issuer = issuer;
    a->audience = db->caller_assertion_audience != NULL ? db->caller_assertion_audience : endpoint;
    a->hmac = hmac;
    if (sluice_arena_cleanup_add(arena, wipe_free, a) != SLUICE_OK)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    *out = a;
    return SLUICE_OK;
}

int64_t sluice_caller_assertion_ttl(int64_t timeout_ms)
{
    if (timeout_ms <= 0)
        return 60;
    int64_t s = timeout_ms / 1000;
    return s > 0 ? s : 1;
}

/* base64url of bytes into arena, NULL without memory. */
static char *b64url(sluice_arena *arena, const void *bytes, size_t len)
{
    char *out = sluice_arena_alloc(arena, SLUICE_HASH_B64URL_CHARS(len) + 1);
    if (out != NULL)
        sluice_hash_b64url_encode(bytes, len, out);
    return out;
}

static char *claims_text(const sluice_caller_assertion *a,
                         const sluice_identity *who,
                         int64_t now_s,
                         int64_t ttl_s)
{
    unsigned char nonce[16];
    char jti[2 * sizeof nonce + 1];
    randombytes_buf(nonce, sizeof nonce);
    sluice_hash_hex(nonce, sizeof nonce, jti);
    json_t *groups = json_array();
    for (size_t i = 0; groups != NULL && i < who->group_count; i++)
        if (json_array_append_new(groups, json_string(who->groups[i])) != 0) {
            json_decref(groups);
            groups = NULL;
        }
    json_t *claims = groups == NULL
                         ? NULL
                         : json_pack("{s:s, s:s, s:o, s:s, s:I, s:I, s:s}", "iss", a->issuer, "sub",
                                     who->user_id, "groups", groups, "aud", a->audience, "iat",
                                     (json_int_t)now_s, "exp",
                                     (json_int_t)(now_s + (ttl_s > 0 ? ttl_s : 1)), "jti", jti);
    char *text = claims != NULL ? json_dumps(claims, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(claims);
    return text;
}

sluice_status sluice_caller_assertion_header(const sluice_caller_assertion *a,
                                             sluice_arena *arena,
                                             const sluice_identity *who,
                                             int64_t now_s,
                                             int64_t ttl_s,
                                             const char **line,
                                             sluice_error *err)
{
    *line = NULL;
    if (who == NULL || who->user_id == NULL || who->user_id[0] == '\0')
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "[database] caller_assertion_header is set, but this call has no "
                                "authenticated user to vouch for: refused");
    static const char header_json[] = "{\"alg\":\"HS256\",\"typ\":\"JWT\"}";
    char *claims = claims_text(a, who, now_s, ttl_s);
    char *head = b64url(arena, header_json, sizeof header_json - 1);
    char *body = claims != NULL ? b64url(arena, claims, strlen(claims)) : NULL;
    free(claims);
    char *input =
        head != NULL && body != NULL ? sluice_arena_printf(arena, "%s.%s", head, body) : NULL;
    if (input == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    uint8_t mac[SLUICE_HASH_BYTES];
    sluice_hash_hmac(a->hmac, input, strlen(input), mac);
    char *sig = b64url(arena, mac, sizeof mac);
    *line = sig != NULL ? sluice_arena_printf(arena, "%s: %s.%s", a->header, input, sig) : NULL;
    return *line != NULL ? SLUICE_OK
                         : sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
}
