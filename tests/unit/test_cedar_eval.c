/*
 * test_cedar_eval.c — Cedar evaluation semantics, operator by operator: each row is an
 * expression and whether it is true, false or an evaluation error (checked against cedar-wasm
 * 4.13 semantics; the differential test covers random combinations).
 */
#include "cedar_test_util.h"

static const char *const ENTITIES =
    "[{\"uid\": {\"type\": \"User\", \"id\": \"alice\"},"
    "  \"attrs\": {\"age\": 30, \"name\": \"Alice\", \"manager\": {\"__entity\": {\"type\": "
    "\"User\", \"id\": \"bob\"}}, \"addr\": {\"city\": \"Oslo\"}, \"roles\": [\"dev\", \"ops\"],"
    "  \"ip\": {\"__extn\": {\"fn\": \"ip\", \"arg\": \"10.1.2.3\"}}, \"ref\": {\"type\": "
    "\"User\", \"id\": \"bob\"}},"
    "  \"parents\": [{\"type\": \"Group\", \"id\": \"devs\"}], \"tags\": {\"level\": 3}},"
    " {\"uid\": {\"type\": \"Group\", \"id\": \"devs\"}, \"attrs\": {},"
    "  \"parents\": [{\"type\": \"Group\", \"id\": \"eng\"}]},"
    " {\"uid\": {\"type\": \"User\", \"id\": \"bob\"}, \"attrs\": {\"age\": 50}, \"parents\": "
    "[]}]";

static const char *const CONTEXT =
    "{\"n\": 5, \"big\": 9223372036854775807, \"s\": \"hello\", \"flags\": [1, 2, 3], "
    "\"rec\": {\"a\": {\"b\": 1}}, \"when\": {\"__extn\": {\"fn\": \"datetime\", \"arg\": "
    "\"2024-06-01T12:00:00Z\"}}}";

typedef struct row {
    const char *expr;
    int want;
} row;

static void check_rows(const row *rows, size_t n)
{
    sluice_arena *a = sluice_arena_new();
    for (size_t i = 0; i < n; i++) {
        int got = cedar_eval_expr(a, rows[i].expr, ENTITIES, CONTEXT);
        if (got != rows[i].want)
            fail_msg("%s: got %d, want %d", rows[i].expr, got, rows[i].want);
    }
    sluice_arena_free(a);
}

#define CHECK(rows) check_rows(rows, sizeof(rows) / sizeof(rows[0]))

static void logic_and_conditionals(void **state)
{
    (void)state;
    static const row rows[] = {
        { "true && true", CEDAR_TRUE },
        { "false && (1 + true)", CEDAR_FALSE }, /* short-circuit: right side never runs */
        { "true || (1 + true)", CEDAR_TRUE },
        { "false || 1", CEDAR_ERROR }, /* type error, not false */
        { "1 && true", CEDAR_ERROR },
        { "!false", CEDAR_TRUE },
        { "!1", CEDAR_ERROR },
        { "if context.n > 3 then true else 1 + true", CEDAR_TRUE },
        { "if 1 then true else false", CEDAR_ERROR },
        { "if false then true else false", CEDAR_FALSE },
    };
    CHECK(rows);
}

static void equality_and_comparison(void **state)
{
    (void)state;
    static const row rows[] = {
        { "1 == 1", CEDAR_TRUE },
        { "1 == \"1\"", CEDAR_FALSE }, /* across types: false, not an error */
        { "1 != \"1\"", CEDAR_TRUE },
        { "[1, 1, 2] == [2, 1]", CEDAR_TRUE },
        { "{a: 1, b: [true]} == {b: [true], a: 1}", CEDAR_TRUE },
        { "{a: 1} == {a: 1, b: 2}", CEDAR_FALSE },
        { "User::\"alice\" == principal", CEDAR_TRUE },
        { "principal.ref == User::\"bob\"", CEDAR_FALSE }, /* {type,id} in attrs is a record */
        { "principal.manager == User::\"bob\"", CEDAR_TRUE },
        { "ip(\"127.0.0.1\") == ip(\"127.0.0.1/32\")", CEDAR_TRUE },
        { "decimal(\"1.50\") == decimal(\"1.5\")", CEDAR_TRUE },
        { "1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 3", CEDAR_TRUE },
        { "\"a\" < \"b\"", CEDAR_ERROR },
        { "decimal(\"1.0\") < decimal(\"2.0\")", CEDAR_ERROR }, /* decimals use lessThan */
        { "datetime(\"2024-01-01\") < datetime(\"2024-01-02\")", CEDAR_TRUE },
        { "duration(\"1h\") < duration(\"61m\")", CEDAR_TRUE },
        { "duration(\"1h\") < datetime(\"2024-01-01\")", CEDAR_ERROR },
    };
    CHECK(rows);
}

static void arithmetic_overflows_are_errors(void **state)
{
    (void)state;
    static const row rows[] = {
        { "1 + 2 * 3 == 7", CEDAR_TRUE },
        { "context.n - 10 == -5", CEDAR_TRUE },
        { "context.big + 1 > 0", CEDAR_ERROR },
        { "context.big * 2 > 0", CEDAR_ERROR },
        { "-9223372036854775808 - 1 < 0", CEDAR_ERROR },
        { "-(-9223372036854775808) > 0", CEDAR_ERROR },
        { "- - 5 == 5", CEDAR_TRUE },
        { "1 + \"a\" == 2", CEDAR_ERROR },
    };
    CHECK(rows);
}

static void attributes_and_has(void **state)
{
    (void)state;
    static const row rows[] = {
        { "principal.age == 30", CEDAR_TRUE },
        { "principal[\"name\"] == \"Alice\"", CEDAR_TRUE },
        { "principal.manager.age == 50", CEDAR_TRUE },
        { "principal.nope == 1", CEDAR_ERROR },
        { "resource.x == 1", CEDAR_ERROR }, /* Doc::"d1" is not in the store */
        { "resource has x", CEDAR_FALSE },  /* ... but has is just false */
        { "principal has addr.city", CEDAR_TRUE },
        { "principal has addr.zip", CEDAR_FALSE },
        { "context has rec.a.b", CEDAR_TRUE },
        { "context has n.x", CEDAR_ERROR }, /* n exists but is a Long */
        { "context has missing.x", CEDAR_FALSE },
        { "\"str\" has x", CEDAR_ERROR },
        { "{\"a b\": 1} has \"a b\"", CEDAR_TRUE },
    };
    CHECK(rows);
}

static void hierarchy_is_and_like(void **state)
{
    (void)state;
    static const row rows[] = {
        { "principal in Group::\"devs\"", CEDAR_TRUE },
        { "principal in Group::\"eng\"", CEDAR_TRUE }, /* transitive */
        { "principal in principal", CEDAR_TRUE },
        { "principal in [Group::\"x\", Group::\"eng\"]", CEDAR_TRUE },
        { "principal in [Group::\"eng\", 1]", CEDAR_ERROR },
        { "User::\"zed\" in Group::\"devs\"", CEDAR_FALSE },
        { "Group::\"devs\" in principal", CEDAR_FALSE },
        { "1 in Group::\"devs\"", CEDAR_ERROR },
        { "principal in 1", CEDAR_ERROR },
        { "principal is User", CEDAR_TRUE },
        { "principal is Group", CEDAR_FALSE },
        { "principal is User in Group::\"eng\"", CEDAR_TRUE },
        { "1 is User", CEDAR_ERROR },
        { "\"hello\" like \"h*o\"", CEDAR_TRUE },
        { "\"h*o\" like \"h\\*o\"", CEDAR_TRUE },
        { "\"hello\" like \"h\\*o\"", CEDAR_FALSE },
        { "\"\" like \"*\"", CEDAR_TRUE },
        /* only \* is a literal star: a star spelled \x2a or \u{2a} is a wildcard (cedar-wasm) */
        { "\"hello\" like \"h\\u{2a}o\"", CEDAR_TRUE },
        { "\"hello\" like \"h\\x2ao\"", CEDAR_TRUE },
        { "\"hello\" like \"h\\x2Ao\"", CEDAR_TRUE },
        { "\"hello\" like \"h\\u{002a}\"", CEDAR_TRUE },
        { "\"h*o\" like \"h\\u{2a}\\*o\"", CEDAR_TRUE },
        { "\"hello\" like \"h\\u{2a}\\*o\"", CEDAR_FALSE },
        { "\"h**o\" like \"h\\u{2a}\\*o\"", CEDAR_TRUE },
        { "\"\\\\abc\" like \"\\\\*\"", CEDAR_TRUE },
        { "\"\\\\x\" like \"\\\\\\*\"", CEDAR_FALSE },
        { "\"\\\\*\" like \"\\\\\\*\"", CEDAR_TRUE },
        { "\"abcabc\" like \"*bc*c\"", CEDAR_TRUE },
        { "1 like \"*\"", CEDAR_ERROR },
    };
    CHECK(rows);
}

static void sets_records_and_tags(void **state)
{
    (void)state;
    static const row rows[] = {
        { "context.flags.contains(2)", CEDAR_TRUE },
        { "context.flags.contains(\"2\")", CEDAR_FALSE },
        { "context.flags.containsAll([1, 3])", CEDAR_TRUE },
        { "context.flags.containsAll([1, 4])", CEDAR_FALSE },
        { "context.flags.containsAny([9, 3])", CEDAR_TRUE },
        { "context.flags.containsAny(1)", CEDAR_ERROR },
        { "[].isEmpty() && ![1].isEmpty()", CEDAR_TRUE },
        { "\"x\".isEmpty()", CEDAR_ERROR },
        { "principal.roles.contains(\"ops\")", CEDAR_TRUE },
        { "principal.hasTag(\"level\") && principal.getTag(\"level\") == 3", CEDAR_TRUE },
        { "principal.hasTag(\"nope\")", CEDAR_FALSE },
        { "principal.getTag(\"nope\") == 1", CEDAR_ERROR },
        { "resource.hasTag(\"level\")", CEDAR_FALSE },
        { "resource.getTag(\"level\") == 1", CEDAR_ERROR },
        { "principal.hasTag(1)", CEDAR_ERROR },
    };
    CHECK(rows);
}

static void extension_types(void **state)
{
    (void)state;
    static const row rows[] = {
        { "principal.ip.isInRange(ip(\"10.0.0.0/8\"))", CEDAR_TRUE },
        { "ip(\"10.0.0.0/8\").isInRange(ip(\"10.1.0.0/16\"))", CEDAR_FALSE },
        { "ip(\"::1\").isLoopback() && ip(\"127.9.9.9\").isLoopback()", CEDAR_TRUE },
        { "ip(\"127.0.0.1/4\").isLoopback()", CEDAR_FALSE },
        { "ip(\"224.1.1.1\").isMulticast() && ip(\"ff02::1\").isMulticast()", CEDAR_TRUE },
        { "ip(\"192.168.0.1\").isIpv4() && ip(\"fe80::1\").isIpv6()", CEDAR_TRUE },
        { "ip(\"1.2.3\").isIpv4()", CEDAR_ERROR },
        { "ip(\"::ffff:1.2.3.4\").isIpv6()", CEDAR_ERROR },
        { "ip(\"010.0.0.1\").isIpv4()", CEDAR_ERROR },
        { "ip(\"1.2.3.4/08\").isIpv4()", CEDAR_ERROR },
        { "ip(\"1.1.1.1\").isIpv4(1)", CEDAR_ERROR }, /* wrong arity: an evaluation error */
        { "ip(context.s).isIpv4()", CEDAR_ERROR },
        { "decimal(\"1.23\").lessThan(decimal(\"1.2301\"))", CEDAR_TRUE },
        { "decimal(\"-922337203685477.5808\").lessThanOrEqual(decimal(\"0.0\"))", CEDAR_TRUE },
        { "decimal(\"922337203685477.5808\").greaterThan(decimal(\"0.0\"))", CEDAR_ERROR },
        { "decimal(\"1.23456\").greaterThan(decimal(\"0.0\"))", CEDAR_ERROR },
        { "decimal(\"1\").greaterThan(decimal(\"0.0\"))", CEDAR_ERROR },
        { "decimal(\"2.0\").greaterThanOrEqual(1)", CEDAR_ERROR },
        { "context.when == datetime(\"2024-06-01T14:00:00+0200\")", CEDAR_TRUE },
        { "context.when.toDate() == datetime(\"2024-06-01\")", CEDAR_TRUE },
        { "context.when.toTime() == duration(\"12h\")", CEDAR_TRUE },
        { "datetime(\"1969-12-31T23:00:00Z\").toDate() == datetime(\"1969-12-31\")", CEDAR_TRUE },
        { "datetime(\"2024-01-01\").offset(duration(\"1d\")) == datetime(\"2024-01-02\")",
          CEDAR_TRUE },
        { "datetime(\"2024-01-02\").durationSince(datetime(\"2024-01-01\")).toHours() == 24",
          CEDAR_TRUE },
        { "duration(\"1d2h3m4s5ms\").toMilliseconds() == 93784005", CEDAR_TRUE },
        { "duration(\"-90s\").toMinutes() == -1", CEDAR_TRUE }, /* truncates toward zero */
        { "duration(\"1s1d\").toDays() == 0", CEDAR_ERROR },
        { "datetime(\"2023-02-29\").toDate() == datetime(\"2023-03-01\")", CEDAR_ERROR },
        { "datetime(\"2024-01-01T24:00:00Z\") == datetime(\"2024-01-02\")", CEDAR_ERROR },
        { "duration(\"1h\").offset(duration(\"1h\")) == duration(\"2h\")", CEDAR_ERROR },
    };
    CHECK(rows);
}

/* Cedar's combining: forbid overrides, errors skip the policy and are reported. */
static void authorization_combines_policies(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_cedar_policyset *set = cedar_parse_ok(
        a, "permit(principal in Group::\"devs\", action, resource);\n"
           "permit(principal, action, resource) when { principal.nope };\n"
           "forbid(principal, action == Action::\"delete\", resource);\n"
           "permit(principal, action == Action::\"view\", resource) when { context.n == 5 };\n");
    sluice_cedar_decision d = cedar_decide(a, set, ENTITIES, "User::\"alice\"", "Action::\"view\"",
                                           "Doc::\"d1\"", CONTEXT);
    assert_true(d.allow);
    assert_int_equal(d.determining_count, 2);
    assert_string_equal(sluice_cedar_policy_id(d.determining[0]), "policy0");
    assert_string_equal(sluice_cedar_policy_id(d.determining[1]), "policy3");
    assert_int_equal(d.error_count, 1);
    assert_string_equal(sluice_cedar_policy_id(d.errors[0].policy), "policy1");
    assert_string_equal(d.errors[0].message,
                        "`User::\"alice\"` does not have the attribute `nope`");

    d = cedar_decide(a, set, ENTITIES, "User::\"alice\"", "Action::\"delete\"", "Doc::\"d1\"",
                     CONTEXT);
    assert_false(d.allow);
    assert_int_equal(d.determining_count, 1);
    assert_string_equal(sluice_cedar_policy_id(d.determining[0]), "policy2");

    d = cedar_decide(a, set, ENTITIES, "User::\"bob\"", "Action::\"edit\"", "Doc::\"d1\"", "{}");
    assert_false(d.allow); /* default deny: nothing determines it */
    assert_int_equal(d.determining_count, 0);
    assert_int_equal(d.error_count, 1);
    sluice_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(logic_and_conditionals),
        cmocka_unit_test(equality_and_comparison),
        cmocka_unit_test(arithmetic_overflows_are_errors),
        cmocka_unit_test(attributes_and_has),
        cmocka_unit_test(hierarchy_is_and_like),
        cmocka_unit_test(sets_records_and_tags),
        cmocka_unit_test(extension_types),
        cmocka_unit_test(authorization_combines_policies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
