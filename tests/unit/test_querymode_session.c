/*
 * test_querymode_session.c — query-mode sessions: keyed by user + server + transport session,
 * idle TTL from an injectable clock (a manual clock moves, nothing sleeps), a session in use is
 * never expired, the caps per principal and in total refuse with the key to change, tables die
 * with their session, and the spill folder is removed.
 */
#include "exec/scratch.h"
#include "querymode/session.h"
#include "unit.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct fixture {
    sluice_manual_clock clock;
    sluice_qm_registry *r;
    sluice_arena *arena;
    char dir[64];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    snprintf(f->dir, sizeof(f->dir), "/tmp/sluice-qms-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    sluice_manual_clock_init(&f->clock, 1780000000);
    sluice_config_query_mode qm = { .session_ttl_seconds = 600,
                                    .max_sessions = 3,
                                    .max_sessions_per_principal = 2,
                                    .session_memory_limit = "64MB",
                                    .session_max_spill = "16MB",
                                    .spill_dir = f->dir };
    assert_int_equal(sluice_qm_registry_new(&qm, &f->clock.clock, &f->r), SLUICE_OK);
    f->arena = sluice_arena_new();
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    sluice_qm_registry_free(f->r);
    sluice_arena_free(f->arena);
    assert_int_equal(rmdir(f->dir), 0); /* every session folder is gone */
    free(f);
    return 0;
}

static sluice_qm_session *get(fixture *f, const char *user, const char *transport)
{
    sluice_qm_session *s = NULL;
    sluice_error err = { 0 };
    sluice_status st = sluice_qm_acquire(f->r, user, "srv", transport, &s, f->arena, &err);
    if (st != SLUICE_OK)
        fail_msg("acquire: %s", err.message);
    return s;
}

static void add_table(fixture *f, sluice_qm_session *s, const char *name)
{
    sluice_exec_column cols[] = { { "a", "BIGINT" } };
    sluice_scratch_table *t = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_scratch_create(s->db, name, cols, 1, f->arena, &t, &err), SLUICE_OK);
    assert_int_equal(sluice_scratch_finish(t, true, &err), SLUICE_OK);
    sluice_qm_table rec = { .name = name, .source = "src", .columns = cols, .column_count = 1 };
    assert_int_equal(sluice_qm_table_put(s, &rec), SLUICE_OK);
}

static void ttl_expires_idle_sessions(void **state)
{
    fixture *f = *state;
    sluice_qm_session *s = get(f, "alice", "t1");
    add_table(f, s, "invoices");
    int64_t expires = sluice_qm_expires_at_ms(f->r, s);
    assert_int_equal(expires, (int64_t)1780000000 * 1000 + 600 * 1000);
    sluice_qm_release(f->r, s);
    /* the same key finds the same session and its table, with the TTL refreshed */
    sluice_manual_clock_advance_ms(&f->clock, 599 * 1000);
    assert_int_equal(sluice_qm_expire(f->r), 0);
    s = get(f, "alice", "t1");
    assert_non_null(sluice_qm_table_find(s, "INVOICES"));
    sluice_qm_release(f->r, s);
    sluice_manual_clock_advance_ms(&f->clock, 599 * 1000);
    assert_int_equal(sluice_qm_expire(f->r), 0);
    /* idle for the whole TTL: freed, and a new session starts empty */
    sluice_manual_clock_advance_ms(&f->clock, 1000);
    assert_int_equal(sluice_qm_expire(f->r), 1);
    assert_int_equal(sluice_qm_session_count(f->r), 0);
    assert_int_equal(sluice_qm_find(f->r, "alice", "srv", "t1", &s), SLUICE_E_NOT_FOUND);
    s = get(f, "alice", "t1");
    assert_null(sluice_qm_table_find(s, "invoices"));
    sluice_qm_release(f->r, s);
}

static void session_in_use_is_not_expired(void **state)
{
    fixture *f = *state;
    sluice_qm_session *s = get(f, "alice", "t1");
    sluice_manual_clock_advance_ms(&f->clock, 3600 * 1000);
    assert_int_equal(sluice_qm_expire(f->r), 0);
    sluice_qm_release(f->r, s);
    sluice_manual_clock_advance_ms(&f->clock, 600 * 1000);
    assert_int_equal(sluice_qm_expire(f->r), 1);
}

static void callers_are_isolated(void **state)
{
    fixture *f = *state;
    sluice_qm_session *a = get(f, "alice", "t1");
    add_table(f, a, "mine");
    sluice_qm_release(f->r, a);
    sluice_qm_session *b = get(f, "bob", "t1"); /* same transport session id, other user */
    assert_ptr_not_equal(a, b);
    assert_null(sluice_qm_table_find(b, "mine"));
    sluice_qm_release(f->r, b);
    sluice_qm_session *a2 = get(f, "alice", "t2"); /* same user, other transport session */
    assert_ptr_not_equal(a, a2);
    sluice_qm_release(f->r, a2);
}

static void caps_refuse_new_sessions(void **state)
{
    fixture *f = *state;
    sluice_qm_release(f->r, get(f, "alice", "t1"));
    sluice_qm_release(f->r, get(f, "alice", "t2"));
    sluice_qm_session *s = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_qm_acquire(f->r, "alice", "srv", "t3", &s, f->arena, &err),
                     SLUICE_E_LIMIT);
    assert_non_null(strstr(err.message, "max_sessions_per_principal"));
    sluice_qm_release(f->r, get(f, "bob", "t1"));
    assert_int_equal(sluice_qm_acquire(f->r, "carol", "srv", "t1", &s, f->arena, &err),
                     SLUICE_E_LIMIT);
    assert_non_null(strstr(err.message, "max_sessions"));
    /* once the old ones expire, there is room again */
    sluice_manual_clock_advance_ms(&f->clock, 600 * 1000);
    sluice_qm_release(f->r, get(f, "carol", "t1"));
    assert_int_equal(sluice_qm_session_count(f->r), 1);
}

static size_t spill_folders(const fixture *f)
{
    size_t n = 0;
    DIR *d = opendir(f->dir);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL)
        n += strncmp(e->d_name, "sluice-qm-", 10) == 0;
    if (d != NULL)
        closedir(d);
    return n;
}

/* The MCP session's close frees its query-mode sessions at once, for every user keyed by it,
 * and leaves the others; one in use is freed by its release, and is not found meanwhile. */
static void transport_close_frees_its_sessions(void **state)
{
    fixture *f = *state;
    sluice_qm_release(f->r, get(f, "alice", "t1"));
    sluice_qm_release(f->r, get(f, "bob", "t1"));
    sluice_qm_session *other = get(f, "alice", "t2");
    add_table(f, other, "kept");
    sluice_qm_release(f->r, other);
    assert_int_equal(spill_folders(f), 3);
    assert_int_equal(sluice_qm_close_transport(f->r, "t1"), 2);
    assert_int_equal(sluice_qm_session_count(f->r), 1);
    assert_int_equal(spill_folders(f), 1);
    sluice_qm_session *s = NULL;
    assert_int_equal(sluice_qm_find(f->r, "alice", "srv", "t2", &s), SLUICE_OK);
    assert_non_null(sluice_qm_table_find(s, "kept"));
    /* closed while in use: still valid for the holder, invisible to lookups, freed on release */
    assert_int_equal(sluice_qm_close_transport(f->r, "t2"), 1);
    assert_int_equal(sluice_qm_session_count(f->r), 1);
    sluice_qm_session *again = NULL;
    assert_int_equal(sluice_qm_find(f->r, "alice", "srv", "t2", &again), SLUICE_E_NOT_FOUND);
    assert_non_null(sluice_qm_table_find(s, "kept"));
    sluice_qm_release(f->r, s);
    assert_int_equal(sluice_qm_session_count(f->r), 0);
    assert_int_equal(spill_folders(f), 0);
    assert_int_equal(sluice_qm_close_transport(f->r, "t2"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(ttl_expires_idle_sessions, setup, teardown),
        cmocka_unit_test_setup_teardown(session_in_use_is_not_expired, setup, teardown),
        cmocka_unit_test_setup_teardown(callers_are_isolated, setup, teardown),
        cmocka_unit_test_setup_teardown(caps_refuse_new_sessions, setup, teardown),
        cmocka_unit_test_setup_teardown(transport_close_frees_its_sessions, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
