/*
 * jwt.c — bearer JWT authentication (see jwt.h).
 *
 * Order of checks, each refusing with its own description: shape (three base64url parts,
 * bounded length) → header (alg allowed and configured, no "crit") → key (by alg family and
 * kid, from the JWKS as of its last mtime) → signature (libjwt, with exactly that key, and the
 * alg libjwt saw must be the one we chose for) → claims (iss, aud, exp, nbf, user, groups).
 * The key set is swapped whole under a mutex when the file changes; a request copies the PEM it
 * needs, so a reload never frees a key in use.
 */
#include "auth/jwt.h"

#include "auth/jwk.h"
#include "config/checks.h"
#include "core/limits.h"
#include "core/log.h"

#include <errno.h>
#include <jansson.h>
#include <jwt.h>
#include <pthread.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

typedef enum key_family { FAMILY_RSA, FAMILY_EC, FAMILY_HMAC } key_family;

typedef struct jwt_state {
    sluice_arena *arena; /* options, secret */
    sluice_jwt_options o;
    unsigned char *secret; /* HS256 secret or NULL */
    size_t secret_len;
    char *challenge;      /* no token presented */
    pthread_mutex_t lock; /* guards keys_arena, keys, stamp */
    sluice_arena *keys_arena;
    sluice_jwks keys;
    struct stat stamp; /* of the JWKS file when keys were read */
} jwt_state;

/* ---- key set --------------------------------------------------------------------------------- */

static bool same_file_version(const struct stat *a, const struct stat *b)
{
    return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Reads and parses the JWKS into a fresh arena; on success swaps it in (caller holds lock). */
static sluice_status
load_keys(jwt_state *st, const struct stat *stamp, sluice_arena *err_arena, sluice_error *err)
{
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    char *text = NULL;
    size_t len = 0;
    int e =
        sluice_checks_read_file(arena, st->o.jwks_file, SLUICE_LIMIT_JWKS_BYTES, true, &text, &len);
    sluice_jwks keys;
    sluice_status s =
        e != 0 ? sluice_error_set(err, err_arena, SLUICE_E_CONFIG, "cannot read jwks_file '%s': %s",
                                  st->o.jwks_file, strerror(e))
               : sluice_jwks_parse(arena, text, len, &keys, err);
    if (s == SLUICE_OK && keys.count == 0)
        s = sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                             "jwks_file '%s' holds no RSA or EC P-256 signing key",
                             st->o.jwks_file);
    if (s != SLUICE_OK) {
        if (e == 0 && err != NULL && err->message != NULL)
            err->message =
                sluice_arena_printf(err_arena, "jwks_file '%s': %s", st->o.jwks_file, err->message);
        if (err != NULL)
            err->status = SLUICE_E_CONFIG;
        sluice_arena_free(arena);
        return SLUICE_E_CONFIG;
    }
    sluice_arena_free(st->keys_arena);
    st->keys_arena = arena;
    st->keys = keys;
    st->stamp = *stamp;
    return SLUICE_OK;
}

/* Re-reads the JWKS when the file changed (caller holds lock). A broken new file keeps the old
 * keys (logged): a half-written file must not lock every user out, nor let anyone in. */
static void refresh_keys(jwt_state *st)
{
    struct stat now;
    if (st->o.jwks_file == NULL || stat(st->o.jwks_file, &now) != 0 ||
        same_file_version(&now, &st->stamp))
        return;
    sluice_arena *scratch = sluice_arena_new();
    sluice_error err = { 0 };
    if (scratch != NULL && load_keys(st, &now, scratch, &err) != SLUICE_OK)
        sluice_log(SLUICE_LOG_WARN, "keeping the previous JWKS: %s", err.message);
    else if (scratch != NULL)
        sluice_log(SLUICE_LOG_INFO, "reloaded %zu keys from %s", st->keys.count, st->o.jwks_file);
    sluice_arena_free(scratch);
}

/* Copies the one PEM that may verify a token of this family and kid into arena (*pem, *len);
 * returns a problem, or NULL. */
static const char *pick_key(jwt_state *st,
                            sluice_arena *arena,
                            key_family family,
                            const char *alg,
                            const char *kid,
                            const char **pem,
                            size_t *len)
{
    const char *problem = NULL;
    pthread_mutex_lock(&st->lock);
    refresh_keys(st);
    const sluice_jwk *match = NULL;
    size_t matches = 0;
    for (size_t i = 0; i < st->keys.count; i++) {
        const sluice_jwk *k = &st->keys.keys[i];
        bool kind_ok = (family == FAMILY_RSA) == (k->kind == SLUICE_JWK_RSA);
        if (!kind_ok || (k->alg != NULL && strcmp(k->alg, alg) != 0))
            continue;
        if (kid != NULL && (k->kid == NULL || strcmp(k->kid, kid) != 0))
            continue;
        match = k;
        matches++;
    }
    if (matches == 0)
        problem = kid != NULL ? "no key with the token's kid can verify its alg"
                              : "no key can verify the token's alg";
    else if (matches > 1)
        problem = kid != NULL ? "several keys share the token's kid; refusing to guess"
                              : "the token has no kid and several keys could verify it";
    else if ((*pem = sluice_arena_strndup(arena, match->pem, match->pem_len)) == NULL)
        problem = "out of memory";
    else
        *len = match->pem_len;
    pthread_mutex_unlock(&st->lock);
    return problem;
}

/* ---- token parts ----------------------------------------------------------------------------- */

/* The header and payload JSON of a compact JWS, or a problem. */
static const char *
split(sluice_arena *arena, const char *token, size_t len, json_t **header, json_t **payload)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.";
    if (len == 0 || len > SLUICE_LIMIT_JWT_BYTES || strspn(token, alphabet) != len)
        return "the token is not a compact JWT";
    const char *dot1 = memchr(token, '.', len);
    const char *dot2 =
        dot1 != NULL ? memchr(dot1 + 1, '.', len - (size_t)(dot1 + 1 - token)) : NULL;
    if (dot1 == NULL || dot2 == NULL || memchr(dot2 + 1, '.', len - (size_t)(dot2 + 1 - token)))
        return "the token is not a compact JWT (header.payload.signature)";
    unsigned char *h = NULL, *p = NULL;
    size_t h_len = 0, p_len = 0;
    if (sluice_jwk_b64url_decode(arena, token, (size_t)(dot1 - token),
                                 SLUICE_LIMIT_JWT_HEADER_BYTES, &h, &h_len) != SLUICE_OK ||
        sluice_jwk_b64url_decode(arena, dot1 + 1, (size_t)(dot2 - dot1 - 1), SLUICE_LIMIT_JWT_BYTES,
                                 &p, &p_len) != SLUICE_OK)
        return "the token's header or payload is not base64url";
    *header = json_loadb((const char *)h, h_len, JSON_REJECT_DUPLICATES, NULL);
    *payload = json_loadb((const char *)p, p_len, JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_object(*header) || !json_is_object(*payload))
        return "the token's header or payload is not a JSON object";
    return NULL;
}

/* Maps the header's alg onto a key family, or a problem. */
static const char *
family_of(const jwt_state *st, const json_t *header, key_family *family, jwt_alg_t *alg)
{
    const char *name = json_string_value(json_object_get(header, "alg"));
    if (json_object_get(header, "crit") != NULL)
        return "the token has critical header parameters this server does not understand";
    if (name == NULL)
        return "the token's header has no alg";
    if (strcmp(name, "RS256") == 0) {
        *family = FAMILY_RSA;
        *alg = JWT_ALG_RS256;
    } else if (strcmp(name, "ES256") == 0) {
        *family = FAMILY_EC;
        *alg = JWT_ALG_ES256;
    } else if (strcmp(name, "HS256") == 0 && st->secret != NULL) {
        *family = FAMILY_HMAC;
        *alg = JWT_ALG_HS256;
    } else {
        return "the token's alg is not accepted (RS256 or ES256)";
    }
    const char *kid = json_string_value(json_object_get(header, "kid"));
    if (json_object_get(header, "kid") != NULL && kid == NULL)
        return "the token's kid is not a string";
    return NULL;
}

/* libjwt checks the signature with exactly the key chosen for the header's alg. */
static const char *check_signature(jwt_state *st,
                                   sluice_arena *arena,
                                   const char *token,
                                   size_t len,
                                   const json_t *header,
                                   key_family family,
                                   jwt_alg_t alg)
{
    const unsigned char *key = st->secret;
    size_t key_len = st->secret_len;
    if (family != FAMILY_HMAC) {
        const char *alg_name = json_string_value(json_object_get(header, "alg"));
        const char *kid = json_string_value(json_object_get(header, "kid"));
        const char *pem = NULL;
        const char *problem = pick_key(st, arena, family, alg_name, kid, &pem, &key_len);
        if (problem != NULL)
            return problem;
        key = (const unsigned char *)pem;
    }
    char *copy = sluice_arena_strndup(arena, token, len);
    if (copy == NULL)
        return "out of memory";
    jwt_t *jwt = NULL;
    int rc = jwt_decode(&jwt, copy, key, (int)key_len);
    bool ok = rc == 0 && jwt != NULL && jwt_get_alg(jwt) == alg;
    jwt_free(jwt);
    return ok ? NULL : "the token's signature does not verify";
}

/* ---- claims ------------------------------------------------------------------------------ */

static bool audience_matches(const json_t *aud, const char *expected)
{
    if (json_is_string(aud))
        return strcmp(json_string_value(aud), expected) == 0;
    size_t i;
    const json_t *v;
    json_array_foreach(aud, i, v)
    {
        if (json_is_string(v) && strcmp(json_string_value(v), expected) == 0)
            return true;
    }
    return false;
}

/* A claim value usable as a name: non-empty, bounded, no control bytes. */
static bool is_name(const char *s, size_t len)
{
    if (len == 0 || len > SLUICE_LIMIT_JWT_CLAIM_BYTES)
        return false;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return false;
    return true;
}

static const char *
add_group(sluice_arena *arena, const char **groups, size_t *count, const char *s, size_t len)
{
    if (!is_name(s, len))
        return "a group in the token is empty, too long or has control characters";
    if (*count == SLUICE_LIMIT_JWT_GROUPS)
        return "the token has too many groups";
    if ((groups[*count] = sluice_arena_strndup(arena, s, len)) == NULL)
        return "out of memory";
    (*count)++;
    return NULL;
}

/* Groups from an array of strings or a space-separated string (OAuth "scope" style). */
static const char *groups_of(sluice_arena *arena, const json_t *claim, sluice_identity *out)
{
    const char **groups = sluice_arena_calloc(arena, SLUICE_LIMIT_JWT_GROUPS, sizeof *groups);
    if (groups == NULL)
        return "out of memory";
    size_t count = 0;
    const char *problem = NULL;
    if (json_is_string(claim)) {
        const char *s = json_string_value(claim);
        while (problem == NULL && *s != '\0') {
            size_t n = strcspn(s, " ");
            if (n > 0)
                problem = add_group(arena, groups, &count, s, n);
            s += n + (s[n] == ' ' ? 1 : 0);
        }
    } else if (json_is_array(claim)) {
        size_t i;
        const json_t *v;
        json_array_foreach(claim, i, v)
        {
            if (problem != NULL)
                break;
            problem = json_is_string(v) ? add_group(arena, groups, &count, json_string_value(v),
                                                    json_string_length(v))
                                        : "the token's groups claim holds a non-string";
        }
    } else if (claim != NULL) {
        problem = "the token's groups claim is neither an array of strings nor a string";
    }
    out->groups = groups;
    out->group_count = count;
    return problem;
}

static const char *check_claims(const jwt_state *st,
                                sluice_arena *arena,
                                const json_t *claims,
                                int64_t now,
                                sluice_identity *out)
{
    const json_t *exp = json_object_get(claims, "exp");
    const json_t *nbf = json_object_get(claims, "nbf");
    const char *iss = json_string_value(json_object_get(claims, "iss"));
    int64_t skew = st->o.clock_skew_seconds;
    if (iss == NULL || strcmp(iss, st->o.issuer) != 0)
        return "the token was issued by another issuer";
    if (!audience_matches(json_object_get(claims, "aud"), st->o.audience))
        return "the token was issued for another audience (resource)";
    if (!json_is_number(exp))
        return "the token has no exp";
    if ((double)now > json_number_value(exp) + (double)skew)
        return "the token has expired";
    if (nbf != NULL &&
        (!json_is_number(nbf) || (double)now + (double)skew < json_number_value(nbf)))
        return "the token is not valid yet (nbf)";
    const json_t *user = json_object_get(claims, st->o.user_claim);
    if (!json_is_string(user) || !is_name(json_string_value(user), json_string_length(user)))
        return "the token's user claim is missing, empty, too long or not a string";
    out->user_id = sluice_arena_strdup(arena, json_string_value(user));
    out->method = "jwt";
    if (out->user_id == NULL)
        return "out of memory";
    return groups_of(arena, json_object_get(claims, st->o.groups_claim), out);
}

sluice_status sluice_jwt_verify(const sluice_authenticator *auth,
                                sluice_arena *arena,
                                const char *token,
                                size_t token_len,
                                int64_t now,
                                sluice_identity *out,
                                const char **problem)
{
    jwt_state *st = auth->state;
    json_t *header = NULL, *payload = NULL;
    key_family family = FAMILY_RSA;
    jwt_alg_t alg = JWT_ALG_NONE;
    sluice_identity id = { 0 };
    const char *p = split(arena, token, token_len, &header, &payload);
    if (p == NULL)
        p = family_of(st, header, &family, &alg);
    if (p == NULL)
        p = check_signature(st, arena, token, token_len, header, family, alg);
    if (p == NULL)
        p = check_claims(st, arena, payload, now, &id);
    json_decref(header);
    json_decref(payload);
    if (p != NULL) {
        *problem = p;
        return SLUICE_E_AUTH;
    }
    *out = id;
    return SLUICE_OK;
}

/* ---- the authenticator ---------------------------------------------------------------------- */

static sluice_status authenticate(const sluice_authenticator *self,
                                  sluice_arena *arena,
                                  const sluice_auth_request *rq,
                                  sluice_identity *out,
                                  sluice_auth_failure *failure)
{
    const jwt_state *st = self->state;
    const char *a = rq->authorization;
    if (a == NULL || strncasecmp(a, "Bearer ", 7) != 0) {
        failure->www_authenticate = st->challenge;
        failure->message = a == NULL ? "missing bearer token: send 'Authorization: Bearer <JWT>'"
                                     : "unsupported Authorization scheme: use Bearer";
        return SLUICE_E_AUTH;
    }
    a += 7;
    while (*a == ' ')
        a++;
    size_t len = strlen(a);
    while (len > 0 && (a[len - 1] == ' ' || a[len - 1] == '\t'))
        len--;
    const char *problem = NULL;
    if (sluice_jwt_verify(self, arena, a, len, (int64_t)time(NULL), out, &problem) == SLUICE_OK)
        return SLUICE_OK;
    failure->message = problem;
    failure->www_authenticate = sluice_arena_printf(
        arena, "%s, error=\"invalid_token\", error_description=\"%s\"", st->challenge, problem);
    if (failure->www_authenticate == NULL)
        failure->www_authenticate = st->challenge;
    return SLUICE_E_AUTH;
}

static void destroy(sluice_authenticator *self)
{
    if (self == NULL)
        return;
    jwt_state *st = self->state;
    if (st != NULL) {
        if (st->secret != NULL)
            sodium_memzero(st->secret, st->secret_len);
        pthread_mutex_destroy(&st->lock);
        sluice_arena_free(st->keys_arena);
        sluice_arena_free(st->arena);
        free(st);
    }
    free(self);
}

static sluice_status load_secret(jwt_state *st, sluice_arena *err_arena, sluice_error *err)
{
    char *text = NULL;
    size_t len = 0;
    int e = sluice_checks_read_file(st->arena, st->o.hs256_secret_file, 4096, true, &text, &len);
    if (e != 0)
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "cannot read hs256_secret_file '%s': %s", st->o.hs256_secret_file,
                                e == EFBIG ? "larger than 4096 bytes" : strerror(e));
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
        len--;
    if (len < SLUICE_JWT_MIN_SECRET_BYTES) {
        sodium_memzero(text, len);
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "hs256_secret_file '%s' holds %zu bytes; HS256 needs at least %u",
                                st->o.hs256_secret_file, len, SLUICE_JWT_MIN_SECRET_BYTES);
    }
    st->secret = (unsigned char *)text;
    st->secret_len = len;
    return SLUICE_OK;
}

static sluice_status copy_options(jwt_state *st, const sluice_jwt_options *o)
{
    sluice_arena *a = st->arena;
    st->o = *o;
    const char **fields[] = { &st->o.jwks_file,
                              &st->o.hs256_secret_file,
                              &st->o.issuer,
                              &st->o.audience,
                              &st->o.user_claim,
                              &st->o.groups_claim,
                              &st->o.resource_metadata_url };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (*fields[i] != NULL && (*fields[i] = sluice_arena_strdup(a, *fields[i])) == NULL)
            return SLUICE_E_NOMEM;
    if (st->o.user_claim == NULL)
        st->o.user_claim = "sub";
    if (st->o.groups_claim == NULL)
        st->o.groups_claim = "groups";
    st->challenge = sluice_arena_printf(a, "Bearer realm=\"sluice\", resource_metadata=\"%s\"",
                                        st->o.resource_metadata_url);
    return st->challenge != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
}

sluice_status sluice_jwt_new(const sluice_jwt_options *o,
                             sluice_authenticator **out,
                             sluice_arena *err_arena,
                             sluice_error *err)
{
    if (o->issuer == NULL || o->audience == NULL || o->resource_metadata_url == NULL ||
        (o->jwks_file == NULL && o->hs256_secret_file == NULL))
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "JWT authentication needs issuer, audience, the metadata URL and "
                                "jwks_file or hs256_secret_file");
    if (sodium_init() < 0)
        return sluice_error_set(err, err_arena, SLUICE_E_INTERNAL, "libsodium failed to start");
    sluice_authenticator *auth = calloc(1, sizeof *auth);
    jwt_state *st = calloc(1, sizeof *st);
    if (auth == NULL || st == NULL || (st->arena = sluice_arena_new()) == NULL ||
        pthread_mutex_init(&st->lock, NULL) != 0) {
        if (st != NULL)
            sluice_arena_free(st->arena);
        free(st);
        free(auth);
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    }
    auth->state = st;
    auth->authenticate = authenticate;
    auth->destroy = destroy;
    sluice_status s = copy_options(st, o) == SLUICE_OK
                          ? SLUICE_OK
                          : sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    if (s == SLUICE_OK && st->o.hs256_secret_file != NULL)
        s = load_secret(st, err_arena, err);
    struct stat stamp;
    if (s == SLUICE_OK && st->o.jwks_file != NULL) {
        s = stat(st->o.jwks_file, &stamp) == 0 ? load_keys(st, &stamp, err_arena, err)
                                               : sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                                                  "cannot read jwks_file '%s': %s",
                                                                  st->o.jwks_file, strerror(errno));
    }
    if (s != SLUICE_OK) {
        destroy(auth);
        return s;
    }
    *out = auth;
    return SLUICE_OK;
}
