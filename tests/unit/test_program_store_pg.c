/*
 * test_program_store_pg.c — the saved-program store in PostgreSQL (state/program_store_pg.h) on a
 * real database: two handles (two replicas) see each other's promotions and demotions and cannot
 * both write the same version; the table refuses UPDATE, DELETE and TRUNCATE; a line deleted,
 * edited or cut from the end with the triggers off (a superuser) fails every read; a head
 * rewritten to match a cut tail is caught by a server that read more before; a dropped
 * connection fails one read and the next reconnects; an unreachable database is refused at open.
 * Ends with allocation sweeps over loading the catalog (a demoted program is never enabled) and
 * over a promotion (a failure never leaves a version behind, a success writes exactly it).
 * Needs SLUICE_TEST_PG_CONNINFO (a superuser's conninfo; tests/pg/ctest_programs_pg.sh starts a
 * throwaway cluster and sets it); skipped without it.
 */
#include "codemode/program.h"
#include "core/limits.h"
#include "oom_sweep.h"
#include "state/program_store_pg.h"
#include "unit.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *conninfo;
static sluice_secret_ring *ring;
static int tables;

static int setup(void **state)
{
    (void)state;
    conninfo = getenv("SLUICE_TEST_PG_CONNINFO");
    char line[SLUICE_LIMIT_SECRET_LINE_BYTES];
    sluice_secret *key = NULL;
    return sluice_secret_generate("k1", line, sizeof line) == SLUICE_OK &&
                   sluice_secret_parse(line, strlen(line), "test", &key, NULL, NULL) == SLUICE_OK &&
                   sluice_secret_ring_new(key, &ring) == SLUICE_OK
               ? 0
               : -1;
}

static int teardown(void **state)
{
    (void)state;
    sluice_secret_ring_free(ring);
    return 0;
}

/* A fresh table name per test, so the tests do not see each other's lines. */
static const char *fresh_table(void)
{
    static char name[32];
    snprintf(name, sizeof name, "programs_%d", ++tables);
    return name;
}

/* Skips the test without PostgreSQL; called first, before the test allocates anything a skip
 * would leak (cmocka's skip leaves the test by longjmp). */
static void need_pg(void)
{
    if (conninfo == NULL)
        skip();
}

static sluice_program_store *open_pg(const char *table)
{
    need_pg();
    const sluice_program_store_pg_options o = { conninfo, NULL, NULL, table };
    sluice_program_store *s = NULL;
    sluice_error err = { 0 };
    sluice_arena *arena = sluice_arena_new();
    sluice_status st = sluice_program_store_open_pg(&o, &s, arena, &err);
    if (st != SLUICE_OK)
        fail_msg("open: %s", err.message);
    sluice_arena_free(arena);
    return s;
}

/* tmpl with every '@' replaced by table, into out. */
static void with_table(char *out, size_t cap, const char *tmpl, const char *table)
{
    size_t k = 0;
    for (const char *t = tmpl; *t != '\0' && k + 64 < cap; t++) {
        if (*t == '@')
            k += (size_t)snprintf(out + k, cap - k, "%s", table);
        else
            out[k++] = *t;
    }
    out[k] = '\0';
}

/* Runs sql as the superuser, with the table's triggers off (what only its owner can do). */
static void as_owner(const char *table, const char *sql)
{
    char full[1024];
    snprintf(full, sizeof full,
             "ALTER TABLE %s DISABLE TRIGGER USER; %s; ALTER TABLE %s ENABLE TRIGGER USER", table,
             sql, table);
    PGconn *c = PQconnectdb(conninfo);
    PGresult *r = PQexec(c, full);
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        fail_msg("%s: %s", full, PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
}

static sluice_program
program(sluice_arena *arena, const char *name, int64_t version, const char *code)
{
    json_t *vars = json_pack("{s:s}", "region", "EU");
    sluice_program p = { .name = name,
                         .version = version,
                         .language = "sql",
                         .code = code,
                         .code_hash = "ab",
                         .description = "",
                         .action = "read",
                         .risk = "low",
                         .basis = { "default", "s", "p", "r" },
                         .by = "root",
                         .at = 1,
                         .reason = "" };
    sluice_error err = { 0 };
    sluice_status st = vars == NULL ? SLUICE_E_NOMEM
                                    : sluice_program_params_from(arena, NULL, vars, &p.params,
                                                                 &p.param_count, &err);
    json_decref(vars);
    if (st != SLUICE_OK)
        p.name = NULL; /* sluice_program_save refuses it */
    return p;
}

#define CODE "SELECT name FROM customers WHERE region = $region"

/* Loads the catalog of s: its status, and the entry named name in *out (NULL when none). */
static sluice_status load(sluice_program_store *s,
                          sluice_arena *arena,
                          const char *name,
                          const sluice_program **out,
                          sluice_error *err)
{
    sluice_program_catalog c;
    sluice_status st = sluice_program_catalog_load(s, ring, arena, &c, err);
    *out = st == SLUICE_OK ? sluice_program_find(&c, name) : NULL;
    return st;
}

static void test_program_pg_two_replicas_share_promotion_and_demotion(void **state)
{
    (void)state;
    need_pg();
    const char *table = fresh_table();
    sluice_program_store *a = open_pg(table), *b = open_pg(table);
    assert_string_equal(sluice_program_store_kind(a), "postgres");
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    const sluice_program *got = NULL;
    assert_int_equal(load(b, arena, "top", &got, &err), SLUICE_OK);
    assert_null(got);
    sluice_program p = program(arena, "top", 1, CODE);
    assert_int_equal(sluice_program_save(a, ring, &p, arena, &err), SLUICE_OK);
    assert_int_equal(load(b, arena, "top", &got, &err), SLUICE_OK);
    assert_non_null(got);
    assert_null(got->disabled);
    assert_string_equal(got->code, CODE);
    /* b writing version 1 too: refused, a already did */
    assert_int_equal(sluice_program_save(b, ring, &p, arena, &err), SLUICE_E_DENIED);
    assert_non_null(strstr(err.message, "saved program 'top' is at version 1 in table "));
    p.version = 2;
    p.demoted = true;
    p.by = "ops";
    p.reason = "wrong region";
    assert_int_equal(sluice_program_save(b, ring, &p, arena, &err), SLUICE_OK);
    assert_int_equal(load(a, arena, "top", &got, &err), SLUICE_OK);
    assert_non_null(got);
    assert_int_equal(got->version, 2);
    assert_non_null(strstr(got->disabled, "saved program 'top' was demoted by ops (version 2)"));
    sluice_program_store_close(a);
    sluice_program_store_close(b);
    sluice_arena_free(arena);
}

static void test_program_pg_table_is_append_only(void **state)
{
    (void)state;
    need_pg();
    const char *table = fresh_table();
    sluice_program_store *s = open_pg(table);
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_program p = program(arena, "top", 1, CODE);
    assert_int_equal(sluice_program_save(s, ring, &p, arena, &err), SLUICE_OK);
    static const char *const forms[] = { "UPDATE @ SET line = line", "DELETE FROM @",
                                         "TRUNCATE @" };
    PGconn *c = PQconnectdb(conninfo);
    for (size_t i = 0; i < 3; i++) {
        char sql[128];
        with_table(sql, sizeof sql, forms[i], table);
        PGresult *r = PQexec(c, sql);
        assert_int_equal(PQresultStatus(r), PGRES_FATAL_ERROR);
        assert_non_null(strstr(PQerrorMessage(c), "the sluice saved-program table is append-only"));
        PQclear(r);
    }
    PQfinish(c);
    sluice_program_store_close(s);
    sluice_arena_free(arena);
}

/* A store of two programs, a and b, in a fresh table (returned); s read it once. */
static const char *two_programs(sluice_program_store **s, sluice_arena *arena)
{
    const char *table = fresh_table();
    *s = open_pg(table);
    sluice_error err = { 0 };
    sluice_program a = program(arena, "a", 1, CODE), b = program(arena, "b", 1, CODE);
    assert_int_equal(sluice_program_save(*s, ring, &a, arena, &err), SLUICE_OK);
    assert_int_equal(sluice_program_save(*s, ring, &b, arena, &err), SLUICE_OK);
    const sluice_program *got = NULL;
    assert_int_equal(load(*s, arena, "b", &got, &err), SLUICE_OK);
    return table;
}

static void test_program_pg_tampered_table_fails_every_read(void **state)
{
    (void)state;
    need_pg();
    static const struct {
        const char *sql, *message;
    } cases[] = {
        { "DELETE FROM @ WHERE seq = 2",
          "is damaged: it has 1 lines and its head row says 2 (lines were cut from its end" },
        { "DELETE FROM @ WHERE seq = 1", "is damaged: line 1 is missing (a line was deleted)" },
        { "UPDATE @ SET line = replace(line, '\"b\"', '\"c\"') WHERE seq = 2",
          "is damaged: its last line is not the one its head row vouches for" },
        { "UPDATE @ SET line = replace(line, '\"a\"', '\"c\"') WHERE seq = 1",
          "is damaged at line 2: its prev link does not match the line before it" },
        { "INSERT INTO @ SELECT 3, line FROM @ WHERE seq = 2",
          "it has 3 lines and its head row says 2 (lines were added past its end" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sluice_arena *arena = sluice_arena_new();
        sluice_program_store *s = NULL;
        const char *table = two_programs(&s, arena);
        char sql[256];
        with_table(sql, sizeof sql, cases[i].sql, table);
        as_owner(table, sql);
        sluice_program_store *fresh = open_pg(table); /* a server started after the edit */
        sluice_program_store *both[] = { s, fresh };
        for (size_t k = 0; k < 2; k++) {
            sluice_error err = { 0 };
            const sluice_program *got = NULL;
            sluice_status st = load(both[k], arena, "a", &got, &err);
            if (st != SLUICE_E_INVALID || strstr(err.message, cases[i].message) == NULL)
                fail_msg("case %zu handle %zu: %s", i, k, st == SLUICE_OK ? "read" : err.message);
        }
        sluice_program_store_close(fresh);
        sluice_program_store_close(s);
        sluice_arena_free(arena);
    }
}

/* The rewrite of both the lines and the head: a server that never read more cannot tell (the
 * file store's limit too), one that did refuses. */
static void test_program_pg_head_moved_back_is_caught_by_a_running_server(void **state)
{
    (void)state;
    need_pg();
    sluice_arena *arena = sluice_arena_new();
    sluice_program_store *s = NULL;
    const char *table = two_programs(&s, arena);
    char sql[512];
    snprintf(sql, sizeof sql,
             "DELETE FROM %s WHERE seq = 2; UPDATE %s_head SET seq = 1, "
             "hash = encode(sha256(convert_to((SELECT line FROM %s WHERE seq = 1), 'UTF8')), "
             "'hex')",
             table, table, table);
    as_owner(table, sql);
    sluice_error err = { 0 };
    const sluice_program *got = NULL;
    assert_int_equal(load(s, arena, "a", &got, &err), SLUICE_E_INVALID);
    assert_non_null(strstr(err.message, "it was cut back to 1 lines where this server already "
                                        "read 2"));
    sluice_program_store *fresh = open_pg(table);
    assert_int_equal(load(fresh, arena, "a", &got, &err), SLUICE_OK);
    assert_non_null(got);
    sluice_program_store_close(fresh);
    sluice_program_store_close(s);
    sluice_arena_free(arena);
}

static void test_program_pg_lost_connection_and_unreachable_database(void **state)
{
    (void)state;
    need_pg();
    sluice_arena *arena = sluice_arena_new();
    sluice_program_store *s = NULL;
    two_programs(&s, arena);
    PGconn *c = PQconnectdb(conninfo);
    PQclear(PQexec(c, "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity "
                      "WHERE application_name = 'sluice-programs'"));
    PQfinish(c);
    sluice_error err = { 0 };
    const sluice_program *got = NULL;
    assert_int_equal(load(s, arena, "a", &got, &err), SLUICE_E_IO);
    assert_non_null(strstr(err.message, "cannot be read: "));
    assert_non_null(strstr(err.message, "no saved program is listed or runs until PostgreSQL "
                                        "answers again"));
    assert_int_equal(load(s, arena, "a", &got, &err), SLUICE_OK); /* reconnected */
    assert_non_null(got);
    sluice_program_store_close(s);
    const sluice_program_store_pg_options o = { "host=/nonexistent-sluice port=1 dbname=x", NULL,
                                                NULL, NULL };
    assert_int_equal(sluice_program_store_open_pg(&o, &s, arena, &err), SLUICE_E_IO);
    assert_non_null(strstr(err.message, "[state] programs_postgres: cannot open the saved-program "
                                        "table sluice_programs: cannot connect: "));
    sluice_arena_free(arena);
}

typedef struct sweep_ctx {
    sluice_program_store *store;
    int64_t version; /* the last version of "top" in the store */
} sweep_ctx;

/* Loading a store whose "b" was demoted, under a fault: an error, or a enabled and b disabled. */
static oom_outcome run_load(void *ctx)
{
    sweep_ctx *x = ctx;
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return OOM_FAILED;
    sluice_error err = { 0 };
    sluice_program_catalog c;
    oom_outcome out = OOM_FAILED;
    if (sluice_program_catalog_load(x->store, ring, arena, &c, &err) == SLUICE_OK) {
        const sluice_program *a = sluice_program_find(&c, "a"), *b = sluice_program_find(&c, "b");
        out = a != NULL && a->disabled == NULL && strcmp(a->code, CODE) == 0 && b != NULL &&
                      b->disabled != NULL
                  ? OOM_ALLOWED
                  : OOM_WRONG;
    }
    sluice_arena_free(arena);
    return out;
}

/* Promoting the next version of "top" under a fault: failed and the store unchanged, or written
 * exactly (judged without faults). */
static oom_outcome run_promote(void *ctx)
{
    sweep_ctx *x = ctx;
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return OOM_FAILED;
    sluice_error err = { 0 };
    sluice_program p = program(arena, "top", x->version + 1, CODE " LIMIT 3");
    sluice_status st = sluice_program_save(x->store, ring, &p, arena, &err);
    long left = sluice_arena_fail_remaining();
    sluice_arena_fail_at(0);
    sluice_arena *check = sluice_arena_new();
    const sluice_program *got = NULL;
    oom_outcome out = OOM_WRONG;
    if (load(x->store, check, "top", &got, &err) == SLUICE_OK && got != NULL) {
        if (st != SLUICE_OK)
            out = got->version == x->version ? OOM_FAILED : OOM_WRONG;
        else if (got->version == x->version + 1 && got->disabled == NULL &&
                 strcmp(got->code, CODE " LIMIT 3") == 0)
            out = OOM_ALLOWED;
        x->version = got->version;
    }
    sluice_arena_free(check);
    sluice_arena_free(arena);
    sluice_arena_fail_at(left);
    return out;
}

static void test_program_pg_allocation_sweeps(void **state)
{
    (void)state;
    need_pg();
    sluice_arena *arena = sluice_arena_new();
    sluice_program_store *s = NULL;
    two_programs(&s, arena);
    sluice_error err = { 0 };
    sluice_program b = program(arena, "b", 2, CODE);
    b.demoted = true;
    b.reason = "gone";
    assert_int_equal(sluice_program_save(s, ring, &b, arena, &err), SLUICE_OK);
    sluice_program top = program(arena, "top", 1, CODE);
    assert_int_equal(sluice_program_save(s, ring, &top, arena, &err), SLUICE_OK);
    sweep_ctx x = { s, 1 };
    oom_count_jansson();
    long n = oom_sweep("pg catalog load", run_load, &x, OOM_ALLOWED, OOM_ACCEPT(OOM_FAILED));
    assert_true(n > 10);
    n = oom_sweep("pg promote", run_promote, &x, OOM_ALLOWED, OOM_ACCEPT(OOM_FAILED));
    assert_true(n > 10);
    json_set_alloc_funcs(malloc, free);
    sluice_program_store_close(s);
    sluice_arena_free(arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_program_pg_two_replicas_share_promotion_and_demotion),
        cmocka_unit_test(test_program_pg_table_is_append_only),
        cmocka_unit_test(test_program_pg_tampered_table_fails_every_read),
        cmocka_unit_test(test_program_pg_head_moved_back_is_caught_by_a_running_server),
        cmocka_unit_test(test_program_pg_lost_connection_and_unreachable_database),
        cmocka_unit_test(test_program_pg_allocation_sweeps),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
