/*
 * test_graphql_parser.c — the GraphQL language layer (src/lang/graphql/): the tree the parser
 * builds, string and block-string decoding, every kind of error asserted whole with its line
 * and column, the limits refusing with their name and value (and no stack overflow however
 * deep the input), the printer on the cases its layout rules decide, the canonical hash, and
 * allocation failure at every step. The differential test (tests/diff/ctest_graphql_js.sh)
 * checks agreement with graphql-js at scale; these pin the behaviour one case at a time.
 */
#include "core/hash.h"
#include "core/limits.h"
#include "syntax/graphql/graphql.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses text; returns "OK" or "<line>:<col>: <message>" (in the arena). */
static const char *outcome(sluice_arena *a, const char *text)
{
    sluice_gql_document *doc;
    sluice_error err;
    sluice_error_clear(&err);
    if (sluice_graphql_parse(a, text, strlen(text), "q.graphql", NULL, &doc, &err) == SLUICE_OK)
        return "OK";
    return sluice_arena_printf(a, "%zu:%zu: %s", err.line, err.column, err.message);
}

/* The printed form of text (which must parse). */
static const char *printed(sluice_arena *a, const char *text)
{
    sluice_gql_document *doc;
    sluice_error err;
    sluice_error_clear(&err);
    assert_int_equal(sluice_graphql_parse(a, text, strlen(text), "q", NULL, &doc, &err), SLUICE_OK);
    size_t n;
    const char *out = sluice_graphql_print(a, doc, &n);
    assert_non_null(out);
    assert_int_equal(strlen(out), n);
    return out;
}

static sluice_gql_document *parsed(sluice_arena *a, const char *text)
{
    sluice_gql_document *doc = NULL;
    assert_int_equal(sluice_graphql_parse(a, text, strlen(text), "q", NULL, &doc, NULL), SLUICE_OK);
    return doc;
}

static bool str_is(sluice_gql_str s, const char *want)
{
    return s.ptr != NULL && s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0;
}

static void builds_the_tree_of_the_seed_operation(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_gql_document *doc =
        parsed(a, "query RecentCustomersSnapshot {\n"
                  "  customers(orderBy: { createdAt: DESC }, limit: 3) {\n"
                  "    id name segment\n"
                  "    recent: orders(orderBy: { placedAt: DESC }, limit: 2) { id total }\n"
                  "    ... on Customer @include(if: true) { ssn }\n"
                  "    ...Tickets\n"
                  "  }\n"
                  "}\n"
                  "fragment Tickets on Customer { supportTickets(filter: {status: OPEN}) { id } }");
    const sluice_gql_definition *op = doc->definitions;
    assert_int_equal(op->kind, SLUICE_GQL_OPERATION_DEFINITION);
    assert_int_equal(op->operation, SLUICE_GQL_QUERY);
    assert_true(str_is(op->name, "RecentCustomersSnapshot"));
    const sluice_gql_selection *customers = op->selections;
    assert_true(str_is(customers->name, "customers"));
    const sluice_gql_argument *order_by = customers->arguments;
    assert_true(str_is(order_by->name, "orderBy"));
    assert_int_equal(order_by->value->kind, SLUICE_GQL_OBJECT);
    assert_true(str_is(order_by->value->fields->name, "createdAt"));
    assert_int_equal(order_by->value->fields->value->kind, SLUICE_GQL_ENUM);
    assert_int_equal(order_by->next->value->kind, SLUICE_GQL_INT);
    assert_true(str_is(order_by->next->value->text, "3"));
    const sluice_gql_selection *s = customers->selections->next->next->next;
    assert_true(str_is(s->alias, "recent"));
    assert_true(str_is(s->name, "orders"));
    s = s->next;
    assert_int_equal(s->kind, SLUICE_GQL_INLINE_FRAGMENT);
    assert_true(str_is(s->type_condition, "Customer"));
    assert_true(str_is(s->directives->name, "include"));
    assert_int_equal(s->directives->arguments->value->kind, SLUICE_GQL_BOOLEAN);
    assert_true(s->directives->arguments->value->boolean);
    assert_int_equal(s->next->kind, SLUICE_GQL_FRAGMENT_SPREAD);
    assert_true(str_is(s->next->name, "Tickets"));
    const sluice_gql_definition *frag = op->next;
    assert_int_equal(frag->kind, SLUICE_GQL_FRAGMENT_DEFINITION);
    assert_true(str_is(frag->type_condition, "Customer"));
    assert_null(frag->next);
    assert_int_equal(doc->max_depth, 3); /* selection sets, and the filter object inside one */
    size_t line, col;
    sluice_graphql_locate(doc->text, doc->text_len, s->offset, &line, &col);
    assert_int_equal(line, 5);
    assert_int_equal(col, 5);
    sluice_arena_free(a);
}

static void decodes_strings_and_block_strings(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_gql_document *doc = parsed(
        a,
        "{ f(a: \"\\u00e9\\u{1F600}\\uD83D\\uDE00\\n\\\"\\\\\\/\\b\", "
        "b: \"\"\"\r\n    first\r\n      second\r\n\r\n    \\\"\"\" third\r\n  \"\"\", c: \"\") }");
    const sluice_gql_argument *arg = doc->definitions->selections->arguments;
    assert_false(arg->value->block);
    assert_string_equal(arg->value->text.ptr, "\xC3\xA9\xF0\x9F\x98\x80\xF0\x9F\x98\x80\n\"\\/\b");
    arg = arg->next;
    assert_true(arg->value->block);
    /* common indentation (4) removed, blank first and last lines dropped, CRLF -> \n */
    assert_string_equal(arg->value->text.ptr, "first\n  second\n\n\"\"\" third");
    assert_int_equal(arg->next->value->text.len, 0);
    sluice_arena_free(a);
}

static void syntax_errors_say_what_and_where(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    static const char *const cases[][2] = {
        { "{", "1:2: Syntax Error: Expected Name, found <EOF>." },
        { "", "1:1: Syntax Error: Unexpected <EOF>." },
        { "{ a }}", "1:6: Syntax Error: Unexpected \"}\"." },
        { "query Q(\n  $a: Int = $b\n) { a }",
          "2:13: Syntax Error: Unexpected variable \"$b\" in constant value." },
        { "{ a(x: 0x1) }", "1:9: Syntax Error: Invalid number, expected digit but got: \"x\"." },
        { "{ a(x: 01) }", "1:9: Syntax Error: Invalid number, unexpected digit after 0: \"1\"." },
        { "{ a(x: 1.) }", "1:10: Syntax Error: Invalid number, expected digit but got: \")\"." },
        { "{ a(x: \"\\u{110000}\") }",
          "1:9: Syntax Error: Invalid Unicode escape sequence: \"\\u{110000}\"." },
        { "{ a(x: \"\\uD800\") }",
          "1:9: Syntax Error: Invalid Unicode escape sequence: \"\\uD800\"." },
        { "{ a(x: \"\\q\") }", "1:9: Syntax Error: Invalid character escape sequence: \"\\q\"." },
        { "{ a(x: \"open\n\") }", "1:13: Syntax Error: Unterminated string." },
        { "{ a(x: 'no') }",
          "1:8: Syntax Error: Unexpected single quote character ('), did you mean to use a "
          "double quote (\")?" },
        /* columns count characters: é is one */
        { "{ \xC3\xA9 }", "1:3: Syntax Error: Unexpected character: U+00E9." },
        { "{ a }\r\n\r{ b \x01 }", "3:5: Syntax Error: Unexpected character: U+0001." },
        { "{ a \xFF }", "1:5: Syntax Error: Invalid character: byte 0xFF (not UTF-8)." },
        { "\"d\" { a }",
          "1:1: Syntax Error: Unexpected description, descriptions are not supported on "
          "shorthand queries." },
        { "\"d\" extend type T @x",
          "1:1: Syntax Error: Unexpected description, only GraphQL definitions support "
          "descriptions." },
        { "enum E { true }",
          "1:10: Syntax Error: Name \"true\" is reserved and cannot be used for an enum value." },
        { "extend type T", "1:14: Syntax Error: Unexpected <EOF>." },
        { "directive @d on FIELD | NOWHERE", "1:25: Syntax Error: Unexpected Name \"NOWHERE\"." },
        { "fragment on on T { a }", "1:10: Syntax Error: Unexpected Name \"on\"." },
        { "query Q(a: Int) { a }", "1:9: Syntax Error: Expected \"$\", found Name \"a\"." },
        { "type T { f: }", "1:13: Syntax Error: Expected Name, found \"}\"." },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_string_equal(outcome(a, cases[i][0]), cases[i][1]);
    sluice_arena_free(a);
}

/* A document nesting n selection sets: {a{a{...}}}. */
static char *nested(size_t n)
{
    char *s = malloc(4 * n + 2);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        s[o++] = '{';
        s[o++] = 'a';
    }
    for (size_t i = 0; i < n; i++)
        s[o++] = '}';
    s[o] = '\0';
    return s;
}

static void limits_refuse_with_name_and_value(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_error err;
    sluice_gql_document *doc;
    /* exactly at the nesting limit is fine; one more is refused where it happens */
    char *ok = nested(SLUICE_LIMIT_GRAPHQL_DEPTH);
    assert_string_equal(outcome(a, ok), "OK");
    free(ok);
    char *deep = nested(SLUICE_LIMIT_GRAPHQL_DEPTH + 1);
    assert_int_equal(sluice_graphql_parse(a, deep, strlen(deep), "q", NULL, &doc, &err),
                     SLUICE_E_LIMIT);
    assert_string_equal(err.message,
                        "too many levels of nesting in the GraphQL document (limit is 256)");
    assert_int_equal(err.column, 2 * SLUICE_LIMIT_GRAPHQL_DEPTH + 1);
    assert_non_null(err.hint);
    free(deep);
    /* far deeper than any stack could take: still a clean refusal */
    char *hostile = nested(200000);
    assert_int_equal(sluice_graphql_parse(a, hostile, strlen(hostile), "q", NULL, &doc, &err),
                     SLUICE_E_LIMIT);
    free(hostile);
    char list[4000];
    memset(list, '[', sizeof(list) - 1);
    list[sizeof(list) - 1] = '\0';
    char *q = sluice_arena_printf(a, "{ a(b: %s) }", list);
    assert_int_equal(sluice_graphql_parse(a, q, strlen(q), "q", NULL, &doc, &err), SLUICE_E_LIMIT);
    /* tokens: { + 14998 names + } = 15000 passes; with one more name } is the 15001st */
    size_t names = SLUICE_LIMIT_GRAPHQL_TOKENS - 2;
    char *many = malloc(2 * names + 8);
    size_t o = 0;
    many[o++] = '{';
    for (size_t i = 0; i < names; i++) {
        many[o++] = ' ';
        many[o++] = 'a';
    }
    memcpy(many + o, " }", 3);
    assert_int_equal(sluice_graphql_parse(a, many, strlen(many), "q", NULL, &doc, &err), SLUICE_OK);
    assert_int_equal(doc->token_count, SLUICE_LIMIT_GRAPHQL_TOKENS);
    many[o + 1] = 'a';
    many[o + 2] = '}';
    many[o + 3] = '\0';
    assert_int_equal(sluice_graphql_parse(a, many, strlen(many), "q", NULL, &doc, &err),
                     SLUICE_E_LIMIT);
    assert_string_equal(err.message, "too many tokens in the GraphQL document (limit is 15000)");
    assert_int_equal(err.column, 2 * SLUICE_LIMIT_GRAPHQL_TOKENS); /* the closing brace */
    free(many);
    /* a configured limit lowers the hard one, never raises it */
    sluice_graphql_limits small = { 10, 3, 1 };
    assert_int_equal(sluice_graphql_parse(a, "{ a b }", 7, "q", &small, &doc, &err),
                     SLUICE_E_LIMIT);
    assert_string_equal(err.message, "too many tokens in the GraphQL document (limit is 3)");
    assert_int_equal(sluice_graphql_parse(a, "{ a { b } }", 11, "q", &small, &doc, &err),
                     SLUICE_E_LIMIT);
    assert_int_equal(sluice_graphql_parse(a, "{ aaaaaaaa }", 12, "q", &small, &doc, &err),
                     SLUICE_E_LIMIT);
    assert_string_equal(err.message, "the GraphQL document is too large (12 bytes; limit is 10)");
    sluice_graphql_limits huge = { SIZE_MAX, SIZE_MAX, 100000 };
    char *deep2 = nested(SLUICE_LIMIT_GRAPHQL_DEPTH + 1);
    assert_int_equal(sluice_graphql_parse(a, deep2, strlen(deep2), "q", &huge, &doc, &err),
                     SLUICE_E_LIMIT);
    free(deep2);
    /* operations are bounded in bytes; schemas may be larger */
    size_t big = SLUICE_LIMIT_GRAPHQL_DOCUMENT_BYTES + 1;
    char *text = malloc(big + 1);
    memset(text, ' ', big);
    memcpy(text, "{ a }", 5);
    assert_int_equal(sluice_graphql_parse(a, text, big, "q", NULL, &doc, &err), SLUICE_E_LIMIT);
    sluice_graphql_limits sdl = sluice_graphql_sdl_limits();
    assert_int_equal(sluice_graphql_parse(a, text, big, "q", &sdl, &doc, &err), SLUICE_OK);
    sluice_graphql_limits tokens_only = { 0, 100, 0 }; /* zero: the operation default */
    assert_int_equal(sluice_graphql_parse(a, text, big, "q", &tokens_only, &doc, &err),
                     SLUICE_E_LIMIT);
    assert_string_equal(err.message,
                        "the GraphQL document is too large (262145 bytes; limit is 262144)");
    free(text);
    sluice_arena_free(a);
}

static void prints_as_graphql_js_does(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    static const char *const cases[][2] = {
        /* commas, comments and whitespace go; shorthand stays shorthand */
        { "query { a, b # c\n , }", "{\n  a\n  b\n}" },
        { "query Q @d { a }", "query Q @d {\n  a\n}" },
        { "query ($a: Int = 1 @x, $b: [S!]!) { a }",
          "query ($a: Int = 1 @x, $b: [S!]!) {\n  a\n}" },
        /* a multi-line variable goes on its own line, not indented (as graphql-js) */
        { "query (\"\"\"d\ne\"\"\" $a: Int) { a }",
          "query (\n\"\"\"\nd\ne\n\"\"\"\n$a: Int\n) {\n  a\n}" },
        /* literals as written; strings re-quoted from their value */
        { "{ a(i: -0, f: 1E10, s: \"\\u0041\\u00e9\\u0007\", e: RED, l: [], o: {}) }",
          "{\n  a(i: -0, f: 1E10, s: \"A\xC3\xA9\\u0007\", e: RED, l: [], o: {})\n}" },
        /* arguments break onto lines past 80 columns */
        { "{ field(argumentNumberOne: \"aaaaaaaaaaaaaaaaaaaaa\", argumentNumberTwo: "
          "\"bbbbbbbbbbb\") }",
          "{\n  field(\n    argumentNumberOne: \"aaaaaaaaaaaaaaaaaaaaa\"\n    argumentNumberTwo: "
          "\"bbbbbbbbbbb\"\n  )\n}" },
        /* block strings: kept block, indented with their field, triple quotes escaped */
        { "{ a { b(s: \"\"\"\n  x\n    y\n  \"\"\") } }",
          "{\n  a {\n    b(s: \"\"\"\n    x\n      y\n    \"\"\")\n  }\n}" },
        { "{ a(s: \"\"\"say \\\"\"\"hi\\\"\"\"\"\"\") }",
          "{\n  a(s: \"\"\"\n  say \\\"\"\"hi\\\"\"\"\n  \"\"\")\n}" },
        { "{ a(s: \"\"\"  lead\"\"\") }", "{\n  a(s: \"\"\"  lead\"\"\")\n}" },
        /* SDL */
        { "\"d\" type T implements & A & B @x { \"f\" f(a: Int = 1): [T!] }",
          "\"d\"\ntype T implements A & B @x {\n  \"f\"\n  f(a: Int = 1): [T!]\n}" },
        { "type T { f(\"a\" a: Int, b: Int): Int }",
          "type T {\n  f(\n    \"a\"\n    a: Int\n    b: Int\n  ): Int\n}" },
        { "union U = | A | B extend union U @d directive @d repeatable on | FIELD | QUERY",
          "union U = A | B\n\nextend union U @d\n\ndirective @d repeatable on FIELD | QUERY" },
        { "schema { query: Q } extend schema @a enum E { A B @d } input I { a: Int = 1 }",
          "schema {\n  query: Q\n}\n\nextend schema @a\n\nenum E {\n  A\n  B @d\n}\n\ninput I {\n  "
          "a: "
          "Int = 1\n}" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_string_equal(printed(a, cases[i][0]), cases[i][1]);
    sluice_arena_free(a);
}

static void canonical_hash_binds_the_canonical_form(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    char h1[65], h2[65], h3[65];
    const char *one = "{ a }";
    const char *two = "query{a,}# different spelling\n";
    assert_int_equal(sluice_graphql_canonical_hash(a, one, strlen(one), NULL, h1, NULL), SLUICE_OK);
    assert_int_equal(sluice_graphql_canonical_hash(a, two, strlen(two), NULL, h2, NULL), SLUICE_OK);
    /* sha256sum of "{\n  a\n}", computed outside sluice */
    assert_string_equal(h1, "99496d904879a73e748d04a234de19a980b264ceb89872159f936d7b99aa9bd7");
    assert_string_equal(h1, h2);
    const char *other = "{ a(x: 1) }";
    assert_int_equal(sluice_graphql_canonical_hash(a, other, strlen(other), NULL, h3, NULL),
                     SLUICE_OK);
    assert_string_not_equal(h1, h3);
    sluice_error err;
    memcpy(h3, "untouched", 10);
    assert_int_equal(sluice_graphql_canonical_hash(a, "{", 1, NULL, h3, &err), SLUICE_E_INVALID);
    assert_string_equal(h3, "untouched");
    assert_int_equal(err.line, 1);
    sluice_arena_free(a);
}

/* Every allocation of a parse and a print fails in turn: each attempt ends in SLUICE_E_NOMEM
 * (never a document, never a crash) until there are enough allocations to succeed. */
static void allocation_failure_fails_closed(void **state)
{
    (void)state;
    const char *text =
        "\"d\" query Q($v: [Int!] = [1]) @d { a: b(s: \"\\u00e9\", t: \"\"\"x\"\"\") "
        "{ ...F ... on T { c } } } fragment F on T { d }";
    for (long n = 1;; n++) {
        sluice_arena *a = sluice_arena_new();
        assert_non_null(a);
        sluice_gql_document *doc = NULL;
        sluice_error err;
        sluice_arena_fail_at(n);
        sluice_status st = sluice_graphql_parse(a, text, strlen(text), "q", NULL, &doc, &err);
        char *out = st == SLUICE_OK ? sluice_graphql_print(a, doc, NULL) : NULL;
        sluice_arena_fail_at(0);
        if (st == SLUICE_OK && out != NULL) {
            assert_true(n > 5);
            sluice_arena_free(a);
            break;
        }
        if (st != SLUICE_OK) {
            assert_int_equal(st, SLUICE_E_NOMEM);
            assert_null(doc);
        }
        sluice_arena_free(a);
        assert_true(n < 10000);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builds_the_tree_of_the_seed_operation),
        cmocka_unit_test(decodes_strings_and_block_strings),
        cmocka_unit_test(syntax_errors_say_what_and_where),
        cmocka_unit_test(limits_refuse_with_name_and_value),
        cmocka_unit_test(prints_as_graphql_js_does),
        cmocka_unit_test(canonical_hash_binds_the_canonical_form),
        cmocka_unit_test(allocation_failure_fails_closed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
