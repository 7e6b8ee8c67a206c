/*
 * test_token.c — approval tokens: round trip, every bound claim, tampering, hostile text,
 * expiry, unknown keys and rotation.
 */
#include "core/limits.h"
#include "token/token.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>

#define NOW 1800000000

typedef struct fixture {
    sluice_arena *arena;
    sluice_secret_ring *ring;
    sluice_token_claims want; /* the live request's claims */
} fixture;

/* A key parsed from a fresh key line; same_as reuses the material of an earlier line. */
static sluice_secret *make_key(const char *id, char *line_out)
{
    char line[SLUICE_LIMIT_SECRET_LINE_BYTES];
    assert_int_equal(sluice_secret_generate(id, line, sizeof line), SLUICE_OK);
    if (line_out != NULL)
        memcpy(line_out, line, sizeof line);
    sluice_secret *key = NULL;
    assert_int_equal(sluice_secret_parse(line, strlen(line), "test", &key, NULL, NULL), SLUICE_OK);
    return key;
}

static sluice_secret *key_from_line(const char *line)
{
    char copy[SLUICE_LIMIT_SECRET_LINE_BYTES];
    memcpy(copy, line, SLUICE_LIMIT_SECRET_LINE_BYTES);
    sluice_secret *key = NULL;
    assert_int_equal(sluice_secret_parse(copy, strlen(copy), "test", &key, NULL, NULL), SLUICE_OK);
    return key;
}

static sluice_secret_ring *ring_of(sluice_secret *current)
{
    sluice_secret_ring *ring = NULL;
    assert_int_equal(sluice_secret_ring_new(current, &ring), SLUICE_OK);
    return ring;
}

static int setup(void **state)
{
    static fixture f;
    memset(&f, 0, sizeof f);
    f.arena = sluice_arena_new();
    f.ring = ring_of(make_key("cur", NULL));
    sluice_hash_sha256("SELECT 1", 8, f.want.code_hash);
    sluice_hash_sha256("schema+policy", 13, f.want.context_hash);
    sluice_hash_sha256("{}", 2, f.want.variables_hash);
    f.want.user_id = "alice";
    f.want.session_id = "session-1";
    f.want.server_id = "sluice-test";
    f.want.action = SLUICE_ACTION_READ;
    f.want.risk = SLUICE_RISK_LOW;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    sluice_secret_ring_free(f->ring);
    sluice_arena_free(f->arena);
    return 0;
}

static char *issue(fixture *f, const sluice_secret_ring *ring, sluice_token_claims *claims)
{
    char *token = NULL;
    assert_int_equal(sluice_token_issue(ring, claims, NOW, 300, f->arena, &token, NULL), SLUICE_OK);
    return token;
}

static sluice_token_problem verify(fixture *f,
                                   const sluice_secret_ring *ring,
                                   const char *token,
                                   size_t len,
                                   const sluice_token_claims *want,
                                   int64_t now,
                                   sluice_error *err)
{
    sluice_token_problem problem = SLUICE_TOKEN_OK;
    sluice_status st = sluice_token_verify(&(sluice_token_check){ token, len, ring, now }, want,
                                           f->arena, NULL, &problem, err);
    assert_int_equal(st == SLUICE_OK, problem == SLUICE_TOKEN_OK);
    if (st != SLUICE_OK)
        assert_int_equal(st, SLUICE_E_TOKEN);
    return problem;
}

static void test_token_round_trip(void **state)
{
    fixture *f = *state;
    sluice_token_claims claims = f->want;
    char *token = issue(f, f->ring, &claims);
    assert_memory_equal(token, "sl1.", 4);
    assert_string_equal(claims.key_id, "cur");
    assert_int_equal(claims.issued_at, NOW);
    assert_int_equal(claims.expires_at, NOW + 300);

    sluice_token_claims got;
    sluice_token_problem problem = SLUICE_TOKEN_MALFORMED;
    sluice_token_check check = { token, strlen(token), f->ring, NOW + 10 };
    assert_int_equal(sluice_token_verify(&check, &f->want, f->arena, &got, &problem, NULL),
                     SLUICE_OK);
    assert_int_equal(problem, SLUICE_TOKEN_OK);
    assert_memory_equal(got.token_id, claims.token_id, SLUICE_TOKEN_ID_BYTES);
    assert_memory_equal(got.code_hash, f->want.code_hash, SLUICE_HASH_BYTES);
    assert_string_equal(got.user_id, "alice");
    assert_string_equal(got.session_id, "session-1");
    assert_string_equal(got.server_id, "sluice-test");
    assert_int_equal(got.expires_at, NOW + 300);
}

static void test_token_ids_are_unique(void **state)
{
    fixture *f = *state;
    sluice_token_claims a = f->want, b = f->want;
    char *ta = issue(f, f->ring, &a);
    char *tb = issue(f, f->ring, &b);
    assert_memory_not_equal(a.token_id, b.token_id, SLUICE_TOKEN_ID_BYTES);
    assert_string_not_equal(ta, tb);
}

/* Each bound claim of the live request differs in turn; each gets its own problem and text. */
static void test_token_each_claim_mismatch_has_its_reason(void **state)
{
    fixture *f = *state;
    sluice_token_claims claims = f->want;
    char *token = issue(f, f->ring, &claims);
    char hex_a[13], hex_b[13]; /* the code marks: SLUICE_TOKEN_MARK_BYTES of each hash */
    sluice_hash_hex(f->want.code_hash, SLUICE_TOKEN_MARK_BYTES, hex_a);
    struct {
        sluice_token_problem problem;
        const char *message;
    } cases[8] = {
        { SLUICE_TOKEN_SERVER_MISMATCH, "this token was issued by another server ('sluice-test'); "
                                        "call validate_code on this server" },
        { SLUICE_TOKEN_USER_MISMATCH,
          "this token was issued to another user; call validate_code yourself" },
        { SLUICE_TOKEN_SESSION_MISMATCH, "this token was issued for another session; call "
                                         "validate_code again in this session" },
        { SLUICE_TOKEN_CONTEXT_MISMATCH,
          "the schema, policies or permissions changed since this token was issued; call "
          "validate_code again and use the new token" },
        { SLUICE_TOKEN_CODE_MISMATCH, NULL },
        { SLUICE_TOKEN_VARIABLES_MISMATCH, "the variables differ from those validated; pass the "
                                           "same variables, or call validate_code with the new "
                                           "ones" },
        { SLUICE_TOKEN_ACTION_MISMATCH, "the token approved a Read action but this code now "
                                        "performs Write; call validate_code again and use the "
                                        "new token" },
        { SLUICE_TOKEN_RISK_MISMATCH, "the token approved low risk but this code is now high "
                                      "risk; call validate_code again and use the new token" },
    };
    for (size_t i = 0; i < 8; i++) {
        sluice_token_claims live = f->want;
        switch (cases[i].problem) {
        case SLUICE_TOKEN_SERVER_MISMATCH:
            live.server_id = "other-server";
            break;
        case SLUICE_TOKEN_USER_MISMATCH:
            live.user_id = "mallory";
            break;
        case SLUICE_TOKEN_SESSION_MISMATCH:
            live.session_id = "session-2";
            break;
        case SLUICE_TOKEN_CONTEXT_MISMATCH:
            live.context_hash[0] ^= 1; /* in the mark: a real change moves every byte */
            break;
        case SLUICE_TOKEN_CODE_MISMATCH:
            sluice_hash_sha256("DELETE FROM t", 13, live.code_hash);
            break;
        case SLUICE_TOKEN_VARIABLES_MISMATCH:
            live.variables_hash[0] ^= 0x80;
            break;
        case SLUICE_TOKEN_ACTION_MISMATCH:
            live.action = SLUICE_ACTION_WRITE;
            break;
        default:
            live.risk = SLUICE_RISK_HIGH;
            break;
        }
        sluice_error err;
        assert_int_equal(verify(f, f->ring, token, strlen(token), &live, NOW, &err),
                         cases[i].problem);
        assert_int_equal(err.status, SLUICE_E_TOKEN);
        if (cases[i].message != NULL) {
            assert_string_equal(err.message, cases[i].message);
        } else {
            sluice_hash_hex(live.code_hash, SLUICE_TOKEN_MARK_BYTES, hex_b);
            char want[256];
            snprintf(want, sizeof want,
                     "the code differs from the code that was validated (hash %s… vs %s…); "
                     "validate the exact code you execute",
                     hex_a, hex_b);
            assert_string_equal(err.message, want);
        }
        assert_string_not_equal(sluice_token_problem_name(cases[i].problem), "unknown");
    }
}

/* Length prefixes: moving a byte from one claim to the next makes a different token. */
static void test_token_claims_cannot_bleed(void **state)
{
    fixture *f = *state;
    sluice_token_claims claims = f->want;
    claims.user_id = "ab";
    claims.session_id = "c";
    char *token = issue(f, f->ring, &claims);
    sluice_token_claims live = f->want;
    live.user_id = "a";
    live.session_id = "bc";
    assert_int_equal(verify(f, f->ring, token, strlen(token), &live, NOW, NULL),
                     SLUICE_TOKEN_USER_MISMATCH);
}

static void test_token_any_single_byte_change_refused(void **state)
{
    fixture *f = *state;
    sluice_token_claims claims = f->want;
    char *token = issue(f, f->ring, &claims);
    size_t len = strlen(token);
    char copy[SLUICE_LIMIT_TOKEN_CHARS];
    static const unsigned char flips[] = { 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80 };
    for (size_t i = 0; i < len; i++) {
        for (size_t k = 0; k < sizeof flips; k++) {
            memcpy(copy, token, len);
            copy[i] = (char)((unsigned char)copy[i] ^ flips[k]);
            sluice_token_problem p = verify(f, f->ring, copy, len, &f->want, NOW, NULL);
            if (p == SLUICE_TOKEN_OK)
                fail_msg("flipping bit %#x of byte %zu was accepted", flips[k], i);
        }
    }
}

static void test_token_truncated_refused(void **state)
{
    fixture *f = *state;
    sluice_token_claims claims = f->want;
    char *token = issue(f, f->ring, &claims);
    size_t len = strlen(token);
    for (size_t n = 0; n < len; n++) {
        sluice_token_problem p = verify(f, f->ring, token, n, &f->want, NOW, NULL);
        assert_true(p == SLUICE_TOKEN_MALFORMED || p == SLUICE_TOKEN_BAD_SIGNATURE);
    }
    /* A byte appended is refused too. */
    char longer[SLUICE_LIMIT_TOKEN_CHARS];
    memcpy(longer, token, len);
    longer[len] = 'A';
    assert_int_equal(verify(f, f->ring, longer, len + 1, &f->want, NOW, NULL),
                     SLUICE_TOKEN_MALFORMED);
}

static void test_token_garbage_refused(void **state)
{
    fixture *f = *state;
    static const char *const garbage[] = {
        "",
        "s",
        "sl1",
        "sl1.",
        "sl1..",
        "sl1.AAAA.",
        "sl1..AAAA",
        "sl1.AAAA.AAAA",
        "sl1.!!!!.AAAA",
        "eyJhbGciOiJIUzI1NiJ9.e30.ZRrHA1JJJW8opsbCGfG_HACGpVUMN_a9IV7pAx_Zmeo",
        "sl1.AA==.AA==",
        "sl1.A.A.A",
        "SL1.AAAA.AAAA",
    };
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        sluice_error err;
        assert_int_equal(verify(f, f->ring, garbage[i], strlen(garbage[i]), &f->want, NOW, &err),
                         SLUICE_TOKEN_MALFORMED);
        assert_non_null(strstr(err.message, "pass approval_token exactly as validate_code "
                                            "returned it"));
    }
    assert_int_equal(verify(f, f->ring, "sl2.AAAA.AAAA", 13, &f->want, NOW, NULL),
                     SLUICE_TOKEN_BAD_VERSION);
    /* An embedded NUL inside an otherwise valid token. */
    sluice_token_claims claims = f->want;
    char *token = issue(f, f->ring, &claims);
    char copy[SLUICE_LIMIT_TOKEN_CHARS];
    size_t len = strlen(token);
    memcpy(copy, token, len);
    copy[len / 2] = '\0';
    assert_int_equal(verify(f, f->ring, copy, len, &f->want, NOW, NULL), SLUICE_TOKEN_MALFORMED);
}

static void test_token_oversized_refused_unread(void **state)
{
    fixture *f = *state;
    static char big[SLUICE_LIMIT_TOKEN_CHARS * 4];
    memset(big, 'A', sizeof big);
    memcpy(big, "sl1.", 4);
    sluice_error err;
    assert_int_equal(verify(f, f->ring, big, sizeof big, &f->want, NOW, &err),
                     SLUICE_TOKEN_TOO_LONG);
    assert_non_null(strstr(err.message, "no sluice token is longer than 4096"));
    /* Within the limit but a payload larger than any claims can be: malformed, no overflow. */
    big[SLUICE_LIMIT_TOKEN_CHARS - 44] = '.';
    assert_int_equal(verify(f, f->ring, big, SLUICE_LIMIT_TOKEN_CHARS, &f->want, NOW, NULL),
                     SLUICE_TOKEN_MALFORMED);
}

static void test_token_expired(void **state)
{
    fixture *f = *state;
    sluice_token_claims claims = f->want;
    char *token = issue(f, f->ring, &claims);
    sluice_error err;
    assert_int_equal(verify(f, f->ring, token, strlen(token), &f->want, NOW + 299, NULL),
                     SLUICE_TOKEN_OK);
    assert_int_equal(verify(f, f->ring, token, strlen(token), &f->want, NOW + 300, &err),
                     SLUICE_TOKEN_EXPIRED);
    assert_string_equal(err.message, "token expired 0 s ago; validate again");
    assert_int_equal(verify(f, f->ring, token, strlen(token), &f->want, NOW + 342, &err),
                     SLUICE_TOKEN_EXPIRED);
    assert_string_equal(err.message, "token expired 42 s ago; validate again");
    /* Expiry is checked before the claims: an expired token for another session says expired. */
    sluice_token_claims live = f->want;
    live.session_id = "session-2";
    assert_int_equal(verify(f, f->ring, token, strlen(token), &live, NOW + 400, NULL),
                     SLUICE_TOKEN_EXPIRED);
}

static void test_token_from_the_future_refused(void **state)
{
    fixture *f = *state;
    sluice_token_claims claims = f->want;
    char *token = issue(f, f->ring, &claims);
    assert_int_equal(verify(f, f->ring, token, strlen(token), &f->want,
                            NOW - SLUICE_TOKEN_CLOCK_SKEW_SECONDS, NULL),
                     SLUICE_TOKEN_OK);
    assert_int_equal(verify(f, f->ring, token, strlen(token), &f->want,
                            NOW - SLUICE_TOKEN_CLOCK_SKEW_SECONDS - 1, NULL),
                     SLUICE_TOKEN_NOT_YET_VALID);
}

static void test_token_unknown_key_id(void **state)
{
    fixture *f = *state;
    sluice_token_claims claims = f->want;
    char *token = issue(f, f->ring, &claims);
    sluice_secret_ring *other = ring_of(make_key("other", NULL));
    sluice_error err;
    assert_int_equal(verify(f, other, token, strlen(token), &f->want, NOW, &err),
                     SLUICE_TOKEN_UNKNOWN_KEY);
    assert_string_equal(err.message,
                        "the approval token was signed with key 'cur', which this server no "
                        "longer accepts (keys were rotated); call validate_code again and use the "
                        "new token");
    sluice_secret_ring_free(other);
}

/* Same key id, different secret: a forgery, refused on the MAC. */
static void test_token_forged_with_same_key_id(void **state)
{
    fixture *f = *state;
    sluice_secret_ring *forger = ring_of(make_key("cur", NULL));
    sluice_token_claims claims = f->want;
    char *token = issue(f, forger, &claims);
    assert_int_equal(verify(f, f->ring, token, strlen(token), &f->want, NOW, NULL),
                     SLUICE_TOKEN_BAD_SIGNATURE);
    sluice_secret_ring_free(forger);
}

static void test_token_rotation(void **state)
{
    fixture *f = *state;
    char old_line[SLUICE_LIMIT_SECRET_LINE_BYTES];
    sluice_secret_ring *before = ring_of(make_key("k1", old_line));
    sluice_token_claims c1 = f->want;
    char *t1 = issue(f, before, &c1);

    /* Rotated: k2 signs, k1 still verifies. */
    char new_line[SLUICE_LIMIT_SECRET_LINE_BYTES];
    sluice_secret_ring *after = ring_of(make_key("k2", new_line));
    assert_int_equal(sluice_secret_ring_add_previous(after, key_from_line(old_line), NULL, NULL),
                     SLUICE_OK);
    assert_int_equal(verify(f, after, t1, strlen(t1), &f->want, NOW, NULL), SLUICE_TOKEN_OK);
    sluice_token_claims c2 = f->want;
    char *t2 = issue(f, after, &c2);
    assert_string_equal(c2.key_id, "k2");
    assert_int_equal(verify(f, after, t2, strlen(t2), &f->want, NOW, NULL), SLUICE_TOKEN_OK);
    /* The old ring does not know k2. */
    assert_int_equal(verify(f, before, t2, strlen(t2), &f->want, NOW, NULL),
                     SLUICE_TOKEN_UNKNOWN_KEY);

    /* k1 removed: its tokens fail, k2's still verify. */
    sluice_secret_ring *later = ring_of(key_from_line(new_line));
    assert_int_equal(verify(f, later, t1, strlen(t1), &f->want, NOW, NULL),
                     SLUICE_TOKEN_UNKNOWN_KEY);
    assert_int_equal(verify(f, later, t2, strlen(t2), &f->want, NOW, NULL), SLUICE_TOKEN_OK);
    sluice_secret_ring_free(before);
    sluice_secret_ring_free(after);
    sluice_secret_ring_free(later);
}

static void test_token_issue_refuses_bad_claims(void **state)
{
    fixture *f = *state;
    static char long_id[SLUICE_LIMIT_TOKEN_FIELD_BYTES + 2];
    memset(long_id, 'u', SLUICE_LIMIT_TOKEN_FIELD_BYTES + 1);
    sluice_token_claims c = f->want;
    char *token = NULL;
    c.user_id = long_id;
    assert_int_equal(sluice_token_issue(f->ring, &c, NOW, 300, f->arena, &token, NULL),
                     SLUICE_E_LIMIT);
    c = f->want;
    c.session_id = NULL;
    assert_int_equal(sluice_token_issue(f->ring, &c, NOW, 300, f->arena, &token, NULL),
                     SLUICE_E_INVALID);
    c = f->want;
    assert_int_equal(sluice_token_issue(f->ring, &c, NOW, 0, f->arena, &token, NULL),
                     SLUICE_E_INVALID);
    c.risk = (sluice_risk)7;
    assert_int_equal(sluice_token_issue(f->ring, &c, NOW, 300, f->arena, &token, NULL),
                     SLUICE_E_INVALID);
    /* The longest ids allowed round-trip. */
    long_id[SLUICE_LIMIT_TOKEN_FIELD_BYTES] = '\0';
    c = f->want;
    c.user_id = c.session_id = c.server_id = long_id;
    token = issue(f, f->ring, &c);
    assert_true(strlen(token) <= SLUICE_LIMIT_TOKEN_CHARS);
    sluice_token_claims live = f->want;
    live.user_id = live.session_id = live.server_id = long_id;
    assert_int_equal(verify(f, f->ring, token, strlen(token), &live, NOW, NULL), SLUICE_TOKEN_OK);
}

static void test_token_decode_reads_unverified_claims(void **state)
{
    fixture *f = *state;
    sluice_token_claims claims = f->want;
    char *token = issue(f, f->ring, &claims);
    sluice_token_claims got;
    sluice_token_problem p;
    assert_int_equal(sluice_token_decode(f->arena, token, strlen(token), &got, &p, NULL),
                     SLUICE_OK);
    assert_string_equal(got.key_id, "cur");
    assert_memory_equal(got.token_id, claims.token_id, SLUICE_TOKEN_ID_BYTES);
    assert_string_equal(sluice_token_problem_name(SLUICE_TOKEN_CODE_MISMATCH), "code_mismatch");
    assert_string_equal(sluice_token_problem_name((sluice_token_problem)99), "unknown");
}

/* Issue 24: the estimate an approver saw is signed into the token, and execute refuses when the
 * engine's live estimate grew past the factor (or could not be made again); smaller passes. */
static void test_token_estimate_bound_and_drift(void **state)
{
    fixture *f = *state;
    sluice_token_claims claims = f->want;
    claims.estimated_rows = 1000;
    claims.estimated_cost = 25000;
    claims.estimate_live = true;
    char *token = issue(f, f->ring, &claims);
    sluice_token_claims got;
    sluice_token_problem p = SLUICE_TOKEN_MALFORMED;
    assert_int_equal(
        sluice_token_verify(&(sluice_token_check){ token, strlen(token), f->ring, NOW }, &f->want,
                            f->arena, &got, &p, NULL),
        SLUICE_OK);
    assert_int_equal(got.estimated_rows, 1000);
    assert_int_equal(got.estimated_cost, 25000);
    assert_true(got.estimate_live);
    struct {
        int64_t rows, cost, factor;
        sluice_token_problem want;
    } cases[] = {
        { 1000, 25000, 10, SLUICE_TOKEN_OK },              /* unchanged */
        { 10000, 250000, 10, SLUICE_TOKEN_OK },            /* exactly the factor */
        { 10001, 25000, 10, SLUICE_TOKEN_ESTIMATE_DRIFT }, /* rows past it */
        { 1000, 250001, 10, SLUICE_TOKEN_ESTIMATE_DRIFT }, /* cost past it */
        { 1, 1, 10, SLUICE_TOKEN_OK },                     /* smaller: the approval covered more */
        { -1, 25000, 10, SLUICE_TOKEN_ESTIMATE_DRIFT },    /* no estimate now: fail closed */
        { 1000, -1, 10, SLUICE_TOKEN_ESTIMATE_DRIFT },
        { 1001, 25000, 1, SLUICE_TOKEN_ESTIMATE_DRIFT },      /* factor 1: any growth */
        { INT64_MAX, INT64_MAX, INT64_MAX, SLUICE_TOKEN_OK }, /* no overflow */
        { 100000000, 1, 0, SLUICE_TOKEN_OK },                 /* factor 0: not checked */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sluice_token_claims live = f->want;
        live.estimated_rows = cases[i].rows;
        live.estimated_cost = cases[i].cost;
        sluice_error err = { 0 };
        p = SLUICE_TOKEN_MALFORMED;
        sluice_status st =
            sluice_token_estimate_check(&got, &live, cases[i].factor, f->arena, &p, &err);
        if (p != cases[i].want)
            fail_msg("case %zu: got %s", i, sluice_token_problem_name(p));
        assert_int_equal(st, p == SLUICE_TOKEN_OK ? SLUICE_OK : SLUICE_E_TOKEN);
    }
    sluice_token_claims live = f->want;
    live.estimated_rows = 20000;
    live.estimated_cost = 30000;
    sluice_error err = { 0 };
    assert_int_equal(sluice_token_estimate_check(&got, &live, 10, f->arena, &p, &err),
                     SLUICE_E_TOKEN);
    assert_non_null(strstr(err.message, "1000 rows at a cost of 25000 were approved, the engine "
                                        "now estimates 20000 rows at a cost of 30000"));
    assert_non_null(strstr(err.message, "estimate_drift_factor (10)"));
    assert_string_equal(sluice_token_problem_name(p), "estimate_drift");
    /* a token that bound no estimate has nothing to drift from */
    sluice_token_claims none = f->want;
    none.estimated_rows = none.estimated_cost = -1;
    token = issue(f, f->ring, &none);
    assert_int_equal(
        sluice_token_verify(&(sluice_token_check){ token, strlen(token), f->ring, NOW }, &f->want,
                            f->arena, &got, &p, NULL),
        SLUICE_OK);
    assert_int_equal(got.estimated_rows, -1);
    assert_int_equal(sluice_token_estimate_check(&got, &live, 1, f->arena, &p, NULL), SLUICE_OK);
    /* an estimate below -1 cannot be signed */
    none.estimated_cost = -2;
    assert_int_equal(sluice_token_issue(f->ring, &none, NOW, 300, f->arena, &token, NULL),
                     SLUICE_E_INVALID);
}

/* A token from before the estimate was bound (claims version 1) is told apart from a damaged one.
 */
static void test_token_old_claims_version(void **state)
{
    fixture *f = *state;
    sluice_token_claims claims = f->want;
    char *token = issue(f, f->ring, &claims);
    size_t chars = strcspn(token + 4, ".");
    uint8_t payload[1024];
    size_t n = 0;
    assert_int_equal(sluice_hash_b64url_decode(token + 4, chars, payload, sizeof payload, &n),
                     SLUICE_OK);
    payload[0] = 1;
    char old[SLUICE_LIMIT_TOKEN_CHARS];
    memcpy(old, "sl1.", 4);
    sluice_hash_b64url_encode(payload, n, old + 4);
    snprintf(old + 4 + SLUICE_HASH_B64URL_CHARS(n), sizeof old - 4 - SLUICE_HASH_B64URL_CHARS(n),
             "%s", token + 4 + chars);
    sluice_error err = { 0 };
    assert_int_equal(verify(f, f->ring, old, strlen(old), &f->want, NOW, &err),
                     SLUICE_TOKEN_BAD_VERSION);
    assert_non_null(strstr(err.message, "claims version 1 (this server issues 3"));
}

/* Version 3 carries the bound claims as one signed binding plus short marks that only name
 * the claim that differs: a signed token whose binding differs is refused even when every mark
 * agrees (the marks can never pass a token), and the token is about half its version-2 size. */
static void test_token_binding_decides_not_the_marks(void **state)
{
    fixture *f = *state;
    sluice_token_claims claims = f->want;
    char *token = issue(f, f->ring, &claims);
    assert_true(strlen(token) <= 210); /* version 2: 280 here */
    size_t chars = strcspn(token + 4, ".");
    uint8_t input[16 + 1024];
    memcpy(input, "sluice-token-v1", 16); /* tag-token-mac-input: token.c's MAC input */
    uint8_t *payload = input + 16;
    size_t n = 0;
    assert_int_equal(sluice_hash_b64url_decode(token + 4, chars, payload, 1024, &n), SLUICE_OK);
    /* version | 3 "cur" | token id | 11 "sluice-test" | binding */
    size_t binding_at = 1 + 1 + 3 + SLUICE_TOKEN_ID_BYTES + 2 + 11;
    assert_memory_equal(payload + binding_at, claims.binding, SLUICE_HASH_BYTES);
    payload[binding_at + 7] ^= 0x10;
    uint8_t mac[SLUICE_SECRET_MAC_BYTES];
    sluice_secret_mac(sluice_secret_ring_current(f->ring), input, 16 + n, mac);
    char forged[SLUICE_LIMIT_TOKEN_CHARS];
    memcpy(forged, "sl1.", 4);
    sluice_hash_b64url_encode(payload, n, forged + 4);
    size_t at = 4 + SLUICE_HASH_B64URL_CHARS(n);
    forged[at++] = '.';
    sluice_hash_b64url_encode(mac, sizeof mac, forged + at);
    sluice_error err = { 0 };
    assert_int_equal(verify(f, f->ring, forged, strlen(forged), &f->want, NOW, &err),
                     SLUICE_TOKEN_BINDING_MISMATCH);
    assert_non_null(strstr(err.message, "differ from those this token approved"));
    assert_string_equal(sluice_token_problem_name(SLUICE_TOKEN_BINDING_MISMATCH),
                        "binding_mismatch");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_token_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_ids_are_unique, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_each_claim_mismatch_has_its_reason, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_token_claims_cannot_bleed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_any_single_byte_change_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_truncated_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_garbage_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_oversized_refused_unread, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_expired, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_from_the_future_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_unknown_key_id, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_forged_with_same_key_id, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_rotation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_issue_refuses_bad_claims, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_decode_reads_unverified_claims, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_estimate_bound_and_drift, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_old_claims_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_binding_decides_not_the_marks, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
