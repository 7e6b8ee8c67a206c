/*
 * test_tree.c — the arena value tree (core/tree.h): members in insertion order, a key set again
 * keeping its place, removal, readers that answer NULL/0/false for NULL and for the wrong kind
 * (as jansson's do), the copy of a jansson value (integers read as reals, the depth limit), and
 * every allocation failure coming back as SLUICE_E_NOMEM or NULL, never a crash.
 */
#include "core/tree.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>

static void test_tree_objects_keep_insertion_order_and_replace_in_place(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_tree *o = sluice_tree_object(a);
    assert_non_null(o);
    static const char *const keys[] = { "type", "children", "name", "alias", "k4",
                                        "k5",   "k6",       "k7",   "k8",    "k9" };
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) /* past the first room */
        assert_int_equal(sluice_tree_set(a, o, keys[i], sluice_tree_number(a, (double)i)),
                         SLUICE_OK);
    assert_int_equal(sluice_tree_member_count(o), 10);
    /* a key set again (by another pointer to the same text) keeps its place, as jansson's */
    char name[] = "name";
    assert_int_equal(sluice_tree_set(a, o, name, sluice_tree_string(a, "x", 1)), SLUICE_OK);
    assert_int_equal(sluice_tree_member_count(o), 10);
    assert_string_equal(sluice_tree_member_key(o, 2), "name");
    assert_string_equal(sluice_tree_string_value(sluice_tree_get(o, "name")), "x");
    size_t i;
    const char *key;
    const sluice_tree *v;
    size_t seen = 0;
    sluice_tree_foreach_member(o, i, key, v)
    {
        assert_string_equal(key, keys[i]);
        seen++;
    }
    assert_int_equal(seen, 10);
    assert_true(sluice_tree_number_value(sluice_tree_get(o, "k9")) == 9.0);
    assert_null(sluice_tree_get(o, "missing"));
    assert_null(sluice_tree_get(o, ""));
    /* removal: the members after it move up */
    sluice_tree_del(o, "children");
    sluice_tree_del(o, "missing");
    assert_int_equal(sluice_tree_member_count(o), 9);
    assert_string_equal(sluice_tree_member_key(o, 1), "name");
    assert_null(sluice_tree_get(o, "children"));
    assert_null(sluice_tree_member_key(o, 9));
    assert_null(sluice_tree_member_value(o, 9));
    sluice_arena_free(a);
}

/* The object's members, in order, are those of a jansson object given the same sets and
 * deletions. */
static void expect_same_members(const sluice_tree *o, json_t *j)
{
    assert_int_equal(sluice_tree_member_count(o), json_object_size(j));
    size_t i = 0;
    const char *key;
    json_t *value;
    json_object_foreach(j, key, value)
    {
        assert_string_equal(sluice_tree_member_key(o, i), key);
        assert_true(sluice_tree_number_value(sluice_tree_member_value(o, i)) ==
                    json_number_value(value));
        assert_true(sluice_tree_get(o, key) == sluice_tree_member_value(o, i));
        i++;
    }
}

/* A key set again is found and replaced in place, as json_object_set does, whichever keys came
 * before it: keys sharing their first bytes, one byte, empty, and enough of them to share every
 * one of tree.c's key bits; by other pointers to the same text; after deletions. */
static void test_tree_a_key_set_again_replaces_it_like_jansson(void **state)
{
    (void)state;
    static const char *const vocabulary[] = {
        "type",
        "types",
        "children",
        "child",
        "table_index",
        "table_name",
        "table_filters",
        "name",
        "names",
        "alias",
        "id",
        "index",
        "class",
        "column_ids",
        "columns",
        "value",
        "values",
        "",
        "a",
        "b",
        "ab",
        "ba",
        "query_location",
        "return_type",
        "expression_class",
        "expressions",
        "left",
        "right",
        "is_null",
        "k0",
        "k1",
        "k2",
        "k3",
        "k4",
        "k5",
        "k6",
        "k7",
        "k8",
        "k9",
        "zz",
        "zy",
        "~",
    };
    const size_t words = sizeof vocabulary / sizeof vocabulary[0];
    uint32_t seed = 12345;
    for (int round = 0; round < 200; round++) {
        sluice_arena *a = sluice_arena_new();
        sluice_tree *o = sluice_tree_object(a);
        json_t *j = json_object();
        for (int op = 0; op < 60; op++) {
            seed = seed * 1103515245u + 12345u;
            char key[32];
            snprintf(key, sizeof key, "%s", vocabulary[(seed >> 8) % words]);
            const char *k = sluice_arena_strdup(a, key); /* a new pointer every time */
            if ((seed >> 24) % 8 == 0) {
                sluice_tree_del(o, k);
                json_object_del(j, k);
            } else {
                assert_int_equal(sluice_tree_set(a, o, k, sluice_tree_number(a, op)), SLUICE_OK);
                json_object_set_new(j, k, json_real(op));
            }
            expect_same_members(o, j);
        }
        json_decref(j);
        sluice_arena_free(a);
    }
}

static void test_tree_arrays_grow_and_pop(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_tree *arr = sluice_tree_array(a);
    for (int n = 0; n < 100; n++)
        assert_int_equal(sluice_tree_append(a, arr, sluice_tree_number(a, n)), SLUICE_OK);
    assert_int_equal(sluice_tree_size(arr), 100);
    size_t i;
    const sluice_tree *e;
    sluice_tree_foreach(arr, i, e)
    {
        assert_true(sluice_tree_number_value(e) == (double)i);
    }
    assert_null(sluice_tree_at(arr, 100));
    sluice_tree_pop(arr);
    assert_int_equal(sluice_tree_size(arr), 99);
    sluice_tree *empty = sluice_tree_array(a);
    sluice_tree_pop(empty); /* nothing to remove: nothing happens */
    assert_int_equal(sluice_tree_size(empty), 0);
    sluice_arena_free(a);
}

static void test_tree_readers_answer_like_jansson_for_the_wrong_kind(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_tree *s = sluice_tree_string(a, "abc\0def", 3);
    sluice_tree *n = sluice_tree_number(a, 2.5);
    sluice_tree *t = sluice_tree_bool(a, true);
    sluice_tree *f = sluice_tree_bool(a, false);
    sluice_tree *z = sluice_tree_null(a);
    sluice_tree *arr = sluice_tree_array(a);
    sluice_tree *o = sluice_tree_object(a);
    assert_string_equal(sluice_tree_string_value(s), "abc");
    assert_int_equal(sluice_tree_string_length(s), 3);
    assert_int_equal(sluice_tree_kind_of(s), SLUICE_TREE_STRING);
    assert_int_equal(sluice_tree_kind_of(n), SLUICE_TREE_NUMBER);
    assert_int_equal(sluice_tree_kind_of(t), SLUICE_TREE_TRUE);
    assert_int_equal(sluice_tree_kind_of(f), SLUICE_TREE_FALSE);
    assert_int_equal(sluice_tree_kind_of(z), SLUICE_TREE_NULL);
    assert_int_equal(sluice_tree_kind_of(NULL), SLUICE_TREE_NULL);
    const sluice_tree *all[] = { s, n, t, f, z, arr, o, NULL };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        const sluice_tree *v = all[i];
        assert_true(sluice_tree_is_string(v) == (v == s));
        assert_true(sluice_tree_is_number(v) == (v == n));
        assert_true(sluice_tree_is_true(v) == (v == t));
        assert_true(sluice_tree_is_array(v) == (v == arr));
        assert_true(sluice_tree_is_object(v) == (v == o));
        if (v != s) {
            assert_null(sluice_tree_string_value(v));
            assert_int_equal(sluice_tree_string_length(v), 0);
        }
        if (v != n)
            assert_true(sluice_tree_number_value(v) == 0.0);
        assert_null(sluice_tree_get(v, "x"));
        assert_int_equal(sluice_tree_size(v), 0);
        assert_null(sluice_tree_at(v, 0));
        assert_int_equal(sluice_tree_member_count(v), 0);
    }
    /* building into the wrong kind, or with nothing, is refused and changes nothing */
    assert_int_equal(sluice_tree_set(a, arr, "k", n), SLUICE_E_INVALID);
    assert_int_equal(sluice_tree_set(a, o, NULL, n), SLUICE_E_INVALID);
    assert_int_equal(sluice_tree_set(a, o, "k", NULL), SLUICE_E_INVALID);
    assert_int_equal(sluice_tree_append(a, o, n), SLUICE_E_INVALID);
    assert_int_equal(sluice_tree_append(a, arr, NULL), SLUICE_E_INVALID);
    assert_int_equal(sluice_tree_member_count(o), 0);
    assert_int_equal(sluice_tree_size(arr), 0);
    sluice_tree_del(arr, "k");
    sluice_tree_pop(o);
    sluice_tree_del(NULL, "k");
    sluice_tree_pop(NULL);
    sluice_arena_free(a);
}

static const char doc_text[] = "{\"error\": false, \"plans\": [{\"type\": \"LOGICAL_PROJECTION\", "
                               "\"table_index\": 3, \"big\": 18446744073709551615.0, "
                               "\"flags\": [true, false, null], \"name\": \"caf\\u00e9\", "
                               "\"children\": [{\"type\": \"LOGICAL_GET\", \"e\": {}}]}]}";

/* The tree of doc_text read back: every member, kind and order. */
static void expect_doc(const sluice_tree *t)
{
    assert_false(sluice_tree_is_true(sluice_tree_get(t, "error")));
    assert_int_equal(sluice_tree_kind_of(sluice_tree_get(t, "error")), SLUICE_TREE_FALSE);
    const sluice_tree *p = sluice_tree_at(sluice_tree_get(t, "plans"), 0);
    assert_string_equal(sluice_tree_member_key(p, 0), "type");
    assert_string_equal(sluice_tree_member_key(p, 5), "children");
    /* an integer becomes a number, as json_loads(JSON_DECODE_INT_AS_REAL) reads it */
    assert_true(sluice_tree_is_number(sluice_tree_get(p, "table_index")));
    assert_true(sluice_tree_number_value(sluice_tree_get(p, "table_index")) == 3.0);
    assert_true(sluice_tree_number_value(sluice_tree_get(p, "big")) == 18446744073709551615.0);
    const sluice_tree *flags = sluice_tree_get(p, "flags");
    assert_int_equal(sluice_tree_kind_of(sluice_tree_at(flags, 0)), SLUICE_TREE_TRUE);
    assert_int_equal(sluice_tree_kind_of(sluice_tree_at(flags, 1)), SLUICE_TREE_FALSE);
    assert_int_equal(sluice_tree_kind_of(sluice_tree_at(flags, 2)), SLUICE_TREE_NULL);
    assert_string_equal(sluice_tree_string_value(sluice_tree_get(p, "name")), "caf\xc3\xa9");
    const sluice_tree *get = sluice_tree_at(sluice_tree_get(p, "children"), 0);
    assert_string_equal(sluice_tree_string_value(sluice_tree_get(get, "type")), "LOGICAL_GET");
    assert_true(sluice_tree_is_object(sluice_tree_get(get, "e")));
    assert_int_equal(sluice_tree_member_count(sluice_tree_get(get, "e")), 0);
}

static void test_tree_from_json_copies_every_kind(void **state)
{
    (void)state;
    json_t *doc = json_loads(doc_text, 0, NULL);
    assert_non_null(doc);
    sluice_arena *a = sluice_arena_new();
    sluice_tree *t = NULL;
    assert_int_equal(sluice_tree_from_json(a, doc, &t), SLUICE_OK);
    json_decref(doc); /* the tree holds copies */
    expect_doc(t);
    sluice_tree *untouched = NULL;
    assert_int_equal(sluice_tree_from_json(a, NULL, &untouched), SLUICE_E_INVALID);
    assert_null(untouched);
    sluice_arena_free(a);
}

static void test_tree_from_json_stops_at_the_depth_limit(void **state)
{
    (void)state;
    json_t *deep = json_array();
    for (size_t i = 0; i < SLUICE_TREE_MAX_DEPTH; i++) {
        json_t *outer = json_array();
        json_array_append_new(outer, deep);
        deep = outer;
    }
    sluice_arena *a = sluice_arena_new();
    sluice_tree *t = NULL;
    assert_int_equal(sluice_tree_from_json(a, deep, &t), SLUICE_OK); /* exactly the limit */
    json_t *deeper = json_array();
    json_array_append_new(deeper, deep);
    assert_int_equal(sluice_tree_from_json(a, deeper, &t), SLUICE_E_LIMIT);
    json_decref(deeper);
    sluice_arena_free(a);
}

/* Each allocation of the copy and of the building calls fails in turn: NOMEM or NULL, *out
 * untouched, until a run reaches none; that run's tree is whole. */
static void test_tree_every_allocation_failure_is_reported(void **state)
{
    (void)state;
    json_t *doc = json_loads(doc_text, 0, NULL);
    assert_non_null(doc);
    for (long n = 1;; n++) {
        sluice_arena *a = sluice_arena_new();
        assert_non_null(a);
        sluice_tree *t = NULL;
        sluice_arena_fail_at(n);
        sluice_status st = sluice_tree_from_json(a, doc, &t);
        sluice_tree *o = sluice_tree_object(a);
        sluice_status set = sluice_tree_set(a, o, "k", sluice_tree_bool(a, true));
        bool pending = sluice_arena_fail_pending();
        sluice_arena_fail_at(0);
        if (pending) {
            assert_int_equal(st, SLUICE_OK);
            expect_doc(t);
            assert_int_equal(set, SLUICE_OK);
            assert_true(sluice_tree_is_true(sluice_tree_get(o, "k")));
            sluice_arena_free(a);
            break;
        }
        assert_true(st == SLUICE_E_NOMEM ? t == NULL : st == SLUICE_OK);
        assert_true(set == SLUICE_OK || set == SLUICE_E_NOMEM || set == SLUICE_E_INVALID);
        sluice_arena_free(a);
    }
    json_decref(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree_objects_keep_insertion_order_and_replace_in_place),
        cmocka_unit_test(test_tree_a_key_set_again_replaces_it_like_jansson),
        cmocka_unit_test(test_tree_arrays_grow_and_pop),
        cmocka_unit_test(test_tree_readers_answer_like_jansson_for_the_wrong_kind),
        cmocka_unit_test(test_tree_from_json_copies_every_kind),
        cmocka_unit_test(test_tree_from_json_stops_at_the_depth_limit),
        cmocka_unit_test(test_tree_every_allocation_failure_is_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
