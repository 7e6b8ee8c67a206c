/*
 * sqlite.c — the SQLite executor: a hardened read-only connection per call (research §5),
 * an allowlist authorizer, exactly one statement (the tail after prepare must be empty),
 * parameters bound by name, a progress handler for timeout and cancellation, row and byte caps,
 * schema introspection, and the read collector the analyzer cross-checks its lineage with (its
 * prepare bounded in a child where SQLite may expand CTEs).
 *
 * Does not own: whether a statement may run by policy (the analyzer decides).
 */
#include "exec/sqlite.h"

#include "core/buf.h"
#include "core/clock.h"
#include "core/limits.h"
#include "core/vec.h"
#include "exec/bounded.h"
#include "exec/values.h"

#include <ctype.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* VM steps between two looks at the clock and the cancel flag. */
#define LITE_PROGRESS_STEPS 1000
/* Code at most this long without the word WITH is prepared in the server: SQLite's prepare
 * grows with the text and the joins (64 joined tables, 4.5 KB: 0.3 s) except where it expands a
 * CTE at each reference (below, lite_engine_reads). */
#define LITE_FAST_TEXT_BYTES 4096

typedef struct lite_state {
    char *uri;
    bool allow_writes;
    bool allow_deletes;
    bool allow_ddl;
    int64_t analysis_timeout_ms; /* [code_mode] bounds of the prepare a validate asks for */
    int64_t analysis_memory_mb;
} lite_state;

/* Functions a statement may call: the core, date, math, JSON and window functions. Anything
 * else (load_extension, fts3_tokenizer, sqlite_* internals, functions added later) is refused. */
static const char *const allowed_functions[] = {
    "abs",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "avg",
    "ceil",
    "ceiling",
    "char",
    "coalesce",
    "cos",
    "cosh",
    "count",
    "cume_dist",
    "date",
    "datetime",
    "degrees",
    "dense_rank",
    "exp",
    "first_value",
    "floor",
    "format",
    "glob",
    "group_concat",
    "hex",
    "ifnull",
    "iif",
    "instr",
    "json",
    "json_array",
    "json_array_length",
    "json_each",
    "json_extract",
    "json_group_array",
    "json_group_object",
    "json_insert",
    "json_object",
    "json_patch",
    "json_quote",
    "json_remove",
    "json_replace",
    "json_set",
    "json_tree",
    "json_type",
    "json_valid",
    "julianday",
    "lag",
    "last_value",
    "lead",
    "length",
    "like",
    "likelihood",
    "likely",
    "ln",
    "log",
    "log10",
    "log2",
    "lower",
    "ltrim",
    "max",
    "min",
    "mod",
    "nth_value",
    "ntile",
    "nullif",
    "percent_rank",
    "pi",
    "pow",
    "power",
    "printf",
    "quote",
    "radians",
    "random",
    "rank",
    "replace",
    "round",
    "row_number",
    "rtrim",
    "sign",
    "sin",
    "sinh",
    "sqrt",
    "strftime",
    "string_agg",
    "substr",
    "substring",
    "sum",
    "tan",
    "tanh",
    "time",
    "total",
    "trim",
    "trunc",
    "typeof",
    "unhex",
    "unicode",
    "unixepoch",
    "unlikely",
    "upper",
    "->",
    "->>",
};

static bool function_allowed(const char *name)
{
    for (size_t i = 0; i < sizeof(allowed_functions) / sizeof(allowed_functions[0]); i++)
        if (strcasecmp(name, allowed_functions[i]) == 0)
            return true;
    return false;
}

/* ---- authorizer ------------------------------------------------------------------------- */

typedef struct lite_auth {
    const lite_state *state;
    sluice_arena *arena;
    const char *denied;         /* what was refused first, for the message */
    bool saw_select;            /* a SELECT core was authorized (REINDEX, VACUUM... have none) */
    sluice_exec_reads *collect; /* non-NULL: record reads and functions */
    size_t read_cap;
    size_t function_cap;
} lite_auth;

/* Remembers the first refusal as "<what><arg><after>" for the error message. */
static void deny(lite_auth *a, const char *what, const char *arg, const char *after)
{
    if (a->denied == NULL)
        a->denied = sluice_arena_printf(a->arena, "%s%s%s", what, arg != NULL ? arg : "", after);
}

static bool same(const char *x, const char *y)
{
    return (x == NULL && y == NULL) || (x != NULL && y != NULL && strcmp(x, y) == 0);
}

static void record_read(lite_auth *a, const char *table, const char *column, const char *via)
{
    sluice_exec_reads *r = a->collect;
    for (size_t i = 0; i < r->read_count; i++)
        if (same(r->reads[i].table, table) && same(r->reads[i].column, column) &&
            same(r->reads[i].via, via))
            return;
    sluice_exec_read *n =
        sluice_vec_grow(a->arena, r->reads, r->read_count, &a->read_cap, sizeof(*n), 16);
    if (n == NULL)
        return;
    r->reads = n;
    sluice_exec_read *e = &r->reads[r->read_count++];
    e->table = sluice_arena_strdup(a->arena, table != NULL ? table : "");
    e->column = sluice_arena_strdup(a->arena, column != NULL ? column : "");
    e->via = sluice_arena_strdup(a->arena, via);
}

static void record_function(lite_auth *a, const char *name)
{
    sluice_exec_reads *r = a->collect;
    char *lower = sluice_arena_strdup(a->arena, name != NULL ? name : "");
    if (lower == NULL)
        return;
    for (char *p = lower; *p != '\0'; p++)
        *p = (char)tolower((unsigned char)*p);
    for (size_t i = 0; i < r->function_count; i++)
        if (strcmp(r->functions[i], lower) == 0)
            return;
    const char **n = sluice_vec_grow(a->arena, (void *)r->functions, r->function_count,
                                     &a->function_cap, sizeof(*n), 16);
    if (n == NULL)
        return;
    r->functions = n;
    r->functions[r->function_count++] = lower;
}

static bool is_schema_table(const char *table)
{
    return table != NULL && strncasecmp(table, "sqlite_", 7) == 0;
}

static int authorize(
    void *data, int action, const char *arg1, const char *arg2, const char *dbname, const char *via)
{
    lite_auth *a = data;
    const lite_state *s = a->state;
    (void)dbname;
    switch (action) {
    case SQLITE_SELECT:
        a->saw_select = true;
        return SQLITE_OK;
    case SQLITE_RECURSIVE:
        return SQLITE_OK;
    case SQLITE_READ:
        if (a->collect != NULL)
            record_read(a, arg1, arg2, via);
        return SQLITE_OK;
    case SQLITE_FUNCTION:
        if (a->collect != NULL)
            record_function(a, arg2);
        if (arg2 != NULL && function_allowed(arg2))
            return SQLITE_OK;
        deny(a, "function ", arg2, "() is not allowed");
        return SQLITE_DENY;
    case SQLITE_INSERT:
    case SQLITE_UPDATE:
        if (s->allow_writes && (!is_schema_table(arg1) || s->allow_ddl))
            return SQLITE_OK;
        if (s->allow_ddl && is_schema_table(arg1))
            return SQLITE_OK;
        deny(a, "writing to ", arg1, " is not allowed (the database is read-only)");
        return SQLITE_DENY;
    case SQLITE_DELETE:
        if ((s->allow_deletes && !is_schema_table(arg1)) || (s->allow_ddl && is_schema_table(arg1)))
            return SQLITE_OK;
        deny(a, "deleting from ", arg1, " is not allowed (the database is read-only)");
        return SQLITE_DENY;
    case SQLITE_CREATE_TABLE:
    case SQLITE_CREATE_INDEX:
    case SQLITE_CREATE_VIEW:
    case SQLITE_DROP_TABLE:
    case SQLITE_DROP_INDEX:
    case SQLITE_DROP_VIEW:
    case SQLITE_ALTER_TABLE:
        if (s->allow_ddl)
            return SQLITE_OK;
        deny(a, "changing the schema (", arg1, ") is not allowed");
        return SQLITE_DENY;
    case SQLITE_ATTACH:
        deny(a, "ATTACH (and VACUUM INTO) is not allowed", NULL, "");
        break;
    case SQLITE_DETACH:
        deny(a, "DETACH is not allowed", NULL, "");
        break;
    case SQLITE_PRAGMA:
        deny(a, "PRAGMA ", arg1, " is not allowed");
        break;
    case SQLITE_TRANSACTION:
        deny(a, "transaction control (", arg1, ") is not allowed");
        break;
    case SQLITE_SAVEPOINT:
        deny(a, "SAVEPOINT is not allowed", NULL, "");
        break;
    default:
        deny(a, "this kind of statement is not allowed", NULL, "");
        break;
    }
    return SQLITE_DENY;
}

/* ---- connections ------------------------------------------------------------------------ */

/* "file:" URI for path: bytes outside the unreserved set are %-escaped so '?' or '#' in a file
 * name cannot add URI parameters. */
static char *path_uri(const char *path, bool writable)
{
    sluice_buf b;
    sluice_buf_init(&b, NULL, 0);
    sluice_buf_puts(&b, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p != '\0'; p++) {
        if (isalnum(*p) || strchr("/-._~", *p) != NULL)
            sluice_buf_putc(&b, (char)*p);
        else
            sluice_buf_printf(&b, "%%%02X", *p);
    }
    sluice_buf_puts(&b, writable ? "?mode=rw" : "?mode=ro");
    if (sluice_buf_status(&b) != SLUICE_OK) {
        sluice_buf_dispose(&b);
        return NULL;
    }
    return b.data; /* malloc-backed: the caller frees */
}

static int harden(sqlite3 *db)
{
    int ok = 1, v = 0;
    ok &= sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, &v) == SQLITE_OK && v == 1;
    ok &= sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, &v) == SQLITE_OK && v == 0;
    ok &=
        sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, &v) == SQLITE_OK && v == 0;
    ok &= sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, &v) == SQLITE_OK && v == 0;
    /* ATTACHED=0 also blocks VACUUM INTO (research §5.5). */
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, SLUICE_LIMIT_SQLITE_LENGTH);
    sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, (int)SLUICE_LIMIT_CODE_BYTES);
    sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH, SLUICE_LIMIT_SQLITE_EXPR_DEPTH);
    sqlite3_limit(db, SQLITE_LIMIT_COMPOUND_SELECT, SLUICE_LIMIT_SQLITE_COMPOUND_SELECT);
    ok &= sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, -1) == 0;
    return ok;
}

static sluice_status
connect(const lite_state *s, sqlite3 **out, sluice_arena *arena, sluice_error *err)
{
    bool writable = s->allow_writes || s->allow_deletes || s->allow_ddl;
    int flags = (writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_URI;
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(s->uri, &db, flags, NULL);
    if (rc != SQLITE_OK) {
        sluice_status st =
            sluice_error_set(err, arena, SLUICE_E_IO, "SQLite could not open the database: %s",
                             db != NULL ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return st;
    }
    if (!harden(db)) {
        sqlite3_close(db);
        return sluice_error_set(err, arena, SLUICE_E_CONFIG,
                                "SQLite hardening (defensive mode, no extensions, no triggers, "
                                "no ATTACH) did not take effect; refusing to run");
    }
    *out = db;
    return SLUICE_OK;
}

static void lite_close(void *state)
{
    lite_state *s = state;
    if (s == NULL)
        return;
    free(s->uri);
    free(s);
}

static sluice_status
lite_schema(sluice_executor *ex, sluice_arena *arena, sluice_schema *out, sluice_error *err);
static sluice_status lite_execute(sluice_executor *ex,
                                  sluice_arena *arena,
                                  const sluice_exec_request *req,
                                  sluice_exec_result *out,
                                  sluice_error *err);

static sluice_status lite_engine_reads(sluice_executor *ex,
                                       sluice_arena *arena,
                                       const char *code,
                                       size_t code_len,
                                       sluice_exec_reads *out,
                                       sluice_error *err);

static const sluice_executor_ops lite_ops = {
    .name = "sqlite",
    .schema = lite_schema,
    .execute = lite_execute,
    .close = lite_close,
    .engine_reads = lite_engine_reads,
};

sluice_status sluice_exec_sqlite_open(const sluice_config_database *db,
                                      const sluice_config_code_mode *code_mode,
                                      sluice_executor **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err)
{
    *out = NULL;
    sluice_status file = sluice_executor_check_file(db->path, err_arena, err);
    if (file != SLUICE_OK)
        return file;
    lite_state *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return SLUICE_E_NOMEM;
    s->allow_writes = code_mode != NULL && code_mode->sql_allow_writes;
    s->allow_deletes = code_mode != NULL && code_mode->sql_allow_deletes;
    s->allow_ddl = code_mode != NULL && code_mode->sql_allow_ddl;
    s->analysis_timeout_ms = code_mode != NULL && code_mode->analysis_timeout_ms > 0
                                 ? code_mode->analysis_timeout_ms
                                 : SLUICE_LIMIT_ANALYSIS_TIMEOUT_MS;
    s->analysis_memory_mb = code_mode != NULL && code_mode->analysis_memory_mb > 0
                                ? code_mode->analysis_memory_mb
                                : SLUICE_LIMIT_ANALYSIS_MEMORY_MB;
    s->uri = path_uri(db->path, sluice_executor_config_writable(code_mode));
    if (s->uri == NULL) {
        free(s);
        return SLUICE_E_NOMEM;
    }
    /* Open once now so a bad file is reported at start-up, not on the first query. */
    sqlite3 *conn = NULL;
    sluice_status st = connect(s, &conn, err_arena, err);
    if (st == SLUICE_OK) {
        sqlite3_stmt *probe = NULL;
        if (sqlite3_prepare_v2(conn, "SELECT count(*) FROM sqlite_schema", -1, &probe, NULL) !=
                SQLITE_OK ||
            sqlite3_step(probe) != SQLITE_ROW)
            st = sluice_error_set(err, err_arena, SLUICE_E_ENGINE,
                                  "'%s' is not a readable SQLite database: %s", db->path,
                                  sqlite3_errmsg(conn));
        sqlite3_finalize(probe);
        sqlite3_close(conn);
    }
    if (st != SLUICE_OK) {
        lite_close(s);
        return st;
    }
    return sluice_executor_wrap(&lite_ops, s, SLUICE_ENGINE_SQLITE, code_mode, out);
}

/* ---- schema ----------------------------------------------------------------------------- */

static sluice_status table_columns(sqlite3 *db, sluice_arena *arena, sluice_schema_table *t)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT name, type, \"notnull\" FROM pragma_table_info(?1)", -1, &st,
                           NULL) != SQLITE_OK)
        return SLUICE_E_ENGINE;
    sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
    size_t cap = 16;
    t->columns = sluice_arena_calloc(arena, cap, sizeof(*t->columns));
    sluice_status status = t->columns != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
    while (status == SLUICE_OK && sqlite3_step(st) == SQLITE_ROW) {
        sluice_schema_column *n =
            sluice_vec_grow(arena, t->columns, t->column_count, &cap, sizeof(*n), 16);
        if (n == NULL) {
            status = SLUICE_E_NOMEM;
            break;
        }
        t->columns = n;
        sluice_schema_column *c = &t->columns[t->column_count++];
        const char *type = (const char *)sqlite3_column_text(st, 1);
        c->name = sluice_arena_strdup(arena, (const char *)sqlite3_column_text(st, 0));
        c->type = sluice_arena_strdup(arena, type != NULL && type[0] != '\0' ? type : "ANY");
        c->nullable = sqlite3_column_int(st, 2) == 0;
        if (c->name == NULL || c->type == NULL)
            status = SLUICE_E_NOMEM;
    }
    sqlite3_finalize(st);
    return status;
}

static int64_t table_rows(sqlite3 *db, sluice_arena *arena, const char *name)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    sluice_buf_puts(&b, "SELECT count(*) FROM \"");
    for (const char *p = name; *p != '\0'; p++) {
        if (*p == '"')
            sluice_buf_putc(&b, '"');
        sluice_buf_putc(&b, *p);
    }
    sluice_buf_putc(&b, '"');
    sqlite3_stmt *st = NULL;
    int64_t n = -1;
    if (sluice_buf_status(&b) == SLUICE_OK &&
        sqlite3_prepare_v2(db, sluice_buf_cstr(&b), -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

static sluice_status
lite_schema(sluice_executor *ex, sluice_arena *arena, sluice_schema *out, sluice_error *err)
{
    sqlite3 *db = NULL;
    sluice_status status = connect(sluice_executor_state(ex), &db, arena, err);
    if (status != SLUICE_OK)
        return status;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT type, name FROM sqlite_schema WHERE type IN ('table','view') "
                           "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
                           -1, &st, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return sluice_error_set(err, arena, SLUICE_E_ENGINE, "could not read the SQLite schema");
    }
    size_t cap = 0;
    while (status == SLUICE_OK && sqlite3_step(st) == SQLITE_ROW) {
        sluice_schema_table *n =
            sluice_vec_grow(arena, out->tables, out->table_count, &cap, sizeof(*n), 16);
        if (n == NULL) {
            status = SLUICE_E_NOMEM;
            break;
        }
        out->tables = n;
        sluice_schema_table *t = &out->tables[out->table_count++];
        t->schema = "main";
        t->is_view = strcmp((const char *)sqlite3_column_text(st, 0), "view") == 0;
        t->name = sluice_arena_strdup(arena, (const char *)sqlite3_column_text(st, 1));
        if (t->name == NULL)
            status = SLUICE_E_NOMEM;
    }
    sqlite3_finalize(st);
    for (size_t i = 0; status == SLUICE_OK && i < out->table_count; i++) {
        sluice_schema_table *t = &out->tables[i];
        status = table_columns(db, arena, t);
        t->approx_rows = t->is_view ? -1 : table_rows(db, arena, t->name);
    }
    sqlite3_close(db);
    if (status == SLUICE_E_ENGINE)
        return sluice_error_set(err, arena, SLUICE_E_ENGINE, "could not read the SQLite schema");
    return status;
}

/* ---- execution -------------------------------------------------------------------------- */

/* Lives in the request arena: the cancel hook may fire after execute returned. */
typedef struct lite_run {
    atomic_bool cancelled;
    int64_t deadline_ms; /* 0 = none */
    bool timed_out;      /* set by the progress handler, read on the same thread */
    bool was_cancelled;
} lite_run;

static void run_cancel(void *data)
{
    atomic_store(&((lite_run *)data)->cancelled, true);
}

static int progress(void *data)
{
    lite_run *run = data;
    if (atomic_load(&run->cancelled)) {
        run->was_cancelled = true;
        return 1;
    }
    if (run->deadline_ms > 0 && sluice_clock_monotonic_ms(NULL) >= run->deadline_ms) {
        run->timed_out = true;
        return 1;
    }
    return 0;
}

typedef struct lite_call {
    const lite_state *state;
    const sluice_exec_request *req; /* NULL when collecting reads */
    const char *code;
    size_t code_len;
    bool scrub;
    sluice_arena *arena;
    sluice_error *err;
    sqlite3 *db;
    sqlite3_stmt *stmt;
    lite_auth auth;
    lite_run *run;
} lite_call;

static sluice_status engine_error(lite_call *c, int rc)
{
    int offset = sqlite3_error_offset(c->db);
    size_t line = 0, column = 0;
    if (offset >= 0 && (size_t)offset <= c->code_len)
        sluice_error_locate(c->code, c->code_len, (size_t)offset, &line, &column);
    int primary = rc & 0xFF;
    if (primary == SQLITE_INTERRUPT && c->run != NULL && c->run->timed_out)
        return sluice_exec_timeout_error(c->err, c->arena, &c->req->limits);
    if (primary == SQLITE_INTERRUPT && c->run != NULL && c->run->was_cancelled)
        return sluice_exec_cancelled_error(c->err, c->arena);
    if (c->auth.denied != NULL) /* the authorizer refused something: that is the reason */
        return sluice_error_at(c->err, c->arena, SLUICE_E_DENIED, "<code>", line, column,
                               "not authorized: %s", c->auth.denied);
    sluice_status status = SLUICE_E_ENGINE;
    /* Eponymous virtual tables (pragma_*) are refused by SQLite itself as "not authorized". */
    if (primary == SQLITE_AUTH || primary == SQLITE_READONLY || primary == SQLITE_PERM ||
        strncmp(sqlite3_errmsg(c->db), "not authorized", 14) == 0)
        status = SLUICE_E_DENIED;
    if (c->scrub)
        return sluice_error_at(c->err, c->arena, status, "<code>", line, column,
                               "SQLite error: %s (details hidden: the query involves blocked "
                               "columns)",
                               sqlite3_errstr(rc));
    return sluice_error_at(c->err, c->arena, status, "<code>", line, column, "SQLite error: %s",
                           sqlite3_errmsg(c->db));
}

/* Skips whitespace, ';' and comments; true when nothing else is left. */
static bool only_trivia(const char *p, const char *end)
{
    while (p < end) {
        if (isspace((unsigned char)*p) || *p == ';') {
            p++;
        } else if (end - p >= 2 && p[0] == '-' && p[1] == '-') {
            while (p < end && *p != '\n')
                p++;
        } else if (end - p >= 2 && p[0] == '/' && p[1] == '*') {
            const char *close = NULL;
            for (const char *q = p + 2; q + 1 < end; q++)
                if (q[0] == '*' && q[1] == '/') {
                    close = q;
                    break;
                }
            if (close == NULL)
                return true; /* an unterminated comment runs to the end */
            p = close + 2;
        } else {
            return false;
        }
    }
    return true;
}

static bool writable(const lite_state *s)
{
    return s->allow_writes || s->allow_deletes || s->allow_ddl;
}

static sluice_status prepare_one(lite_call *c)
{
    c->auth.state = c->state;
    c->auth.arena = c->arena;
    sqlite3_set_authorizer(c->db, authorize, &c->auth);
    const char *tail = NULL;
    int rc = sqlite3_prepare_v3(c->db, c->code, (int)c->code_len, 0, &c->stmt, &tail);
    if (rc != SQLITE_OK)
        return engine_error(c, rc);
    if (c->stmt == NULL)
        return sluice_error_set(c->err, c->arena, SLUICE_E_INVALID,
                                "the code is empty; send exactly one SQL statement");
    if (tail != NULL && !only_trivia(tail, c->code + c->code_len)) {
        size_t line, column;
        sluice_error_locate(c->code, c->code_len, (size_t)(tail - c->code), &line, &column);
        return sluice_error_at(c->err, c->arena, SLUICE_E_INVALID, "<code>", line, column,
                               "the code holds more than one statement; send exactly one SQL "
                               "statement");
    }
    if (!writable(c->state) && (!sqlite3_stmt_readonly(c->stmt) || !c->auth.saw_select))
        return sluice_error_set(c->err, c->arena, SLUICE_E_DENIED,
                                "only a read-only statement may run on this database");
    return SLUICE_OK;
}

/* SQLite's binds (sluice_exec_bind_ops): an SQLite result code, SQLITE_OK (0) when bound. */
static int lite_text(void *stmt, size_t i, const char *s, size_t len)
{
    return sqlite3_bind_text64(stmt, (int)i, s, len, SQLITE_TRANSIENT, SQLITE_UTF8);
}

static int lite_integer(void *stmt, size_t i, int64_t v)
{
    return sqlite3_bind_int64(stmt, (int)i, v);
}

static int lite_real(void *stmt, size_t i, double v)
{
    return sqlite3_bind_double(stmt, (int)i, v);
}

static int lite_boolean(void *stmt, size_t i, bool v)
{
    return sqlite3_bind_int(stmt, (int)i, v);
}

static int lite_null(void *stmt, size_t i)
{
    return sqlite3_bind_null(stmt, (int)i);
}

static const sluice_exec_bind_ops lite_binds = {
    .text = lite_text,
    .integer = lite_integer,
    .real = lite_real,
    .boolean = lite_boolean,
    .null = lite_null,
};

static sluice_status bind_variables(lite_call *c)
{
    const json_t *vars = c->req->variables;
    size_t nvars = vars != NULL ? json_object_size(vars) : 0;
    bool *used = sluice_arena_calloc(c->arena, nvars + 1, sizeof(bool));
    if (used == NULL)
        return SLUICE_E_NOMEM;
    int n = sqlite3_bind_parameter_count(c->stmt);
    for (int i = 1; i <= n; i++) {
        const char *pname = sqlite3_bind_parameter_name(c->stmt, i);
        char *name = pname != NULL ? sluice_arena_strdup(c->arena, pname + 1)
                                   : sluice_arena_printf(c->arena, "%d", i);
        if (name == NULL)
            return SLUICE_E_NOMEM;
        const json_t *v = sluice_exec_variable(vars, name, used);
        if (v == NULL)
            return sluice_error_set(c->err, c->arena, SLUICE_E_INVALID,
                                    "parameter %s has no value; add \"%s\" to variables",
                                    pname != NULL ? pname : "?", name);
        sluice_exec_binding b = { &lite_binds, c->stmt, c->arena, c->err };
        int rc = SQLITE_OK;
        sluice_status st = sluice_exec_bind(&b, (size_t)i, name, v, &rc);
        if (st != SLUICE_OK)
            return st;
        if (rc != SQLITE_OK)
            return sluice_error_set(c->err, c->arena, SLUICE_E_INVALID,
                                    "variable '%s' cannot be bound: %s", name, sqlite3_errstr(rc));
    }
    return sluice_exec_variables_all_used(vars, used, c->arena, c->err);
}

static json_t *column_value(sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER:
        return json_integer(sqlite3_column_int64(st, i));
    case SQLITE_FLOAT:
        return sluice_exec_json_real(sqlite3_column_double(st, i));
    case SQLITE_TEXT:
        return sluice_exec_json_text((const char *)sqlite3_column_text(st, i),
                                     (size_t)sqlite3_column_bytes(st, i));
    case SQLITE_BLOB: {
        const void *p = sqlite3_column_blob(st, i);
        return sluice_exec_json_blob(p != NULL ? p : "", (size_t)sqlite3_column_bytes(st, i));
    }
    default:
        return json_null();
    }
}

static sluice_status describe_columns(lite_call *c, sluice_exec_result *out)
{
    int n = sqlite3_column_count(c->stmt);
    out->columns = sluice_arena_calloc(c->arena, (size_t)n + 1, sizeof(*out->columns));
    if (out->columns == NULL)
        return SLUICE_E_NOMEM;
    for (int i = 0; i < n; i++) {
        const char *type = sqlite3_column_decltype(c->stmt, i);
        out->columns[i].name = sluice_arena_strdup(c->arena, sqlite3_column_name(c->stmt, i));
        out->columns[i].type = sluice_arena_strdup(c->arena, type != NULL ? type : "ANY");
        if (out->columns[i].name == NULL || out->columns[i].type == NULL)
            return SLUICE_E_NOMEM;
    }
    out->column_count = (size_t)n;
    return SLUICE_OK;
}

static sluice_status step_rows(lite_call *c, sluice_exec_result *out)
{
    sluice_exec_rows acc;
    if (sluice_exec_rows_init(&acc, c->arena, &c->req->limits) != SLUICE_OK)
        return SLUICE_E_NOMEM;
    int ncols = sqlite3_column_count(c->stmt);
    bool more = true;
    int rc = SQLITE_ROW;
    sluice_status st = SLUICE_OK;
    while (more && st == SLUICE_OK && (rc = sqlite3_step(c->stmt)) == SQLITE_ROW) {
        json_t *row = json_array();
        for (int i = 0; row != NULL && i < ncols; i++) {
            json_t *v = column_value(c->stmt, i);
            if (v == NULL || json_array_append_new(row, v) != 0) {
                json_decref(row);
                row = NULL;
            }
        }
        st = sluice_exec_rows_add(&acc, row, &more);
    }
    if (st != SLUICE_OK)
        return st;
    if (more && rc != SQLITE_DONE)
        return engine_error(c, rc);
    sluice_exec_rows_finish(&acc, out);
    return SLUICE_OK;
}

static const char *statement_type(const lite_call *c)
{
    if (sqlite3_stmt_readonly(c->stmt))
        return "SELECT";
    const char *p = c->code, *end = c->code + c->code_len;
    while (p < end && !isalpha((unsigned char)*p))
        p++;
    size_t n = 0;
    while (p + n < end && isalpha((unsigned char)p[n]))
        n++;
    char *word = sluice_arena_strndup(c->arena, p, n);
    for (char *q = word; q != NULL && *q != '\0'; q++)
        *q = (char)toupper((unsigned char)*q);
    return word;
}

static sluice_status lite_execute(sluice_executor *ex,
                                  sluice_arena *arena,
                                  const sluice_exec_request *req,
                                  sluice_exec_result *out,
                                  sluice_error *err)
{
    int64_t started = sluice_clock_monotonic_ms(NULL);
    lite_call c = { .state = sluice_executor_state(ex),
                    .req = req,
                    .code = req->code,
                    .code_len = req->code_len,
                    .scrub = req->scrub_errors,
                    .arena = arena,
                    .err = err };
    c.run = sluice_arena_calloc(arena, 1, sizeof(*c.run));
    if (c.run == NULL)
        return SLUICE_E_NOMEM;
    atomic_init(&c.run->cancelled, false);
    if (req->register_cancel != NULL)
        req->register_cancel(req->cancel_ctx, run_cancel, c.run);
    if (req->limits.timeout_ms > 0)
        c.run->deadline_ms = started + req->limits.timeout_ms;
    sluice_status st = connect(c.state, &c.db, arena, err);
    if (st == SLUICE_OK) {
        sqlite3_progress_handler(c.db, LITE_PROGRESS_STEPS, progress, c.run);
        if (atomic_load(&c.run->cancelled))
            st = sluice_exec_cancelled_error(err, arena);
    }
    if (st == SLUICE_OK)
        st = prepare_one(&c);
    if (st == SLUICE_OK) {
        out->statement_type = statement_type(&c);
        st = bind_variables(&c);
    }
    if (st == SLUICE_OK)
        st = describe_columns(&c, out);
    if (st == SLUICE_OK)
        st = step_rows(&c, out);
    sqlite3_finalize(c.stmt);
    sqlite3_close(c.db);
    out->elapsed_ms = sluice_clock_monotonic_ms(NULL) - started;
    return st;
}

/* Prepares c's code with its reads collected; c holds the code, state and arena. */
static sluice_status collect_reads(lite_call *c, sluice_exec_reads *out)
{
    c->auth.collect = out;
    sluice_status st = connect(c->state, &c->db, c->arena, c->err);
    if (st == SLUICE_OK)
        st = prepare_one(c);
    sqlite3_finalize(c->stmt);
    sqlite3_close(c->db);
    c->stmt = NULL;
    c->db = NULL;
    /* a read or function not recorded leaves the list short, and a short list would let the
     * cross-check pass reads SQLite saw */
    return sluice_arena_failed(c->arena) ? SLUICE_E_NOMEM : st;
}

/* In the bounded child: the same prepare, "oom" when it ran out of the memory the child may add,
 * else "ok" (whatever SQLite decided: the parent's repeat reports it). The child leaves with
 * _exit, so nothing is freed. */
static void probe_child(void *arg, sluice_buf *out)
{
    lite_call *c = arg;
    sluice_exec_reads ignored = { 0 };
    c->auth = (lite_auth){ .state = c->state, .arena = c->arena, .collect = &ignored };
    int rc = SQLITE_OK;
    if (connect(c->state, &c->db, c->arena, c->err) == SLUICE_OK) {
        sqlite3_set_authorizer(c->db, authorize, &c->auth);
        rc = sqlite3_prepare_v3(c->db, c->code, (int)c->code_len, 0, &c->stmt, NULL);
    }
    sluice_buf_puts(out, (rc & 0xFF) == SQLITE_NOMEM ? "oom" : "ok");
}

/* SQLite plans a CTE again at every reference (3.40 has no progress callback in prepare, and
 * sqlite3_interrupt is not looked at there): 16 CTEs each joining the one before to itself
 * (830 bytes) prepared for 4 s in 80 MB, 20 for 9 s in 160 MB, in the server. */
static bool may_expand(const char *code, size_t code_len)
{
    if (code_len > LITE_FAST_TEXT_BYTES)
        return true;
    for (size_t i = 0; i + 4 <= code_len; i++)
        if (strncasecmp(code + i, "with", 4) == 0)
            return true; /* also inside a name or a string: the bounded path is never wrong */
    return false;
}

static sluice_status limit_error(lite_call *c, sluice_bounded_outcome oc)
{
    long long timeout = (long long)c->state->analysis_timeout_ms;
    if (oc == SLUICE_BOUNDED_BUSY)
        return sluice_error_set(c->err, c->arena, SLUICE_E_LIMIT,
                                "the statement could not be prepared: other queries kept the "
                                "engine busy for analysis_timeout_ms (%lld ms); retry when the "
                                "server is less busy, or raise [code_mode] analysis_timeout_ms",
                                timeout);
    if (oc == SLUICE_BOUNDED_TIMEOUT)
        return sluice_error_set(c->err, c->arena, SLUICE_E_LIMIT,
                                "SQLite did not prepare the statement within "
                                "analysis_timeout_ms (%lld ms): it copies a CTE at every "
                                "reference, so CTEs that name an earlier one more than once "
                                "multiply; reference each CTE once, or raise [code_mode] "
                                "analysis_timeout_ms",
                                timeout);
    return sluice_error_set(c->err, c->arena, SLUICE_E_LIMIT,
                            "preparing the statement in SQLite needs more than "
                            "analysis_memory_mb (%lld MB): it copies a CTE at every reference, "
                            "so CTEs that name an earlier one more than once multiply; "
                            "reference each CTE once, or raise [code_mode] analysis_memory_mb",
                            (long long)c->state->analysis_memory_mb);
}

/* The prepare first in a child held to analysis_timeout_ms and analysis_memory_mb, as DuckDB's
 * binding is (lang/sql/bounds.c); the server repeats it only when it fit. No child: refused. */
static sluice_status bounded_prepare(lite_call *c)
{
    sluice_bounded *b = sluice_bounded_new(c->arena);
    if (b == NULL)
        return SLUICE_E_NOMEM;
    sluice_bounded_limits lim = {
        .timeout_ms = c->state->analysis_timeout_ms,
        /* address space makes SQLite's own allocation fail (SQLITE_NOMEM); the resident poll
         * also holds where allocations come from space reserved earlier (sanitizer builds) */
        .memory_bytes = (uint64_t)c->state->analysis_memory_mb * 1024u * 1024u,
        .rss_bytes = (uint64_t)c->state->analysis_memory_mb * 1024u * 1024u,
        .max_report = 16,
    };
    sluice_bounded_outcome oc;
    const char *rep = NULL;
    size_t rep_len = 0;
    sluice_status st = sluice_bounded_run(b, &lim, probe_child, c, c->arena, &oc, &rep, &rep_len);
    if (st == SLUICE_E_NOMEM)
        return st;
    if (st != SLUICE_OK)
        return sluice_error_set(c->err, c->arena, SLUICE_E_INTERNAL,
                                "the statement could not be prepared: no bounded process could "
                                "be started for it");
    if (oc == SLUICE_BOUNDED_DONE && strcmp(rep, "ok") == 0)
        return SLUICE_OK;
    return limit_error(c, oc);
}

/* Every SQLITE_READ the authorizer reports while SQLite prepares code (never stepped). */
static sluice_status lite_engine_reads(sluice_executor *ex,
                                       sluice_arena *arena,
                                       const char *code,
                                       size_t code_len,
                                       sluice_exec_reads *out,
                                       sluice_error *err)
{
    lite_call c = { .state = sluice_executor_state(ex),
                    .code = code,
                    .code_len = code_len,
                    .arena = arena,
                    .err = err };
    sluice_status st = may_expand(code, code_len) ? bounded_prepare(&c) : SLUICE_OK;
    if (st != SLUICE_OK)
        return st;
    c.auth = (lite_auth){ 0 };
    return collect_reads(&c, out);
}
