/*
 * test_config_state.c — the [state] section: defaults, and each refusal with its line, column and
 * fix: an inline Redis or audit database password, a password inside the audit conninfo, two
 * password sources, an over-long key prefix, an audit table name that is not a plain identifier,
 * a misspelt key.
 */
#include "config/config.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>

static sluice_status
load(const char *text, sluice_config **cfg, sluice_arena *arena, sluice_error *err)
{
    return sluice_config_load_text(text, strlen(text), "t.toml", "/etc/sluice", cfg, arena, err);
}

static void test_state_defaults_and_values(void **unused)
{
    (void)unused;
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_config *cfg = NULL;
    assert_int_equal(load("[state]\nredis_url = \"unix:/run/redis.sock\"\n"
                          "redis_password_file = \"redis.pw\"\n"
                          "audit_postgres = \"host=/tmp dbname=audit\"\nreplica_id = \"a\"\n",
                          &cfg, arena, &err),
                     SLUICE_OK);
    assert_string_equal(cfg->state.redis_url, "unix:/run/redis.sock");
    assert_string_equal(cfg->state.redis_password_file, "/etc/sluice/redis.pw");
    assert_string_equal(cfg->state.redis_prefix, "sluice:");
    assert_int_equal(cfg->state.redis_timeout_ms, 2000);
    assert_string_equal(cfg->state.audit_postgres_table, "sluice_audit");
    assert_string_equal(cfg->state.replica_id, "a");
    sluice_config_free(cfg);
    sluice_arena_free(arena);
}

typedef struct refusal {
    const char *text;
    size_t line, column;
    const char *says;
} refusal;

static void test_state_refusals(void **unused)
{
    (void)unused;
    const refusal cases[] = {
        { "[state]\nredis_password = \"x\"\n", 2, 1, "redis_password_file or redis_password_env" },
        { "[state]\naudit_postgres_password = \"x\"\n", 2, 1, "audit_postgres_password_file" },
        { "[state]\naudit_postgres = \"host=h password=x\"\n", 2, 18, "carries a password" },
        { "[state]\naudit_postgres = \"postgresql://u:x@h/db\"\n", 2, 18, "carries a password" },
        { "[state]\nredis_password_file = \"p\"\nredis_password_env = \"P\"\n", 3, 22,
          "only one of redis_password_file" },
        { "[state]\nredis_prefix = "
          "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\n",
          2, 16, "longer than 64" },
        { "[state]\naudit_postgres_table = \"audit; DROP TABLE x\"\n", 2, 24, "SQL identifier" },
        { "[state]\nredis_timeout_ms = 10\n", 2, 20, "50" },
        { "[state]\nredis_ur = \"redis://h:1\"\n", 2, 1, "redis_url" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sluice_arena *arena = sluice_arena_new();
        sluice_error err = { 0 };
        sluice_config *cfg = NULL;
        assert_int_equal(load(cases[i].text, &cfg, arena, &err), SLUICE_E_CONFIG);
        const char *all = err.hint != NULL ? err.hint : "";
        if (strstr(err.message, cases[i].says) == NULL && strstr(all, cases[i].says) == NULL) {
            fprintf(stderr, "case %zu: '%s' (hint '%s') lacks '%s'\n", i, err.message, all,
                    cases[i].says);
            fail();
        }
        if (err.line != cases[i].line || err.column != cases[i].column) {
            fprintf(stderr, "case %zu: at %zu:%zu, expected %zu:%zu\n", i, err.line, err.column,
                    cases[i].line, cases[i].column);
            fail();
        }
        sluice_arena_free(arena);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state_defaults_and_values),
        cmocka_unit_test(test_state_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
