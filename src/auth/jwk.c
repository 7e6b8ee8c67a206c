/*
 * jwk.c — JWKS parsing and JWK → PEM SubjectPublicKeyInfo (see jwk.h).
 *
 * The DER is built inside out: each element is encoded into a fresh arena buffer, then wrapped
 * by its parent. Sizes are bounded (RSA moduli of 2048..8192 bits, P-256 points), so every
 * length fits the two-byte long form and nothing here can grow without limit.
 *
 *   RSA: SEQUENCE { SEQUENCE { OID rsaEncryption, NULL },
 *                   BIT STRING { 0, SEQUENCE { INTEGER n, INTEGER e } } }
 *   EC:  SEQUENCE { SEQUENCE { OID id-ecPublicKey, OID prime256v1 },
 *                   BIT STRING { 0, 04 || x || y } }
 */
#include "auth/jwk.h"

#include "core/limits.h"

#include <jansson.h>
#include <sodium.h>
#include <stdbool.h>
#include <string.h>

#define RSA_MIN_BYTES    256u  /* 2048-bit modulus */
#define RSA_MAX_BYTES    1024u /* 8192-bit modulus */
#define RSA_E_MAX_BYTES  8u
#define P256_COORD_BYTES 32u

typedef struct der {
    unsigned char *p;
    size_t len;
} der;

/* tag || length || content, in arena. p NULL on allocation failure. */
static der der_tlv(sluice_arena *arena, unsigned char tag, const der *parts, size_t n)
{
    size_t content = 0;
    for (size_t i = 0; i < n; i++)
        content += parts[i].len;
    der out = { NULL, 0 };
    if (content > 0xffff)
        return out;
    size_t head = content < 0x80 ? 2 : content <= 0xff ? 3 : 4;
    out.p = sluice_arena_alloc(arena, head + content);
    if (out.p == NULL)
        return out;
    out.p[0] = tag;
    if (head == 2) {
        out.p[1] = (unsigned char)content;
    } else if (head == 3) {
        out.p[1] = 0x81;
        out.p[2] = (unsigned char)content;
    } else {
        out.p[1] = 0x82;
        out.p[2] = (unsigned char)(content >> 8);
        out.p[3] = (unsigned char)content;
    }
    out.len = head;
    for (size_t i = 0; i < n; i++) {
        if (parts[i].len > 0)
            memcpy(out.p + out.len, parts[i].p, parts[i].len);
        out.len += parts[i].len;
    }
    return out;
}

static der der_one(sluice_arena *arena, unsigned char tag, const unsigned char *p, size_t len)
{
    der part = { (unsigned char *)p, len };
    return der_tlv(arena, tag, &part, 1);
}

/* A positive INTEGER from big-endian magnitude bytes: leading zeros stripped, a 0x00 added when
 * the top bit is set. */
static der der_uint(sluice_arena *arena, const unsigned char *p, size_t len)
{
    while (len > 1 && p[0] == 0) {
        p++;
        len--;
    }
    unsigned char zero = 0;
    der parts[2] = { { &zero, (p[0] & 0x80) != 0 ? 1u : 0u }, { (unsigned char *)p, len } };
    return der_tlv(arena, 0x02, parts, 2);
}

static const unsigned char oid_rsa[] = { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01 };
static const unsigned char oid_ec[] = { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01 };
static const unsigned char oid_p256[] = { 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07 };

/* SEQUENCE { algorithm, BIT STRING { 0 unused bits, key } } */
static der spki(sluice_arena *arena, der algorithm, const unsigned char *key, size_t key_len)
{
    unsigned char unused = 0;
    der bits_parts[2] = { { &unused, 1 }, { (unsigned char *)key, key_len } };
    der parts[2] = { algorithm, der_tlv(arena, 0x03, bits_parts, 2) };
    if (algorithm.p == NULL || parts[1].p == NULL)
        return (der){ NULL, 0 };
    return der_tlv(arena, 0x30, parts, 2);
}

static der rsa_spki(
    sluice_arena *arena, const unsigned char *n, size_t n_len, const unsigned char *e, size_t e_len)
{
    der alg_parts[2] = { der_one(arena, 0x06, oid_rsa, sizeof oid_rsa),
                         der_one(arena, 0x05, NULL, 0) };
    der key_parts[2] = { der_uint(arena, n, n_len), der_uint(arena, e, e_len) };
    for (int i = 0; i < 2; i++)
        if (alg_parts[i].p == NULL || key_parts[i].p == NULL)
            return (der){ NULL, 0 };
    der key = der_tlv(arena, 0x30, key_parts, 2);
    if (key.p == NULL)
        return key;
    return spki(arena, der_tlv(arena, 0x30, alg_parts, 2), key.p, key.len);
}

static der ec_spki(sluice_arena *arena, const unsigned char *x, const unsigned char *y)
{
    der alg_parts[2] = { der_one(arena, 0x06, oid_ec, sizeof oid_ec),
                         der_one(arena, 0x06, oid_p256, sizeof oid_p256) };
    if (alg_parts[0].p == NULL || alg_parts[1].p == NULL)
        return (der){ NULL, 0 };
    unsigned char point[1 + 2 * P256_COORD_BYTES];
    point[0] = 0x04; /* uncompressed */
    memcpy(point + 1, x, P256_COORD_BYTES);
    memcpy(point + 1 + P256_COORD_BYTES, y, P256_COORD_BYTES);
    return spki(arena, der_tlv(arena, 0x30, alg_parts, 2), point, sizeof point);
}

/* PEM armour, 64 base64 characters a line. */
static char *pem_of(sluice_arena *arena, der d, size_t *out_len)
{
    static const char head[] = "-----BEGIN PUBLIC KEY-----\n";
    static const char tail[] = "-----END PUBLIC KEY-----\n";
    size_t b64_cap = sodium_base64_ENCODED_LEN(d.len, sodium_base64_VARIANT_ORIGINAL);
    char *b64 = sluice_arena_alloc(arena, b64_cap);
    if (b64 == NULL)
        return NULL;
    sodium_bin2base64(b64, b64_cap, d.p, d.len, sodium_base64_VARIANT_ORIGINAL);
    size_t b64_len = strlen(b64);
    size_t total = sizeof head - 1 + b64_len + b64_len / 64 + 1 + sizeof tail - 1;
    char *pem = sluice_arena_alloc(arena, total + 1);
    if (pem == NULL)
        return NULL;
    size_t o = 0;
    memcpy(pem, head, sizeof head - 1);
    o += sizeof head - 1;
    for (size_t i = 0; i < b64_len; i += 64) {
        size_t n = b64_len - i < 64 ? b64_len - i : 64;
        memcpy(pem + o, b64 + i, n);
        o += n;
        pem[o++] = '\n';
    }
    memcpy(pem + o, tail, sizeof tail - 1);
    o += sizeof tail - 1;
    pem[o] = '\0';
    *out_len = o;
    return pem;
}

sluice_status sluice_jwk_b64url_decode(sluice_arena *arena,
                                       const char *in,
                                       size_t in_len,
                                       size_t max,
                                       unsigned char **out,
                                       size_t *out_len)
{
    size_t cap = in_len / 4 * 3 + 3;
    if (in_len == 0 || cap > max + 3)
        return SLUICE_E_INVALID;
    unsigned char *bin = sluice_arena_alloc(arena, cap + 1);
    if (bin == NULL)
        return SLUICE_E_NOMEM;
    const char *end = NULL;
    size_t n = 0;
    if (sodium_base642bin(bin, cap, in, in_len, NULL, &n, &end,
                          sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
        end != in + in_len || n > max)
        return SLUICE_E_INVALID;
    bin[n] = 0; /* lets a decoded JSON header be parsed in place */
    *out = bin;
    *out_len = n;
    return SLUICE_OK;
}

/* A base64url member of jwk decoded, or a problem. */
static const char *member_bytes(sluice_arena *arena,
                                const json_t *jwk,
                                const char *name,
                                size_t max,
                                unsigned char **out,
                                size_t *len)
{
    const char *s = json_string_value(json_object_get(jwk, name));
    if (s == NULL)
        return "lacks a string member";
    if (sluice_jwk_b64url_decode(arena, s, strlen(s), max, out, len) != SLUICE_OK || *len == 0)
        return "has a member that is not base64url (or is empty or too long)";
    return NULL;
}

/* Fills key from one RSA or EC P-256 JWK (see usable); returns a problem, or NULL. */
static const char *convert(sluice_arena *arena, const json_t *jwk, const char *kty, sluice_jwk *key)
{
    unsigned char *a = NULL, *b = NULL;
    size_t a_len = 0, b_len = 0;
    const char *problem;
    der d;
    if (strcmp(kty, "RSA") == 0) {
        if ((problem = member_bytes(arena, jwk, "n", RSA_MAX_BYTES + 1, &a, &a_len)) != NULL ||
            (problem = member_bytes(arena, jwk, "e", RSA_E_MAX_BYTES, &b, &b_len)) != NULL)
            return problem;
        size_t bits_bytes = a_len - (a[0] == 0 ? 1 : 0);
        if (bits_bytes < RSA_MIN_BYTES || bits_bytes > RSA_MAX_BYTES)
            return "is an RSA key outside 2048..8192 bits";
        if ((b[b_len - 1] & 1) == 0 || (b_len == 1 && b[0] < 3))
            return "has an RSA exponent that is not an odd number of at least 3";
        key->kind = SLUICE_JWK_RSA;
        d = rsa_spki(arena, a, a_len, b, b_len);
    } else {
        if ((problem = member_bytes(arena, jwk, "x", P256_COORD_BYTES, &a, &a_len)) != NULL ||
            (problem = member_bytes(arena, jwk, "y", P256_COORD_BYTES, &b, &b_len)) != NULL)
            return problem;
        if (a_len != P256_COORD_BYTES || b_len != P256_COORD_BYTES)
            return "is a P-256 key whose x or y is not 32 bytes";
        key->kind = SLUICE_JWK_EC_P256;
        d = ec_spki(arena, a, b);
    }
    if (d.p == NULL || (key->pem = pem_of(arena, d, &key->pem_len)) == NULL)
        return "could not be encoded (out of memory)";
    return NULL;
}

static bool has_private_part(const json_t *jwk)
{
    static const char *const parts[] = { "d", "p", "q", "dp", "dq", "qi", "k", NULL };
    for (size_t i = 0; parts[i] != NULL; i++)
        if (json_object_get(jwk, parts[i]) != NULL)
            return true;
    return false;
}

/* True when jwk is a signature key of a type we verify. */
static bool usable(const json_t *jwk, const char *kty)
{
    const char *use = json_string_value(json_object_get(jwk, "use"));
    if (use != NULL && strcmp(use, "sig") != 0)
        return false;
    if (strcmp(kty, "RSA") == 0)
        return true;
    const char *crv = json_string_value(json_object_get(jwk, "crv"));
    return strcmp(kty, "EC") == 0 && crv != NULL && strcmp(crv, "P-256") == 0;
}

static sluice_status
parse_keys(sluice_arena *arena, const json_t *keys, sluice_jwks *out, sluice_error *err)
{
    size_t n = json_array_size(keys);
    out->keys = sluice_arena_calloc(arena, n > 0 ? n : 1, sizeof *out->keys);
    if (out->keys == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const json_t *jwk = json_array_get(keys, i);
        const char *kty = json_string_value(json_object_get(jwk, "kty"));
        const char *kid = json_string_value(json_object_get(jwk, "kid"));
        if (!json_is_object(jwk) || kty == NULL)
            return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                    "JWKS key %zu is not an object with a \"kty\"", i);
        if (has_private_part(jwk))
            return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                    "JWKS key %zu (kid \"%.64s\") holds private key material; "
                                    "publish only public keys to a resource server",
                                    i, kid != NULL ? kid : "");
        if (!usable(jwk, kty))
            continue;
        if (out->count == SLUICE_LIMIT_JWKS_KEYS)
            return sluice_error_set(err, arena, SLUICE_E_LIMIT, "JWKS has more than %u keys",
                                    SLUICE_LIMIT_JWKS_KEYS);
        sluice_jwk *key = &out->keys[out->count];
        const char *problem = convert(arena, jwk, kty, key);
        if (problem != NULL)
            return sluice_error_set(err, arena, SLUICE_E_INVALID, "JWKS key %zu (kid \"%.64s\") %s",
                                    i, kid != NULL ? kid : "", problem);
        const char *alg = json_string_value(json_object_get(jwk, "alg"));
        key->kid = kid != NULL ? sluice_arena_strdup(arena, kid) : NULL;
        key->alg = alg != NULL ? sluice_arena_strdup(arena, alg) : NULL;
        if ((kid != NULL && key->kid == NULL) || (alg != NULL && key->alg == NULL))
            return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
        out->count++;
    }
    return SLUICE_OK;
}

sluice_status sluice_jwks_parse(
    sluice_arena *arena, const char *text, size_t len, sluice_jwks *out, sluice_error *err)
{
    memset(out, 0, sizeof *out);
    if (len > SLUICE_LIMIT_JWKS_BYTES)
        return sluice_error_set(err, arena, SLUICE_E_LIMIT, "JWKS is larger than %u bytes",
                                SLUICE_LIMIT_JWKS_BYTES);
    json_error_t jerr;
    json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (doc == NULL)
        return sluice_error_set(err, arena, SLUICE_E_INVALID, "JWKS is not JSON: %s (line %d)",
                                jerr.text, jerr.line);
    const json_t *keys = json_object_get(doc, "keys");
    sluice_status st =
        json_is_array(keys)
            ? parse_keys(arena, keys, out, err)
            : sluice_error_set(err, arena, SLUICE_E_INVALID,
                               "JWKS must be an object with a \"keys\" array ({\"keys\": [...]})");
    json_decref(doc);
    return st;
}
