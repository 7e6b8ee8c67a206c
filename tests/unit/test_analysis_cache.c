/*
 * test_analysis_cache.c — the cache of validated analyses (codemode/analysis_cache.c) on real
 * SQL facts: private deep copies, expiry by the caller's clock reading, the bound with LRU
 * eviction, every key part mattering, lookup by the exact text, refused facts never kept,
 * allocation failure never a hit, concurrent use.
 */
#include "codemode/analysis_cache.h"
#include "sql_fixture.h"
#include "unit.h"

#include <pthread.h>

#define NOW 1000000

static sluice_analysis_key key_of(uint8_t seed)
{
    sluice_analysis_key k;
    memset(k.code_hash, seed, sizeof k.code_hash);
    memset(k.context_hash, 0x11, sizeof k.context_hash);
    memset(k.variables_hash, 0x22, sizeof k.variables_hash);
    return k;
}

/* the hash of the text a key's facts came from (any 32 bytes: the cache does not read the text) */
static const uint8_t text[SLUICE_HASH_BYTES] = { 0xa1 };

static sluice_analysis_text_key text_key_of(const sluice_analysis_key *k, const uint8_t *text_hash)
{
    sluice_analysis_text_key t;
    memcpy(t.text_hash, text_hash, sizeof t.text_hash);
    memcpy(t.context_hash, k->context_hash, sizeof t.context_hash);
    memcpy(t.variables_hash, k->variables_hash, sizeof t.variables_hash);
    return t;
}

static const char seed_sql[] = "SELECT c.name, count(*) AS n FROM customers c JOIN orders o ON "
                               "o.customer_id = c.id WHERE c.plan = 'enterprise' GROUP BY c.name";

/* Facts analyzed in their own arena, which the caller frees. */
static const sluice_codefacts *facts_in(sluice_arena **arena)
{
    sluice_arena *saved = fixture_arena;
    fixture_arena = *arena = sluice_arena_new();
    const sluice_codefacts *f = fixture_analyze(seed_sql);
    fixture_arena = saved;
    return f;
}

static void test_analysis_cache_keeps_a_private_copy(void **state)
{
    (void)state;
    sluice_analysis_cache *c = sluice_analysis_cache_new(0);
    sluice_arena *src = NULL;
    const sluice_codefacts *f = facts_in(&src);
    assert_int_equal(f->violation_count, 0);
    char hash[65];
    memcpy(hash, f->code_hash, sizeof hash);
    sluice_analysis_key k = key_of(1);
    assert_int_equal(sluice_analysis_cache_put(c, &k, text, f, NOW + 60, NOW), SLUICE_OK);
    sluice_arena_free(src); /* the request that validated is over */

    sluice_codefacts *got = NULL;
    assert_int_equal(sluice_analysis_cache_get(c, &k, NOW + 1, fixture_arena, &got), SLUICE_OK);
    assert_non_null(got);
    assert_ptr_equal(got->arena, fixture_arena);
    assert_string_equal(got->code_hash, hash);
    assert_string_equal(got->language, "sql");
    assert_string_equal(got->statement_kind, "SELECT");
    assert_int_equal(got->output_count, 2);
    assert_string_equal(got->outputs[0].name, "name");
    assert_true(sluice_codefacts_list_has(&got->outputs[0].lineage, "customers.name"));
    assert_true(sluice_codefacts_list_has(&got->resources_read, "orders"));
    assert_int_equal(sluice_sql_ext(got)->join_count, 1);
    assert_true(
        sluice_codefacts_list_has(&sluice_sql_ext(got)->filter_columns, "c.plan = 'enterprise'"));
    /* the copy renders like the original (the extension's ops came along) */
    json_t *cedar = sluice_codefacts_cedar_context(got);
    assert_non_null(cedar);
    json_decref(cedar);
    sluice_analysis_cache_free(c);
}

static void test_analysis_cache_entries_expire(void **state)
{
    (void)state;
    sluice_analysis_cache *c = sluice_analysis_cache_new(0);
    const sluice_codefacts *f = fixture_analyze(seed_sql);
    sluice_analysis_key k = key_of(2);
    assert_int_equal(sluice_analysis_cache_put(c, &k, text, f, NOW + 60, NOW), SLUICE_OK);
    sluice_codefacts *got = NULL;
    assert_int_equal(sluice_analysis_cache_get(c, &k, NOW + 59, fixture_arena, &got), SLUICE_OK);
    assert_int_equal(sluice_analysis_cache_get(c, &k, NOW + 60, fixture_arena, &got),
                     SLUICE_E_NOT_FOUND);
    assert_null(got);
    assert_int_equal(sluice_analysis_cache_count(c), 0); /* dropped, not just hidden */
    /* already expired when offered: not kept */
    assert_int_equal(sluice_analysis_cache_put(c, &k, text, f, NOW, NOW), SLUICE_E_INVALID);
    assert_int_equal(sluice_analysis_cache_count(c), 0);
    sluice_analysis_cache_free(c);
}

static void test_analysis_cache_is_bounded_and_evicts_lru(void **state)
{
    (void)state;
    sluice_analysis_cache *c = sluice_analysis_cache_new(2);
    const sluice_codefacts *f = fixture_analyze(seed_sql);
    sluice_analysis_key a = key_of(3), b = key_of(4), d = key_of(5);
    sluice_codefacts *got = NULL;
    assert_int_equal(sluice_analysis_cache_put(c, &a, text, f, NOW + 60, NOW), SLUICE_OK);
    assert_int_equal(sluice_analysis_cache_put(c, &b, text, f, NOW + 60, NOW), SLUICE_OK);
    assert_int_equal(sluice_analysis_cache_get(c, &a, NOW, fixture_arena, &got), SLUICE_OK);
    assert_int_equal(sluice_analysis_cache_put(c, &d, text, f, NOW + 60, NOW), SLUICE_OK);
    assert_int_equal(sluice_analysis_cache_count(c), 2);
    assert_int_equal(sluice_analysis_cache_get(c, &b, NOW, fixture_arena, &got),
                     SLUICE_E_NOT_FOUND); /* least recently used */
    assert_int_equal(sluice_analysis_cache_get(c, &a, NOW, fixture_arena, &got), SLUICE_OK);
    assert_int_equal(sluice_analysis_cache_get(c, &d, NOW, fixture_arena, &got), SLUICE_OK);
    /* the same key replaces, never duplicates */
    assert_int_equal(sluice_analysis_cache_put(c, &d, text, f, NOW + 90, NOW), SLUICE_OK);
    assert_int_equal(sluice_analysis_cache_count(c), 2);
    assert_int_equal(sluice_analysis_cache_get(c, &d, NOW + 80, fixture_arena, &got), SLUICE_OK);
    sluice_analysis_cache_free(c);
}

static void test_analysis_cache_every_key_part_matters(void **state)
{
    (void)state;
    sluice_analysis_cache *c = sluice_analysis_cache_new(0);
    const sluice_codefacts *f = fixture_analyze(seed_sql);
    sluice_analysis_key k = key_of(6);
    assert_int_equal(sluice_analysis_cache_put(c, &k, text, f, NOW + 60, NOW), SLUICE_OK);
    sluice_analysis_key other[3] = { k, k, k };
    other[0].code_hash[31] ^= 1;
    other[1].context_hash[0] ^= 1;
    other[2].variables_hash[16] ^= 1;
    for (size_t i = 0; i < 3; i++) {
        sluice_codefacts *got = NULL;
        assert_int_equal(sluice_analysis_cache_get(c, &other[i], NOW, fixture_arena, &got),
                         SLUICE_E_NOT_FOUND);
        assert_null(got);
    }
    sluice_analysis_cache_free(c);
}

/* The exact text finds its entry with the same context and variables and nothing else does; an
 * entry replaced by another text of the same canonical form answers for that text only. */
static void test_analysis_cache_finds_the_same_text(void **state)
{
    (void)state;
    sluice_analysis_cache *c = sluice_analysis_cache_new(0);
    const sluice_codefacts *f = fixture_analyze(seed_sql);
    sluice_analysis_key k = key_of(9);
    const uint8_t other_text[SLUICE_HASH_BYTES] = { 0xb2 };
    sluice_codefacts *got = NULL;
    assert_int_equal(sluice_analysis_cache_put(c, &k, text, f, NOW + 60, NOW), SLUICE_OK);
    sluice_analysis_text_key t = text_key_of(&k, text);
    assert_int_equal(sluice_analysis_cache_get_text(c, &t, NOW, fixture_arena, &got), SLUICE_OK);
    assert_string_equal(got->code_hash, f->code_hash);
    sluice_analysis_text_key miss[3] = { t, t, text_key_of(&k, other_text) };
    miss[0].context_hash[5] ^= 1;
    miss[1].variables_hash[31] ^= 1;
    for (size_t i = 0; i < 3; i++) {
        got = NULL;
        assert_int_equal(sluice_analysis_cache_get_text(c, &miss[i], NOW, fixture_arena, &got),
                         SLUICE_E_NOT_FOUND);
        assert_null(got);
    }
    /* validated again as another text with the same canonical form: one entry, that text's */
    assert_int_equal(sluice_analysis_cache_put(c, &k, other_text, f, NOW + 60, NOW), SLUICE_OK);
    assert_int_equal(sluice_analysis_cache_count(c), 1);
    assert_int_equal(sluice_analysis_cache_get_text(c, &t, NOW, fixture_arena, &got),
                     SLUICE_E_NOT_FOUND);
    assert_int_equal(sluice_analysis_cache_get_text(c, &miss[2], NOW, fixture_arena, &got),
                     SLUICE_OK);
    assert_int_equal(sluice_analysis_cache_get(c, &k, NOW, fixture_arena, &got), SLUICE_OK);
    /* and it expires like any entry */
    assert_int_equal(sluice_analysis_cache_get_text(c, &miss[2], NOW + 60, fixture_arena, &got),
                     SLUICE_E_NOT_FOUND);
    assert_null(got);
    assert_int_equal(sluice_analysis_cache_count(c), 0);
    sluice_analysis_cache_free(c);
}

static void test_analysis_cache_never_keeps_refused_facts(void **state)
{
    (void)state;
    sluice_analysis_cache *c = sluice_analysis_cache_new(0);
    const sluice_codefacts *f = fixture_analyze("SELECT ssn FROM customers");
    assert_true(f->violation_count > 0);
    sluice_analysis_key k = key_of(7);
    assert_int_equal(sluice_analysis_cache_put(c, &k, text, f, NOW + 60, NOW), SLUICE_E_INVALID);
    assert_int_equal(sluice_analysis_cache_count(c), 0);
    sluice_analysis_cache_free(c);
}

/* Every allocation point of put and of get fails in turn: never a hit with missing facts. */
static void test_analysis_cache_allocation_failure_is_a_miss(void **state)
{
    (void)state;
    const sluice_codefacts *f = fixture_analyze(seed_sql);
    sluice_analysis_key k = key_of(8);
    for (long n = 1; n < 400; n++) {
        sluice_analysis_cache *c = sluice_analysis_cache_new(0);
        assert_non_null(c);
        sluice_arena *out = sluice_arena_new();
        sluice_arena_fail_at(n);
        sluice_status put = sluice_analysis_cache_put(c, &k, text, f, NOW + 60, NOW);
        sluice_codefacts *got = NULL, *by_text = NULL;
        sluice_status get = sluice_analysis_cache_get(c, &k, NOW, out, &got);
        sluice_analysis_text_key t = text_key_of(&k, text);
        sluice_status get_text = sluice_analysis_cache_get_text(c, &t, NOW, out, &by_text);
        bool pending = sluice_arena_fail_pending();
        sluice_arena_fail_at(0);
        assert_true(put == SLUICE_OK || put == SLUICE_E_NOMEM);
        if (get == SLUICE_OK) {
            assert_int_equal(put, SLUICE_OK);
            assert_non_null(got);
            assert_int_equal(got->output_count, f->output_count);
            assert_string_equal(got->code_hash, f->code_hash);
        } else {
            assert_null(got);
        }
        if (get_text == SLUICE_OK) {
            assert_int_equal(put, SLUICE_OK);
            assert_non_null(by_text);
            assert_int_equal(by_text->output_count, f->output_count);
            assert_string_equal(by_text->code_hash, f->code_hash);
        } else {
            assert_null(by_text);
        }
        sluice_arena_free(out);
        sluice_analysis_cache_free(c);
        if (pending)
            break; /* this run never reached its nth point: every point was swept */
    }
}

typedef struct hammer_arg {
    sluice_analysis_cache *cache;
    const sluice_codefacts *facts;
    uint8_t seed;
    int hits;
} hammer_arg;

static void *hammer(void *p)
{
    hammer_arg *a = p;
    sluice_arena *arena = sluice_arena_new();
    for (int i = 0; i < 200; i++) {
        sluice_analysis_key k = key_of((uint8_t)(a->seed * 16 + i % 8));
        sluice_analysis_cache_put(a->cache, &k, text, a->facts, NOW + 60, NOW);
        sluice_codefacts *got = NULL;
        if (sluice_analysis_cache_get(a->cache, &k, NOW, arena, &got) == SLUICE_OK &&
            strcmp(got->code_hash, a->facts->code_hash) == 0)
            a->hits++;
    }
    sluice_arena_free(arena);
    return NULL;
}

static void test_analysis_cache_concurrent_use(void **state)
{
    (void)state;
    sluice_analysis_cache *c = sluice_analysis_cache_new(4); /* smaller than the key set */
    const sluice_codefacts *f = fixture_analyze(seed_sql);
    pthread_t t[4];
    hammer_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (hammer_arg){ c, f, (uint8_t)i, 0 };
        assert_int_equal(pthread_create(&t[i], NULL, hammer, &args[i]), 0);
    }
    int hits = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        hits += args[i].hits;
    }
    assert_true(hits > 0);
    assert_true(sluice_analysis_cache_count(c) <= 4);
    sluice_analysis_cache_free(c);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, fixture_arena_new, fixture_arena_free)
    const struct CMUnitTest tests[] = {
        T(test_analysis_cache_keeps_a_private_copy),
        T(test_analysis_cache_entries_expire),
        T(test_analysis_cache_is_bounded_and_evicts_lru),
        T(test_analysis_cache_every_key_part_matters),
        T(test_analysis_cache_finds_the_same_text),
        T(test_analysis_cache_never_keeps_refused_facts),
        T(test_analysis_cache_allocation_failure_is_a_miss),
        T(test_analysis_cache_concurrent_use),
    };
#undef T
    return cmocka_run_group_tests(tests, fixture_open, fixture_close);
}
