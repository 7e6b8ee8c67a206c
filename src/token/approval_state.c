/*
 * approval_state.c — sealing and opening approval requestStates (see approval_state.h).
 */
#include "token/approval_state.h"

#include "core/hash.h"
#include "core/limits.h"

#include <sodium.h>
#include <string.h>

#define STATE_VERSION  1u
#define NONCE_BYTES    SLUICE_TOKEN_ID_BYTES
#define PAYLOAD_BYTES  (1u + 8u + NONCE_BYTES + 2u * SLUICE_HASH_BYTES)
#define SEALED_BYTES   (PAYLOAD_BYTES + SLUICE_SECRET_MAC_BYTES)
#define DOMAIN_LABEL   "sluice approval requestState v1"
#define STATE_TEXT_MAX (SLUICE_SECRET_KEY_ID_MAX + 1u + 2u * SEALED_BYTES)

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}

/* HMAC over the domain label and the payload, so the MAC means "an approval state". */
static void state_mac(const sluice_secret *key, const uint8_t *payload, uint8_t *mac)
{
    uint8_t data[sizeof DOMAIN_LABEL + PAYLOAD_BYTES];
    memcpy(data, DOMAIN_LABEL, sizeof DOMAIN_LABEL); /* with its NUL: a fixed-length prefix */
    memcpy(data + sizeof DOMAIN_LABEL, payload, PAYLOAD_BYTES);
    sluice_secret_mac(key, data, sizeof data, mac);
}

/* version | expires_at | nonce | sha256(user) | sha256(token) */
static void fill_payload(uint8_t *p,
                         int64_t expires_at,
                         const uint8_t *nonce,
                         const sluice_approval_state_binding *b)
{
    p[0] = STATE_VERSION;
    put_u64(p + 1, (uint64_t)expires_at);
    memcpy(p + 9, nonce, NONCE_BYTES);
    sluice_hash_sha256(b->user_id, strlen(b->user_id), p + 9 + NONCE_BYTES);
    sluice_hash_sha256(b->approval_token, strlen(b->approval_token),
                       p + 9 + NONCE_BYTES + SLUICE_HASH_BYTES);
}

sluice_status sluice_approval_state_seal(sluice_key_store *keys,
                                         const sluice_approval_state_binding *b,
                                         int64_t now,
                                         sluice_arena *arena,
                                         char **out,
                                         sluice_error *err)
{
    uint8_t sealed[SEALED_BYTES], nonce[NONCE_BYTES];
    randombytes_buf(nonce, sizeof nonce);
    fill_payload(sealed, now + SLUICE_LIMIT_APPROVAL_STATE_TTL_S, nonce, b);
    const sluice_secret_ring *ring = sluice_key_store_acquire(keys);
    const sluice_secret *key = sluice_secret_ring_current(ring);
    state_mac(key, sealed, sealed + PAYLOAD_BYTES);
    const char *id = sluice_secret_key_id(key);
    size_t id_len = strlen(id);
    size_t b64 = sodium_base64_ENCODED_LEN(SEALED_BYTES, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    char *text = sluice_arena_alloc(arena, id_len + 1 + b64);
    if (text != NULL) {
        memcpy(text, id, id_len);
        text[id_len] = '.';
        sodium_bin2base64(text + id_len + 1, b64, sealed, SEALED_BYTES,
                          sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    }
    sluice_key_store_release(keys, ring);
    if (text == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    *out = text;
    return SLUICE_OK;
}

static sluice_status bad(sluice_arena *arena, sluice_error *err, const char *why)
{
    return sluice_error_set(err, arena, SLUICE_E_TOKEN,
                            "the approval requestState %s; it was refused and nothing ran. Call "
                            "execute_code again without requestState to be asked anew",
                            why);
}

/* Decodes and verifies the MAC into sealed; NULL on success, else why it failed. */
static const char *verify(sluice_key_store *keys, const char *state, uint8_t *sealed)
{
    const char *dot = strchr(state, '.');
    if (dot == NULL || strlen(state) > STATE_TEXT_MAX)
        return "is malformed";
    size_t len = 0;
    const char *end = NULL;
    if (sodium_base642bin(sealed, SEALED_BYTES, dot + 1, strlen(dot + 1), NULL, &len, &end,
                          sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
        len != SEALED_BYTES || *end != '\0')
        return "is malformed";
    const sluice_secret_ring *ring = sluice_key_store_acquire(keys);
    const sluice_secret *key = sluice_secret_ring_find(ring, state, (size_t)(dot - state));
    uint8_t data[sizeof DOMAIN_LABEL + PAYLOAD_BYTES];
    memcpy(data, DOMAIN_LABEL, sizeof DOMAIN_LABEL);
    memcpy(data + sizeof DOMAIN_LABEL, sealed, PAYLOAD_BYTES);
    bool ok =
        key != NULL && sluice_secret_mac_verify(key, data, sizeof data, sealed + PAYLOAD_BYTES);
    sluice_key_store_release(keys, ring);
    if (key == NULL)
        return "is signed by a key this server does not hold";
    return ok ? NULL : "failed integrity verification (it was altered)";
}

sluice_status sluice_approval_state_verify(sluice_key_store *keys,
                                           const sluice_approval_state_answer *answer,
                                           int64_t now,
                                           sluice_arena *arena,
                                           sluice_approval_state_claim *claim,
                                           sluice_error *err)
{
    uint8_t sealed[SEALED_BYTES];
    const char *state = answer->state;
    const char *why = state != NULL ? verify(keys, state, sealed) : "is missing";
    if (why != NULL)
        return bad(arena, err, why);
    int64_t expires_at = (int64_t)get_u64(sealed + 1);
    uint8_t expected[PAYLOAD_BYTES];
    fill_payload(expected, expires_at, sealed + 9, &answer->binding);
    if (sealed[0] != STATE_VERSION)
        return bad(arena, err, "has an unknown version");
    if (now >= expires_at)
        return bad(arena, err, "expired");
    if (sodium_memcmp(expected + 9 + NONCE_BYTES, sealed + 9 + NONCE_BYTES, SLUICE_HASH_BYTES) != 0)
        return bad(arena, err, "was issued to another principal");
    if (sodium_memcmp(expected + 9 + NONCE_BYTES + SLUICE_HASH_BYTES,
                      sealed + 9 + NONCE_BYTES + SLUICE_HASH_BYTES, SLUICE_HASH_BYTES) != 0)
        return bad(arena, err, "was issued for another approval token");
    memcpy(claim->nonce, sealed + 9, NONCE_BYTES);
    claim->expires_at = expires_at;
    return SLUICE_OK;
}
