/*
 * test_cedar_parser.c — Cedar policy parsing: accepted forms, ids and annotations, and every
 * parse error asserted whole ("<source>:<line>:<col>: <what> near '<tok>'").
 */
#include "cedar_test_util.h"

static void accepts_the_grammar(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    static const char *const ok[] = {
        "permit(principal, action, resource);",
        "forbid(principal == User::\"a\", action == Action::\"r\", resource == Doc::\"d\");",
        "permit(principal in Ns::Group::\"g\", action in [Action::\"x\", Ns::Action::\"y\",], "
        "resource,);",
        "permit(principal is User, action in Action::\"x\", resource is Ns::Doc in Ns::F::\"f\");",
        "@id(\"p\") @advice(\"x\") @bare permit(principal, action, resource) when { true } "
        "unless { false } when { 1 < 2 };",
        "permit(principal, action, resource) when { -9223372036854775808 < 0 && - - 1 == 1 };",
        "permit(principal, action, resource) when { [1, 2,] == [1, 2] && {a: 1, \"b c\": 2,} "
        "has \"b c\" };",
        "permit(principal, action, resource) when { context has a.b.c && \"x\" like \"a\\*b*\" "
        "};",
        "permit(principal, action, resource) when { if context.a then ip(\"::1\").isLoopback() "
        "else principal.x[\"y\"].contains(1) };",
        "// comment\npermit(principal, action, resource) // trailing\n;",
        "",
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        assert_string_equal(cedar_parse_error(a, ok[i]), "OK");
    sluice_arena_free(a);
}

static void errors_have_place_and_token(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    static const char *const cases[][2] = {
        { "permit(principal, action, resource)", "p.cedar:1:36: expected ';' to end the policy "
                                                 "near end of input" },
        { "permit(principal, action, resource) when { 1 < 2 < 3 };",
          "p.cedar:1:50: multiple relational operators (==, <, in, has, ...) need parentheses "
          "near '<'" },
        { "permit(principal,\n  action,\n  resource) when { foo };",
          "p.cedar:3:20: invalid variable (expected principal, action, resource or context) "
          "near 'foo'" },
        { "permit(principal, action, resource) when { 9223372036854775808 > 0 };",
          "p.cedar:1:44: integer literal is too large near '9223372036854775808'" },
        { "permit(principal, action, resource) when { !!!!!true };",
          "p.cedar:1:48: too many occurrences of a unary operator (limit is 4) near '!'" },
        { "permit(principal, action, resource) when { \"a\\*\" == \"a\" };",
          "p.cedar:1:44: the escape `\\*` is only allowed in `like` patterns near '\"a\\*\"'" },
        { "permit(principal, action, resource) when { {a: 1, a: 2} == {} };",
          "p.cedar:1:51: duplicate key in record literal near 'a'" },
        { "@id(\"x\") @id(\"y\") permit(principal, action, resource);",
          "p.cedar:1:11: duplicate annotation near 'id'" },
        { "permit(principal, action, resource) when { [1].contains() };",
          "p.cedar:1:48: this call takes exactly one argument near 'contains'" },
        { "permit(principal, action, resource) when { [1].foo() };",
          "p.cedar:1:48: not a valid method near 'foo'" },
        { "permit(principal, action, resource) when { foo(1) };",
          "p.cedar:1:44: not a valid function near 'foo'" },
        { "permit(principal, action, resource) when { context.if };",
          "p.cedar:1:52: this identifier is reserved and cannot be used near 'if'" },
        { "permit(principal, action, resource) when { principal is 1 };",
          "p.cedar:1:57: expected an entity type name after 'is' near '1'" },
        { "allow(principal, action, resource);",
          "p.cedar:1:1: expected 'permit' or 'forbid' near 'allow'" },
        { "permit(principal == ?principal, action, resource);",
          "p.cedar:1:21: templates (?principal, ?resource) are not supported near '?'" },
        { "permit(principal, action, resource) when { \"abc };",
          "p.cedar:1:44: unterminated string literal near '\"abc };'" },
        { "permit(principal, action, resource) when { \"abc\n  };",
          "p.cedar:1:44: unterminated string literal near '\"abc...'" },
        { "permit(principal, action, resource) when { 1 # 2 };",
          "p.cedar:1:46: unexpected character near '#'" },
        { "permit(principal, action, resource) when { !-1 };",
          "p.cedar:1:45: mixing '!' and '-' needs parentheses near '-'" },
        { "permit(principal, action in [Action::\"a\", Acton::\"b\"], resource);",
          "p.cedar:1:43: expected an entity of type Action in the action scope near 'Acton'" },
        { "permit(principal, action, resource) when { };",
          "p.cedar:1:44: a condition needs an expression near '}'" },
        { "permit(principal, action, resource) when { \"\\u{d800}\" };",
          "p.cedar:1:44: invalid escape `\\u` (expected \\u{hex} naming a character) near "
          "'\"\\u{d800}\"'" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_string_equal(cedar_parse_error(a, cases[i][0]), cases[i][1]);
    sluice_arena_free(a);
}

static void ids_annotations_and_lines(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_cedar_policyset *set = cedar_parse_ok(
        a, "permit(principal, action, resource);\n\n@id(\"deny-all\")\nforbid(\n  principal,\n"
           "  action,\n  resource\n);\n");
    assert_int_equal(sluice_cedar_policyset_count(set), 2);
    const sluice_cedar_policy *p0 = sluice_cedar_policyset_get(set, 0);
    const sluice_cedar_policy *p1 = sluice_cedar_policyset_get(set, 1);
    assert_string_equal(sluice_cedar_policy_id(p0), "policy0");
    assert_string_equal(sluice_cedar_policy_id(p1), "policy1"); /* @id does not rename */
    assert_string_equal(sluice_cedar_policy_annotation(p1, "id"), "deny-all");
    assert_null(sluice_cedar_policy_annotation(p0, "id"));
    assert_false(sluice_cedar_policy_is_forbid(p0));
    assert_true(sluice_cedar_policy_is_forbid(p1));
    assert_int_equal(sluice_cedar_policy_first_line(p1), 3);
    assert_int_equal(sluice_cedar_policy_last_line(p1), 8);
    size_t len;
    const char *text = sluice_cedar_policy_text(p0, &len);
    assert_int_equal(len, strlen("permit(principal, action, resource);"));
    assert_memory_equal(text, "permit(", 7);
    sluice_arena_free(a);
}

static void policies_under_caller_ids(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_cedar_policyset *set = sluice_cedar_policyset_new(a);
    const char *t = "permit(principal, action, resource);";
    sluice_error err;
    assert_int_equal(sluice_cedar_policyset_add(a, set, "read", t, strlen(t), "read", &err),
                     SLUICE_OK);
    assert_int_equal(sluice_cedar_policyset_add(a, set, "read", t, strlen(t), "read", &err),
                     SLUICE_E_INVALID);
    assert_string_equal(err.message, "duplicate policy id 'read'");
    const char *two = "permit(principal, action, resource); forbid(principal, action, resource);";
    assert_int_equal(sluice_cedar_policyset_add(a, set, "two", two, strlen(two), "two", &err),
                     SLUICE_E_INVALID);
    assert_string_equal(err.message, "expected exactly one policy near 'forbid'");
    assert_string_equal(sluice_cedar_policy_id(sluice_cedar_policyset_get(set, 0)), "read");
    sluice_arena_free(a);
}

/* A hostile policy nests deeply: the parser must refuse, not overflow its stack. */
static void nesting_is_bounded(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    size_t n = 5000;
    char *text = sluice_arena_alloc(a, 3 * n + 100);
    size_t o = 0;
    o += (size_t)snprintf(text, 100, "permit(principal, action, resource) when { ");
    for (size_t i = 0; i < n; i++)
        text[o++] = '(';
    text[o++] = '1';
    for (size_t i = 0; i < n; i++)
        text[o++] = ')';
    memcpy(text + o, " };", 4);
    sluice_error err;
    sluice_cedar_policyset *set;
    assert_int_equal(sluice_cedar_policyset_parse(a, text, strlen(text), "deep", &set, &err),
                     SLUICE_E_LIMIT);
    assert_string_equal(err.message, "expression nests too deeply (limit is 128) near '('");

    /* A long flat chain (no recursion in the parser) is bounded for the evaluator's sake. */
    o = (size_t)snprintf(text, 100, "permit(principal, action, resource) when { 1");
    for (size_t i = 0; i < 1200; i++) {
        memcpy(text + o, "+1", 2);
        o += 2;
    }
    memcpy(text + o, " == 1 };", 9);
    assert_int_equal(sluice_cedar_policyset_parse(a, text, strlen(text), "deep", &set, &err),
                     SLUICE_E_LIMIT);
    sluice_arena_free(a);
}

static void entity_reference_syntax(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_cedar_uid uid = cedar_uid(a, "CodeMode :: User :: \"al\\\"ice\"");
    assert_int_equal(uid.type_len, strlen("CodeMode::User"));
    assert_memory_equal(uid.type, "CodeMode::User", uid.type_len);
    assert_memory_equal(uid.id, "al\"ice", uid.id_len);
    sluice_error err;
    assert_int_equal(sluice_cedar_uid_parse(a, "User", 4, &uid, &err), SLUICE_E_INVALID);
    assert_string_equal(err.message,
                        "expected an entity reference like Type::\"id\" near end of input");
    assert_int_equal(sluice_cedar_uid_parse(a, "User::\"a\" x", 11, &uid, &err), SLUICE_E_INVALID);
    sluice_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepts_the_grammar),       cmocka_unit_test(errors_have_place_and_token),
        cmocka_unit_test(ids_annotations_and_lines), cmocka_unit_test(policies_under_caller_ids),
        cmocka_unit_test(nesting_is_bounded),        cmocka_unit_test(entity_reference_syntax),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
