/*
 * hash.c — SHA-256 over OpenSSL's libcrypto; hex, base64url and constant-time comparison over
 * libsodium (see hash.h).
 */
#include "core/hash.h"

/* SHA256_Init/Update/Final are deprecated in OpenSSL 3.0 in favour of EVP, whose context is
 * allocated (so a hash could fail, and no caller of this file can report that) and whose every
 * call goes through a provider. The low-level functions keep their context on the stack, never
 * fail and run the same assembly; asking for the 1.1.1 API declares them without the warning. */
#define OPENSSL_API_COMPAT 0x10101000L

#include <errno.h>
#include <openssl/sha.h>
#include <pthread.h>
#include <sodium.h>
#include <string.h>

_Static_assert(sizeof(SHA256_CTX) <= sizeof(((sluice_hash_state *)0)->opaque),
               "sluice_hash_state too small for OpenSSL's SHA256_CTX");
_Static_assert(_Alignof(SHA256_CTX) <= 16, "sluice_hash_state is 16-byte aligned");
_Static_assert(SHA256_DIGEST_LENGTH == SLUICE_HASH_BYTES, "SHA-256 is 32 bytes");

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

/* libcrypto, not libsodium, for SHA-256: libsodium's is portable C, ~5x the time where the CPU
 * has SHA instructions. libcrypto uses them when it has them (as fast as nettle, used before)
 * and AVX2 or SSSE3 code when it has not (Intel before Ice Lake), which takes 10-20% less time
 * than nettle's plain x86_64 code there, and ~0.6x its instructions under valgrind, which has
 * no SHA instructions (issue 23, session 15). It reads the CPU's features when it is loaded, so
 * there is nothing to start here. */
void sluice_hash_sha256(const void *data, size_t len, uint8_t out[SLUICE_HASH_BYTES])
{
    sluice_hash_state state;
    sluice_hash_start(&state);
    sluice_hash_update(&state, data, len);
    sluice_hash_finish(&state, out);
}

void sluice_hash_start(sluice_hash_state *state)
{
    (void)SHA256_Init((SHA256_CTX *)(void *)state->opaque); /* returns 1: nothing can fail */
}

void sluice_hash_update(sluice_hash_state *state, const void *data, size_t len)
{
    if (len == 0)
        return;
    (void)SHA256_Update((SHA256_CTX *)(void *)state->opaque, data, len);
}

void sluice_hash_finish(sluice_hash_state *state, uint8_t out[SLUICE_HASH_BYTES])
{
    (void)SHA256_Final(out, (SHA256_CTX *)(void *)state->opaque);
    sodium_memzero(state, sizeof(*state));
}

/* Over this file's SHA-256 rather than libsodium's HMAC, which is portable C (~4x the time on a
 * CPU with SHA instructions, ~1.8x the instructions under valgrind). */
void sluice_hash_hmac_init(sluice_hash_hmac_key *h, const void *key, size_t len)
{
    uint8_t digest[SLUICE_HASH_BYTES];
    if (len > SLUICE_HASH_BLOCK_BYTES) {
        sluice_hash_sha256(key, len, digest);
        key = digest;
        len = sizeof digest;
    }
    unsigned char block[SLUICE_HASH_BLOCK_BYTES];
    static const unsigned char pad[2] = { 0x36, 0x5c }; /* RFC 2104's ipad and opad */
    for (int i = 0; i < 2; i++) {
        memset(block, pad[i], sizeof block);
        for (size_t j = 0; j < len; j++)
            block[j] ^= ((const unsigned char *)key)[j];
        sluice_hash_start(&h->keyed[i]);
        sluice_hash_update(&h->keyed[i], block, sizeof block);
    }
    sodium_memzero(block, sizeof block);
    sodium_memzero(digest, sizeof digest);
}

void sluice_hash_hmac(const sluice_hash_hmac_key *h,
                      const void *data,
                      size_t len,
                      uint8_t out[SLUICE_HASH_BYTES])
{
    sluice_hash_state state = h->keyed[0]; /* a copy: the kept state serves every MAC */
    uint8_t inner[SLUICE_HASH_BYTES];
    sluice_hash_update(&state, data, len);
    sluice_hash_finish(&state, inner); /* wipes state: it was derived from the key */
    state = h->keyed[1];
    sluice_hash_update(&state, inner, sizeof inner);
    sluice_hash_finish(&state, out);
    sodium_memzero(inner, sizeof inner);
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
