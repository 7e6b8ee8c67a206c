/*
 * duckdb.c — the DuckDB executor: hardened open (research note, recipe A), one connection per
 * call, exactly one prepared statement of an allowed type, parameters bound by name, streaming
 * fetch up to max_rows+1, an interrupt at the deadline (exec/deadline.h), cancellation through the
 * same interrupt, and schema introspection from duckdb_tables()/duckdb_columns().
 *
 * Does not own: whether the statement may run (the analyzer decides); this file only keeps the
 * engine itself from touching files, extensions, settings or other statements.
 */
#include "exec/duckdb.h"

#include "core/buf.h"
#include "core/clock.h"
#include "core/hash.h"
#include "core/limits.h"
#include "core/log.h"
#include "exec/bounded.h"
#include "exec/deadline.h"
#include "exec/duckdb_catalog_facts.h"
#include "exec/duckdb_connect.h"
#ifdef SLUICE_DUCKDB_CPP
#include "exec/duckdb_plan.h"
#endif
#include "exec/duckdb_process.h"
#include "exec/duckdb_values.h"
#include "exec/fork_gate.h"
#include "exec/report.h"
#include "exec/scratch_open.h"
#include "exec/values.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* Directories DuckDB would use for extensions, secrets and HOME: procfs refuses to create
 * anything here, so no INSTALL or persistent secret can ever land on disk. */

/* Statements whose bound plan the process-function guard already read and passed, by SHA-256
 * of their exact text: only on a database opened read_only, where no statement of this process
 * (or, under DuckDB's file lock, of another) can change the catalog that binding reads, so the
 * same text always binds to the same functions (parameters are values: they cannot name one).
 * A curated tool's fixed statement then pays the guard's second bind once, not on every call
 * (issue 23: it was two thirds of a curated SELECT 1's CPU). Direct-mapped and bounded: a
 * colliding statement replaces the slot, so a miss only costs the check again. */
#define GUARD_CACHE_SLOTS 256

typedef struct guard_cache {
    pthread_mutex_t mu;
    uint8_t passed[GUARD_CACHE_SLOTS][SLUICE_HASH_BYTES];
    bool used[GUARD_CACHE_SLOTS];
} guard_cache;

/* Prepared statements of fixed-statement requests (a curated tool's statement: the same text on
 * every call, its arguments bound as parameters), kept between calls by SHA-256 of the text,
 * each on its own idle connection. Only on a database opened read_only, for the reason the
 * guard cache gives: the same text always binds to the same plan, so a kept statement is the
 * one a fresh prepare would make, and it passed the statement-kind check and the
 * process-function guard when it was made. Only a SELECT that ran in the server and ended
 * without error, timeout or cancellation is kept. A call takes its statement out of the slot
 * and puts it back when done, so two calls never share a connection; a concurrent call of the
 * same text prepares its own, and the one put back last replaces the other. Parse, bind and
 * plan were half a curated SELECT 1's CPU (issue 23).
 * Code mode's approved programs (repeated_statement) have a cache of their own, so one-off
 * programs never push a curated statement out. The text alone is a sufficient key for them
 * too, whoever the caller: nothing of a caller ever reaches a DuckDB connection or plan. The
 * identity is only logged (db_role and publish_claims are PostgreSQL's); every connection is
 * made and hardened alike; SET and SET VARIABLE never run (statement_allowed), and the analyzer
 * refuses getvariable(), which DuckDB folds into a constant at bind time, current_setting() and
 * setseed(), which would leave state on a kept connection. Variables are bound anew on every
 * run (DuckDB rebinds when their types change); rows, bytes and the deadline are counted per
 * run outside the plan; now() and the other once-per-query functions make DuckDB rebind on
 * every execution. */
#define KEPT_PLAN_SLOTS 16

typedef struct kept_plan {
    uint8_t key[SLUICE_HASH_BYTES];
    duckdb_connection conn; /* NULL: the slot is empty */
    duckdb_prepared_statement ps;
} kept_plan;

typedef struct plan_cache {
    pthread_mutex_t mu;
    kept_plan slot[KEPT_PLAN_SLOTS];
} plan_cache;

/* The served file is opened on first need, not at start-up: an idle server that has answered only
 * initialize, tools/list and the like never maps DuckDB's buffer pool, worker threads and
 * catalog (most of its idle RSS, docs/benchmarks.md). What open needs is kept from start-up,
 * where the file and the settings were already checked; the first call that needs the engine
 * (catalog, bind, execute) opens it under open_mu, and a failed open is that call's error (the
 * next call tries again: a file another process held locked may be free by then). */
typedef struct duck_open {
    pthread_mutex_t mu;
    atomic_bool done; /* db is set and verified: read without the lock */
    char *path;       /* NULL for a scratch session (opened at once) */
    char *memory;     /* memory_limit as configured */
    char access_mode[16];
    char threads[32];
} duck_open;

typedef struct duck_state {
    duckdb_database db; /* valid once open.done */
    duck_open open;
    bool allow_writes;
    bool allow_deletes;
    bool allow_ddl;
    uint64_t memory_bytes; /* memory_limit in bytes: the execute child's address-space cap */
    char memory_text[32];  /* memory_limit as configured, quoted in the error */
    bool read_only;        /* the served file, opened read_only (never a scratch session) */
    guard_cache *guards;   /* NULL unless the database is read_only (see guard_cache) */
    /* NULL unless the database is read_only (see plan_cache): curated tools' statements, and
     * code mode's programs */
    plan_cache *plans;
    plan_cache *programs;
    sluice_duckdb_idle *idle; /* the analyzer's idle connections (NULL: none kept) */
} duck_state;

typedef struct duck_setting {
    const char *name;
    const char *value;
    const char *expect; /* duckdb_settings() value read back; NULL = not checked */
} duck_setting;

/* Order matters: temp_directory must be set before enable_external_access (research §1.1), and
 * lock_configuration comes last. */
static const duck_setting hardening[] = {
    { "temp_directory", "", "" },
    { "max_temp_directory_size", "0B", "0 bytes" },
    { "autoload_known_extensions", "false", "false" },
    { "autoinstall_known_extensions", "false", "false" },
    { "allow_community_extensions", "false", "false" },
    { "allow_unsigned_extensions", "false", "false" },
    { "allow_persistent_secrets", "false", "false" },
    { "home_directory", SLUICE_DUCKDB_NO_DIR, SLUICE_DUCKDB_NO_DIR },
    { "secret_directory", SLUICE_DUCKDB_NO_DIR, SLUICE_DUCKDB_NO_DIR },
    { "extension_directory", SLUICE_DUCKDB_NO_DIR, SLUICE_DUCKDB_NO_DIR },
    { "errors_as_json", "true", "true" },
    { "enable_external_access", "false", "false" },
    { "lock_configuration", "true", "true" },
};

/* Whether the open's configuration carries the setting. DuckDB 1.4 keeps home_directory and
 * errors_as_json per connection and refuses both before the open: there
 * sluice_exec_duckdb_connect sets them on every connection, and verify_settings reads them back
 * through one. */
static bool set_before_open(const duck_setting *s)
{
#ifdef SLUICE_DUCKDB_CPP
    return strcmp(s->name, "home_directory") != 0 && strcmp(s->name, "errors_as_json") != 0;
#else
    return s != NULL;
#endif
}

static void plan_release(kept_plan *k)
{
    duckdb_destroy_prepare(&k->ps);
    duckdb_disconnect(&k->conn);
}

/* An empty plan cache; NULL when it cannot be made (every call then prepares: slower, never less
 * safe). */
static plan_cache *plan_cache_new(void)
{
    plan_cache *pc = calloc(1, sizeof *pc);
    if (pc != NULL && pthread_mutex_init(&pc->mu, NULL) != 0) {
        free(pc);
        pc = NULL;
    }
    return pc;
}

/* Releases pc's kept statements; with the database's fork-gate region held when it is open. */
static void plan_cache_release(plan_cache *pc)
{
    for (size_t i = 0; pc != NULL && i < KEPT_PLAN_SLOTS; i++)
        if (pc->slot[i].conn != NULL)
            plan_release(&pc->slot[i]);
}

static void plan_cache_free(plan_cache *pc)
{
    if (pc != NULL)
        pthread_mutex_destroy(&pc->mu);
    free(pc);
}

static void duck_close(void *state)
{
    duck_state *s = state;
    if (s == NULL)
        return;
    sluice_exec_duckdb_idle_close(s->idle); /* before the database closes */
    if (atomic_load(&s->open.done)) {
        sluice_fork_gate_enter();
        plan_cache_release(s->plans);
        plan_cache_release(s->programs);
        duckdb_close(&s->db);
        sluice_fork_gate_leave();
    }
    pthread_mutex_destroy(&s->open.mu);
    free(s->open.path);
    free(s->open.memory);
    if (s->guards != NULL)
        pthread_mutex_destroy(&s->guards->mu);
    free(s->guards);
    plan_cache_free(s->plans);
    plan_cache_free(s->programs);
    free(s);
}

static sluice_status duck_db(duck_state *s, sluice_arena *arena, sluice_error *err);
static sluice_status
duck_schema(sluice_executor *ex, sluice_arena *arena, sluice_schema *out, sluice_error *err);
static sluice_status duck_execute(sluice_executor *ex,
                                  sluice_arena *arena,
                                  const sluice_exec_request *req,
                                  sluice_exec_result *out,
                                  sluice_error *err);

static sluice_status
duck_bind_catalog(sluice_executor *ex, void **out, sluice_arena *arena, sluice_error *err)
{
    duck_state *s = sluice_executor_state(ex);
    sluice_status st = duck_db(s, arena, err);
    *out = st == SLUICE_OK ? s->db : NULL;
    return st;
}

static void *duck_bind_idle(sluice_executor *ex)
{
    duck_state *s = sluice_executor_state(ex);
    return s->idle;
}

/* A file opened read_only: DuckDB's shared lock keeps writers of other processes out, and this
 * process runs no write, DDL or ATTACH on it (statement_allowed). */
static bool duck_data_fixed(const sluice_executor *ex)
{
    const duck_state *s = sluice_executor_state(ex);
    return s->read_only;
}

static const sluice_executor_ops duck_ops = {
    .name = "duckdb",
    .schema = duck_schema,
    .execute = duck_execute,
    .close = duck_close,
    .opens_on_first_use = true,
    .bind_catalog = duck_bind_catalog,
    .bind_idle = duck_bind_idle,
    .data_fixed = duck_data_fixed,
};

/* Runs trusted host SQL (never user text) and returns a materialized result. */
static bool host_query(duckdb_connection conn, const char *sql, duckdb_result *res)
{
    if (duckdb_query(conn, sql, res) == DuckDBSuccess)
        return true;
    duckdb_destroy_result(res);
    return false;
}

#define HARDENING_COUNT (sizeof(hardening) / sizeof(hardening[0]))

/* Reads the settings back: sluice refuses to start when any did not take effect. expect holds
 * the hardening list plus the settings that depend on config (access_mode, threads). */
static sluice_status verify_settings(duckdb_database db,
                                     const duck_setting *expect,
                                     size_t n,
                                     sluice_arena *arena,
                                     sluice_error *err)
{
    duckdb_connection conn;
    sluice_status connected = sluice_exec_duckdb_connect(db, true, &conn, arena, err);
    if (connected != SLUICE_OK)
        return connected;
    duckdb_result res;
    if (!host_query(conn, "SELECT name, value FROM duckdb_settings()", &res)) {
        duckdb_disconnect(&conn);
        return sluice_error_set(err, arena, SLUICE_E_ENGINE, "could not read DuckDB settings");
    }
    sluice_status st = SLUICE_OK;
    bool seen[HARDENING_COUNT + 3] = { false };
    for (idx_t r = 0; r < duckdb_row_count(&res) && st == SLUICE_OK; r++) {
        char *name = duckdb_value_varchar(&res, 0, r);
        char *value = duckdb_value_varchar(&res, 1, r);
        const char *v = value != NULL ? value : "";
        for (size_t i = 0; i < n && name != NULL; i++) {
            if (strcmp(name, expect[i].name) != 0)
                continue;
            seen[i] = true;
            if (expect[i].expect != NULL && strcasecmp(v, expect[i].expect) != 0)
                st = sluice_error_set(err, arena, SLUICE_E_CONFIG,
                                      "DuckDB setting %s is '%s' after open, expected '%s'; "
                                      "refusing to serve an unhardened database",
                                      name, v, expect[i].expect);
        }
        duckdb_free(name);
        duckdb_free(value);
    }
    for (size_t i = 0; i < n && st == SLUICE_OK; i++)
        if (!seen[i])
            st = sluice_error_set(err, arena, SLUICE_E_CONFIG,
                                  "DuckDB setting %s could not be read back; refusing to start",
                                  expect[i].name);
    duckdb_destroy_result(&res);
    duckdb_disconnect(&conn);
    return st;
}

/* The served database's open configuration: built at start-up only to check it (a bad
 * memory_limit refuses to start), then again at the open. */
static sluice_status
make_config(const duck_open *o, duckdb_config *out, sluice_arena *arena, sluice_error *err)
{
    duckdb_config config;
    if (duckdb_create_config(&config) != DuckDBSuccess)
        return SLUICE_E_NOMEM;
    sluice_status st = SLUICE_OK;
    /* allocator_flush_threshold: DuckDB's allocator keeps what a task freed for reuse until a
     * thread's peak passes this (default 128 MB), so the work of the first calls (schema,
     * curated tools' analysis) stayed resident while idle: 4 MB gives back ~4-6 MB of RSS
     * (docs/benchmarks.md, idle RSS) at the price of a purge after the rare larger task.
     * disabled_optimizers = late_materialization: 1.4 plans `ORDER BY ... LIMIT n` (n <= 50)
     * as a top-n of row ids, a semi hash join back to the table and a sort: about seven temporary
     * blocks a run, whose handles DuckDB's eviction queues keep until a queue holds 32,768
     * entries (~16 MB of heap, reached after ~16,000 such runs: the load run's RSS climb). Off,
     * it plans a plain top-n over one scan, which allocates no block. Not
     * late_materialization_max_rows = 0: below n, 1.4.4 late-materializes a plain `LIMIT n` instead
     * (test_limit_runs_leave_the_heap_flat runs both shapes). */
    const duck_setting served[] = {
        { "access_mode", o->access_mode, NULL },
        { "threads", o->threads, NULL },
        { "memory_limit", o->memory, NULL },
        { "allocator_flush_threshold", "4MB", NULL },
        { "disabled_optimizers", "late_materialization", NULL },
    };
    for (size_t i = 0; st == SLUICE_OK && i < sizeof served / sizeof served[0]; i++)
        if (duckdb_set_config(config, served[i].name, served[i].value) != DuckDBSuccess)
            st = sluice_error_set(err, arena, SLUICE_E_CONFIG, "DuckDB refused %s='%s'",
                                  served[i].name, served[i].value);
    for (size_t i = 0; st == SLUICE_OK && i < HARDENING_COUNT; i++)
        if (set_before_open(&hardening[i]) &&
            duckdb_set_config(config, hardening[i].name, hardening[i].value) != DuckDBSuccess)
            st = sluice_error_set(err, arena, SLUICE_E_CONFIG,
                                  "DuckDB refused setting %s='%s'; refusing to start",
                                  hardening[i].name, hardening[i].value);
    if (st != SLUICE_OK)
        duckdb_destroy_config(&config);
    else
        *out = config;
    return st;
}

/* Makes db's process functions refuse to run (exec/duckdb_plan.h), on a connection of its own,
 * before the database is shared with any other thread. */
static sluice_status
seal_process_functions(duckdb_database db, sluice_arena *arena, sluice_error *err)
{
#ifdef SLUICE_DUCKDB_CPP
    duckdb_connection conn;
    sluice_status st = sluice_exec_duckdb_connect(db, true, &conn, arena, err);
    if (st == SLUICE_OK) {
        st = sluice_exec_duckdb_plan_seal(conn, arena, err);
        duckdb_disconnect(&conn);
    }
    return st;
#else
    (void)db; /* without the bind unit the guard's text and plan checks are what stands */
    (void)arena;
    (void)err;
    return SLUICE_OK;
#endif
}

/* Opens the served file and reads the hardening back; under open.mu, in a fork-gate region. */
static sluice_status open_now(duck_state *s, sluice_arena *arena, sluice_error *err)
{
    const duck_open *o = &s->open;
    duckdb_config config;
    sluice_status st = make_config(o, &config, arena, err);
    if (st != SLUICE_OK)
        return st;
    duckdb_database db = NULL;
    char *open_err = NULL;
    if (duckdb_open_ext(o->path, &db, config, &open_err) != DuckDBSuccess)
        st = sluice_error_set(err, arena, SLUICE_E_ENGINE, "DuckDB could not open '%s': %s",
                              o->path, open_err != NULL ? open_err : "unknown error");
    duckdb_free(open_err);
    duckdb_destroy_config(&config);
    if (st != SLUICE_OK)
        return st;
    duck_setting expect[HARDENING_COUNT + 2];
    memcpy(expect, hardening, sizeof(hardening));
    expect[HARDENING_COUNT] = (duck_setting){ "access_mode", o->access_mode, o->access_mode };
    expect[HARDENING_COUNT + 1] = (duck_setting){ "threads", o->threads, o->threads };
    st = verify_settings(db, expect, HARDENING_COUNT + 2, arena, err);
    if (st == SLUICE_OK)
        st = seal_process_functions(db, arena, err);
    if (st != SLUICE_OK) {
        duckdb_close(&db);
        return st;
    }
    s->db = db;
    return SLUICE_OK;
}

/* The served database, opened by the first call that needs it (see duck_open). */
static sluice_status duck_db(duck_state *s, sluice_arena *arena, sluice_error *err)
{
    if (atomic_load_explicit(&s->open.done, memory_order_acquire))
        return SLUICE_OK;
    /* The gate before the lock: a thread waiting for the lock then never holds anything a
     * pending fork waits for, and the opener inside needs no more of the gate (fork_gate.h). */
    sluice_fork_gate_enter();
    pthread_mutex_lock(&s->open.mu);
    sluice_status st = SLUICE_OK;
    if (!atomic_load_explicit(&s->open.done, memory_order_relaxed)) {
        st = open_now(s, arena, err);
        if (st == SLUICE_OK)
            atomic_store_explicit(&s->open.done, true, memory_order_release);
        else
            sluice_log(SLUICE_LOG_ERROR, "%s",
                       err != NULL && err->message != NULL ? err->message
                                                           : "DuckDB could not be opened");
    }
    pthread_mutex_unlock(&s->open.mu);
    sluice_fork_gate_leave();
    return st;
}

/* A state with its open lock; the scratch path marks it open at once. */
static duck_state *state_new(void)
{
    duck_state *s = calloc(1, sizeof(*s));
    if (s != NULL && pthread_mutex_init(&s->open.mu, NULL) != 0) {
        free(s);
        s = NULL;
    }
    if (s != NULL)
        s->idle = sluice_exec_duckdb_idle_new(); /* NULL: every analysis connects anew */
    return s;
}

/* Refuses start-up when another process holds the lock DuckDB's open would need (its exclusive
 * write lock, or any lock at all when this server writes), naming the holder, without opening
 * DuckDB: the engine opens on first need, but a server that cannot ever use its file should not
 * start. DuckDB takes POSIX record locks over the whole file (F_WRLCK read_write, F_RDLCK
 * read_only), and F_GETLK reports the first conflicting one with its PID. Closing the probe's
 * descriptor drops every record lock this process holds on the file: none yet, since this
 * executor's DuckDB opens later. A lock taken after the probe is the first call's error. */
static sluice_status
probe_lock(const char *path, bool writable, sluice_arena *err_arena, sluice_error *err)
{
    int fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return sluice_error_set(err, err_arena, SLUICE_E_IO,
                                "database file '%s' cannot be opened %s: %s", path,
                                writable ? "for writing" : "for reading", strerror(errno));
    struct flock lk = { .l_type = writable ? F_WRLCK : F_RDLCK, .l_whence = SEEK_SET };
    int rc = fcntl(fd, F_GETLK, &lk);
    int saved = errno;
    close(fd);
    if (rc != 0)
        return sluice_error_set(err, err_arena, SLUICE_E_IO,
                                "cannot read the lock on database file '%s': %s", path,
                                strerror(saved));
    if (lk.l_type == F_UNLCK)
        return SLUICE_OK;
    return sluice_error_set(err, err_arena, SLUICE_E_ENGINE,
                            "database file '%s' is locked by another process (PID %ld holds a %s "
                            "lock) and this server would %s it: stop that process or serve a "
                            "copy of the file",
                            path, (long)lk.l_pid, lk.l_type == F_WRLCK ? "write" : "read",
                            writable ? "write" : "read");
}

sluice_status
sluice_exec_duckdb_check_library(const char *loaded, sluice_arena *err_arena, sluice_error *err)
{
    if (loaded != NULL && strcmp(loaded, SLUICE_DUCKDB_VERSION) == 0)
        return SLUICE_OK;
    return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                            "the loaded libduckdb.so is DuckDB %s but sluice was built for DuckDB "
                            "%s; refusing to open a database: install sluice with the library it "
                            "was built with (lib/sluice/libduckdb.so), or rebuild after "
                            "scripts/bootstrap.sh",
                            loaded != NULL ? loaded : "(unknown)", SLUICE_DUCKDB_VERSION);
}

static sluice_status open_database(const sluice_config_database *db,
                                   const sluice_config_code_mode *code_mode,
                                   sluice_executor **out,
                                   sluice_arena *err_arena,
                                   sluice_error *err)
{
    *out = NULL;
    sluice_status checked =
        sluice_exec_duckdb_check_library(duckdb_library_version(), err_arena, err);
    if (checked != SLUICE_OK)
        return checked;
    sluice_status file = sluice_executor_check_file(db->path, err_arena, err);
    if (file != SLUICE_OK)
        return file;
    bool writable = sluice_executor_config_writable(code_mode);
    /* DuckDB itself opens on the first call: what can be checked without it is checked now
     * (readable or writable, not locked by another process, settings DuckDB accepts). */
    sluice_status st = probe_lock(db->path, writable, err_arena, err);
    if (st != SLUICE_OK)
        return st;
    duck_state *s = state_new();
    if (s == NULL)
        return SLUICE_E_NOMEM;
    duck_open *o = &s->open;
    snprintf(o->access_mode, sizeof o->access_mode, "%s", writable ? "read_write" : "read_only");
    snprintf(o->threads, sizeof o->threads, "%lld", (long long)(db->threads > 0 ? db->threads : 2));
    o->path = strdup(db->path);
    o->memory = strdup(db->memory_limit != NULL ? db->memory_limit : "512MB");
    if (o->path == NULL || o->memory == NULL) {
        duck_close(s);
        return SLUICE_E_NOMEM;
    }
    duckdb_config config;
    st = make_config(o, &config, err_arena, err);
    if (st != SLUICE_OK) {
        duck_close(s);
        return st;
    }
    duckdb_destroy_config(&config);
    s->allow_writes = code_mode != NULL && code_mode->sql_allow_writes;
    s->allow_deletes = code_mode != NULL && code_mode->sql_allow_deletes;
    s->allow_ddl = code_mode != NULL && code_mode->sql_allow_ddl;
    s->memory_bytes = sluice_bounded_parse_size(o->memory);
    if (s->memory_bytes == 0)
        s->memory_bytes = SLUICE_LIMIT_EXEC_MEMORY_DEFAULT_BYTES;
    snprintf(s->memory_text, sizeof(s->memory_text), "%s", o->memory);
    s->read_only = !writable;
    if (!writable) {
        /* Without them every call runs the guard's bind, or prepares: slower, never less safe. */
        s->guards = calloc(1, sizeof *s->guards);
        if (s->guards != NULL && pthread_mutex_init(&s->guards->mu, NULL) != 0) {
            free(s->guards);
            s->guards = NULL;
        }
        s->plans = plan_cache_new();
        s->programs = plan_cache_new();
    }
    return sluice_executor_wrap(&duck_ops, s, SLUICE_ENGINE_DUCKDB, code_mode, out);
}

/* Opening starts DuckDB's worker threads and takes its locks: a fork-gate region. */
sluice_status sluice_exec_duckdb_open(const sluice_config_database *db,
                                      const sluice_config_code_mode *code_mode,
                                      sluice_executor **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err)
{
    sluice_fork_gate_enter();
    sluice_status st = open_database(db, code_mode, out, err_arena, err);
    sluice_fork_gate_leave();
    return st;
}

duckdb_database sluice_exec_duckdb_database(const sluice_executor *ex)
{
    if (ex == NULL || sluice_executor_engine(ex) != SLUICE_ENGINE_DUCKDB)
        return NULL;
    duck_state *s = sluice_executor_state(ex);
    return atomic_load_explicit(&s->open.done, memory_order_acquire) ? s->db : NULL;
}

/* ---- scratch sessions (exec/scratch_open.h) -------------------------------------------
 * The same hardening list with the spill folder as temp_directory (size-capped). DuckDB takes
 * allowed_directories only as a runtime SET, and refuses that SET once external access is off, so
 * the last three steps run on the host's own connection right after the open, before any caller
 * has one: allowed_directories, enable_external_access = false, lock_configuration = true. */

static void scratch_settings(const sluice_scratch_options *o, duck_setting *out)
{
    for (size_t i = 0; i < HARDENING_COUNT; i++) {
        const char *name = hardening[i].name;
        out[i] = hardening[i];
        if (strcmp(name, "temp_directory") == 0)
            out[i] = (duck_setting){ name, o->spill_dir, o->spill_dir };
        else if (strcmp(name, "max_temp_directory_size") == 0)
            out[i] = (duck_setting){ name, o->max_spill, NULL };
    }
}

static bool set_at_runtime(const char *name)
{
    return strcmp(name, "enable_external_access") == 0 || strcmp(name, "lock_configuration") == 0;
}

static sluice_status
lock_scratch(duckdb_database db, const char *allowed, sluice_arena *arena, sluice_error *err)
{
    duckdb_connection conn;
    sluice_status connected = sluice_exec_duckdb_connect(db, true, &conn, arena, err);
    if (connected != SLUICE_OK)
        return connected;
    char set_dirs[SLUICE_SCRATCH_PATH_MAX + 64];
    snprintf(set_dirs, sizeof(set_dirs), "SET allowed_directories = ['%s']", allowed);
    const char *steps[] = { set_dirs, "SET enable_external_access = false",
                            "SET lock_configuration = true" };
    sluice_status st = SLUICE_OK;
    for (size_t i = 0; i < 3 && st == SLUICE_OK; i++) {
        duckdb_result res;
        if (!host_query(conn, steps[i], &res))
            st = sluice_error_set(err, arena, SLUICE_E_CONFIG,
                                  "DuckDB refused '%s' on a session database", steps[i]);
        else
            duckdb_destroy_result(&res);
    }
    duckdb_disconnect(&conn);
    return st;
}

/* allowed_directories reads back as a list ("[/tmp/x/]"): it must name exactly the folder. */
static sluice_status
check_allowed_dirs(duckdb_database db, const char *allowed, sluice_arena *arena, sluice_error *err)
{
    duckdb_connection conn;
    sluice_status connected = sluice_exec_duckdb_connect(db, true, &conn, arena, err);
    if (connected != SLUICE_OK)
        return connected;
    duckdb_result res;
    sluice_status st = SLUICE_E_CONFIG;
    if (host_query(conn, "SELECT current_setting('allowed_directories')::VARCHAR", &res)) {
        char *v = duckdb_value_varchar(&res, 0, 0);
        char want[SLUICE_SCRATCH_PATH_MAX + 8];
        snprintf(want, sizeof(want), "[%s]", allowed);
        if (v != NULL && strcmp(v, want) == 0)
            st = SLUICE_OK;
        else
            sluice_error_set(err, arena, SLUICE_E_CONFIG,
                             "DuckDB allowed_directories is '%s' after open, expected '%s'; "
                             "refusing to open the session database",
                             v != NULL ? v : "", want);
        duckdb_free(v);
        duckdb_destroy_result(&res);
    } else {
        sluice_error_set(err, arena, SLUICE_E_CONFIG, "could not read allowed_directories back");
    }
    duckdb_disconnect(&conn);
    return st;
}

static sluice_status open_scratch(const sluice_scratch_options *o,
                                  sluice_executor **out,
                                  sluice_arena *err_arena,
                                  sluice_error *err)
{
    *out = NULL;
    sluice_status checked =
        sluice_exec_duckdb_check_library(duckdb_library_version(), err_arena, err);
    if (checked != SLUICE_OK)
        return checked;
    if (o->spill_dir == NULL || strlen(o->spill_dir) >= SLUICE_SCRATCH_PATH_MAX ||
        strchr(o->spill_dir, '\'') != NULL || o->spill_dir[0] != '/')
        return sluice_error_set(err, err_arena, SLUICE_E_INVALID,
                                "the session spill folder must be an absolute path without "
                                "quotes, shorter than %u bytes",
                                SLUICE_SCRATCH_PATH_MAX);
    duck_setting settings[HARDENING_COUNT + 1];
    scratch_settings(o, settings);
    duckdb_config config;
    if (duckdb_create_config(&config) != DuckDBSuccess)
        return SLUICE_E_NOMEM;
    char threads[32];
    snprintf(threads, sizeof(threads), "%d", o->threads > 0 ? o->threads : 1);
    sluice_status st = SLUICE_OK;
    if (duckdb_set_config(config, "threads", threads) != DuckDBSuccess ||
        duckdb_set_config(config, "memory_limit", o->memory_limit) != DuckDBSuccess)
        st = sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                              "DuckDB refused memory_limit='%s' for a session", o->memory_limit);
    for (size_t i = 0; st == SLUICE_OK && i < HARDENING_COUNT; i++)
        if (!set_at_runtime(settings[i].name) && set_before_open(&settings[i]) &&
            duckdb_set_config(config, settings[i].name, settings[i].value) != DuckDBSuccess)
            st = sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                  "DuckDB refused setting %s='%s' for a session", settings[i].name,
                                  settings[i].value);
    duck_state *s = st == SLUICE_OK ? state_new() : NULL;
    if (st == SLUICE_OK && s == NULL)
        st = SLUICE_E_NOMEM;
    if (st == SLUICE_OK) {
        char *open_err = NULL;
        if (duckdb_open_ext(NULL, &s->db, config, &open_err) != DuckDBSuccess) {
            st = sluice_error_set(err, err_arena, SLUICE_E_ENGINE,
                                  "DuckDB could not open a session database: %s",
                                  open_err != NULL ? open_err : "unknown error");
            duck_close(s);
            s = NULL;
        } else {
            atomic_store(&s->open.done, true);
        }
        duckdb_free(open_err);
    }
    duckdb_destroy_config(&config);
    if (st != SLUICE_OK)
        return st;
    char allowed[SLUICE_SCRATCH_PATH_MAX + 2];
    snprintf(allowed, sizeof(allowed), "%s/", o->spill_dir);
    settings[HARDENING_COUNT] = (duck_setting){ "threads", threads, threads };
    st = lock_scratch(s->db, allowed, err_arena, err);
    if (st == SLUICE_OK)
        st = verify_settings(s->db, settings, HARDENING_COUNT + 1, err_arena, err);
    if (st == SLUICE_OK)
        st = check_allowed_dirs(s->db, allowed, err_arena, err);
    if (st == SLUICE_OK)
        st = seal_process_functions(s->db, err_arena, err);
    if (st != SLUICE_OK) {
        duck_close(s);
        return st;
    }
    s->memory_bytes = sluice_bounded_parse_size(o->memory_limit);
    if (s->memory_bytes == 0)
        s->memory_bytes = SLUICE_LIMIT_EXEC_MEMORY_DEFAULT_BYTES;
    snprintf(s->memory_text, sizeof(s->memory_text), "%s", o->memory_limit);
    return sluice_executor_wrap(&duck_ops, s, SLUICE_ENGINE_DUCKDB, NULL, out);
}

sluice_status sluice_scratch_open(const sluice_scratch_options *o,
                                  sluice_executor **out,
                                  sluice_arena *err_arena,
                                  sluice_error *err)
{
    sluice_fork_gate_enter();
    sluice_status st = open_scratch(o, out, err_arena, err);
    sluice_fork_gate_leave();
    return st;
}

/* ---- schema ----------------------------------------------------------------------------- */

/* A text cell into the arena, NULL when NULL or empty (a comment not set). */
static const char *optional_text(sluice_arena *arena, duckdb_result *res, idx_t col, idx_t row)
{
    if (duckdb_value_is_null(res, col, row))
        return NULL;
    char *v = duckdb_value_varchar(res, col, row);
    const char *out = v != NULL && *v != '\0' ? sluice_arena_strdup(arena, v) : NULL;
    duckdb_free(v);
    return out;
}

static sluice_status schema_tables(duckdb_connection conn, sluice_arena *arena, sluice_schema *out)
{
    duckdb_result res;
    if (!host_query(conn,
                    "SELECT schema_name, table_name, false, estimated_size, comment "
                    "FROM duckdb_tables() WHERE database_name = current_database() AND NOT "
                    "temporary UNION ALL SELECT schema_name, view_name, true, NULL, comment "
                    "FROM duckdb_views() "
                    "WHERE database_name = current_database() AND NOT internal AND NOT temporary "
                    "ORDER BY 1, 2",
                    &res))
        return SLUICE_E_ENGINE;
    idx_t n = duckdb_row_count(&res);
    out->tables = sluice_arena_calloc(arena, n + 1, sizeof(*out->tables));
    out->notes = sluice_arena_calloc(arena, n + 1, sizeof(*out->notes));
    sluice_status st = out->tables != NULL && out->notes != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
    for (idx_t r = 0; r < n && st == SLUICE_OK; r++) {
        sluice_schema_table *t = &out->tables[out->table_count++];
        char *schema = duckdb_value_varchar(&res, 0, r), *name = duckdb_value_varchar(&res, 1, r);
        t->schema = sluice_arena_strdup(arena, schema);
        t->name = sluice_arena_strdup(arena, name);
        t->is_view = duckdb_value_boolean(&res, 2, r);
        t->approx_rows = duckdb_value_is_null(&res, 3, r) ? -1 : duckdb_value_int64(&res, 3, r);
        out->notes[out->table_count - 1].comment = optional_text(arena, &res, 4, r);
        duckdb_free(schema);
        duckdb_free(name);
        if (t->schema == NULL || t->name == NULL)
            st = SLUICE_E_NOMEM;
    }
    duckdb_destroy_result(&res);
    return st;
}

static sluice_schema_table *find_table(sluice_schema *s, const char *schema, const char *name)
{
    for (size_t i = 0; i < s->table_count; i++)
        if (strcmp(s->tables[i].schema, schema) == 0 && strcmp(s->tables[i].name, name) == 0)
            return &s->tables[i];
    return NULL;
}

static sluice_status schema_columns(duckdb_connection conn, sluice_arena *arena, sluice_schema *out)
{
    duckdb_result res;
    if (!host_query(conn,
                    "SELECT schema_name, table_name, column_name, data_type, is_nullable, "
                    "comment FROM duckdb_columns() WHERE database_name = current_database() "
                    "AND NOT internal ORDER BY schema_name, table_name, "
                    "column_index",
                    &res))
        return SLUICE_E_ENGINE;
    idx_t n = duckdb_row_count(&res);
    sluice_status st = SLUICE_OK;
    /* One pass counts the columns of each table, the second fills them. */
    for (int pass = 0; pass < 2 && st == SLUICE_OK; pass++) {
        for (idx_t r = 0; r < n && st == SLUICE_OK; r++) {
            char *schema = duckdb_value_varchar(&res, 0, r);
            char *table = duckdb_value_varchar(&res, 1, r);
            sluice_schema_table *t =
                schema != NULL && table != NULL ? find_table(out, schema, table) : NULL;
            if (t != NULL && pass == 0) {
                t->column_count++;
            } else if (t != NULL) {
                sluice_schema_column *c = &t->columns[t->column_count++];
                char *col = duckdb_value_varchar(&res, 2, r),
                     *type = duckdb_value_varchar(&res, 3, r);
                c->name = sluice_arena_strdup(arena, col);
                c->type = sluice_arena_strdup(arena, type);
                c->nullable = duckdb_value_boolean(&res, 4, r);
                out->notes[t - out->tables].columns[t->column_count - 1].comment =
                    optional_text(arena, &res, 5, r);
                if (c->name == NULL || c->type == NULL)
                    st = SLUICE_E_NOMEM;
                duckdb_free(col);
                duckdb_free(type);
            }
            duckdb_free(schema);
            duckdb_free(table);
        }
        for (size_t i = 0; pass == 0 && i < out->table_count && st == SLUICE_OK; i++) {
            sluice_schema_table *t = &out->tables[i];
            t->columns = sluice_arena_calloc(arena, t->column_count + 1, sizeof(*t->columns));
            sluice_schema_table_notes *tn = &out->notes[i];
            tn->columns = sluice_arena_calloc(arena, t->column_count + 1, sizeof(*tn->columns));
            if (t->columns == NULL || tn->columns == NULL)
                st = SLUICE_E_NOMEM;
            t->column_count = 0; /* refilled by pass 1 */
        }
    }
    duckdb_destroy_result(&res);
    return st;
}

static sluice_status
duck_schema(sluice_executor *ex, sluice_arena *arena, sluice_schema *out, sluice_error *err)
{
    duck_state *s = sluice_executor_state(ex);
    sluice_status st = duck_db(s, arena, err);
    if (st != SLUICE_OK)
        return st;
    duckdb_connection conn;
    sluice_fork_gate_enter();
    st = sluice_exec_duckdb_connect(s->db, true, &conn, arena, err);
    bool connected = st == SLUICE_OK;
    if (connected) {
        st = schema_tables(conn, arena, out);
        if (st == SLUICE_OK)
            st = schema_columns(conn, arena, out);
        if (st == SLUICE_OK)
            st = sluice_duckdb_schema_keys(conn, arena, out);
        if (st == SLUICE_OK)
            st = sluice_duckdb_schema_values(conn, arena, out);
        duckdb_disconnect(&conn);
    }
    sluice_fork_gate_leave();
    if (connected && st == SLUICE_E_ENGINE)
        return sluice_error_set(err, arena, SLUICE_E_ENGINE, "could not read the DuckDB catalog");
    return st;
}

/* ---- execution -------------------------------------------------------------------------- */

/* Shared between the calling thread, the deadline's watcher and the cancel hook. Lives in the
 * request arena so a late cancel hook still finds it (and then does nothing: running is false). */
typedef struct duck_run {
    pthread_mutex_t mu;
    duckdb_connection conn;
    bool running; /* conn may be interrupted */
    bool done;    /* the run ended: nothing interrupts it any more */
    bool cancelled;
    bool timed_out;
    sluice_deadline deadline; /* armed while it runs, with a timeout */
} duck_run;

static void run_release(void *data)
{
    duck_run *run = data;
    pthread_mutex_destroy(&run->mu);
}

static void run_cancel(void *data)
{
    duck_run *run = data;
    pthread_mutex_lock(&run->mu);
    if (!run->done) {
        run->cancelled = true;
        if (run->running)
            duckdb_interrupt(run->conn);
    }
    pthread_mutex_unlock(&run->mu);
}

/* The deadline passed: interrupts once (research §2.5: interrupt only once; a deadline fires
 * once per arming). */
static void run_timeout(void *data)
{
    duck_run *run = data;
    pthread_mutex_lock(&run->mu);
    if (!run->done) {
        run->timed_out = true;
        if (run->running)
            duckdb_interrupt(run->conn);
    }
    pthread_mutex_unlock(&run->mu);
}

static duck_run *run_new(sluice_arena *arena)
{
    duck_run *run = sluice_arena_calloc(arena, 1, sizeof(*run));
    if (run == NULL)
        return NULL;
    pthread_mutex_init(&run->mu, NULL);
    if (sluice_arena_cleanup_add(arena, run_release, run) != SLUICE_OK)
        return NULL;
    return run;
}

/* Everything one execution holds; released in one place. */
typedef struct duck_call {
    duck_state *state;
    const sluice_exec_request *req;
    sluice_arena *arena;
    sluice_error *err;
    const char *code; /* NUL-terminated copy */
    duck_run *run;
    duckdb_connection conn;
    duckdb_prepared_statement ps;
    duckdb_result res;
    bool has_res;
    bool armed;        /* run->deadline is armed */
    bool in_child;     /* running inside the bounded execute child */
    bool needs_parent; /* the child found a write: it must run in the server process */
    bool select;       /* the prepared statement is a SELECT */
    /* the plan cache c's statement goes back to when it succeeds (key holds the text's hash);
     * NULL: it is not kept */
    plan_cache *cache;
    bool kept;  /* conn and ps came from the plan cache, prepared and checked */
    bool keyed; /* key holds the text's SHA-256 (text_key) */
    uint8_t key[SLUICE_HASH_BYTES];
} duck_call;

/* The SHA-256 of c's text, computed once per call: the plan cache and the guard cache are both
 * keyed by it. */
static const uint8_t *text_key(duck_call *c)
{
    if (!c->keyed) {
        sluice_hash_sha256(c->code, c->req->code_len, c->key);
        c->keyed = true;
    }
    return c->key;
}

/* Class and position from an errors_as_json message; the plain text when it is not JSON. */
static sluice_status engine_error(duck_call *c, const char *text)
{
    const sluice_exec_request *req = c->req;
    if (text == NULL)
        text = "unknown DuckDB error";
    /* Parser errors arrive as "Parser Error: {json}", the rest as bare JSON. */
    const char *brace = strchr(text, '{');
    json_t *j = brace != NULL ? json_loads(brace, JSON_DECODE_INT_AS_REAL, NULL) : NULL;
    const char *type = json_string_value(json_object_get(j, "exception_type"));
    const char *msg = json_string_value(json_object_get(j, "exception_message"));
    const char *pos =
        json_string_value(json_object_get(json_object_get(j, "extra_info"), "position"));
    if (pos == NULL)
        pos = json_string_value(json_object_get(j, "position"));
    char *class_name = sluice_arena_printf(c->arena, "%s Error", type != NULL ? type : "Engine");
    size_t line = 0, column = 0;
    if (pos != NULL) {
        char *end;
        unsigned long long off = strtoull(pos, &end, 10);
        if (*end == '\0' && off <= req->code_len)
            sluice_error_locate(req->code, req->code_len, (size_t)off, &line, &column);
    }
    sluice_status status = SLUICE_E_ENGINE;
    if (type != NULL && strcmp(type, "Permission") == 0)
        status = SLUICE_E_DENIED;
    else if (type != NULL && strcmp(type, "Parser") == 0)
        status = SLUICE_E_INVALID;
    sluice_status st;
    if (req->scrub_errors)
        st = sluice_error_at(c->err, c->arena, status, "<code>", line, column,
                             "%s (details hidden: the query involves blocked columns)",
                             class_name != NULL ? class_name : "Engine Error");
    else if (msg != NULL)
        st = sluice_error_at(c->err, c->arena, status, "<code>", line, column, "%s: %s",
                             class_name != NULL ? class_name : "Engine Error", msg);
    else
        st = sluice_error_at(c->err, c->arena, status, "<code>", line, column, "%s", text);
    json_decref(j);
    return st;
}

/* Timeout and cancellation win over whatever error the interrupt produced. */
static sluice_status stopped_or(duck_call *c, const char *text)
{
    pthread_mutex_lock(&c->run->mu);
    bool timed_out = c->run->timed_out, cancelled = c->run->cancelled;
    pthread_mutex_unlock(&c->run->mu);
    if (timed_out)
        return sluice_exec_timeout_error(c->err, c->arena, &c->req->limits);
    if (cancelled)
        return sluice_exec_cancelled_error(c->err, c->arena);
    return engine_error(c, text);
}

static const char *const statement_names[] = {
    "INVALID",      "SELECT",       "INSERT",      "UPDATE", "EXPLAIN",       "DELETE",
    "PREPARE",      "CREATE",       "EXECUTE",     "ALTER",  "TRANSACTION",   "COPY",
    "ANALYZE",      "VARIABLE_SET", "CREATE_FUNC", "DROP",   "EXPORT",        "PRAGMA",
    "VACUUM",       "CALL",         "SET",         "LOAD",   "RELATION",      "EXTENSION",
    "LOGICAL_PLAN", "ATTACH",       "DETACH",      "MULTI",  "COPY_DATABASE", "UPDATE_EXTENSIONS",
    "MERGE_INTO",
};

static const char *statement_name(int type)
{
    if (type >= 0 && (size_t)type < sizeof(statement_names) / sizeof(statement_names[0]))
        return statement_names[type];
    return "UNKNOWN";
}

/* An allowlist: unknown values (1.5 returns 30 for MERGE INTO) are refused. */
static bool statement_allowed(const duck_state *s, int type)
{
    switch (type) {
    case DUCKDB_STATEMENT_TYPE_SELECT:
        return true;
    case DUCKDB_STATEMENT_TYPE_INSERT:
    case DUCKDB_STATEMENT_TYPE_UPDATE:
        return s->allow_writes;
    case DUCKDB_STATEMENT_TYPE_DELETE:
        return s->allow_deletes;
    case DUCKDB_STATEMENT_TYPE_CREATE:
    case DUCKDB_STATEMENT_TYPE_ALTER:
    case DUCKDB_STATEMENT_TYPE_DROP:
        return s->allow_ddl;
    default:
        return false;
    }
}

/* Exactly one statement, prepared from the engine's own split (research D6). */
static sluice_status prepare_one(duck_call *c, const char *sql, duckdb_prepared_statement *ps)
{
    duckdb_extracted_statements ext = NULL;
    idx_t n = duckdb_extract_statements(c->conn, sql, &ext);
    sluice_status st = SLUICE_OK;
    if (n == 0) {
        const char *e = duckdb_extract_statements_error(ext);
        st = e != NULL ? engine_error(c, e)
                       : sluice_error_set(c->err, c->arena, SLUICE_E_INVALID,
                                          "the code is empty; send exactly one SQL statement");
    } else if (n > 1) {
        st = sluice_error_set(c->err, c->arena, SLUICE_E_INVALID,
                              "the code holds %llu statements; send exactly one SQL statement",
                              (unsigned long long)n);
    } else if (duckdb_prepare_extracted_statement(c->conn, ext, 0, ps) != DuckDBSuccess) {
        st = stopped_or(c, duckdb_prepare_error(*ps));
        duckdb_destroy_prepare(ps);
    }
    duckdb_destroy_extracted(&ext);
    return st;
}

/* DuckDB's binds (sluice_exec_bind_ops): a duckdb_state, DuckDBSuccess (0) when bound. */
static int duck_text(void *ps, size_t i, const char *s, size_t len)
{
    return (int)duckdb_bind_varchar_length(ps, (idx_t)i, s, len);
}

static int duck_integer(void *ps, size_t i, int64_t v)
{
    return (int)duckdb_bind_int64(ps, (idx_t)i, v);
}

static int duck_real(void *ps, size_t i, double v)
{
    return (int)duckdb_bind_double(ps, (idx_t)i, v);
}

static int duck_boolean(void *ps, size_t i, bool v)
{
    return (int)duckdb_bind_boolean(ps, (idx_t)i, v);
}

static int duck_null(void *ps, size_t i)
{
    return (int)duckdb_bind_null(ps, (idx_t)i);
}

static const sluice_exec_bind_ops duck_binds = {
    .text = duck_text,
    .integer = duck_integer,
    .real = duck_real,
    .boolean = duck_boolean,
    .null = duck_null,
};

static sluice_status bind_value(duck_call *c, idx_t i, const char *name, const json_t *v)
{
    sluice_exec_binding b = { &duck_binds, c->ps, c->arena, c->err };
    int rc = DuckDBSuccess;
    sluice_status st = sluice_exec_bind(&b, (size_t)i, name, v, &rc);
    if (st == SLUICE_OK && rc != DuckDBSuccess)
        return sluice_error_set(c->err, c->arena, SLUICE_E_INVALID,
                                "variable '%s' cannot be bound to parameter $%s", name, name);
    return st;
}

/* Binds every parameter from the variables object; values never become SQL text. */
static sluice_status bind_variables(duck_call *c)
{
    const json_t *vars = c->req->variables;
    size_t nvars = vars != NULL ? json_object_size(vars) : 0;
    bool *used = sluice_arena_calloc(c->arena, nvars + 1, sizeof(bool));
    if (used == NULL)
        return SLUICE_E_NOMEM;
    idx_t n = duckdb_nparams(c->ps);
    sluice_status st = SLUICE_OK;
    for (idx_t i = 1; i <= n && st == SLUICE_OK; i++) {
        const char *pname = duckdb_parameter_name(c->ps, i);
        char *name = sluice_arena_strdup(c->arena, pname != NULL ? pname : "");
        duckdb_free((void *)pname);
        if (name == NULL)
            return SLUICE_E_NOMEM;
        const json_t *v = sluice_exec_variable(vars, name, used);
        if (v == NULL)
            st =
                sluice_error_set(c->err, c->arena, SLUICE_E_INVALID,
                                 "parameter $%s has no value; add \"%s\" to variables", name, name);
        else
            st = bind_value(c, i, name, v);
    }
    if (st == SLUICE_OK)
        st = sluice_exec_variables_all_used(vars, used, c->arena, c->err);
    return st;
}

/* The process function name names (its static string), or NULL. */
static const char *process_function_named(const char *name)
{
    for (size_t i = 0; i < SLUICE_DUCKDB_PROCESS_FUNCTIONS; i++)
        if (name != NULL && strcasecmp(name, sluice_duckdb_process_functions[i]) == 0)
            return sluice_duckdb_process_functions[i];
    return NULL;
}

#ifdef SLUICE_DUCKDB_CPP
/* The name of a process function a LOGICAL_GET of op's subtree calls. The translation already
 * refused a plan deeper than SLUICE_DUCKDB_PLAN_MAX_DEPTH, so this recursion is bounded. */
static const char *op_calls_process_function(const sluice_duckdb_op *op)
{
    if (op->function != NULL && process_function_named(op->function) != NULL)
        return op->function;
    for (size_t i = 0; i < op->n_children; i++) {
        const char *hit = op_calls_process_function(op->children[i]);
        if (hit != NULL)
            return hit;
    }
    return NULL;
}

/* Reads the physical plan c's own prepare made — the one execution runs: query() and macros
 * resolved, views expanded — for a table scan of a process function; where there is no such
 * plan to read (parameters, a table in-out function), binds the statement once more (never
 * executes) and reads that plan in memory. The second bind was ~2M instructions of a
 * first-seen program's execute (issue 23); before it, json_serialize_plan as a query and its
 * JSON parsed cost ~6M. As that route did, a statement DuckDB will not bind again passes to the
 * text check (it did prepare: parameters inside table-function arguments); a plan too deep, or
 * memory running out, refuses. */
static const char *bound_process_function(duck_call *c)
{
    const char *hit = NULL;
    sluice_status st = sluice_exec_duckdb_plan_find_function(c->ps, process_function_named, &hit);
    if (st == SLUICE_OK)
        return hit;
    if (st == SLUICE_E_LIMIT)
        return "a plan nested too deeply";
    if (st != SLUICE_E_UNSUPPORTED)
        return "a plan sluice could not read";
    sluice_duckdb_plan *plan = NULL;
    sluice_error scratch = { 0 };
    st = sluice_exec_duckdb_plan_bind(c->conn, c->code, NULL, 0, c->arena, &plan, &scratch);
    if (st == SLUICE_E_LIMIT)
        return "a plan nested too deeply";
    if (st == SLUICE_E_NOMEM)
        return "a plan sluice could not read";
    return st == SLUICE_OK ? op_calls_process_function(plan->root) : NULL;
}
#else
/* The name of a process function anywhere in the bound plan (query() and macros resolved). */
static const char *plan_calls_process_function(const json_t *node, int depth)
{
    if (depth > 256)
        return "a plan nested too deeply";
    if (json_is_object(node)) {
        const char *type = json_string_value(json_object_get(node, "type"));
        const char *name = json_string_value(json_object_get(node, "name"));
        if (type != NULL && strcmp(type, "LOGICAL_GET") == 0 &&
            process_function_named(name) != NULL)
            return name;
        const char *key;
        json_t *child;
        json_object_foreach((json_t *)node, key, child)
        {
            (void)key;
            const char *hit = plan_calls_process_function(child, depth + 1);
            if (hit != NULL)
                return hit;
        }
    } else if (json_is_array(node)) {
        size_t i;
        json_t *child;
        json_array_foreach(node, i, child)
        {
            const char *hit = plan_calls_process_function(child, depth + 1);
            if (hit != NULL)
                return hit;
        }
    }
    return NULL;
}

/* Binds the statement once more through json_serialize_plan (binds, never executes). When the
 * plan cannot be serialized (parameters inside table-function arguments), the text check
 * below is what remains; the analyzer fails closed on those anyway. */
static const char *bound_process_function(duck_call *c)
{
    duckdb_prepared_statement ps = NULL;
    duckdb_result res;
    const char *hit = NULL;
    if (duckdb_prepare(c->conn,
                       "SELECT json_serialize_plan($1::VARCHAR, skip_null:=true, skip_empty:=true)",
                       &ps) != DuckDBSuccess ||
        duckdb_bind_varchar_length(ps, 1, c->code, c->req->code_len) != DuckDBSuccess) {
        duckdb_destroy_prepare(&ps);
        return NULL;
    }
    if (duckdb_execute_prepared(ps, &res) == DuckDBSuccess && duckdb_row_count(&res) == 1) {
        char *plan = duckdb_value_varchar(&res, 0, 0);
        /* Plans hold 2^64-1 sentinels, beyond jansson's integers: decode numbers as reals. */
        json_t *j = plan != NULL ? json_loads(plan, JSON_DECODE_INT_AS_REAL, NULL) : NULL;
        const char *name =
            j != NULL ? plan_calls_process_function(j, 0) : "a plan sluice could not read";
        hit = name != NULL ? sluice_arena_strdup(c->arena, name) : NULL;
        json_decref(j);
        duckdb_free(plan);
    }
    duckdb_destroy_result(&res);
    duckdb_destroy_prepare(&ps);
    return hit;
}
#endif

/* Whether the bound plan of the text whose SHA-256 is key already passed the guard (see
 * guard_cache); with record, notes that it did. */
static bool guard_passed(guard_cache *g, const uint8_t key[SLUICE_HASH_BYTES], bool record)
{
    if (g == NULL)
        return false;
    size_t slot = key[0] % GUARD_CACHE_SLOTS;
    pthread_mutex_lock(&g->mu);
    bool hit = g->used[slot] && memcmp(g->passed[slot], key, SLUICE_HASH_BYTES) == 0;
    if (record) {
        memcpy(g->passed[slot], key, SLUICE_HASH_BYTES);
        g->used[slot] = true;
    }
    pthread_mutex_unlock(&g->mu);
    return hit;
}

static sluice_status guard_process_functions(duck_call *c)
{
    const char *hit = NULL;
    for (size_t i = 0; hit == NULL && i < SLUICE_DUCKDB_PROCESS_FUNCTIONS; i++)
        if (strcasestr(c->code, sluice_duckdb_process_functions[i]) != NULL)
            hit = sluice_duckdb_process_functions[i];
    if (hit == NULL && guard_passed(c->state->guards, text_key(c), false))
        return SLUICE_OK;
    if (hit == NULL)
        hit = bound_process_function(c);
    if (hit == NULL) {
        guard_passed(c->state->guards, text_key(c), true);
        return SLUICE_OK;
    }
    if (strchr(hit, ' ') != NULL)
        return sluice_error_set(c->err, c->arena, SLUICE_E_DENIED, "the statement was refused: %s",
                                hit);
    return sluice_error_set(c->err, c->arena, SLUICE_E_DENIED,
                            "%s() is not allowed: it changes the server process, not data", hit);
}

/* When a column has a type this build cannot convert (1.5's GEOMETRY=40, VARIANT=41, UNION,
 * BIGNUM...), the same SELECT is wrapped so those columns come back as VARCHAR. The wrapper
 * only renames and casts outputs; it reads nothing the statement did not. */
static sluice_status cast_unsupported(duck_call *c)
{
    idx_t n = duckdb_prepared_statement_column_count(c->ps);
    bool any = false, unknown = false;
    for (idx_t i = 0; i < n; i++) {
        duckdb_logical_type t = duckdb_prepared_statement_column_logical_type(c->ps, i);
        any = any || !sluice_duck_type_supported(t);
        /* Types that depend on parameters are only known after binding; such outputs are
         * plain parameter values, which always convert. */
        unknown = unknown || duckdb_get_type_id(t) == DUCKDB_TYPE_INVALID;
        duckdb_destroy_logical_type(&t);
    }
    if (!any || unknown)
        return SLUICE_OK;
    if (duckdb_prepared_statement_type(c->ps) != DUCKDB_STATEMENT_TYPE_SELECT)
        return sluice_error_set(c->err, c->arena, SLUICE_E_UNSUPPORTED,
                                "a result column has a type sluice cannot return; CAST it to "
                                "VARCHAR");
    size_t len = c->req->code_len;
    while (len > 0 &&
           (c->code[len - 1] == ';' || c->code[len - 1] == ' ' || c->code[len - 1] == '\n' ||
            c->code[len - 1] == '\t' || c->code[len - 1] == '\r'))
        len--;
    sluice_buf b;
    sluice_buf_init(&b, c->arena, 2 * len + 4096 + 64 * n);
    sluice_buf_puts(&b, "SELECT ");
    for (idx_t i = 0; i < n; i++) {
        duckdb_logical_type t = duckdb_prepared_statement_column_logical_type(c->ps, i);
        bool ok = sluice_duck_type_supported(t);
        duckdb_destroy_logical_type(&t);
        const char *name = duckdb_prepared_statement_column_name(c->ps, i);
        sluice_buf_printf(&b, "%s%sc%llu%s AS ", i > 0 ? ", " : "", ok ? "" : "CAST(",
                          (unsigned long long)i, ok ? "" : " AS VARCHAR)");
        sluice_duck_put_ident(&b, name != NULL ? name : "");
        duckdb_free((void *)name);
    }
    sluice_buf_puts(&b, " FROM (\n");
    sluice_buf_append(&b, c->code, len);
    sluice_buf_puts(&b, "\n) AS sluice_result(");
    for (idx_t i = 0; i < n; i++)
        sluice_buf_printf(&b, "%sc%llu", i > 0 ? ", " : "", (unsigned long long)i);
    sluice_buf_putc(&b, ')');
    if (sluice_buf_status(&b) != SLUICE_OK)
        return SLUICE_E_NOMEM;
    duckdb_prepared_statement wrapped = NULL;
    sluice_status st = prepare_one(c, sluice_buf_cstr(&b), &wrapped);
    if (st != SLUICE_OK)
        return sluice_error_set(c->err, c->arena, SLUICE_E_UNSUPPORTED,
                                "a result column has a type sluice cannot return; CAST it to "
                                "VARCHAR");
    duckdb_destroy_prepare(&c->ps);
    c->ps = wrapped;
    return SLUICE_OK;
}

static sluice_status describe_columns(duck_call *c, sluice_exec_result *out)
{
    idx_t n = duckdb_column_count(&c->res);
    out->columns = sluice_arena_calloc(c->arena, n + 1, sizeof(*out->columns));
    if (out->columns == NULL)
        return SLUICE_E_NOMEM;
    for (idx_t i = 0; i < n; i++) {
        duckdb_logical_type t = duckdb_column_logical_type(&c->res, i);
        out->columns[i].name = sluice_arena_strdup(c->arena, duckdb_column_name(&c->res, i));
        out->columns[i].type = sluice_duck_type_text(c->arena, t);
        duckdb_destroy_logical_type(&t);
        if (out->columns[i].name == NULL || out->columns[i].type == NULL)
            return SLUICE_E_NOMEM;
    }
    out->column_count = n;
    return SLUICE_OK;
}

static sluice_status fetch_rows(duck_call *c, sluice_exec_result *out)
{
    sluice_exec_rows acc;
    bool text_only = c->req->rows_text_only; /* values straight into rows_text, no tree */
    if ((text_only ? sluice_exec_rows_init_text(&acc, c->arena, &c->req->limits)
                   : sluice_exec_rows_init(&acc, c->arena, &c->req->limits)) != SLUICE_OK)
        return SLUICE_E_NOMEM;
    idx_t ncols = out->column_count;
    duckdb_logical_type *types = sluice_arena_calloc(c->arena, ncols + 1, sizeof(*types));
    if (types == NULL)
        return SLUICE_E_NOMEM;
    for (idx_t i = 0; i < ncols; i++)
        types[i] = duckdb_column_logical_type(&c->res, i);
    sluice_status st = SLUICE_OK;
    bool more = true;
    while (more && st == SLUICE_OK) {
        duckdb_data_chunk chunk = duckdb_fetch_chunk(c->res);
        if (chunk == NULL)
            break;
        idx_t rows = duckdb_data_chunk_get_size(chunk);
        for (idx_t r = 0; text_only && r < rows && more && st == SLUICE_OK; r++)
            st = sluice_duck_row_text(&acc, chunk, types, ncols, r, &more);
        for (idx_t r = 0; !text_only && r < rows && more && st == SLUICE_OK; r++) {
            json_t *row = json_array();
            for (idx_t col = 0; row != NULL && col < ncols; col++) {
                json_t *v =
                    sluice_duck_value(duckdb_data_chunk_get_vector(chunk, col), types[col], r);
                if (json_array_append_new(row, v) != 0 || v == NULL) {
                    json_decref(row);
                    row = NULL;
                }
            }
            st = sluice_exec_rows_add(&acc, row, &more);
        }
        duckdb_destroy_data_chunk(&chunk);
    }
    for (idx_t i = 0; i < ncols; i++)
        duckdb_destroy_logical_type(&types[i]);
    if (st != SLUICE_OK)
        return st;
    /* A NULL chunk also ends the stream on error (an interrupt arrives this way). */
    const char *e = duckdb_result_error(&c->res);
    if (more && e != NULL)
        return stopped_or(c, e);
    sluice_exec_rows_finish(&acc, out);
    return SLUICE_OK;
}

/* Takes the kept statement of c's text out of its slot (see plan_cache): true when there was
 * one, and c then holds its connection and statement. */
static bool plan_take(duck_call *c)
{
    const sluice_exec_request *req = c->req;
    plan_cache *pc = req->fixed_statement      ? c->state->plans
                     : req->repeated_statement ? c->state->programs
                                               : NULL;
    if (pc == NULL)
        return false;
    c->cache = pc;
    kept_plan *k = &pc->slot[text_key(c)[0] % KEPT_PLAN_SLOTS];
    pthread_mutex_lock(&pc->mu);
    c->kept = k->conn != NULL && memcmp(k->key, c->key, sizeof c->key) == 0;
    if (c->kept) {
        c->conn = k->conn;
        c->ps = k->ps;
        k->conn = NULL;
        k->ps = NULL;
    }
    pthread_mutex_unlock(&pc->mu);
    return c->kept;
}

/* Puts c's connection and statement in the slot of its text; what the slot held (a concurrent
 * call's statement, or another text's) is released. */
static void plan_put(duck_call *c)
{
    plan_cache *pc = c->cache;
    kept_plan *k = &pc->slot[c->key[0] % KEPT_PLAN_SLOTS];
    pthread_mutex_lock(&pc->mu);
    kept_plan displaced = *k;
    memcpy(k->key, c->key, sizeof c->key);
    k->conn = c->conn;
    k->ps = c->ps;
    pthread_mutex_unlock(&pc->mu);
    c->conn = NULL;
    c->ps = NULL;
    if (displaced.conn != NULL)
        plan_release(&displaced);
}

static sluice_status start_run(duck_call *c)
{
    const sluice_exec_request *req = c->req;
    c->run = run_new(c->arena);
    if (c->run == NULL)
        return SLUICE_E_NOMEM;
    sluice_status connected =
        c->conn != NULL
            ? SLUICE_OK
            : sluice_exec_duckdb_connect(c->state->db, true, &c->conn, c->arena, c->err);
    if (connected != SLUICE_OK)
        return connected;
    if (req->register_cancel != NULL)
        req->register_cancel(req->cancel_ctx, run_cancel, c->run);
    pthread_mutex_lock(&c->run->mu);
    c->run->conn = c->conn;
    c->run->running = true;
    bool cancelled = c->run->cancelled;
    pthread_mutex_unlock(&c->run->mu);
    if (cancelled)
        return sluice_exec_cancelled_error(c->err, c->arena);
    if (req->limits.timeout_ms > 0) {
        c->run->deadline =
            (sluice_deadline){ .at_ms = sluice_clock_monotonic_ms(NULL) + req->limits.timeout_ms,
                               .fire = run_timeout,
                               .arg = c->run };
        if (sluice_deadline_arm(&c->run->deadline) != SLUICE_OK)
            return sluice_error_set(c->err, c->arena, SLUICE_E_INTERNAL,
                                    "could not start the timeout watchdog");
        c->armed = true;
    }
    return SLUICE_OK;
}

/* Ends c's run; with keep (a fixed statement that succeeded), its connection and statement go
 * back to the plan cache unless a timeout or a cancellation reached them. */
static void end_run(duck_call *c, bool keep)
{
    bool stopped = false;
    if (c->run != NULL) {
        pthread_mutex_lock(&c->run->mu);
        c->run->running = false;
        c->run->done = true;
        stopped = c->run->timed_out || c->run->cancelled;
        pthread_mutex_unlock(&c->run->mu);
    }
    if (c->armed) /* after it: the watcher no longer reaches run, which the arena frees */
        sluice_deadline_disarm(&c->run->deadline);
    if (c->has_res)
        duckdb_destroy_result(&c->res);
    /* with done set and the deadline disarmed: no interrupt can reach the connection any more */
    if (keep && !stopped && c->cache != NULL && c->select && c->conn != NULL && c->ps != NULL)
        plan_put(c);
    if (c->ps != NULL)
        duckdb_destroy_prepare(&c->ps);
    if (c->conn != NULL)
        duckdb_disconnect(&c->conn);
}

/* Binds c's variables to its prepared statement, runs it and reads the result. */
static sluice_status execute_prepared(duck_call *c, sluice_exec_result *out)
{
    sluice_status st = bind_variables(c);
    if (st != SLUICE_OK)
        return st;
    if (duckdb_execute_prepared_streaming(c->ps, &c->res) != DuckDBSuccess) {
        c->has_res = true;
        return stopped_or(c, duckdb_result_error(&c->res));
    }
    c->has_res = true;
    st = describe_columns(c, out);
    if (st == SLUICE_OK)
        st = fetch_rows(c, out);
    return st;
}

static sluice_status run_statement(duck_call *c, sluice_exec_result *out)
{
    if (c->kept) { /* only a SELECT is kept */
        c->select = true;
        out->statement_type = statement_name(DUCKDB_STATEMENT_TYPE_SELECT);
        return execute_prepared(c, out);
    }
    sluice_status st = prepare_one(c, c->code, &c->ps);
    if (st != SLUICE_OK)
        return st;
    int type = (int)duckdb_prepared_statement_type(c->ps);
    c->select = type == DUCKDB_STATEMENT_TYPE_SELECT;
    out->statement_type = statement_name(type);
    if (!statement_allowed(c->state, type))
        return sluice_error_set(c->err, c->arena, SLUICE_E_DENIED,
                                "%s statements are not allowed here; only %s", out->statement_type,
                                c->state->allow_writes || c->state->allow_deletes ||
                                        c->state->allow_ddl
                                    ? "SELECT and the write/delete/DDL kinds enabled in "
                                      "[code_mode] may run"
                                    : "a single read-only SELECT may run");
    if (c->in_child && type != DUCKDB_STATEMENT_TYPE_SELECT) {
        c->needs_parent = true; /* its effects must land in the server's own database */
        return SLUICE_OK;
    }
    st = guard_process_functions(c);
    if (st == SLUICE_OK)
        st = cast_unsupported(c);
    return st == SLUICE_OK ? execute_prepared(c, out) : st;
}

/* ---- the bounded child ------------------------------------------------------------------
 * A SELECT runs in a forked child (exec/bounded.h): DuckDB builds huge generated lists and
 * strings (range(x), repeat(s, n), unnest(generate_series(...))) in single vectors, past
 * memory_limit and between interrupt checks. The child is capped at memory_limit and killed
 * shortly after the deadline; the server's own memory does not grow. Writes come back with
 * in_parent and run here, where their effects persist (the analysis bound their binding). */

static void exec_child(void *arg, sluice_buf *out)
{
    duck_call *c = arg;
    sluice_exec_request req = *c->req;
    req.register_cancel = NULL; /* the parent kills the child instead */
    req.rows_text_only = false; /* the report carries the rows as a tree (exec/report.c) */
    sluice_exec_result res;
    memset(&res, 0, sizeof(res));
    sluice_error e;
    sluice_error_clear(&e);
    c->req = &req;
    c->err = &e;
    c->in_child = true;
    sluice_status st = start_run(c);
    if (st == SLUICE_OK)
        st = run_statement(c, &res);
    end_run(c, false);
    if (st == SLUICE_E_NOMEM && e.message == NULL)
        sluice_error_set(&e, c->arena, st, "out of memory while running the query");
    sluice_exec_report_write(out, st, &e, &res, c->needs_parent);
}

static sluice_status died_error(duck_call *c)
{
    return sluice_error_set(c->err, c->arena, SLUICE_E_LIMIT,
                            "the query needed more memory than [database] memory_limit (%s) and "
                            "was stopped; compute less at once (smaller range/repeat/unnest, "
                            "LIMIT, aggregates) or raise memory_limit",
                            c->state->memory_text);
}

static sluice_status run_bounded(duck_call *c, sluice_exec_result *out, bool *in_parent)
{
    const sluice_exec_request *req = c->req;
    sluice_bounded *b = sluice_bounded_new(c->arena);
    if (b == NULL)
        return SLUICE_E_NOMEM;
    if (req->register_cancel != NULL)
        req->register_cancel(req->cancel_ctx, sluice_bounded_cancel, b);
    size_t max_bytes =
        req->limits.max_bytes > 0 ? req->limits.max_bytes : SLUICE_LIMIT_RESULT_BYTES;
    sluice_bounded_limits lim = {
        .timeout_ms = (req->limits.timeout_ms > 0 ? req->limits.timeout_ms
                                                  : SLUICE_LIMIT_EXEC_UNTIMED_CHILD_MS) +
                      SLUICE_LIMIT_EXEC_KILL_GRACE_MS,
        .memory_bytes = c->state->memory_bytes,
        .rss_bytes = c->state->memory_bytes,
        .max_report = 6 * max_bytes + SLUICE_LIMIT_EXEC_REPORT_SLACK_BYTES,
    };
    sluice_bounded_outcome oc;
    const char *rep = NULL;
    size_t rep_len = 0;
    sluice_status st = sluice_bounded_run(b, &lim, exec_child, c, c->arena, &oc, &rep, &rep_len);
    if (st == SLUICE_E_INTERNAL)
        return sluice_error_set(c->err, c->arena, SLUICE_E_INTERNAL,
                                "could not start the bounded query process; nothing was run");
    if (st != SLUICE_OK)
        return st;
    if (oc == SLUICE_BOUNDED_TIMEOUT)
        return sluice_exec_timeout_error(c->err, c->arena, &req->limits);
    if (oc == SLUICE_BOUNDED_CANCELLED)
        return sluice_exec_cancelled_error(c->err, c->arena);
    if (oc == SLUICE_BOUNDED_BUSY)
        return sluice_error_set(c->err, c->arena, SLUICE_E_TIMEOUT,
                                "the query did not start: other queries kept the engine busy for "
                                "%lld ms, and its bounded process cannot start while they run; "
                                "nothing was run, retry",
                                (long long)lim.timeout_ms);
    if (oc != SLUICE_BOUNDED_DONE)
        return died_error(c);
    st = sluice_exec_report_read(rep, rep_len, &req->limits, c->arena, out, in_parent, c->err);
    return st == SLUICE_E_INTERNAL ? died_error(c) : st;
}

/* One fork-gate region from connect to disconnect: DuckDB's worker threads run this query's
 * tasks until end_run has destroyed the result (exec/fork_gate.h). */
static sluice_status run_in_process(duck_call *c, sluice_exec_result *out)
{
    sluice_fork_gate_enter();
    plan_take(c);
    sluice_status st = start_run(c);
    if (st == SLUICE_OK)
        st = run_statement(c, out);
    end_run(c, st == SLUICE_OK);
    sluice_fork_gate_leave();
    return st;
}

static sluice_status duck_execute(sluice_executor *ex,
                                  sluice_arena *arena,
                                  const sluice_exec_request *req,
                                  sluice_exec_result *out,
                                  sluice_error *err)
{
    int64_t started = sluice_clock_monotonic_ms(NULL);
    duck_call c = { .state = sluice_executor_state(ex), .req = req, .arena = arena, .err = err };
    /* Opened here, in the server, before any capped child is forked: a child must never be
     * the one to open (it would on every call, and its open would die with it). */
    sluice_status opened = duck_db(c.state, arena, err);
    if (opened != SLUICE_OK)
        return opened;
    c.code = sluice_arena_strndup(arena, req->code, req->code_len);
    if (c.code == NULL)
        return SLUICE_E_NOMEM;
    /* A statement the analysis proved non-amplifying (lang/sql/amplify.c) is governed by
     * memory_limit and the interrupt watchdog alone, as ordinary operators are; any other goes
     * through the capped child. */
    bool in_parent = req->engine_bounded;
    sluice_status st = in_parent ? SLUICE_OK : run_bounded(&c, out, &in_parent);
    if (st == SLUICE_OK && in_parent) {
        memset(out, 0, sizeof(*out));
        st = run_in_process(&c, out);
    }
    out->elapsed_ms = sluice_clock_monotonic_ms(NULL) - started;
    if (st == SLUICE_E_NOMEM && err != NULL && err->message == NULL)
        sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory while running the query");
    return st;
}
