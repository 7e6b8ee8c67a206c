/*
 * test_cedar_schema.c — partial validation against a Cedar JSON schema: undeclared entity
 * types and actions, scopes no action applies to, and attribute chains (through records,
 * common types and entity-typed attributes) that name undeclared attributes.
 */
#include "cedar_test_util.h"
#include "policy/cedar/schema.h"

static const char *const SCHEMA =
    "{\"App\": {"
    " \"commonTypes\": {\"Req\": {\"type\": \"Record\", \"attributes\": {"
    "   \"ip\": {\"type\": \"Extension\", \"name\": \"ipaddr\"},"
    "   \"meta\": {\"type\": \"Record\", \"attributes\": {\"depth\": {\"type\": \"Long\"}}}}}},"
    " \"entityTypes\": {"
    "  \"User\": {\"memberOfTypes\": [\"Team\"], \"shape\": {\"type\": \"Record\", \"attributes\": "
    "{\"level\": {\"type\": \"Long\"}, \"team\": {\"type\": \"Entity\", \"name\": \"Team\"}}}},"
    "  \"Team\": {\"shape\": {\"type\": \"Record\", \"attributes\": {\"name\": {\"type\": "
    "\"String\"}}}},"
    "  \"Doc\": {}},"
    " \"actions\": {"
    "  \"read\": {\"appliesTo\": {\"principalTypes\": [\"User\"], \"resourceTypes\": [\"Doc\"],"
    "   \"context\": {\"type\": \"Req\"}}, \"memberOf\": [{\"id\": \"any\"}]},"
    "  \"any\": {}}}}";

/* The problems for policy text, joined with " | ", or "OK". */
static const char *validate(sluice_arena *a, const char *policy)
{
    sluice_cedar_schema *schema;
    sluice_error err;
    assert_int_equal(
        sluice_cedar_schema_parse_json(a, SCHEMA, strlen(SCHEMA), "s.json", &schema, &err),
        SLUICE_OK);
    sluice_cedar_validation v;
    assert_int_equal(sluice_cedar_schema_validate(a, schema, cedar_parse_ok(a, policy), &v),
                     SLUICE_OK);
    if (v.count == 0)
        return "OK";
    const char *out = v.problems[0].message;
    for (size_t i = 1; i < v.count; i++)
        out = sluice_arena_printf(a, "%s | %s", out, v.problems[i].message);
    return out;
}

static void validation_rules(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    static const char *const cases[][2] = {
        { "permit(principal is App::User, action == App::Action::\"read\", resource) when { "
          "principal.level > 2 && principal.team.name == \"x\" && context.meta.depth < 3 && "
          "context.ip.isLoopback() && principal in App::Team::\"t\" };",
          "OK" },
        { "permit(principal, action in App::Action::\"any\", resource is App::Doc);", "OK" },
        { "permit(principal == App::Usr::\"a\", action, resource);",
          "entity type App::Usr is not declared in the schema" },
        { "permit(principal, action == App::Action::\"write\", resource);",
          "action App::Action::\"write\" is not declared in the schema" },
        { "permit(principal is App::Doc, action == App::Action::\"read\", resource);",
          "no action in the schema applies to this policy's scope (check the action and the "
          "principal and resource types against appliesTo)" },
        { "permit(principal, action == App::Action::\"read\", resource) when { principal.lvl "
          "> 1 };",
          "attribute `lvl` is not declared for principal" },
        { "permit(principal, action == App::Action::\"read\", resource) when { "
          "principal.team.title == \"\" };",
          "attribute `title` is not declared for principal (at this depth)" },
        { "permit(principal, action == App::Action::\"read\", resource) when { "
          "context.meta.size > 1 || resource.owner == principal };",
          "attribute `size` is not declared for context (at this depth) | attribute `owner` is "
          "not declared for resource" },
        { "permit(principal, action, resource) when { principal is App::Nope || "
          "App::Ghost::\"g\" == resource };",
          "entity type App::Nope is not declared in the schema | entity type App::Ghost is not "
          "declared in the schema" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_string_equal(validate(a, cases[i][0]), cases[i][1]);
    sluice_arena_free(a);
}

static void schema_shape_errors(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_cedar_schema *schema;
    sluice_error err;
    const char *bad = "{\"App\": {\"entityTypes\": []}}";
    assert_int_equal(sluice_cedar_schema_parse_json(a, bad, strlen(bad), "s.json", &schema, &err),
                     SLUICE_E_INVALID);
    assert_string_equal(err.message, "s.json: namespace \"App\": expected {\"entityTypes\": "
                                     "{...}, \"actions\": {...}}");
    const char *broken = "{\"App\": {\n  \"entityTypes\": {,}}}";
    assert_int_equal(
        sluice_cedar_schema_parse_json(a, broken, strlen(broken), "s.json", &schema, &err),
        SLUICE_E_INVALID);
    assert_int_equal(err.line, 2);
    sluice_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(validation_rules),
        cmocka_unit_test(schema_shape_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
