/*
 * test_exec_fork_gate.c — the fork gate (exec/fork_gate.h) and what sluice_bounded_run does at
 * it: a fork waits for every thread inside DuckDB to leave, keeps new ones out while it waits,
 * gives up at its budget (BUSY: nothing started, never a child beside DuckDB work), can be
 * cancelled while it waits, sets aside the caller's own region, and leaves a child in which the
 * gate does nothing. The analysis and the executor turn BUSY into a refusal that says why.
 */
#include "core/clock.h"
#include "exec/bounded.h"
#include "exec/duckdb.h"
#include "exec/engines.h"
#include "exec/fork_gate.h"
#include "exec/values.h"
#include "exec_test_util.h"
#include "lang/sql/sql.h"
#include "unit.h"

#include <duckdb.h>

/* A thread that holds a region until told to leave. */
typedef struct holder {
    pthread_t th;
    atomic_bool inside;
    atomic_bool release;
} holder;

static void *hold_region(void *arg)
{
    holder *h = arg;
    sluice_fork_gate_enter();
    atomic_store(&h->inside, true);
    while (!atomic_load(&h->release)) {
        struct timespec ms = { 0, 1000000L };
        nanosleep(&ms, NULL);
    }
    sluice_fork_gate_leave();
    return NULL;
}

static void holder_start(holder *h)
{
    memset(h, 0, sizeof(*h));
    assert_int_equal(pthread_create(&h->th, NULL, hold_region, h), 0);
    while (!atomic_load(&h->inside)) {
        struct timespec ms = { 0, 1000000L };
        nanosleep(&ms, NULL);
    }
}

static void holder_stop(holder *h)
{
    atomic_store(&h->release, true);
    pthread_join(h->th, NULL);
}

static void test_fork_gate_waits_for_regions_and_gives_up_at_its_deadline(void **state)
{
    (void)state;
    holder h;
    holder_start(&h);
    assert_false(sluice_fork_gate_close(sluice_clock_monotonic_ms(NULL) + 100, NULL));
    holder_stop(&h);
    assert_true(sluice_fork_gate_close(sluice_clock_monotonic_ms(NULL) + 1000, NULL));
    sluice_fork_gate_open();
}

/* A region entered while a fork waits is held back until the fork is done (writer preference):
 * a stream of in-process queries cannot starve a fork. */
typedef struct closer {
    pthread_t th;
    atomic_bool closed;
} closer;

static void *close_and_open(void *arg)
{
    closer *c = arg;
    if (sluice_fork_gate_close(sluice_clock_monotonic_ms(NULL) + 10000, NULL)) {
        atomic_store(&c->closed, true);
        sluice_fork_gate_open();
    }
    return NULL;
}

typedef struct late {
    pthread_t th;
    atomic_bool entered;
} late;

static void *enter_late(void *arg)
{
    late *l = arg;
    sluice_fork_gate_enter();
    atomic_store(&l->entered, true);
    sluice_fork_gate_leave();
    return NULL;
}

static void test_fork_gate_keeps_new_regions_out_while_a_fork_waits(void **state)
{
    (void)state;
    holder h;
    holder_start(&h);
    closer c;
    atomic_init(&c.closed, false);
    assert_int_equal(pthread_create(&c.th, NULL, close_and_open, &c), 0);
    for (int i = 0; i < 10000 && sluice_fork_gate_waiting() == 0; i++)
        test_sleep_ms(1);
    assert_int_equal(sluice_fork_gate_waiting(), 1);
    late l;
    atomic_init(&l.entered, false);
    assert_int_equal(pthread_create(&l.th, NULL, enter_late, &l), 0);
    test_sleep_ms(100);
    assert_false(atomic_load(&l.entered)); /* held back behind the waiting fork */
    assert_false(atomic_load(&c.closed));  /* which waits for the holder */
    holder_stop(&h);
    pthread_join(c.th, NULL);
    pthread_join(l.th, NULL);
    assert_true(atomic_load(&c.closed));
    assert_true(atomic_load(&l.entered));
}

static void test_fork_gate_nests_and_sets_aside_the_callers_region(void **state)
{
    (void)state;
    sluice_fork_gate_enter();
    sluice_fork_gate_enter();
    /* inside a region a fork would wait for itself: refused at once, never a hang */
    assert_false(sluice_fork_gate_close(sluice_clock_monotonic_ms(NULL) + 10000, NULL));
    unsigned held = sluice_fork_gate_suspend();
    assert_int_equal(held, 2);
    assert_true(sluice_fork_gate_close(sluice_clock_monotonic_ms(NULL) + 1000, NULL));
    sluice_fork_gate_open();
    sluice_fork_gate_resume(held);
    sluice_fork_gate_leave();
    /* still inside the outer region: another thread's fork must wait for it */
    closer c;
    atomic_init(&c.closed, false);
    assert_int_equal(pthread_create(&c.th, NULL, close_and_open, &c), 0);
    for (int i = 0; i < 10000 && sluice_fork_gate_waiting() == 0; i++)
        test_sleep_ms(1);
    test_sleep_ms(50);
    assert_false(atomic_load(&c.closed));
    sluice_fork_gate_leave();
    pthread_join(c.th, NULL);
    assert_true(atomic_load(&c.closed));
}

/* In the child the gate was copied closed: a gated call there must not wait for it. */
static void child_enters_region(void *arg, sluice_buf *out)
{
    (void)arg;
    sluice_fork_gate_enter();
    sluice_fork_gate_enter();
    sluice_fork_gate_leave();
    sluice_fork_gate_leave();
    sluice_buf_puts(out, "entered");
}

static void test_bounded_child_passes_the_gate(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_bounded *b = sluice_bounded_new(a);
    sluice_bounded_limits lim = { .timeout_ms = 5000, .max_report = 64 };
    sluice_bounded_outcome oc;
    const char *rep = NULL;
    size_t len = 0;
    sluice_fork_gate_enter(); /* forking from inside a region, as the analysis probe does */
    assert_int_equal(sluice_bounded_run(b, &lim, child_enters_region, NULL, a, &oc, &rep, &len),
                     SLUICE_OK);
    sluice_fork_gate_leave();
    assert_int_equal(oc, SLUICE_BOUNDED_DONE);
    assert_string_equal(rep, "entered");
    sluice_arena_free(a);
}

static void never_runs(void *arg, sluice_buf *out)
{
    (void)arg;
    sluice_buf_puts(out, "ran");
}

static void test_bounded_run_is_busy_while_duckdb_work_stays(void **state)
{
    (void)state;
    holder h;
    holder_start(&h);
    sluice_arena *a = sluice_arena_new();
    sluice_bounded *b = sluice_bounded_new(a);
    sluice_bounded_limits lim = { .timeout_ms = 150, .max_report = 64 };
    sluice_bounded_outcome oc;
    const char *rep = NULL;
    size_t len = 0;
    assert_int_equal(sluice_bounded_run(b, &lim, never_runs, NULL, a, &oc, &rep, &len), SLUICE_OK);
    assert_int_equal(oc, SLUICE_BOUNDED_BUSY);
    assert_null(rep);
    holder_stop(&h);
    sluice_arena_free(a);
}

static void test_bounded_run_waiting_at_the_gate_can_be_cancelled(void **state)
{
    (void)state;
    holder h;
    holder_start(&h);
    sluice_arena *a = sluice_arena_new();
    sluice_bounded *b = sluice_bounded_new(a);
    test_cancel_slot slot = { .delay_ms = 100 };
    test_register_cancel(&slot, sluice_bounded_cancel, b);
    pthread_t canceller;
    assert_int_equal(pthread_create(&canceller, NULL, test_cancel_later, &slot), 0);
    sluice_bounded_limits lim = { .timeout_ms = 20000, .max_report = 64 };
    sluice_bounded_outcome oc;
    const char *rep = NULL;
    size_t len = 0;
    int64_t started = sluice_clock_monotonic_ms(NULL);
    assert_int_equal(sluice_bounded_run(b, &lim, never_runs, NULL, a, &oc, &rep, &len), SLUICE_OK);
    assert_int_equal(oc, SLUICE_BOUNDED_CANCELLED);
    assert_true(sluice_clock_monotonic_ms(NULL) - started <
                20000); /* did not wait out the budget */
    pthread_join(canceller, NULL);
    holder_stop(&h);
    sluice_arena_free(a);
}

/* ---- the callers' refusals ---------------------------------------------------------------- */

static void test_analysis_and_execution_refuse_when_the_gate_stays_shut(void **state)
{
    (void)state;
    char dir[] = "/tmp/sluice-test-gate-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[300];
    snprintf(path, sizeof(path), "%s/t.duckdb", dir);
    duckdb_database db;
    duckdb_connection conn;
    duckdb_result res;
    assert_int_equal(duckdb_open(path, &db), DuckDBSuccess);
    assert_int_equal(duckdb_connect(db, &conn), DuckDBSuccess);
    assert_int_equal(duckdb_query(conn, "CREATE TABLE t AS SELECT 1 AS x", &res), DuckDBSuccess);
    duckdb_destroy_result(&res);
    duckdb_disconnect(&conn);
    duckdb_close(&db);
    sluice_config_database cdb = { .engine = SLUICE_ENGINE_DUCKDB, .path = path, .threads = 1 };
    sluice_config_code_mode cm = { .sql_reads_enabled = true,
                                   .sql_max_rows = 100,
                                   .analysis_timeout_ms = 150 };
    sluice_arena *a = sluice_arena_new();
    sluice_executor *ex = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_executor_open(&cdb, &cm, &ex, a, &err), SLUICE_OK);

    holder h;
    holder_start(&h);
    const char *sql = "SELECT len(range(10)) FROM t"; /* amplifying: the analysis forks */
    sluice_frontend_context fc = { .code_mode = &cm, .executor = ex };
    sluice_codefacts *facts = NULL;
    assert_int_equal(sluice_sql_analyze(a, sql, strlen(sql), NULL, &fc, &facts, &err), SLUICE_OK);
    assert_int_equal(facts->violation_count, 1);
    assert_string_equal(facts->violations[0].rule, "analysis_limit");
    assert_non_null(strstr(facts->violations[0].message, "busy"));

    sluice_exec_request req = { .code = "SELECT x FROM t", .code_len = 15 };
    req.limits.timeout_ms = 150;
    sluice_exec_result out;
    memset(&out, 0, sizeof(out));
    sluice_error_clear(&err);
    assert_int_equal(sluice_executor_execute(ex, a, &req, &out, &err), SLUICE_E_TIMEOUT);
    assert_non_null(strstr(err.message, "nothing was run"));
    holder_stop(&h);

    /* the gate free again, both go through (budgets a sanitizer build also meets) */
    cm.analysis_timeout_ms = 10000;
    req.limits.timeout_ms = 10000;
    facts = NULL;
    assert_int_equal(sluice_sql_analyze(a, sql, strlen(sql), NULL, &fc, &facts, &err), SLUICE_OK);
    assert_int_equal(facts->violation_count, 0);
    memset(&out, 0, sizeof(out));
    assert_int_equal(sluice_executor_execute(ex, a, &req, &out, &err), SLUICE_OK);
    assert_int_equal(out.row_count, 1);
    sluice_executor_close(ex);
    sluice_arena_free(a);
    test_remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fork_gate_waits_for_regions_and_gives_up_at_its_deadline),
        cmocka_unit_test(test_fork_gate_keeps_new_regions_out_while_a_fork_waits),
        cmocka_unit_test(test_fork_gate_nests_and_sets_aside_the_callers_region),
        cmocka_unit_test(test_bounded_child_passes_the_gate),
        cmocka_unit_test(test_bounded_run_is_busy_while_duckdb_work_stays),
        cmocka_unit_test(test_bounded_run_waiting_at_the_gate_can_be_cancelled),
        cmocka_unit_test(test_analysis_and_execution_refuse_when_the_gate_stays_shut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
