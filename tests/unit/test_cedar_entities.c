/*
 * test_cedar_entities.c — Cedar's entities and context JSON: accepted forms, the transitive
 * hierarchy, and errors (JSON syntax with line and column, shapes with their JSON path,
 * duplicates, cycles, actions with non-action parents).
 */
#include "cedar_test_util.h"
#include "core/buf.h"
#include "policy/cedar/ast.h"

static const char *load_error(sluice_arena *a, const char *json)
{
    sluice_cedar_entities *ents;
    sluice_error err;
    if (sluice_cedar_entities_parse_json(a, json, strlen(json), "e.json", &ents, &err) == SLUICE_OK)
        return "OK";
    if (err.line > 0)
        return sluice_arena_printf(a, "%s:%zu:%zu: %s", err.source, err.line, err.column,
                                   err.message);
    return err.message;
}

static void entity_errors(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    static const char *const cases[][2] = {
        { "[]", "OK" },
        { "[{\"uid\": {\"__entity\": {\"type\": \"U\", \"id\": \"a\"}}, \"attrs\": {}, "
          "\"parents\": [{\"__entity\": {\"type\": \"G\", \"id\": \"g\"}}], \"tags\": {}}]",
          "OK" },
        { "[\n  {\"uid\": {\"type\": \"U\", \"id\": \"a\"},\n   \"attrs\": {\"x\": 1,}}]",
          "e.json:3:21: invalid JSON: string or '}' expected near '}'" },
        { "{}", "e.json:1:1: entities must be a JSON array of entity objects" },
        { "[{\"uid\": {\"type\": \"U\", \"id\": \"a\"}, \"attrs\": {}}]",
          "e.json: [0]: expected {\"uid\": {...}, \"attrs\": {...}, \"parents\": [...]} "
          "(\"tags\" optional)" },
        { "[{\"uid\": {\"type\": \"U\"}, \"attrs\": {}, \"parents\": []}]",
          "e.json: [0]: expected an entity reference {\"type\": \"...\", \"id\": \"...\"}" },
        { "[{\"uid\": {\"type\": \"U\", \"id\": \"a\"}, \"attrs\": {\"f\": 1.5}, \"parents\": "
          "[]}]",
          "e.json: [0].f: Cedar has no floating-point numbers (use decimal)" },
        { "[{\"uid\": {\"type\": \"U\", \"id\": \"a\"}, \"attrs\": {\"n\": [null]}, \"parents\": "
          "[]}]",
          "e.json: [0].n[0]: JSON null is not allowed in Cedar" },
        { "[{\"uid\": {\"type\": \"U\", \"id\": \"a\"}, \"attrs\": {\"d\": {\"__extn\": {\"fn\": "
          "\"decimal\", \"arg\": \"1.x\"}}}, \"parents\": []}]",
          "e.json: [0].d: invalid decimal: expected digits, a '.', then 1 to 4 digits" },
        { "[{\"uid\": {\"type\": \"U\", \"id\": \"a\"}, \"attrs\": {}, \"parents\": []},"
          " {\"uid\": {\"type\": \"U\", \"id\": \"a\"}, \"attrs\": {}, \"parents\": []}]",
          "e.json: [1]: duplicate entity U::\"a\"" },
        { "[{\"uid\": {\"type\": \"U\", \"id\": \"a\"}, \"attrs\": {}, \"parents\": [{\"type\": "
          "\"U\", \"id\": \"b\"}]},"
          " {\"uid\": {\"type\": \"U\", \"id\": \"b\"}, \"attrs\": {}, \"parents\": [{\"type\": "
          "\"U\", \"id\": \"a\"}]}]",
          "e.json: the parent hierarchy has a cycle through U::\"a\"" },
        { "[{\"uid\": {\"type\": \"Ns::Action\", \"id\": \"r\"}, \"attrs\": {}, \"parents\": "
          "[{\"type\": \"U\", \"id\": \"b\"}]}]",
          "e.json: [0]: an action can only have actions as parents" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_string_equal(load_error(a, cases[i][0]), cases[i][1]);
    sluice_arena_free(a);
}

/* Ancestry passes through stored entities only, but undefined parents still count. */
static void hierarchy_closure(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    const char *ents =
        "[{\"uid\": {\"type\": \"U\", \"id\": \"a\"}, \"attrs\": {}, \"parents\": [{\"type\": "
        "\"G\", \"id\": \"g1\"}, {\"type\": \"G\", \"id\": \"ghost\"}]},"
        " {\"uid\": {\"type\": \"G\", \"id\": \"g1\"}, \"attrs\": {}, \"parents\": [{\"type\": "
        "\"G\", \"id\": \"g2\"}]},"
        " {\"uid\": {\"type\": \"G\", \"id\": \"g2\"}, \"attrs\": {}, \"parents\": [{\"type\": "
        "\"G\", \"id\": \"g3\"}]}]";
    static const struct {
        const char *expr;
        int want;
    } rows[] = {
        { "U::\"a\" in G::\"g3\"", CEDAR_TRUE },      { "U::\"a\" in G::\"ghost\"", CEDAR_TRUE },
        { "G::\"g1\" in G::\"g3\"", CEDAR_TRUE },     { "G::\"g3\" in G::\"g1\"", CEDAR_FALSE },
        { "G::\"ghost\" in G::\"g1\"", CEDAR_FALSE },
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        assert_int_equal(cedar_eval_expr(a, rows[i].expr, ents, "{}"), rows[i].want);
    sluice_arena_free(a);
}

static void context_forms(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_cedar_value ctx;
    sluice_error err;
    assert_int_equal(sluice_cedar_context_parse_json(a, "", 0, "ctx", &ctx, &err), SLUICE_OK);
    assert_int_equal(ctx.kind, SLUICE_CEDAR_RECORD);
    assert_int_equal(ctx.len, 0);
    const char *bad = "[1]";
    assert_int_equal(sluice_cedar_context_parse_json(a, bad, 3, "ctx", &ctx, &err),
                     SLUICE_E_INVALID);
    assert_string_equal(err.message, "the context must be a JSON object");
    const char *dup = "{\"a\": 1, \"a\": 2}";
    assert_int_equal(sluice_cedar_context_parse_json(a, dup, strlen(dup), "ctx", &ctx, &err),
                     SLUICE_E_INVALID);
    const char *ok = "{\"who\": {\"__entity\": {\"type\": \"U\", \"id\": \"a\"}}, \"ip\": "
                     "{\"__extn\": {\"fn\": \"ip\", \"arg\": \"10.0.0.1\"}}, \"plain\": "
                     "{\"type\": \"U\", \"id\": \"a\"}}";
    assert_int_equal(sluice_cedar_context_parse_json(a, ok, strlen(ok), "ctx", &ctx, &err),
                     SLUICE_OK);
    assert_int_equal(cedar_eval_expr(a,
                                     "context.who == U::\"a\" && context.ip.isIpv4() && "
                                     "context.plain.id == \"a\"",
                                     "[]", ok),
                     CEDAR_TRUE);

    /* Values built in C (the code-mode wiring path) behave like parsed ones. */
    sluice_cedar_value items[2] = { sluice_cedar_value_string("ssn", 3),
                                    sluice_cedar_value_string("name", 4) };
    sluice_cedar_field fields[2] = {
        { "outputFields", 12, sluice_cedar_value_set(items, 2) },
        { "cost", 4, sluice_cedar_value_long(7) },
    };
    sluice_cedar_value rec;
    assert_int_equal(sluice_cedar_value_record(fields, 2, &rec), SLUICE_OK);
    sluice_cedar_field twice[2] = { { "k", 1, sluice_cedar_value_bool(true) },
                                    { "k", 1, sluice_cedar_value_bool(false) } };
    sluice_cedar_value bad_rec;
    assert_int_equal(sluice_cedar_value_record(twice, 2, &bad_rec), SLUICE_E_INVALID);
    sluice_cedar_policyset *set = cedar_parse_ok(
        a, "permit(principal, action, resource) when { context.outputFields.contains(\"ssn\") "
           "&& context.cost == 7 };");
    sluice_cedar_request req = { .context = rec };
    sluice_cedar_uid_make(&req.principal, "U", 1, "a", 1);
    sluice_cedar_uid_make(&req.action, "A", 1, "r", 1);
    sluice_cedar_uid_make(&req.resource, "R", 1, "x", 1);
    sluice_cedar_decision d;
    assert_int_equal(
        sluice_cedar_is_authorized(set, sluice_cedar_entities_empty(a), &req, a, &d, &err),
        SLUICE_OK);
    assert_true(d.allow);
    sluice_arena_free(a);
}

/* Printing a value gives Cedar text that evaluates back to the same value. */
static void printed_values_parse_back(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    const char *ctx =
        "{\"l\": -9223372036854775808, \"s\": \"tab\\t \\\"q\\\" \\\\ \u00e9\", \"b\": true,"
        " \"set\": [1, \"x\", [true]], \"rec\": {\"a b\": {\"c\": []}, \"\": 0},"
        " \"e\": {\"__entity\": {\"type\": \"Ns::T\", \"id\": \"i\\\"d\"}},"
        " \"ip4\": {\"__extn\": {\"fn\": \"ip\", \"arg\": \"10.1.2.3/8\"}},"
        " \"ip6\": {\"__extn\": {\"fn\": \"ip\", \"arg\": \"fe80::1:2/64\"}},"
        " \"dec\": {\"__extn\": {\"fn\": \"decimal\", \"arg\": \"-922337203685477.5808\"}},"
        " \"dt\": {\"__extn\": {\"fn\": \"datetime\", \"arg\": \"1969-07-20T20:17:40.500-0500\"}},"
        " \"dt2\": {\"__extn\": {\"fn\": \"datetime\", \"arg\": \"9999-12-31\"}},"
        " \"dur\": {\"__extn\": {\"fn\": \"duration\", \"arg\": \"-1d2h3m4s5ms\"}}}";
    sluice_cedar_value v;
    sluice_error err;
    assert_int_equal(sluice_cedar_context_parse_json(a, ctx, strlen(ctx), "ctx", &v, &err),
                     SLUICE_OK);
    assert_int_equal(v.len, 12);
    for (uint32_t i = 0; i < v.len; i++) {
        sluice_buf b;
        sluice_buf_init(&b, a, 4096);
        sluice_cedar_value_print(&b, &v.u.fields[i].value);
        const char *expr =
            sluice_arena_printf(a, "context[\"%s\"] == %s", v.u.fields[i].key, sluice_buf_cstr(&b));
        if (cedar_eval_expr(a, expr, "[]", ctx) != CEDAR_TRUE)
            fail_msg("does not round-trip: %s", expr);
    }
    sluice_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(entity_errors),
        cmocka_unit_test(hierarchy_closure),
        cmocka_unit_test(context_forms),
        cmocka_unit_test(printed_values_parse_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
