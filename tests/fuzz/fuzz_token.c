/*
 * fuzz_token.c — libFuzzer target for the approval token decoder and verifier: any bytes must
 * be refused cleanly (no crash, no leak, no read past the input) or verify as a real token.
 *
 * First byte even: the rest is token text, as a client would send it. First byte odd: the rest
 * is a raw claims payload that this harness signs with the fuzz key (tag-token-mac-input: the
 * same MAC input as token.c), so the binary claim decoder and every check behind the MAC are
 * reached, not only the text layer. The key is a fixed test key known only to this harness.
 */
#include "token/token.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FUZZ_KEY    "sluice-key-v1 fuzz AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
#define MAC_CONTEXT "sluice-token-v1"
#define PAYLOAD_MAX 2048u

static sluice_secret_ring *fuzz_ring(void)
{
    static sluice_secret_ring *ring; /* built once, kept for the process */
    if (ring == NULL) {
        char line[] = FUZZ_KEY;
        sluice_secret *key = NULL;
        if (sluice_secret_parse(line, strlen(line), "fuzz", &key, NULL, NULL) == SLUICE_OK)
            sluice_secret_ring_new(key, &ring);
    }
    return ring;
}

/* "sl1." b64(payload) "." b64(mac) in out; its length. */
static size_t sign(const sluice_secret_ring *ring, const uint8_t *payload, size_t len, char *out)
{
    uint8_t input[sizeof(MAC_CONTEXT) + PAYLOAD_MAX], mac[SLUICE_SECRET_MAC_BYTES];
    memcpy(input, MAC_CONTEXT, sizeof(MAC_CONTEXT));
    memcpy(input + sizeof(MAC_CONTEXT), payload, len);
    sluice_secret_mac(sluice_secret_ring_current(ring), input, sizeof(MAC_CONTEXT) + len, mac);
    memcpy(out, "sl1.", 4);
    sluice_hash_b64url_encode(payload, len, out + 4);
    size_t at = 4 + SLUICE_HASH_B64URL_CHARS(len);
    out[at++] = '.';
    sluice_hash_b64url_encode(mac, sizeof mac, out + at);
    return at + SLUICE_HASH_B64URL_CHARS(sizeof mac);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sluice_secret_ring *ring = fuzz_ring();
    if (size == 0 || ring == NULL)
        return 0;
    static char signed_text[4 + SLUICE_HASH_B64URL_CHARS(PAYLOAD_MAX) + 1 +
                            SLUICE_HASH_B64URL_CHARS(SLUICE_SECRET_MAC_BYTES) + 1];
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    if ((data[0] & 1) != 0) {
        if (len > PAYLOAD_MAX)
            return 0;
        len = sign(ring, data + 1, len, signed_text);
        text = signed_text;
    }
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return 0;
    sluice_token_claims claims, want = { 0 };
    sluice_token_problem problem;
    sluice_error err;
    sluice_token_decode(arena, text, len, &claims, &problem, &err);
    want.user_id = "alice";
    want.session_id = "s1";
    want.server_id = "fuzz";
    sluice_token_verify(&(sluice_token_check){ text, len, ring, 1800000000 }, &want, arena, &claims,
                        &problem, &err);
    sluice_arena_free(arena);
    return 0;
}
