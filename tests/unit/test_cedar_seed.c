/*
 * test_cedar_seed.c — the four code-mode policies of seed 000 (examples/policies/seed000.cedar,
 * verbatim) against CodeMode::User / Group / Action / Server entities: standard users read;
 * power users write only with the named operation; admins run Admin; the forbid on blocked
 * output fields holds for everyone, admins included.
 */
#include "cedar_test_util.h"

#include <stdlib.h>

static char *read_seed(sluice_arena *arena)
{
    const char *path = SLUICE_SOURCE_DIR "/examples/policies/seed000.cedar";
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        fail_msg("cannot open %s", path);
    char *text = sluice_arena_alloc(arena, 65536);
    size_t n = fread(text, 1, 65535, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

static const char *const ENTITIES =
    "["
    "{\"uid\": {\"type\": \"CodeMode::User\", \"id\": \"sam\"}, \"attrs\": {}, \"parents\": "
    "[{\"type\": \"CodeMode::Group\", \"id\": \"StandardUsers\"}]},"
    "{\"uid\": {\"type\": \"CodeMode::User\", \"id\": \"pat\"}, \"attrs\": {}, \"parents\": "
    "[{\"type\": \"CodeMode::Group\", \"id\": \"PowerUsers\"}]},"
    "{\"uid\": {\"type\": \"CodeMode::User\", \"id\": \"ada\"}, \"attrs\": {}, \"parents\": "
    "[{\"type\": \"CodeMode::Group\", \"id\": \"Admins\"}]},"
    "{\"uid\": {\"type\": \"CodeMode::Group\", \"id\": \"Admins\"}, \"attrs\": {}, \"parents\": "
    "[{\"type\": \"CodeMode::Group\", \"id\": \"PowerUsers\"}]},"
    "{\"uid\": {\"type\": \"CodeMode::Group\", \"id\": \"PowerUsers\"}, \"attrs\": {}, "
    "\"parents\": [{\"type\": \"CodeMode::Group\", \"id\": \"StandardUsers\"}]},"
    "{\"uid\": {\"type\": \"CodeMode::Group\", \"id\": \"StandardUsers\"}, \"attrs\": {}, "
    "\"parents\": []},"
    "{\"uid\": {\"type\": \"CodeMode::Action\", \"id\": \"Read\"}, \"attrs\": {}, \"parents\": "
    "[]},"
    "{\"uid\": {\"type\": \"CodeMode::Server\", \"id\": \"cost-coach\"}, \"parents\": [],"
    " \"attrs\": {\"serverId\": \"cost-coach\", \"allowWrite\": true, \"allowAdmin\": true,"
    "  \"allowedOperations\": [\"update_budget_note\"],"
    "  \"outputBlockedFields\": [\"ssn\", \"password\", \"salary\"]}},"
    "{\"uid\": {\"type\": \"CodeMode::Server\", \"id\": \"locked\"}, \"parents\": [],"
    " \"attrs\": {\"serverId\": \"cost-coach\", \"allowWrite\": false, \"allowAdmin\": false,"
    "  \"allowedOperations\": [], \"outputBlockedFields\": [\"ssn\"]}}"
    "]";

static const char *const SERVER = "CodeMode::Server::\"cost-coach\"";
static const char *const SAFE = "{\"script\": {\"calledOperations\": [\"update_budget_note\"], "
                                "\"outputFields\": [\"name\", \"amount\"]}}";
static const char *const LEAKY = "{\"script\": {\"calledOperations\": [\"update_budget_note\"], "
                                 "\"outputFields\": [\"name\", \"ssn\"]}}";
static const char *const OTHER_OP = "{\"script\": {\"calledOperations\": [\"delete_budget\"], "
                                    "\"outputFields\": []}}";

typedef struct seed_case {
    const char *user, *action, *resource, *context;
    bool allow;
    const char *determining; /* the one determining policy id, or NULL for default deny */
} seed_case;

static void seed_policies_decide_as_written(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_cedar_policyset *set = cedar_parse_ok(a, read_seed(a));
    assert_int_equal(sluice_cedar_policyset_count(set), 4);
    static const seed_case cases[] = {
        /* standard users read, nothing more */
        { "sam", "Read", NULL, "{}", true, "policy0" },
        { "sam", "Write", NULL, NULL, false, NULL },
        { "sam", "Admin", NULL, "{}", false, NULL },
        /* power users inherit Read, write only through the named operation */
        { "pat", "Read", NULL, "{}", true, "policy0" },
        { "pat", "Write", NULL, NULL, true, "policy1" },
        { "pat", "Write", NULL, "{}", false, NULL }, /* no script facts: not allowed */
        { "pat", "Write", "CodeMode::Server::\"locked\"", NULL, false, NULL },
        { "pat", "Admin", NULL, "{}", false, NULL },
        /* admins run Admin (where the server allows it) */
        { "ada", "Admin", NULL, "{}", true, "policy2" },
        { "ada", "Admin", "CodeMode::Server::\"locked\"", "{}", false, NULL },
        /* the forbid wins for everyone once a blocked field leaks */
        { "sam", "Read", NULL, "LEAKY", false, "policy3" },
        { "pat", "Write", NULL, "LEAKY", false, "policy3" },
        { "ada", "Admin", NULL, "LEAKY", false, "policy3" },
        { "ada", "Admin", "CodeMode::Server::\"locked\"", "LEAKY", false, "policy3" },
        { "pat", "Write", NULL, "OTHER_OP", false, NULL },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const seed_case *c = &cases[i];
        const char *ctx = c->context == NULL                    ? SAFE
                          : strcmp(c->context, "LEAKY") == 0    ? LEAKY
                          : strcmp(c->context, "OTHER_OP") == 0 ? OTHER_OP
                                                                : c->context;
        const char *principal = sluice_arena_printf(a, "CodeMode::User::\"%s\"", c->user);
        const char *action = sluice_arena_printf(a, "CodeMode::Action::\"%s\"", c->action);
        sluice_cedar_decision d = cedar_decide(a, set, ENTITIES, principal, action,
                                               c->resource != NULL ? c->resource : SERVER, ctx);
        if (d.allow != c->allow)
            fail_msg("case %zu (%s %s): allow=%d", i, c->user, c->action, d.allow);
        assert_int_equal(d.error_count, 0);
        if (c->determining == NULL) {
            assert_int_equal(d.determining_count, 0);
        } else {
            assert_int_equal(d.determining_count, 1);
            assert_string_equal(sluice_cedar_policy_id(d.determining[0]), c->determining);
        }
    }
    sluice_arena_free(a);
}

/* A resource with no attributes makes the Write rule error, not allow: the error is reported
 * and the decision falls back to deny. */
static void missing_server_attributes_are_reported(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_cedar_policyset *set = cedar_parse_ok(a, read_seed(a));
    sluice_cedar_decision d =
        cedar_decide(a, set, ENTITIES, "CodeMode::User::\"pat\"", "CodeMode::Action::\"Write\"",
                     "CodeMode::Server::\"unknown\"", SAFE);
    assert_false(d.allow);
    assert_int_equal(d.error_count, 2); /* policy1 and the forbid both read resource attrs */
    assert_string_equal(sluice_cedar_policy_id(d.errors[0].policy), "policy1");
    assert_string_equal(d.errors[0].message,
                        "entity `CodeMode::Server::\"unknown\"` does not exist");
    assert_string_equal(sluice_cedar_policy_id(d.errors[1].policy), "policy3");
    sluice_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seed_policies_decide_as_written),
        cmocka_unit_test(missing_server_attributes_are_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
