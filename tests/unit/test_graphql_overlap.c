/*
 * test_graphql_overlap.c — OverlappingFieldsCanBeMerged (lang/graphql/overlap.c) on a schema
 * with a union and an interface: same-named fields that are different fields, take different
 * arguments, return conflicting types on overlapping parents, or conflict below; the same cases
 * through fragments, inline fragments and aliases; what merges (identical fields, exclusive
 * object parents, argument order, object fields in any order); and the work budget refusing a
 * document graphql-js 16.15 also aborts on.
 */
#include "lang/graphql/validate.h"
#include "syntax/graphql/graphql.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

static const char SDL[] = "interface Pet { name: String }\n"
                          "type Dog implements Pet { name: String barks: Boolean size: Int "
                          "owner(id: ID, in: In): Person }\n"
                          "type Cat implements Pet { name: String meows: Boolean size: String "
                          "owner(id: ID, in: In): Person }\n"
                          "type Person { id: ID name: String pets: [Pet] }\n"
                          "union Any = Dog | Cat\n"
                          "input In { a: Int b: Int }\n"
                          "type Query { x: Int dog: Dog pet: Pet any: Any }\n";

/* The rule the document is refused by, "" when it is accepted. */
static const char *judge(const char *doc)
{
    static char rule[64];
    sluice_arena *a = sluice_arena_new();
    sluice_gql_schema *s = NULL;
    sluice_gql_document *d = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_graphql_schema_build(a, SDL, strlen(SDL), "sdl", &s, &err), SLUICE_OK);
    assert_int_equal(sluice_graphql_parse(a, doc, strlen(doc), "op", NULL, &d, &err), SLUICE_OK);
    sluice_codefacts *f = sluice_codefacts_new(a, "graphql");
    assert_non_null(f);
    assert_int_equal(sluice_graphql_validate(a, d, s, f), SLUICE_OK);
    snprintf(rule, sizeof rule, "%s", f->violation_count > 0 ? f->violations[0].rule : "");
    if (f->violation_count > 0 && strcmp(rule, "OverlappingFieldsCanBeMerged") == 0)
        assert_non_null(strstr(f->violations[0].message, "conflict because"));
    sluice_arena_free(a);
    return rule;
}

#define CONFLICT "OverlappingFieldsCanBeMerged"

static void test_conflicts_are_refused(void **state)
{
    (void)state;
    static const char *const refused[] = {
        "{ dog: x dog { name } }",                                 /* different fields */
        "{ dog { name: barks name } }",                            /* alias onto another field */
        "{ dog { owner(id: 1) { id } owner(id: 2) { id } } }",     /* differing arguments */
        "{ dog { owner(id: 1) { id } owner { id } } }",            /* arguments and none */
        "{ dog { owner(id: \"1\") { id } owner(id: 1) { id } } }", /* "1" is not 1 */
        "{ dog { owner(in: {a: 1}) { id } owner(in: {a: 2}) { id } } }",
        "{ dog { owner { n: id } owner { n: name } } }",       /* conflicting subfields */
        "{ pet { ... on Dog { size } ... on Cat { size } } }", /* Int vs String, exclusive */
        "{ dog { ...A ...B } } fragment A on Dog { name } fragment B on Dog { name: barks }",
        "{ dog { name ...A } } fragment A on Dog { name: barks }",
        "{ dog { ...A } dog { ...B } } fragment A on Dog { n: name } fragment B on Dog { n: barks "
        "}",
        "{ any { ... on Dog { size } ... on Cat { size } } }",
        "{ pet { name ... on Dog { name: barks } } }", /* interface and object overlap */
        /* exclusive parents still need types that merge: String vs Boolean */
        "{ pet { ... on Dog { barks: name } ... on Cat { barks: meows } } }",
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        const char *r = judge(refused[i]);
        if (strcmp(r, CONFLICT) != 0)
            fail_msg("accepted (%s): %s", r, refused[i]);
    }
}

static void test_mergeable_fields_pass(void **state)
{
    (void)state;
    static const char *const accepted[] = {
        "{ dog { name name } }",
        "{ dog { n: name n: name } }",
        "{ dog { owner(id: 1, in: {a: 1, b: 2}) { id } owner(in: {b: 2, a: 1}, id: 1) { name } } }",
        "{ pet { ... on Dog { s: barks } ... on Cat { s: meows } } }", /* exclusive */
        "{ any { ... on Dog { owner(id: 1) { id } } ... on Cat { owner(id: 2) { id } } } }",
        "{ dog { ...A ...A name } } fragment A on Dog { name }",
        "{ dog { owner { id } owner { name } } }", /* sub-selections merge */
        "query Q($v: ID) { dog { owner(id: $v) { id } owner(id: $v) { id } } }",
    };
    for (size_t i = 0; i < sizeof accepted / sizeof *accepted; i++) {
        const char *r = judge(accepted[i]);
        if (r[0] != '\0')
            fail_msg("refused (%s): %s", r, accepted[i]);
    }
}

/* n copies of one field: n(n-1)/2 comparisons of 2 steps each (as graphql-js counts them). */
static char *copies(size_t n)
{
    char *doc = calloc(1, n * 2 + 8);
    assert_non_null(doc);
    doc[0] = '{';
    for (size_t i = 0; i <= n; i++)
        memcpy(doc + 1 + 2 * i, " x", 2);
    memcpy(doc + 1 + 2 * n, " }", 2);
    return doc;
}

static void test_budget_refuses_like_graphql_js(void **state)
{
    (void)state;
    char *small = copies(400); /* 159,600 steps */
    char *large = copies(800); /* 639,200 steps: past the 500,000 budget */
    assert_string_equal(judge(small), "");
    assert_string_equal(judge(large), "graphql_overlap_budget");
    free(small);
    free(large);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conflicts_are_refused),
        cmocka_unit_test(test_mergeable_fields_pass),
        cmocka_unit_test(test_budget_refuses_like_graphql_js),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
