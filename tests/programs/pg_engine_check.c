/*
 * pg_engine_check.c — the PostgreSQL executor's own walls, with the analyzer bypassed: the
 * executor is called directly (run by tests/pg/ctest_postgres.sh against a real cluster).
 *
 *   pg_engine_check READ_CONNINFO WRITE_CONNINFO ADMIN_CONNINFO
 *
 * 1. The read role alone, opened with every sql_allow_* on: no change of any kind runs (the
 *    read-only transaction, DECLARE and the role's grants refuse it), and nothing changed.
 *    The same changes sent as they are (write_conninfo naming the read role by mistake) are
 *    refused by the read role's grants.
 * 2. With the write role, writes allowed but deletes not: the one allowed UPDATE runs and
 *    commits (the positive control); a DELETE, a change inside WITH, DDL, and an UPDATE of a
 *    table the write role has no grant on are refused.
 * 3. Cancellation reaches PostgreSQL: a runaway cross join is cancelled through the executor's
 *    cancel hook, the call ends SLUICE_E_CANCELLED, and pg_stat_activity (read as the admin)
 *    soon shows no backend of application_name sluice running it.
 * 4. A backend that ignores its cancel (a function that catches query_canceled, as planning
 *    that checks no interrupts would) is terminated from a second connection: the call ends
 *    SLUICE_E_TIMEOUT, and pg_stat_activity, read from outside as the admin, shows the backend
 *    gone within the timeout plus SLUICE_LIMIT_PG_TERMINATE_AFTER_MS and a second of slack.
 * Exit 0 when every check holds; 1 with the failed check on stderr.
 */
#include "core/limits.h"
#include "exec/engines.h"
#include "exec/executor.h"

#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int failures;

#define CHECK(cond, ...)                                       \
    do {                                                       \
        if (!(cond)) {                                         \
            fprintf(stderr, "pg_engine_check: FAILED: ");      \
            fprintf(stderr, __VA_ARGS__);                      \
            fprintf(stderr, " (%s:%d)\n", __FILE__, __LINE__); \
            failures++;                                        \
        }                                                      \
    } while (0)

static sluice_executor *open_engine(const char *read, const char *write, bool writes, bool deletes)
{
    sluice_config_database db = { .name = "default",
                                  .engine = SLUICE_ENGINE_POSTGRES,
                                  .conninfo = read,
                                  .write_conninfo = write,
                                  .search_path = "public",
                                  .pool_size = 2 };
    sluice_config_code_mode cm = { .sql_reads_enabled = true,
                                   .sql_allow_writes = writes,
                                   .sql_allow_deletes = deletes,
                                   .sql_allow_ddl = true,
                                   .sql_max_rows = 100,
                                   .execution_timeout_seconds = 30 };
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_executor *ex = NULL;
    sluice_status st = sluice_executor_open(&db, &cm, &ex, arena, &err);
    if (st != SLUICE_OK)
        fprintf(stderr, "pg_engine_check: open: %s\n", err.message != NULL ? err.message : "?");
    sluice_arena_free(arena);
    return ex;
}

/* Runs code; the status, with the result's first value in *first (or -1). */
static sluice_status run(sluice_executor *ex, const char *code, long long *first)
{
    sluice_arena *arena = sluice_arena_new();
    sluice_exec_request req = { .code = code,
                                .code_len = strlen(code),
                                .limits = { .timeout_ms = 30000, .max_rows = 100 } };
    sluice_exec_result res;
    sluice_error err = { 0 };
    sluice_status st = sluice_executor_execute(ex, arena, &req, &res, &err);
    *first = -1;
    if (st == SLUICE_OK && res.row_count > 0)
        *first = (long long)json_integer_value(json_array_get(json_array_get(res.rows, 0), 0));
    fprintf(stderr, "  %-72.72s -> %s\n", code,
            st == SLUICE_OK ? "ran" : (err.message != NULL ? err.message : "refused"));
    sluice_arena_free(arena);
    return st;
}

static void refused(sluice_executor *ex, const char *code)
{
    long long v;
    CHECK(run(ex, code, &v) != SLUICE_OK, "the engine ran: %s", code);
}

static long long value(sluice_executor *ex, const char *code)
{
    long long v = -1;
    CHECK(run(ex, code, &v) == SLUICE_OK, "the read failed: %s", code);
    return v;
}

static const char *const read_role_changes[] = {
    "UPDATE budget_note SET note = 'engine' WHERE id = 1",
    "INSERT INTO budget_note VALUES (99, 'engine')",
    "DELETE FROM budget_note WHERE id = 1",
    "TRUNCATE budget_note",
    "MERGE INTO budget_note b USING (VALUES (1)) v(i) ON b.id = v.i WHEN MATCHED THEN DELETE",
    "WITH d AS (DELETE FROM budget_note RETURNING id) SELECT count(*) FROM d",
    "CREATE TABLE engine_scratch (a int)",
    "SELECT 1; UPDATE budget_note SET note = 'engine' WHERE id = 1",
    "COMMIT; UPDATE budget_note SET note = 'engine' WHERE id = 1",
    "SET ROLE sluice_write",
};

static void unchanged(sluice_executor *ex)
{
    CHECK(value(ex, "SELECT count(*) FROM budget_note") == 10, "budget_note lost or gained rows");
    CHECK(value(ex, "SELECT count(*) FROM budget_note WHERE note = 'engine'") == 0,
          "a note was changed");
    CHECK(value(ex, "SELECT count(*) FROM pg_catalog.pg_class WHERE relname = 'engine_scratch'") ==
              0,
          "a table was created");
}

static void read_role_alone(const char *read)
{
    fprintf(stderr, "the read role alone, every sql_allow_* on, no analyzer:\n");
    sluice_executor *ex = open_engine(read, NULL, true, true);
    CHECK(ex != NULL, "cannot open the read role");
    if (ex == NULL)
        return;
    for (size_t i = 0; i < sizeof read_role_changes / sizeof read_role_changes[0]; i++)
        refused(ex, read_role_changes[i]);
    unchanged(ex);
    sluice_executor_close(ex);
}

/* A misconfiguration: write_conninfo names the read role. Changes are then sent as they are, in
 * a read-write transaction, and the read role's grants are what refuses them. */
static void read_role_as_writer(const char *read)
{
    fprintf(stderr, "write_conninfo naming the read role, no analyzer:\n");
    sluice_executor *ex = open_engine(read, read, true, true);
    CHECK(ex != NULL, "cannot open the read role twice");
    if (ex == NULL)
        return;
    for (size_t i = 0; i < 5; i++)
        refused(ex, read_role_changes[i]);
    unchanged(ex);
    sluice_executor_close(ex);
}

static void write_role(const char *read, const char *write)
{
    fprintf(stderr, "the write role, writes allowed, deletes not, no analyzer:\n");
    sluice_executor *ex = open_engine(read, write, true, false);
    CHECK(ex != NULL, "cannot open with the write role");
    if (ex == NULL)
        return;
    refused(ex, "DELETE FROM budget_note WHERE id = 1");
    refused(ex, "TRUNCATE budget_note");
    refused(ex, "WITH x AS (SELECT 1) UPDATE budget_note SET note = 'engine' WHERE id = 1");
    refused(ex, "CREATE TABLE engine_scratch (a int)");
    refused(ex, "UPDATE customers SET name = 'engine' WHERE id = 1");
    refused(ex, "UPDATE budget_note SET id = 99 WHERE id = 1"); /* no grant on id */
    unchanged(ex);
    long long touched = -1;
    CHECK(run(ex, "UPDATE budget_note SET note = 'engine control' WHERE id = 10", &touched) ==
                  SLUICE_OK &&
              touched == 1,
          "the allowed update did not run (touched %lld)", touched);
    CHECK(value(ex, "SELECT count(*) FROM budget_note WHERE note = 'engine control'") == 1,
          "the allowed update did not commit");
    sluice_executor_close(ex);
}

/* ---- cancellation ---- */

typedef struct cancel_hook {
    pthread_mutex_t lock;
    void (*fn)(void *);
    void *data;
} cancel_hook;

static void register_cancel(void *ctx, void (*fn)(void *), void *data)
{
    cancel_hook *h = ctx;
    pthread_mutex_lock(&h->lock);
    h->fn = fn;
    h->data = data;
    pthread_mutex_unlock(&h->lock);
}

typedef struct runaway {
    sluice_executor *ex;
    cancel_hook hook;
    sluice_status st;
} runaway;

static const char runaway_sql[] = "SELECT count(*) AS n FROM orders a, orders b, orders c";

static void *run_runaway(void *arg)
{
    runaway *r = arg;
    sluice_arena *arena = sluice_arena_new();
    sluice_exec_request req = { .code = runaway_sql,
                                .code_len = strlen(runaway_sql),
                                .limits = { .timeout_ms = 60000, .max_rows = 10 },
                                .register_cancel = register_cancel,
                                .cancel_ctx = &r->hook };
    sluice_exec_result res;
    sluice_error err = { 0 };
    r->st = sluice_executor_execute(r->ex, arena, &req, &res, &err);
    pthread_mutex_lock(&r->hook.lock);
    r->hook.fn = NULL; /* the request arena goes now: the hook must not fire after */
    pthread_mutex_unlock(&r->hook.lock);
    sluice_arena_free(arena);
    return NULL;
}

/* Backends of application_name sluice running the runaway query, as the admin sees them. */
static int running(PGconn *admin)
{
    /* The rows are produced by the FETCH of the cursor the runaway SELECT was declared in. */
    PGresult *r =
        PQexec(admin, "SELECT count(*) FROM pg_stat_activity WHERE application_name = "
                      "'sluice' AND state = 'active' AND query LIKE 'FETCH%sluice_cursor'");
    int n = PQresultStatus(r) == PGRES_TUPLES_OK ? (int)strtol(PQgetvalue(r, 0, 0), NULL, 10) : -1;
    PQclear(r);
    return n;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static void cancellation(const char *read, const char *admin_conninfo)
{
    fprintf(stderr, "cancellation reaches PostgreSQL:\n");
    PGconn *admin = PQconnectdb(admin_conninfo);
    CHECK(PQstatus(admin) == CONNECTION_OK, "admin connection: %s", PQerrorMessage(admin));
    runaway r = { .ex = open_engine(read, NULL, false, false) };
    pthread_mutex_init(&r.hook.lock, NULL);
    pthread_t t;
    if (r.ex == NULL || PQstatus(admin) != CONNECTION_OK ||
        pthread_create(&t, NULL, run_runaway, &r) != 0) {
        CHECK(false, "cannot start the runaway query");
        PQfinish(admin);
        return;
    }
    int seen = 0;
    for (int i = 0; i < 100 && seen == 0; i++, sleep_ms(50))
        seen = running(admin);
    CHECK(seen == 1, "the runaway query never showed in pg_stat_activity (%d)", seen);
    pthread_mutex_lock(&r.hook.lock);
    if (r.hook.fn != NULL)
        r.hook.fn(r.hook.data);
    pthread_mutex_unlock(&r.hook.lock);
    pthread_join(t, NULL);
    CHECK(r.st == SLUICE_E_CANCELLED, "the call ended %d, not SLUICE_E_CANCELLED", (int)r.st);
    int left = -1;
    for (int i = 0; i < 40 && left != 0; i++, sleep_ms(50))
        left = running(admin);
    CHECK(left == 0, "the query still runs on the server after the cancel (%d)", left);
    fprintf(stderr, "  cancelled; backends still running it: %d\n", left);
    sluice_executor_close(r.ex);
    pthread_mutex_destroy(&r.hook.lock);
    PQfinish(admin);
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs fixed admin SQL; false (and a failed check) when the server refuses it. */
static bool admin_run(PGconn *admin, const char *sql)
{
    PGresult *r = PQexec(admin, sql);
    bool ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
    CHECK(ok, "admin: %s: %s", sql, PQerrorMessage(admin));
    PQclear(r);
    return ok;
}

static void termination(const char *read, const char *admin_conninfo)
{
    fprintf(stderr, "a backend that ignores its cancel is terminated:\n");
    PGconn *admin = PQconnectdb(admin_conninfo);
    CHECK(PQstatus(admin) == CONNECTION_OK, "admin connection: %s", PQerrorMessage(admin));
    sluice_executor *ex = open_engine(read, NULL, false, false);
    if (ex == NULL || PQstatus(admin) != CONNECTION_OK ||
        !admin_run(admin, "CREATE OR REPLACE FUNCTION public.sluice_stubborn() RETURNS int "
                          "LANGUAGE plpgsql AS $$ BEGIN LOOP BEGIN PERFORM pg_sleep(0.05); "
                          "EXCEPTION WHEN query_canceled THEN NULL; END; END LOOP; END $$")) {
        CHECK(false, "cannot set up the stubborn function");
        PQfinish(admin);
        return;
    }
    const long long timeout = 1500;
    const char *code = "SELECT public.sluice_stubborn() AS n";
    sluice_arena *arena = sluice_arena_new();
    sluice_exec_request req = { .code = code,
                                .code_len = strlen(code),
                                .limits = { .timeout_ms = timeout, .max_rows = 10 } };
    sluice_exec_result res;
    sluice_error err = { 0 };
    long long started = now_ms();
    sluice_status st = sluice_executor_execute(ex, arena, &req, &res, &err);
    long long answered = now_ms() - started;
    CHECK(st == SLUICE_E_TIMEOUT, "the call ended %d, not SLUICE_E_TIMEOUT", (int)st);
    int left = -1;
    long long gone = -1;
    for (int i = 0; i < 100 && left != 0; i++, sleep_ms(50))
        if ((left = running(admin)) == 0)
            gone = now_ms() - started;
    long long bound = timeout + SLUICE_LIMIT_PG_TERMINATE_AFTER_MS + 1000;
    CHECK(left == 0 && gone <= bound,
          "the backend still ran %lld ms after the call started (bound %lld ms)", gone, bound);
    fprintf(stderr, "  answered after %lld ms; backend gone after %lld ms (timeout %lld ms)\n",
            answered, gone, timeout);
    sluice_arena_free(arena);
    sluice_executor_close(ex);
    admin_run(admin, "DROP FUNCTION public.sluice_stubborn()");
    PQfinish(admin);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: pg_engine_check READ_CONNINFO WRITE_CONNINFO ADMIN_CONNINFO\n");
        return 2;
    }
    read_role_alone(argv[1]);
    read_role_as_writer(argv[1]);
    write_role(argv[1], argv[2]);
    cancellation(argv[1], argv[3]);
    termination(argv[1], argv[3]);
    if (failures == 0)
        fprintf(stderr, "pg_engine_check: every check held\n");
    return failures == 0 ? 0 : 1;
}
