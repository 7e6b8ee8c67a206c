/*
 * test_json_schema.c — schema checking (fail closed) and validation messages with JSON paths.
 */
#include "core/json_schema.h"
#include "unit.h"

#include <string.h>

static sluice_arena *arena;

static int setup(void **state)
{
    (void)state;
    arena = sluice_arena_new();
    return arena == NULL;
}

static int teardown(void **state)
{
    (void)state;
    sluice_arena_free(arena);
    return 0;
}

static json_t *parse(const char *text)
{
    json_error_t e;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &e);
    assert_non_null(v);
    return v;
}

/* Checks schema, validates instance; returns the error message or NULL when valid. */
static const char *run(const char *schema_text, const char *instance_text)
{
    json_t *schema = parse(schema_text);
    json_t *instance = parse(instance_text);
    sluice_error err;
    sluice_error_clear(&err);
    assert_int_equal(sluice_json_schema_check(schema, "inputSchema", arena, &err), SLUICE_OK);
    sluice_status st = sluice_json_schema_validate(schema, instance, "arguments", arena, &err);
    json_decref(schema);
    json_decref(instance);
    return st == SLUICE_OK ? NULL : err.message;
}

static const char *check_only(const char *schema_text)
{
    json_t *schema = parse(schema_text);
    sluice_error err;
    sluice_error_clear(&err);
    sluice_status st = sluice_json_schema_check(schema, "inputSchema", arena, &err);
    json_decref(schema);
    return st == SLUICE_OK ? NULL : err.message;
}

static const char *code_schema = "{\"type\":\"object\",\"properties\":{\"code\":{\"type\":"
                                 "\"string\",\"minLength\":1},\"n\":{\"type\":\"integer\","
                                 "\"minimum\":1,\"maximum\":10}},\"required\":[\"code\"],"
                                 "\"additionalProperties\":false}";

static void test_schema_accepts_valid_instance(void **state)
{
    (void)state;
    assert_null(run(code_schema, "{\"code\":\"select 1\",\"n\":3}"));
    assert_null(run(code_schema, "{\"code\":\"x\",\"n\":3.0}")); /* 3.0 is an integer */
}

static void test_schema_type_error_names_path(void **state)
{
    (void)state;
    assert_string_equal(run(code_schema, "{\"code\":42}"),
                        "arguments.code: expected string, got number");
    assert_string_equal(run(code_schema, "{\"code\":\"x\",\"n\":2.5}"),
                        "arguments.n: expected integer, got number");
    assert_string_equal(run("{\"type\":[\"string\",\"null\"]}", "true"),
                        "arguments: expected string or null, got boolean");
}

static void test_schema_required_and_additional(void **state)
{
    (void)state;
    assert_string_equal(run(code_schema, "{}"), "arguments: missing required property 'code'");
    assert_string_equal(run(code_schema, "{\"code\":\"x\",\"extra\":1}"),
                        "arguments.extra: unexpected property (allowed: code, n)");
    assert_string_equal(run("{\"type\":\"object\",\"additionalProperties\":{\"type\":\"number\"}}",
                            "{\"a b\":\"x\"}"),
                        "arguments[\"a b\"]: expected number, got string");
}

static void test_schema_ranges_and_lengths(void **state)
{
    (void)state;
    assert_string_equal(run(code_schema, "{\"code\":\"\"}"),
                        "arguments.code: must have at least 1 characters, got 0");
    assert_string_equal(run(code_schema, "{\"code\":\"x\",\"n\":11}"),
                        "arguments.n: must be <= 10, got 11");
    assert_string_equal(run(code_schema, "{\"code\":\"x\",\"n\":0}"),
                        "arguments.n: must be >= 1, got 0");
    /* Lengths count code points, not bytes. */
    assert_null(run("{\"type\":\"string\",\"maxLength\":2}", "\"\u00e9\u00e9\""));
    assert_string_equal(run("{\"exclusiveMaximum\":5}", "5"), "arguments: must be < 5, got 5");
    assert_string_equal(run("{\"multipleOf\":0.5}", "1.25"),
                        "arguments: must be a multiple of 0.5, got 1.25");
}

static void test_schema_enum_const_items(void **state)
{
    (void)state;
    assert_string_equal(run("{\"enum\":[\"sql\",\"graphql\"]}", "\"js\""),
                        "arguments: expected one of [\"sql\",\"graphql\"], got \"js\"");
    assert_null(run("{\"enum\":[1]}", "1.0"));
    assert_string_equal(run("{\"const\":\"a\"}", "\"b\""), "arguments: expected \"a\", got \"b\"");
    assert_string_equal(
        run("{\"type\":\"array\",\"items\":{\"type\":\"integer\"},\"maxItems\":3}", "[1,2,\"x\"]"),
        "arguments[2]: expected integer, got string");
    assert_string_equal(run("{\"type\":\"array\",\"minItems\":2}", "[1]"),
                        "arguments: must have at least 2 items, got 1");
    assert_string_equal(run("{\"uniqueItems\":true}", "[1,2,1]"),
                        "arguments: items [0] and [2] are equal; items must be unique");
}

static void test_schema_refs_and_defs(void **state)
{
    (void)state;
    const char *schema = "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\","
                         "\"type\":\"object\",\"properties\":{\"home\":{\"$ref\":\"#/$defs/"
                         "address\"}},\"$defs\":{\"address\":{\"type\":\"object\",\"properties\":"
                         "{\"zip\":{\"type\":\"string\"}},\"required\":[\"zip\"]}}}";
    assert_null(run(schema, "{\"home\":{\"zip\":\"8000\"}}"));
    assert_string_equal(run(schema, "{\"home\":{\"zip\":8000}}"),
                        "arguments.home.zip: expected string, got number");
    /* A recursive schema terminates on finite data. */
    const char *tree = "{\"type\":\"object\",\"properties\":{\"kids\":{\"type\":\"array\","
                       "\"items\":{\"$ref\":\"#\"}}}}";
    assert_null(run(tree, "{\"kids\":[{\"kids\":[]},{}]}"));
    assert_string_equal(run(tree, "{\"kids\":[{\"kids\":[1]}]}"),
                        "arguments.kids[0].kids[0]: expected object, got number");
}

static void test_schema_combinators(void **state)
{
    (void)state;
    const char *any = "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}";
    assert_null(run(any, "3"));
    assert_string_equal(run(any, "true"),
                        "arguments: does not match any of the 2 schemas in anyOf (first "
                        "mismatch: arguments: expected string, got boolean)");
    const char *one = "{\"oneOf\":[{\"type\":\"number\"},{\"type\":\"integer\"}]}";
    assert_null(run(one, "1.5"));
    assert_string_equal(run(one, "1"),
                        "arguments: matches 2 of the schemas in oneOf, expected exactly one");
    assert_string_equal(run("{\"allOf\":[{\"minimum\":1},{\"maximum\":2}]}", "3"),
                        "arguments: must be <= 2, got 3");
    assert_string_equal(run("{\"not\":{\"type\":\"null\"}}", "null"),
                        "arguments: must not match the schema in 'not'");
    assert_string_equal(run("{\"properties\":{\"x\":false}}", "{\"x\":1}"),
                        "arguments.x: no value is allowed here");
}

static void test_schema_check_fails_closed_on_unknown_keywords(void **state)
{
    (void)state;
    assert_string_equal(check_only("{\"type\":\"object\",\"properties\":{\"s\":{\"type\":"
                                   "\"string\",\"pattern\":\"^a\"}}}"),
                        "inputSchema.properties.s.pattern: unsupported JSON Schema keyword "
                        "'pattern' (sluice refuses constraints it cannot enforce; remove it or "
                        "express it with supported keywords)");
    assert_non_null(check_only("{\"if\":{},\"then\":{}}"));
    /* Annotations are fine. */
    assert_null(check_only("{\"type\":\"string\",\"title\":\"t\",\"description\":\"d\","
                           "\"default\":\"x\",\"examples\":[\"y\"],\"format\":\"email\"}"));
}

static void test_schema_check_rejects_bad_refs_and_dialects(void **state)
{
    (void)state;
    assert_string_equal(check_only("{\"$ref\":\"https://example.com/s.json\"}"),
                        "inputSchema.$ref: $ref 'https://example.com/s.json' does not resolve to "
                        "a schema in this document (only local refs such as '#/$defs/name' are "
                        "supported)");
    assert_non_null(check_only("{\"$ref\":\"#/$defs/missing\"}"));
    assert_string_equal(check_only("{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/a\"}},\"$ref\":\"#/"
                                   "$defs/a\"}"),
                        "inputSchema.$defs.a.$ref: $ref '#/$defs/a' refers to itself");
    assert_non_null(check_only("{\"$schema\":\"http://json-schema.org/draft-04/schema#\"}"));
    assert_null(check_only("{\"$schema\":\"http://json-schema.org/draft-07/schema#\"}"));
    assert_string_equal(check_only("{\"minLength\":-1}"),
                        "inputSchema.minLength: must be a non-negative integer, got -1");
    assert_string_equal(check_only("{\"type\":\"text\"}"),
                        "inputSchema.type: unknown type \"text\"");
}

static void test_schema_validation_work_is_bounded(void **state)
{
    (void)state;
    /* Two branches that both recurse on the same value: 2^depth without a work ceiling. */
    const char *schema = "{\"anyOf\":[{\"type\":\"array\",\"items\":{\"$ref\":\"#\"}},"
                         "{\"type\":\"array\",\"items\":{\"$ref\":\"#\"}}],\"not\":{}}";
    char instance[200];
    memset(instance, '[', 60);
    memset(instance + 60, ']', 60);
    instance[120] = '\0';
    const char *msg = run(schema, instance);
    assert_non_null(msg);
    assert_non_null(strstr(msg, "too much work to validate this value (limit is 1000000 schema "
                                "checks)"));
    json_t *many = json_array();
    for (int i = 0; i < 5000; i++)
        json_array_append_new(many, json_integer(i));
    json_t *unique = json_pack("{s:b}", "uniqueItems", 1);
    sluice_error err;
    assert_int_equal(sluice_json_schema_validate(unique, many, "arguments", arena, &err),
                     SLUICE_E_LIMIT);
    assert_string_equal(err.message,
                        "arguments: too many items to check uniqueItems (limit is 4096)");
    json_decref(unique);
    json_decref(many);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schema_accepts_valid_instance),
        cmocka_unit_test(test_schema_type_error_names_path),
        cmocka_unit_test(test_schema_required_and_additional),
        cmocka_unit_test(test_schema_ranges_and_lengths),
        cmocka_unit_test(test_schema_enum_const_items),
        cmocka_unit_test(test_schema_refs_and_defs),
        cmocka_unit_test(test_schema_combinators),
        cmocka_unit_test(test_schema_check_fails_closed_on_unknown_keywords),
        cmocka_unit_test(test_schema_check_rejects_bad_refs_and_dialects),
        cmocka_unit_test(test_schema_validation_work_is_bounded),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
