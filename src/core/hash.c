/*
 * hash.c — SHA-256 over nettle; hex, base64url and constant-time comparison over libsodium
 * (see hash.h).
 */
#include "core/hash.h"

#include <errno.h>
#include <nettle/sha2.h>
#include <pthread.h>
#include <sodium.h>
#include <string.h>

_Static_assert(sizeof(struct sha256_ctx) <= sizeof(((sluice_hash_state *)0)->opaque),
               "sluice_hash_state too small for nettle's sha256_ctx");
_Static_assert(SHA256_DIGEST_SIZE == SLUICE_HASH_BYTES, "SHA-256 is 32 bytes");

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_result = -1; /* written once under init_once; read after it */

static void init_sodium(void)
{
    init_result = sodium_init(); /* 0 first time, 1 if already done, -1 on failure */
}

sluice_status sluice_hash_init(void)
{
    pthread_once(&init_once, init_sodium);
    return init_result < 0 ? SLUICE_E_INTERNAL : SLUICE_OK;
}

/* nettle, not libsodium, for SHA-256: its context lives on the stack (nothing can fail) and it
 * picks the CPU's SHA instructions at run time — ~4x libsodium's portable C on the canonical
 * forms validate hashes (docs/benchmarks.md, issue 23). */
void sluice_hash_sha256(const void *data, size_t len, uint8_t out[SLUICE_HASH_BYTES])
{
    sluice_hash_state state;
    sluice_hash_start(&state);
    sluice_hash_update(&state, data, len);
    sluice_hash_finish(&state, out);
}

void sluice_hash_start(sluice_hash_state *state)
{
    sha256_init((struct sha256_ctx *)(void *)state->opaque);
}

void sluice_hash_update(sluice_hash_state *state, const void *data, size_t len)
{
    if (len == 0)
        return;
    sha256_update((struct sha256_ctx *)(void *)state->opaque, len, data);
}

void sluice_hash_finish(sluice_hash_state *state, uint8_t out[SLUICE_HASH_BYTES])
{
    sha256_digest((struct sha256_ctx *)(void *)state->opaque, SLUICE_HASH_BYTES, out);
    sodium_memzero(state, sizeof(*state));
}

void sluice_hash_hex(const uint8_t *bytes, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * len] = '\0';
}

int sluice_hex_digit(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

sluice_status sluice_hash_unhex(const char *hex, size_t hex_len, uint8_t *out, size_t out_len)
{
    if (out_len > SIZE_MAX / 2 || hex_len != 2 * out_len)
        return SLUICE_E_INVALID;
    for (size_t i = 0; i < hex_len; i++) {
        if (sluice_hex_digit((unsigned char)hex[i]) < 0)
            return SLUICE_E_INVALID;
    }
    for (size_t i = 0; i < out_len; i++) {
        int hi = sluice_hex_digit((unsigned char)hex[2 * i]);
        int lo = sluice_hex_digit((unsigned char)hex[2 * i + 1]);
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return SLUICE_OK;
}

void sluice_hash_b64url_encode(const uint8_t *bytes, size_t len, char *out)
{
    (void)sluice_hash_init();
    sodium_bin2base64(out, SLUICE_HASH_B64URL_CHARS(len) + 1, bytes, len,
                      sodium_base64_VARIANT_URLSAFE_NO_PADDING);
}

void sluice_hash_b64url_encode_public(const uint8_t *bytes, size_t len, char *out)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    size_t i = 0;
    for (; len - i >= 3; i += 3) {
        uint32_t v = (uint32_t)bytes[i] << 16 | (uint32_t)bytes[i + 1] << 8 | bytes[i + 2];
        *out++ = alphabet[v >> 18];
        *out++ = alphabet[v >> 12 & 63];
        *out++ = alphabet[v >> 6 & 63];
        *out++ = alphabet[v & 63];
    }
    if (len - i > 0) { /* 1 or 2 bytes left: 2 or 3 characters, the unused bits zero */
        uint32_t v = (uint32_t)bytes[i] << 16 | (len - i == 2 ? (uint32_t)bytes[i + 1] << 8 : 0u);
        *out++ = alphabet[v >> 18];
        *out++ = alphabet[v >> 12 & 63];
        if (len - i == 2)
            *out++ = alphabet[v >> 6 & 63];
    }
    *out = '\0';
}

/* libsodium 1.0.18 decodes a byte with its high bit set like the same byte without it, which
 * would give one token many spellings; so the alphabet is checked here first. */
sluice_status
sluice_hash_b64url_decode(const char *text, size_t len, uint8_t *out, size_t cap, size_t *out_len)
{
    if (len == 0)
        return SLUICE_E_INVALID;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_'))
            return SLUICE_E_INVALID;
    }
    (void)sluice_hash_init();
    const char *end = NULL;
    size_t n = 0;
    errno = 0;
    if (sodium_base642bin(out, cap, text, len, NULL, &n, &end,
                          sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0)
        return errno == ERANGE ? SLUICE_E_LIMIT : SLUICE_E_INVALID;
    if (end != text + len)
        return SLUICE_E_INVALID;
    *out_len = n;
    return SLUICE_OK;
}

bool sluice_hash_equal(const void *a, const void *b, size_t len)
{
    return sodium_memcmp(a, b, len) == 0;
}
