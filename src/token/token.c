/*
 * token.c — approval token encoding, signing and verification (see token.h).
 */
#include "token/token.h"

#include "core/hash_memo.h"
#include "core/limits.h"

#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define WIRE_PREFIX "sl1."
#define REVALIDATE  "call validate_code again and use the new token"
/* With its NUL: domain separation for the MAC input (tag-token-mac-input: fuzz_token.c too). */
#define MAC_CONTEXT "sluice-token-v1"
/* With its NUL: domain separation for the binding hash (token.h). */
#define BINDING_CONTEXT "sluice-token-binding-v1"

/* The largest payload the format allows; the decoder's buffer and the encoder's bound. */
#define PAYLOAD_MAX                                                    \
    (1u + 1u + SLUICE_SECRET_KEY_ID_MAX + SLUICE_TOKEN_ID_BYTES + 2u + \
     SLUICE_LIMIT_TOKEN_FIELD_BYTES + SLUICE_HASH_BYTES +              \
     SLUICE_TOKEN_MARKS * SLUICE_TOKEN_MARK_BYTES + 1u + 1u + 8u + 8u + 1u + 8u + 8u)

_Static_assert(sizeof(WIRE_PREFIX) - 1 + SLUICE_HASH_B64URL_CHARS(PAYLOAD_MAX) + 1 +
                       SLUICE_HASH_B64URL_CHARS(SLUICE_SECRET_MAC_BYTES) <=
                   SLUICE_LIMIT_TOKEN_CHARS,
               "the largest token must fit SLUICE_LIMIT_TOKEN_CHARS");

static const char *const problem_names[] = {
    [SLUICE_TOKEN_OK] = "ok",
    [SLUICE_TOKEN_MALFORMED] = "malformed",
    [SLUICE_TOKEN_TOO_LONG] = "too_long",
    [SLUICE_TOKEN_BAD_VERSION] = "bad_version",
    [SLUICE_TOKEN_UNKNOWN_KEY] = "unknown_key",
    [SLUICE_TOKEN_BAD_SIGNATURE] = "bad_signature",
    [SLUICE_TOKEN_EXPIRED] = "expired",
    [SLUICE_TOKEN_NOT_YET_VALID] = "not_yet_valid",
    [SLUICE_TOKEN_SERVER_MISMATCH] = "server_mismatch",
    [SLUICE_TOKEN_USER_MISMATCH] = "user_mismatch",
    [SLUICE_TOKEN_SESSION_MISMATCH] = "session_mismatch",
    [SLUICE_TOKEN_CONTEXT_MISMATCH] = "context_mismatch",
    [SLUICE_TOKEN_CODE_MISMATCH] = "code_mismatch",
    [SLUICE_TOKEN_VARIABLES_MISMATCH] = "variables_mismatch",
    [SLUICE_TOKEN_ACTION_MISMATCH] = "action_mismatch",
    [SLUICE_TOKEN_RISK_MISMATCH] = "risk_mismatch",
    [SLUICE_TOKEN_REPLAYED] = "replayed",
    [SLUICE_TOKEN_ESTIMATE_DRIFT] = "estimate_drift",
    [SLUICE_TOKEN_BINDING_MISMATCH] = "binding_mismatch",
};

const char *sluice_token_problem_name(sluice_token_problem problem)
{
    if ((unsigned)problem > SLUICE_TOKEN_PROBLEM_MAX)
        return "unknown";
    return problem_names[problem];
}

/* ---- encoding ---------------------------------------------------------------------------- */

typedef struct writer {
    uint8_t *p;
    size_t len;
    size_t cap;
    bool ok;
} writer;

static void put(writer *w, const void *data, size_t n)
{
    if (!w->ok || n > w->cap - w->len) {
        w->ok = false;
        return;
    }
    memcpy(w->p + w->len, data, n);
    w->len += n;
}

static void put_u8(writer *w, unsigned v)
{
    uint8_t b = (uint8_t)v;
    put(w, &b, 1);
}

static void put_i64(writer *w, int64_t v)
{
    uint64_t u = (uint64_t)v;
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(u >> (56 - 8 * i));
    put(w, b, 8);
}

static void put_str16(writer *w, const char *s)
{
    size_t n = strlen(s);
    put_u8(w, (unsigned)(n >> 8));
    put_u8(w, (unsigned)(n & 0xff));
    put(w, s, n);
}

/* The big-endian 16-bit length of a string the binding hashes after it. */
static void length16(size_t n, uint8_t out[2])
{
    out[0] = (uint8_t)(n >> 8);
    out[1] = (uint8_t)(n & 0xff);
}

/* The binding and the marks of c's bound claims (token.h); user_id and session_id set. */
static void bind_claims(const sluice_token_claims *c,
                        uint8_t binding[SLUICE_HASH_BYTES],
                        uint8_t marks[SLUICE_TOKEN_MARKS][SLUICE_TOKEN_MARK_BYTES])
{
    /* a caller's tokens (and the checks of them) hash the same user, session and context again
     * and again: each thread remembers the last of each, and the binding's state after them
     * (core/hash_memo.h: keyed by every byte) */
    static _Thread_local sluice_hash_memo user_memo, session_memo;
    static _Thread_local sluice_hash_prefix_memo prefix_memo;
    size_t user_len = strlen(c->user_id), session_len = strlen(c->session_id);
    uint8_t user_len16[2], session_len16[2];
    length16(user_len, user_len16);
    length16(session_len, session_len16);
    const sluice_hash_part prefix[] = {
        { BINDING_CONTEXT, sizeof(BINDING_CONTEXT) },
        { user_len16, sizeof user_len16 },
        { c->user_id, user_len },
        { session_len16, sizeof session_len16 },
        { c->session_id, session_len },
        { c->context_hash, SLUICE_HASH_BYTES },
    };
    sluice_hash_state h;
    sluice_hash_prefix_memo_start(&prefix_memo, prefix, sizeof prefix / sizeof prefix[0], &h);
    sluice_hash_update(&h, c->code_hash, SLUICE_HASH_BYTES);
    sluice_hash_update(&h, c->variables_hash, SLUICE_HASH_BYTES);
    sluice_hash_finish(&h, binding);
    uint8_t user[SLUICE_HASH_BYTES], session[SLUICE_HASH_BYTES];
    sluice_hash_memo_sha256(&user_memo, &prefix[2], 1, user);
    sluice_hash_memo_sha256(&session_memo, &prefix[4], 1, session);
    const uint8_t *from[SLUICE_TOKEN_MARKS] = { user, session, c->context_hash, c->code_hash,
                                                c->variables_hash };
    for (size_t i = 0; i < SLUICE_TOKEN_MARKS; i++)
        memcpy(marks[i], from[i], SLUICE_TOKEN_MARK_BYTES);
}

static size_t encode_payload(const sluice_token_claims *c, uint8_t *out, size_t cap)
{
    writer w = { out, 0, cap, true };
    size_t id_len = strlen(c->key_id);
    put_u8(&w, c->version);
    put_u8(&w, (unsigned)id_len);
    put(&w, c->key_id, id_len);
    put(&w, c->token_id, SLUICE_TOKEN_ID_BYTES);
    put_str16(&w, c->server_id);
    put(&w, c->binding, SLUICE_HASH_BYTES);
    put(&w, c->marks, sizeof c->marks);
    put_u8(&w, (unsigned)c->action);
    put_u8(&w, (unsigned)c->risk);
    put_i64(&w, c->issued_at);
    put_i64(&w, c->expires_at);
    put_u8(&w, c->estimate_live ? 1u : 0u);
    put_i64(&w, c->estimated_rows);
    put_i64(&w, c->estimated_cost);
    return w.ok ? w.len : 0;
}

static void mac_payload(const sluice_secret *key, const uint8_t *payload, size_t len, uint8_t *mac)
{
    uint8_t input[sizeof(MAC_CONTEXT) + PAYLOAD_MAX];
    memcpy(input, MAC_CONTEXT, sizeof(MAC_CONTEXT));
    memcpy(input + sizeof(MAC_CONTEXT), payload, len);
    sluice_secret_mac(key, input, sizeof(MAC_CONTEXT) + len, mac);
}

static bool
mac_payload_ok(const sluice_secret *key, const uint8_t *payload, size_t len, const uint8_t *mac)
{
    uint8_t input[sizeof(MAC_CONTEXT) + PAYLOAD_MAX];
    memcpy(input, MAC_CONTEXT, sizeof(MAC_CONTEXT));
    memcpy(input + sizeof(MAC_CONTEXT), payload, len);
    return sluice_secret_mac_verify(key, input, sizeof(MAC_CONTEXT) + len, mac);
}

static sluice_status
check_field(const char *value, const char *name, sluice_arena *arena, sluice_error *err)
{
    if (value == NULL)
        return sluice_error_set(err, arena, SLUICE_E_INVALID, "token claim %s is missing", name);
    if (strlen(value) > SLUICE_LIMIT_TOKEN_FIELD_BYTES)
        return sluice_error_set(err, arena, SLUICE_E_LIMIT,
                                "token claim %s is too long (limit is %u bytes)", name,
                                SLUICE_LIMIT_TOKEN_FIELD_BYTES);
    return SLUICE_OK;
}

sluice_status sluice_token_issue(const sluice_secret_ring *ring,
                                 sluice_token_claims *claims,
                                 int64_t now,
                                 int64_t ttl_seconds,
                                 sluice_arena *arena,
                                 char **out_token,
                                 sluice_error *err)
{
    sluice_status st = check_field(claims->user_id, "user_id", arena, err);
    if (st == SLUICE_OK)
        st = check_field(claims->session_id, "session_id", arena, err);
    if (st == SLUICE_OK)
        st = check_field(claims->server_id, "server_id", arena, err);
    if (st != SLUICE_OK)
        return st;
    if ((unsigned)claims->action > SLUICE_ACTION_ADMIN ||
        (unsigned)claims->risk > SLUICE_RISK_CRITICAL || claims->estimated_rows < -1 ||
        claims->estimated_cost < -1 || ttl_seconds <= 0 || now > INT64_MAX - ttl_seconds)
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "cannot issue a token: bad action, risk or ttl");
    const sluice_secret *key = sluice_secret_ring_current(ring);
    claims->version = SLUICE_TOKEN_VERSION;
    memcpy(claims->key_id, sluice_secret_key_id(key), sizeof(claims->key_id));
    randombytes_buf(claims->token_id, sizeof(claims->token_id));
    claims->issued_at = now;
    claims->expires_at = now + ttl_seconds;
    bind_claims(claims, claims->binding, claims->marks);

    uint8_t payload[PAYLOAD_MAX];
    size_t len = encode_payload(claims, payload, sizeof payload);
    uint8_t mac[SLUICE_SECRET_MAC_BYTES];
    mac_payload(key, payload, len, mac);
    size_t prefix = sizeof(WIRE_PREFIX) - 1;
    size_t b64_payload = SLUICE_HASH_B64URL_CHARS(len);
    char *text = sluice_arena_alloc(arena, prefix + b64_payload + 1 +
                                               SLUICE_HASH_B64URL_CHARS(sizeof mac) + 1);
    if (text == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory issuing a token");
    memcpy(text, WIRE_PREFIX, prefix);
    /* Both parts travel to the client, so the encoder need not hide them. */
    sluice_hash_b64url_encode_public(payload, len, text + prefix);
    text[prefix + b64_payload] = '.';
    sluice_hash_b64url_encode_public(mac, sizeof mac, text + prefix + b64_payload + 1);
    *out_token = text;
    return SLUICE_OK;
}

/* ---- decoding ---------------------------------------------------------------------------- */

typedef struct reader {
    const uint8_t *p;
    size_t len;
    size_t at;
    bool ok;
} reader;

static const uint8_t *take(reader *r, size_t n)
{
    if (!r->ok || n > r->len - r->at) {
        r->ok = false;
        return NULL;
    }
    const uint8_t *p = r->p + r->at;
    r->at += n;
    return p;
}

static void take_into(reader *r, void *out, size_t n)
{
    const uint8_t *p = take(r, n);
    if (p != NULL)
        memcpy(out, p, n);
}

static unsigned take_u8(reader *r)
{
    const uint8_t *p = take(r, 1);
    return p != NULL ? p[0] : 0;
}

static int64_t take_i64(reader *r)
{
    const uint8_t *p = take(r, 8);
    uint64_t u = 0;
    for (int i = 0; p != NULL && i < 8; i++)
        u = u << 8 | p[i];
    return (int64_t)u;
}

/* A u16-length-prefixed string: bounded, NUL-free, copied into arena. */
static const char *take_str16(reader *r, sluice_arena *arena)
{
    size_t n = take_u8(r) << 8;
    n |= take_u8(r);
    const uint8_t *p = take(r, n);
    if (p == NULL || n > SLUICE_LIMIT_TOKEN_FIELD_BYTES || memchr(p, '\0', n) != NULL) {
        r->ok = false;
        return NULL;
    }
    char *s = sluice_arena_strndup(arena, (const char *)p, n);
    if (s == NULL)
        r->ok = false;
    return s;
}

static bool
parse_payload(const uint8_t *payload, size_t len, sluice_arena *arena, sluice_token_claims *c)
{
    reader r = { payload, len, 0, true };
    memset(c, 0, sizeof(*c));
    c->version = (uint8_t)take_u8(&r);
    size_t id_len = take_u8(&r);
    if (id_len > SLUICE_SECRET_KEY_ID_MAX)
        return false;
    take_into(&r, c->key_id, id_len);
    c->key_id[id_len] = '\0';
    take_into(&r, c->token_id, SLUICE_TOKEN_ID_BYTES);
    c->server_id = take_str16(&r, arena);
    take_into(&r, c->binding, SLUICE_HASH_BYTES);
    take_into(&r, c->marks, sizeof c->marks);
    unsigned action = take_u8(&r);
    unsigned risk = take_u8(&r);
    c->issued_at = take_i64(&r);
    c->expires_at = take_i64(&r);
    unsigned live = take_u8(&r);
    c->estimated_rows = take_i64(&r);
    c->estimated_cost = take_i64(&r);
    c->action = (sluice_action)action;
    c->risk = (sluice_risk)risk;
    c->estimate_live = live == 1;
    return r.ok && r.at == r.len && c->version == SLUICE_TOKEN_VERSION &&
           sluice_secret_key_id_valid(c->key_id, id_len) && action <= SLUICE_ACTION_ADMIN &&
           risk <= SLUICE_RISK_CRITICAL && c->expires_at > c->issued_at && live <= 1 &&
           c->estimated_rows >= -1 && c->estimated_cost >= -1;
}

/* The pieces of a token text: the claims, the signed bytes and the MAC. */
typedef struct decoded {
    sluice_token_claims claims;
    uint8_t payload[PAYLOAD_MAX];
    size_t payload_len;
    uint8_t mac[SLUICE_SECRET_MAC_BYTES];
} decoded;

static sluice_status refuse(sluice_error *err,
                            sluice_arena *arena,
                            sluice_token_problem *out_problem,
                            sluice_token_problem problem,
                            const char *fmt,
                            ...) __attribute__((format(printf, 5, 6)));

static sluice_status refuse(sluice_error *err,
                            sluice_arena *arena,
                            sluice_token_problem *out_problem,
                            sluice_token_problem problem,
                            const char *fmt,
                            ...)
{
    if (out_problem != NULL)
        *out_problem = problem;
    if (err == NULL)
        return SLUICE_E_TOKEN;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sluice_error_set(err, arena, SLUICE_E_TOKEN, "%s", msg);
}

static bool b64_decode(const char *text, size_t len, uint8_t *out, size_t cap, size_t *out_len)
{
    return sluice_hash_b64url_decode(text, len, out, cap, out_len) == SLUICE_OK;
}

#define MALFORMED_HOW "pass approval_token exactly as validate_code returned it"

static sluice_status decode_token(sluice_arena *arena,
                                  const char *token,
                                  size_t len,
                                  decoded *d,
                                  sluice_token_problem *out_problem,
                                  sluice_error *err)
{
    const size_t prefix = sizeof(WIRE_PREFIX) - 1;
    if (len > SLUICE_LIMIT_TOKEN_CHARS)
        return refuse(err, arena, out_problem, SLUICE_TOKEN_TOO_LONG,
                      "the approval token is %zu characters; no sluice token is longer than %u; "
                      "%s",
                      len, SLUICE_LIMIT_TOKEN_CHARS, MALFORMED_HOW);
    if (len >= prefix && token[0] == 's' && token[1] == 'l' && token[3] == '.' && token[2] >= '0' &&
        token[2] <= '9' && token[2] != WIRE_PREFIX[2])
        return refuse(err, arena, out_problem, SLUICE_TOKEN_BAD_VERSION,
                      "the approval token has format version %c, which this server does not "
                      "issue; call validate_code to get a new token",
                      token[2]);
    if (len < prefix || memcmp(token, WIRE_PREFIX, prefix) != 0)
        return refuse(err, arena, out_problem, SLUICE_TOKEN_MALFORMED,
                      "the approval token does not start with '" WIRE_PREFIX "'; %s",
                      MALFORMED_HOW);
    const char *body = token + prefix;
    size_t body_len = len - prefix;
    const char *dot = memchr(body, '.', body_len);
    size_t payload_chars = dot != NULL ? (size_t)(dot - body) : 0;
    size_t mac_len = 0;
    if (dot == NULL ||
        !b64_decode(body, payload_chars, d->payload, sizeof d->payload, &d->payload_len) ||
        !b64_decode(dot + 1, body_len - payload_chars - 1, d->mac, sizeof d->mac, &mac_len) ||
        mac_len != sizeof d->mac)
        return refuse(err, arena, out_problem, SLUICE_TOKEN_MALFORMED,
                      "the approval token is not valid (bad encoding); %s", MALFORMED_HOW);
    if (d->payload_len > 0 && d->payload[0] != SLUICE_TOKEN_VERSION)
        return refuse(err, arena, out_problem, SLUICE_TOKEN_BAD_VERSION,
                      "the approval token has claims version %u (this server issues %u: it was "
                      "issued before an upgrade); %s",
                      (unsigned)d->payload[0], SLUICE_TOKEN_VERSION, REVALIDATE);
    if (!parse_payload(d->payload, d->payload_len, arena, &d->claims))
        return refuse(err, arena, out_problem, SLUICE_TOKEN_MALFORMED,
                      "the approval token is not valid (bad claims); %s", MALFORMED_HOW);
    return SLUICE_OK;
}

sluice_status sluice_token_decode(sluice_arena *arena,
                                  const char *token,
                                  size_t len,
                                  sluice_token_claims *out_claims,
                                  sluice_token_problem *out_problem,
                                  sluice_error *err)
{
    decoded d;
    sluice_status st = decode_token(arena, token, len, &d, out_problem, err);
    if (st != SLUICE_OK)
        return st;
    *out_claims = d.claims;
    if (out_problem != NULL)
        *out_problem = SLUICE_TOKEN_OK;
    return SLUICE_OK;
}

/* ---- verification ------------------------------------------------------------------------ */

/* Compares the bound claims, most general first: a token from another session is reported as
 * such, not as a code difference. The binding decides (full strength, under the MAC); the marks
 * only name the claim that differs, so a mark that happens to agree can never pass a token. */
static sluice_status check_claims(const sluice_token_claims *got,
                                  const sluice_token_claims *want,
                                  sluice_arena *arena,
                                  sluice_token_problem *out_problem,
                                  sluice_error *err)
{
    if (strcmp(got->server_id, want->server_id) != 0)
        return refuse(err, arena, out_problem, SLUICE_TOKEN_SERVER_MISMATCH,
                      "this token was issued by another server ('%s'); call validate_code on "
                      "this server",
                      got->server_id);
    uint8_t binding[SLUICE_HASH_BYTES], marks[SLUICE_TOKEN_MARKS][SLUICE_TOKEN_MARK_BYTES];
    bind_claims(want, binding, marks);
    if (!sluice_hash_equal(got->binding, binding, SLUICE_HASH_BYTES)) {
        size_t i = 0;
        while (i < SLUICE_TOKEN_MARKS &&
               memcmp(got->marks[i], marks[i], SLUICE_TOKEN_MARK_BYTES) == 0)
            i++;
        char a[2 * SLUICE_TOKEN_MARK_BYTES + 1], b[2 * SLUICE_TOKEN_MARK_BYTES + 1];
        switch (i) {
        case 0:
            return refuse(err, arena, out_problem, SLUICE_TOKEN_USER_MISMATCH,
                          "this token was issued to another user; call validate_code yourself");
        case 1:
            return refuse(err, arena, out_problem, SLUICE_TOKEN_SESSION_MISMATCH,
                          "this token was issued for another session; call validate_code again "
                          "in this session");
        case 2:
            return refuse(err, arena, out_problem, SLUICE_TOKEN_CONTEXT_MISMATCH,
                          "the schema, policies or permissions changed since this token was "
                          "issued; %s",
                          REVALIDATE);
        case SLUICE_TOKEN_MARK_CODE:
            sluice_hash_hex(got->marks[i], SLUICE_TOKEN_MARK_BYTES, a);
            sluice_hash_hex(marks[i], SLUICE_TOKEN_MARK_BYTES, b);
            return refuse(err, arena, out_problem, SLUICE_TOKEN_CODE_MISMATCH,
                          "the code differs from the code that was validated (hash %s… vs %s…); "
                          "validate the exact code you execute",
                          a, b);
        case 4:
            return refuse(err, arena, out_problem, SLUICE_TOKEN_VARIABLES_MISMATCH,
                          "the variables differ from those validated; pass the same variables, "
                          "or call validate_code with the new ones");
        default:
            return refuse(err, arena, out_problem, SLUICE_TOKEN_BINDING_MISMATCH,
                          "the code, variables, caller or context differ from those this token "
                          "approved; %s",
                          REVALIDATE);
        }
    }
    if (got->action != want->action)
        return refuse(err, arena, out_problem, SLUICE_TOKEN_ACTION_MISMATCH,
                      "the token approved a %s action but this code now performs %s; %s",
                      sluice_action_name(got->action), sluice_action_name(want->action),
                      REVALIDATE);
    if (got->risk != want->risk)
        return refuse(err, arena, out_problem, SLUICE_TOKEN_RISK_MISMATCH,
                      "the token approved %s risk but this code is now %s risk; %s",
                      sluice_risk_name(got->risk), sluice_risk_name(want->risk), REVALIDATE);
    return SLUICE_OK;
}

sluice_status sluice_token_open(const sluice_token_check *check,
                                sluice_arena *arena,
                                sluice_token_claims *out_claims,
                                sluice_token_problem *out_problem,
                                sluice_error *err)
{
    decoded d;
    sluice_status st = decode_token(arena, check->token, check->len, &d, out_problem, err);
    if (st != SLUICE_OK)
        return st;
    const sluice_token_claims *c = &d.claims;
    int64_t now = check->now;
    const sluice_secret *key = sluice_secret_ring_find(check->ring, c->key_id, strlen(c->key_id));
    if (key == NULL)
        return refuse(err, arena, out_problem, SLUICE_TOKEN_UNKNOWN_KEY,
                      "the approval token was signed with key '%s', which this server no longer "
                      "accepts (keys were rotated); %s",
                      c->key_id, REVALIDATE);
    if (!mac_payload_ok(key, d.payload, d.payload_len, d.mac))
        return refuse(err, arena, out_problem, SLUICE_TOKEN_BAD_SIGNATURE,
                      "the approval token's signature does not match: it was altered or not "
                      "issued by this server; %s",
                      REVALIDATE);
    if (now >= c->expires_at)
        return refuse(err, arena, out_problem, SLUICE_TOKEN_EXPIRED,
                      "token expired %lld s ago; validate again", (long long)(now - c->expires_at));
    if (c->issued_at > now && c->issued_at - now > SLUICE_TOKEN_CLOCK_SKEW_SECONDS)
        return refuse(err, arena, out_problem, SLUICE_TOKEN_NOT_YET_VALID,
                      "the approval token was issued %lld s in the future (clock change?); %s",
                      (long long)(c->issued_at - now), REVALIDATE);
    if (sluice_arena_failed(arena)) /* checked last: never a pass built on a lost allocation */
        return sluice_error_set(err, arena, SLUICE_E_NOMEM,
                                "out of memory while checking the approval token; retry");
    *out_claims = *c;
    if (out_problem != NULL)
        *out_problem = SLUICE_TOKEN_OK;
    return SLUICE_OK;
}

sluice_status sluice_token_match(const sluice_token_claims *claims,
                                 const sluice_token_claims *expected,
                                 sluice_arena *arena,
                                 sluice_token_problem *out_problem,
                                 sluice_error *err)
{
    sluice_status st = check_claims(claims, expected, arena, out_problem, err);
    if (st == SLUICE_OK && sluice_arena_failed(arena)) /* never a pass built on a lost allocation */
        return sluice_error_set(err, arena, SLUICE_E_NOMEM,
                                "out of memory while checking the approval token; retry");
    if (st == SLUICE_OK && out_problem != NULL)
        *out_problem = SLUICE_TOKEN_OK;
    return st;
}

/* More than factor times the approved figure (an approved 0 as 1), in doubles: no overflow. */
static bool drifted(int64_t approved, int64_t live, int64_t factor)
{
    return approved >= 0 && (double)live > (double)(approved > 0 ? approved : 1) * (double)factor;
}

sluice_status sluice_token_estimate_check(const sluice_token_claims *claims,
                                          const sluice_token_claims *live,
                                          int64_t factor,
                                          sluice_arena *arena,
                                          sluice_token_problem *out_problem,
                                          sluice_error *err)
{
    if (out_problem != NULL)
        *out_problem = SLUICE_TOKEN_OK;
    if (factor <= 0 || (claims->estimated_rows < 0 && claims->estimated_cost < 0))
        return SLUICE_OK;
    if ((claims->estimated_rows >= 0 && live->estimated_rows < 0) ||
        (claims->estimated_cost >= 0 && live->estimated_cost < 0))
        return refuse(err, arena, out_problem, SLUICE_TOKEN_ESTIMATE_DRIFT,
                      "this token approved an estimate of %lld rows at a cost of %lld, and the "
                      "engine gave no estimate now, so the approval cannot be checked; %s",
                      (long long)claims->estimated_rows, (long long)claims->estimated_cost,
                      REVALIDATE);
    if (drifted(claims->estimated_rows, live->estimated_rows, factor) ||
        drifted(claims->estimated_cost, live->estimated_cost, factor))
        return refuse(err, arena, out_problem, SLUICE_TOKEN_ESTIMATE_DRIFT,
                      "the estimate moved since approval: %lld rows at a cost of %lld were "
                      "approved, the engine now estimates %lld rows at a cost of %lld, more than "
                      "estimate_drift_factor (%lld) times as much; the data changed under the "
                      "approval, so %s and have the new estimate approved",
                      (long long)claims->estimated_rows, (long long)claims->estimated_cost,
                      (long long)live->estimated_rows, (long long)live->estimated_cost,
                      (long long)factor, REVALIDATE);
    return SLUICE_OK;
}

sluice_status sluice_token_verify(const sluice_token_check *check,
                                  const sluice_token_claims *expected,
                                  sluice_arena *arena,
                                  sluice_token_claims *out_claims,
                                  sluice_token_problem *out_problem,
                                  sluice_error *err)
{
    sluice_token_claims c;
    sluice_status st = sluice_token_open(check, arena, &c, out_problem, err);
    if (st == SLUICE_OK)
        st = sluice_token_match(&c, expected, arena, out_problem, err);
    if (st == SLUICE_OK && out_claims != NULL) {
        /* the binding proved the claims that are not on the wire equal to expected's */
        c.user_id = expected->user_id;
        c.session_id = expected->session_id;
        memcpy(c.code_hash, expected->code_hash, SLUICE_HASH_BYTES);
        memcpy(c.context_hash, expected->context_hash, SLUICE_HASH_BYTES);
        memcpy(c.variables_hash, expected->variables_hash, SLUICE_HASH_BYTES);
        *out_claims = c;
    }
    return st;
}
