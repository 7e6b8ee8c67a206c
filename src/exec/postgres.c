/*
 * postgres.c — the PostgreSQL executor (research §6 recipe): every call runs in
 * `BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY`, takes its snapshot first (so
 * transaction_read_only can no longer be flipped), pins statement_timeout, lock_timeout,
 * idle_in_transaction_session_timeout and search_path with SET LOCAL, sends the statement with
 * PQexecParams inside `DECLARE ... CURSOR FOR` (one statement at the protocol level, variables
 * as parameters, DECLARE accepts only queries), fetches N + 1 rows at most so the row cap stops
 * the server's work, PQcancels at the deadline or on MCP cancellation, and always ROLLs BACK.
 *
 * Owns: the executor vtable for engine "postgres" and the open-time checks (password source,
 * catalog, write probe). Does not own: whether a statement may run (lang/pgsql/ decides), the
 * pool (pg_conn.c), the catalog queries (pg_schema.c), value conversion (pg_values.c).
 * Changes: with write_conninfo set and a route allowing writes (or deletes), an INSERT, UPDATE,
 * MERGE (DELETE, TRUNCATE) that the executor itself recognises (pg_statement.c) runs as the write
 * role in its own READ WRITE transaction with the same limits, and commits. Anything else runs on
 * the read path, where the read role and the read-only transaction refuse a change.
 */
#include "exec/postgres.h"

#include "core/buf.h"
#include "core/limits.h"
#include "core/log.h"
#include "exec/pg_internal.h"
#include "exec/values.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char cursor_prefix[] = "DECLARE sluice_cursor NO SCROLL CURSOR FOR ";

/* ---- open / close --------------------------------------------------------------------------- */

static void pg_close(void *state)
{
    pg_state *s = state;
    if (s == NULL)
        return;
    sluice_pg_pool_free(&s->read);
    sluice_pg_pool_free(&s->write);
    free(s->search_path);
    free(s);
}

static sluice_status new_state(const sluice_config_database *db,
                               const sluice_config_code_mode *code_mode,
                               pg_state **out,
                               sluice_arena *arena,
                               sluice_error *err)
{
    pg_state *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return SLUICE_E_NOMEM;
    size_t size = db->pool_size > 0 ? (size_t)db->pool_size : 4;
    s->search_path = strdup(db->search_path != NULL ? db->search_path : "public");
    sluice_status st = s->search_path != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
    if (st == SLUICE_OK)
        st = sluice_pg_pool_init(&s->read, db->conninfo, db->password_file, db->password_env, size,
                                 arena, err);
    s->allow_writes = code_mode != NULL && code_mode->sql_allow_writes;
    s->allow_deletes = code_mode != NULL && code_mode->sql_allow_deletes;
    /* The write role is connected only when some route may change data. */
    if (st == SLUICE_OK && db->write_conninfo != NULL && (s->allow_writes || s->allow_deletes))
        st = sluice_pg_pool_init(&s->write, db->write_conninfo, db->write_password_file,
                                 db->write_password_env, size, arena, err);
    if (st != SLUICE_OK) {
        pg_close(s);
        return st;
    }
    *out = s;
    return SLUICE_OK;
}

/* Reads the catalog once and runs the write probe; a role that can write is logged loudly. */
static sluice_status check_server(pg_state *s, sluice_arena *arena, sluice_error *err)
{
    PGconn *conn = NULL;
    sluice_status st = sluice_pg_conn_take(&s->read, &conn, arena, err);
    if (st != SLUICE_OK)
        return st;
    sluice_schema schema = { 0 };
    st = sluice_pg_read_schema(conn, s->search_path, arena, &schema, err);
    if (st == SLUICE_OK) {
        const char *can_write = sluice_pg_write_probe(conn, s->search_path, arena);
        if (can_write != NULL)
            sluice_log(SLUICE_LOG_WARN,
                       "WARNING: the PostgreSQL read role can write: %sthe analyzer is then the "
                       "only wall between a statement and a write; follow the role recipe in "
                       "docs/postgres.md",
                       can_write);
    }
    sluice_pg_conn_give(&s->read, conn, st == SLUICE_OK);
    if (st == SLUICE_OK && s->write.conninfo != NULL) {
        /* A bad write conninfo or password is reported at start-up, not at the first write. */
        st = sluice_pg_conn_take(&s->write, &conn, arena, err);
        sluice_pg_conn_give(&s->write, conn, st == SLUICE_OK);
    }
    return st;
}

static sluice_status
pg_schema(sluice_executor *ex, sluice_arena *arena, sluice_schema *out, sluice_error *err);
static sluice_status pg_execute(sluice_executor *ex,
                                sluice_arena *arena,
                                const sluice_exec_request *req,
                                sluice_exec_result *out,
                                sluice_error *err);

static sluice_status pg_explain(sluice_executor *ex,
                                sluice_arena *arena,
                                const sluice_exec_request *as,
                                const char **plan_json,
                                sluice_error *err);

static const sluice_executor_ops pg_ops = {
    .name = "postgres",
    .schema = pg_schema,
    .execute = pg_execute,
    .close = pg_close,
    .explain = pg_explain,
};

sluice_status sluice_exec_postgres_open(const sluice_config_database *db,
                                        const sluice_config_code_mode *code_mode,
                                        sluice_executor **out,
                                        sluice_arena *err_arena,
                                        sluice_error *err)
{
    *out = NULL;
    if (db->conninfo == NULL || db->conninfo[0] == '\0')
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "[database] engine \"postgres\" needs conninfo");
    pg_state *s = NULL;
    sluice_status st = new_state(db, code_mode, &s, err_arena, err);
    if (st != SLUICE_OK)
        return st;
    st = check_server(s, err_arena, err);
    if (st != SLUICE_OK) {
        pg_close(s);
        return st;
    }
    return sluice_executor_wrap(&pg_ops, s, SLUICE_ENGINE_POSTGRES, code_mode, out);
}

static sluice_status
pg_schema(sluice_executor *ex, sluice_arena *arena, sluice_schema *out, sluice_error *err)
{
    pg_state *s = sluice_executor_state(ex);
    PGconn *conn = NULL;
    sluice_status st = sluice_pg_conn_take(&s->read, &conn, arena, err);
    if (st == SLUICE_OK)
        st = sluice_pg_read_schema(conn, s->search_path, arena, out, err);
    sluice_pg_conn_give(&s->read, conn, st == SLUICE_OK);
    return st;
}

/* ---- one call ---------------------------------------------------------------------------------
 */

/* Lives in the request arena: the cancel hook may fire after execute returned (then cancel is
 * NULL and it does nothing). */
typedef struct pg_run {
    pthread_mutex_t lock;
    PGcancel *cancel;
    atomic_bool cancelled;
} pg_run;

static void run_cancel(void *data)
{
    pg_run *run = data;
    atomic_store(&run->cancelled, true);
    pthread_mutex_lock(&run->lock);
    char buf[256];
    if (run->cancel != NULL)
        PQcancel(run->cancel, buf, (int)sizeof buf);
    pthread_mutex_unlock(&run->lock);
}

static void run_destroy(void *data)
{
    pg_run *run = data;
    pthread_mutex_lock(&run->lock);
    PQfreeCancel(run->cancel);
    run->cancel = NULL;
    pthread_mutex_unlock(&run->lock);
    pthread_mutex_destroy(&run->lock);
}

typedef struct pg_call {
    pg_state *state;
    pg_pool *pool; /* the read role's, or the write role's for a change */
    bool change;   /* runs as the write role, in a read-write transaction that commits */
    const sluice_exec_request *req;
    sluice_arena *arena;
    sluice_error *err;
    PGconn *conn;
    pg_run *run;
    int64_t deadline_ms; /* 0 = none */
    bool timed_out;
    bool terminated; /* its backend was terminated from a second connection */
    bool prepared;   /* the code goes to PREPARE for its plan (pg_explain), not DECLARE */
    bool broken;     /* the connection's state is unknown: never pooled again */
} pg_call;

/* The backend ignored its cancel: terminates it from a second connection of the same role (a
 * role may signal its own backends), and says so in the log, with the process id an operator
 * finds in pg_stat_activity. The call's connection is never reused afterwards. */
static void terminate_backend(pg_call *c)
{
    c->terminated = true;
    c->broken = true;
    char pid[24];
    snprintf(pid, sizeof pid, "%d", PQbackendPID(c->conn));
    const char *params[] = { pid };
    PGconn *second = NULL;
    sluice_error ignored;
    bool done = false;
    if (sluice_pg_conn_take(c->pool, &second, c->arena, &ignored) == SLUICE_OK) {
        PGresult *r = PQexecParams(second, "SELECT pg_catalog.pg_terminate_backend($1::int)", 1,
                                   NULL, params, NULL, NULL, 0);
        done = r != NULL && PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 &&
               strcmp(PQgetvalue(r, 0, 0), "t") == 0;
        PQclear(r);
        sluice_pg_conn_give(c->pool, second, true);
    }
    sluice_log(SLUICE_LOG_WARN, "PostgreSQL backend %s still ran %d ms after its cancel; %s", pid,
               SLUICE_LIMIT_PG_TERMINATE_AFTER_MS,
               done ? "terminated it from a second connection"
                    : "terminating it from a second connection FAILED: check pg_stat_activity");
}

/* Waits for the statement sent last, cancelling it at the deadline and terminating its backend
 * when the cancel does not take; the first result (caller PQclears), NULL when the connection
 * broke. */
static PGresult *wait_result(pg_call *c)
{
    /* A plan asked for at validate changes nothing, so its connection is dropped as soon as the
     * terminate was tried: the planner checks for interrupts rarely (12 CUBE terms planned for
     * 3 s past a 300 ms cancel), and validate_code stays within analysis_timeout_ms + 1 s. */
    int64_t grace =
        c->prepared ? SLUICE_LIMIT_PG_TERMINATE_AFTER_MS : SLUICE_LIMIT_PG_CANCEL_GRACE_MS;
    int64_t cancel_sent = 0;
    while (PQisBusy(c->conn)) {
        int64_t now = sluice_exec_now_ms();
        if (cancel_sent == 0 && c->deadline_ms > 0 && now >= c->deadline_ms) {
            c->timed_out = true;
            run_cancel(c->run);
        }
        if (cancel_sent == 0 && atomic_load(&c->run->cancelled))
            cancel_sent = now;
        if (cancel_sent > 0 && !c->terminated &&
            now - cancel_sent > SLUICE_LIMIT_PG_TERMINATE_AFTER_MS)
            terminate_backend(c);
        if (cancel_sent > 0 && now - cancel_sent > grace) {
            c->broken = true;
            return NULL;
        }
        struct pollfd p = { .fd = PQsocket(c->conn), .events = POLLIN };
        if (poll(&p, 1, SLUICE_LIMIT_PG_POLL_MS) < 0 && errno != EINTR) {
            c->broken = true;
            return NULL;
        }
        if (!PQconsumeInput(c->conn)) {
            c->broken = true;
            return NULL;
        }
    }
    PGresult *first = PQgetResult(c->conn);
    for (PGresult *r; (r = PQgetResult(c->conn)) != NULL;)
        PQclear(r);
    if (first == NULL)
        c->broken = true;
    return first;
}

/* The byte offset of the 1-based character position pos in text (PostgreSQL counts
 * characters). */
static size_t char_offset(const char *text, size_t len, long pos)
{
    size_t i = 0;
    for (long chars = 1; i < len && chars < pos; i++)
        if (((unsigned char)text[i + 1] & 0xC0) != 0x80)
            chars++;
    return i < len ? i : len;
}

/* The server's error as a sluice error: timeout and cancellation by their own messages; scrubbed
 * to its SQLSTATE and place when blocked columns are involved (values are echoed in cast and
 * constraint errors); the primary message only otherwise (DETAIL may hold row values). */
static sluice_status statement_error(pg_call *c, PGresult *r)
{
    if (c->timed_out)
        return sluice_exec_timeout_error(c->err, c->arena, &c->req->limits);
    if (atomic_load(&c->run->cancelled))
        return sluice_exec_cancelled_error(c->err, c->arena);
    const char *state = r != NULL ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    if (r == NULL || state == NULL)
        return sluice_error_set(c->err, c->arena, SLUICE_E_ENGINE,
                                "the connection to PostgreSQL failed");
    if (strcmp(state, "57014") == 0) /* statement_timeout fired on the server */
        return sluice_exec_timeout_error(c->err, c->arena, &c->req->limits);
    sluice_status kind = SLUICE_E_ENGINE;
    if (strcmp(state, "25006") == 0 || strncmp(state, "42501", 5) == 0)
        kind = SLUICE_E_DENIED;
    size_t line = 0, column = 0;
    const char *pos = PQresultErrorField(r, PG_DIAG_STATEMENT_POSITION);
    /* reads are sent inside DECLARE; changes and the analyzer's PREPARE as they are */
    long prefix = c->change || c->prepared ? 0 : (long)(sizeof cursor_prefix - 1);
    long p = pos != NULL ? strtol(pos, NULL, 10) - prefix : 0;
    if (p > 0)
        sluice_error_locate(c->req->code, c->req->code_len,
                            char_offset(c->req->code, c->req->code_len, p), &line, &column);
    const char *primary = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
    if (c->req->scrub_errors || primary == NULL)
        return sluice_error_at(c->err, c->arena, kind, "<code>", line, column,
                               "PostgreSQL error SQLSTATE %s (details withheld: blocked columns "
                               "are involved)",
                               state);
    return sluice_error_at(c->err, c->arena, kind, "<code>", line, column, "PostgreSQL: %s",
                           primary);
}

/* The caller inside the database: the role the rest of the transaction runs as, and the
 * verified identity as settings row-level security policies read
 * (current_setting('sluice.user', true), current_setting('sluice.groups', true)::jsonb).
 * Everything travels as parameters of set_config, never as SQL text: a role name is taken
 * whole, as a quoted identifier would be, and set_config('role', ..., true) is SET LOCAL ROLE,
 * which PostgreSQL allows only to a role the session's role is a member of. Local to the
 * transaction, so ROLLBACK (or COMMIT) ends both; the code itself may call neither set_config
 * nor current_setting (lang/pgsql/functions.c) and cannot send SET or RESET (one query inside
 * DECLARE). Never the caller's own credential: the connection stays the configured role's. */
static sluice_status caller_settings(pg_call *c)
{
    const sluice_identity *who = c->req->identity;
    bool claims = c->req->publish_claims;
    if (claims && (who == NULL || who->user_id == NULL))
        return sluice_error_set(c->err, c->arena, SLUICE_E_DENIED,
                                "caller_claims is set but the call has no verified identity");
    const char *groups = NULL;
    if (claims) {
        json_t *list = json_array();
        for (size_t i = 0; list != NULL && i < who->group_count; i++)
            if (json_array_append_new(list, json_string(who->groups[i])) != 0) {
                json_decref(list);
                list = NULL;
            }
        char *text = list != NULL ? json_dumps(list, JSON_COMPACT) : NULL;
        json_decref(list);
        groups = text != NULL ? sluice_arena_strdup(c->arena, text) : NULL;
        free(text);
        if (groups == NULL)
            return SLUICE_E_NOMEM;
    }
    const char *role = c->req->db_role;
    const char *params[3];
    int n = 0;
    sluice_buf b;
    sluice_buf_init(&b, c->arena, 0);
    sluice_buf_puts(&b, "SELECT 1");
    if (role != NULL) {
        params[n++] = role;
        sluice_buf_puts(&b, ", pg_catalog.set_config('role', $1, true)");
    }
    if (claims) {
        params[n] = who->user_id;
        params[n + 1] = groups;
        sluice_buf_printf(&b,
                          ", pg_catalog.set_config('sluice.user', $%d, true)"
                          ", pg_catalog.set_config('sluice.groups', $%d, true)",
                          n + 1, n + 2);
        n += 2;
    }
    const char *sql = sluice_buf_cstr(&b);
    if (sluice_buf_status(&b) != SLUICE_OK || sql == NULL)
        return SLUICE_E_NOMEM;
    PGresult *r = PQexecParams(c->conn, sql, n, NULL, params, NULL, NULL, 0);
    sluice_status st = SLUICE_OK;
    if (r == NULL || PQresultStatus(r) != PGRES_TUPLES_OK) {
        const char *why = r != NULL ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
        st = sluice_error_set(c->err, c->arena, SLUICE_E_DENIED,
                              "PostgreSQL refused to run as the caller's role '%s' (caller_roles "
                              "or caller_default_role): %s; grant it to the %s role "
                              "(docs/postgres.md, \"The caller inside the database\")",
                              role != NULL ? role : "(none)", why != NULL ? why : "no reason",
                              c->change ? "write" : "read");
    }
    PQclear(r);
    return st;
}

/* Sluice's own statements of the transaction: read only with the snapshot taken (a read), or
 * read-write (a change, on the write role); limits pinned either way. */
static sluice_status begin(pg_call *c)
{
    int64_t t = c->req->limits.timeout_ms;
    char *sql = sluice_arena_printf(
        c->arena,
        "%s; "
        "SET LOCAL statement_timeout = %" PRId64 "; SET LOCAL lock_timeout = %" PRId64 "; "
        "SET LOCAL idle_in_transaction_session_timeout = %" PRId64
        "; SET LOCAL join_collapse_limit = %d"
        "; SET LOCAL from_collapse_limit = %d"
        "; SET LOCAL geqo_threshold = %d",
        c->change ? "BEGIN ISOLATION LEVEL READ COMMITTED, READ WRITE"
                  : "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY; "
                    "SELECT 1",
        t, t, t > 0 ? t + SLUICE_LIMIT_PG_CANCEL_GRACE_MS : 0, SLUICE_LIMIT_PG_COLLAPSE_LIMIT,
        SLUICE_LIMIT_PG_COLLAPSE_LIMIT, SLUICE_LIMIT_PG_GEQO_THRESHOLD);
    if (sql == NULL)
        return SLUICE_E_NOMEM;
    sluice_status st = sluice_pg_run(c->conn, sql, c->arena, c->err);
    /* A statement that references blocked columns (scrub_errors), and its plan for the analyzer
     * (prepared): no plan strategy that returns rows in a column's order unless the query asks
     * for it (a merge join, an index scan, a sort chosen for grouping), so the plan judged at
     * validate and the plan run agree on the one thing the judge looks at (docs/postgres.md). */
    if (st == SLUICE_OK && (c->req->scrub_errors || c->prepared))
        st = sluice_pg_run(c->conn,
                           "SET LOCAL enable_mergejoin = off; SET LOCAL enable_indexscan = off; "
                           "SET LOCAL enable_indexonlyscan = off; SET LOCAL enable_sort = off; "
                           "SET LOCAL enable_incremental_sort = off",
                           c->arena, c->err);
    const char *params[] = { c->state->search_path };
    PGresult *r = st == SLUICE_OK ? PQexecParams(c->conn,
                                                 "SELECT pg_catalog.set_config('search_path', "
                                                 "$1, true)",
                                                 1, NULL, params, NULL, NULL, 0)
                                  : NULL;
    if (st == SLUICE_OK && (r == NULL || PQresultStatus(r) != PGRES_TUPLES_OK))
        st = sluice_error_set(c->err, c->arena, SLUICE_E_ENGINE,
                              "PostgreSQL refused search_path '%s'", c->state->search_path);
    PQclear(r);
    if (st == SLUICE_OK && (c->req->db_role != NULL || c->req->publish_claims))
        st = caller_settings(c);
    return st;
}

/* Variables are positional ("1" for $1 ...), sent as text with types left to the server. */
static sluice_status variable_texts(pg_call *c, const char ***values, int *count)
{
    const json_t *vars = c->req->variables;
    size_t n = vars != NULL ? json_object_size(vars) : 0;
    *count = (int)n;
    *values = sluice_arena_calloc(c->arena, n + 1, sizeof(**values));
    if (*values == NULL)
        return SLUICE_E_NOMEM;
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)vars, key, v)
    {
        char *end = NULL;
        long i = strtol(key, &end, 10);
        if (end == key || *end != '\0' || i < 1 || (size_t)i > n)
            return sluice_error_set(
                c->err, c->arena, SLUICE_E_INVALID,
                "variable '%s': PostgreSQL parameters are positional; name the variables "
                "\"1\" .. \"%zu\" for $1 .. $%zu",
                key, n, n);
        const char *text = NULL;
        if (json_is_string(v) && strlen(json_string_value(v)) == json_string_length(v))
            text = json_string_value(v);
        else if (json_is_integer(v))
            text = sluice_arena_printf(c->arena, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        else if (json_is_real(v))
            text = sluice_arena_printf(c->arena, "%.17g", json_real_value(v));
        else if (json_is_boolean(v))
            text = json_is_true(v) ? "true" : "false";
        else if (!json_is_null(v))
            return sluice_error_set(c->err, c->arena, SLUICE_E_INVALID,
                                    "variable '%s' must be a string (without NUL), number, "
                                    "boolean or null",
                                    key);
        if (text == NULL && !json_is_null(v))
            return SLUICE_E_NOMEM;
        (*values)[i - 1] = text;
    }
    return SLUICE_OK;
}

/* Sends the code with its variables as parameters: a read inside DECLARE (whose rows FETCH
 * reads), a change as it is (one statement at the protocol level either way); *r the result
 * (caller PQclears) when the server accepted it. */
static sluice_status send_code(pg_call *c, PGresult **r)
{
    *r = NULL;
    const char **values = NULL;
    int count = 0;
    sluice_status st = variable_texts(c, &values, &count);
    char *sql = st == SLUICE_OK
                    ? sluice_arena_printf(c->arena, "%s%.*s", c->change ? "" : cursor_prefix,
                                          (int)c->req->code_len, c->req->code)
                    : NULL;
    if (st != SLUICE_OK || sql == NULL)
        return st != SLUICE_OK ? st : SLUICE_E_NOMEM;
    if (!PQsendQueryParams(c->conn, sql, count, NULL, values, NULL, NULL, 0)) {
        c->broken = true;
        return statement_error(c, NULL);
    }
    PGresult *res = wait_result(c);
    if (res != NULL && PQresultStatus(res) == PGRES_COMMAND_OK) {
        *r = res;
        return SLUICE_OK;
    }
    st = statement_error(c, res);
    PQclear(res);
    return st;
}

/* A change: the rows it touched as one "count" column, then COMMIT. */
static sluice_status run_change(pg_call *c, sluice_exec_result *out)
{
    PGresult *r = NULL;
    sluice_status st = send_code(c, &r);
    if (st != SLUICE_OK)
        return st;
    out->statement_type = sluice_arena_strdup(c->arena, PQcmdStatus(r));
    char *space = out->statement_type != NULL ? strchr(out->statement_type, ' ') : NULL;
    if (space != NULL)
        *space = '\0';
    long long touched = strtoll(PQcmdTuples(r), NULL, 10);
    PQclear(r);
    out->columns = sluice_arena_calloc(c->arena, 2, sizeof(*out->columns));
    if (out->columns == NULL || out->statement_type == NULL)
        return SLUICE_E_NOMEM;
    out->columns[0] = (sluice_exec_column){ .name = "count", .type = "bigint" };
    out->column_count = 1;
    sluice_exec_rows acc;
    bool more = true;
    st = sluice_exec_rows_init(&acc, c->arena, &c->req->limits);
    json_t *row = st == SLUICE_OK ? json_pack("[I]", (json_int_t)touched) : NULL;
    if (st == SLUICE_OK)
        st = row != NULL ? sluice_exec_rows_add(&acc, row, &more) : SLUICE_E_NOMEM;
    if (st != SLUICE_OK)
        return st;
    sluice_exec_rows_finish(&acc, out);
    return sluice_pg_run(c->conn, "COMMIT", c->arena, c->err);
}

static sluice_status describe(pg_call *c, PGresult *r, sluice_exec_result *out)
{
    out->column_count = (size_t)PQnfields(r);
    out->columns = sluice_arena_calloc(c->arena, out->column_count + 1, sizeof(*out->columns));
    if (out->columns == NULL)
        return SLUICE_E_NOMEM;
    for (size_t i = 0; i < out->column_count; i++) {
        out->columns[i].name = sluice_arena_strdup(c->arena, PQfname(r, (int)i));
        out->columns[i].type = sluice_pg_type_name(PQftype(r, (int)i));
        if (out->columns[i].name == NULL)
            return SLUICE_E_NOMEM;
    }
    return SLUICE_OK;
}

static sluice_status add_rows(PGresult *r, sluice_exec_rows *acc, bool *more)
{
    for (int i = 0; *more && i < PQntuples(r); i++) {
        json_t *row = json_array();
        for (int j = 0; row != NULL && j < PQnfields(r); j++) {
            json_t *v = PQgetisnull(r, i, j) ? json_null()
                                             : sluice_pg_value(PQgetvalue(r, i, j),
                                                               PQgetlength(r, i, j), PQftype(r, j));
            if (v == NULL || json_array_append_new(row, v) != 0) {
                json_decref(row);
                row = NULL;
            }
        }
        if (row == NULL)
            return SLUICE_E_NOMEM;
        sluice_status st = sluice_exec_rows_add(acc, row, more);
        if (st != SLUICE_OK)
            return st;
    }
    return SLUICE_OK;
}

/* FETCHes until the rows end or a cap is reached; never more than max_rows + 1 rows are asked
 * of the server. */
static sluice_status fetch_rows(pg_call *c, sluice_exec_result *out)
{
    sluice_exec_rows acc;
    sluice_status st = sluice_exec_rows_init(&acc, c->arena, &c->req->limits);
    bool more = true, described = false;
    int64_t asked = 0, max = c->req->limits.max_rows;
    while (st == SLUICE_OK && more) {
        int64_t batch = SLUICE_LIMIT_PG_FETCH_ROWS;
        if (max > 0 && max + 1 - asked < batch)
            batch = max + 1 - asked;
        char sql[64];
        snprintf(sql, sizeof sql, "FETCH FORWARD %" PRId64 " FROM sluice_cursor", batch);
        asked += batch;
        if (!PQsendQueryParams(c->conn, sql, 0, NULL, NULL, NULL, NULL, 0)) {
            c->broken = true;
            return statement_error(c, NULL);
        }
        PGresult *r = wait_result(c);
        if (r == NULL || PQresultStatus(r) != PGRES_TUPLES_OK) {
            st = statement_error(c, r);
        } else {
            if (!described)
                st = describe(c, r, out);
            described = true;
            if (st == SLUICE_OK)
                st = add_rows(r, &acc, &more);
            if (PQntuples(r) < batch)
                more = false;
        }
        PQclear(r);
    }
    if (st == SLUICE_OK)
        sluice_exec_rows_finish(&acc, out);
    return st;
}

static sluice_status start_run(pg_call *c)
{
    c->run = sluice_arena_calloc(c->arena, 1, sizeof(*c->run));
    if (c->run == NULL)
        return SLUICE_E_NOMEM;
    pthread_mutex_init(&c->run->lock, NULL);
    atomic_init(&c->run->cancelled, false);
    if (sluice_arena_cleanup_add(c->arena, run_destroy, c->run) != SLUICE_OK) {
        c->run = NULL; /* cleanup_add ran run_destroy already */
        return SLUICE_E_NOMEM;
    }
    c->run->cancel = PQgetCancel(c->conn);
    if (c->req->register_cancel != NULL)
        c->req->register_cancel(c->req->cancel_ctx, run_cancel, c->run);
    return atomic_load(&c->run->cancelled) ? sluice_exec_cancelled_error(c->err, c->arena)
                                           : SLUICE_OK;
}

/* The end of a call, execute's or explain's: no cancel can reach the connection from here on,
 * and an open transaction rolls back (a read always; a change that did not commit). True when
 * the connection may go back to the pool: not broken, not timed out, and not cancelled (after a
 * cancel the server may still deliver it to the next statement). */
static bool end_run(pg_call *c)
{
    if (c->run != NULL) {
        pthread_mutex_lock(&c->run->lock);
        PQfreeCancel(c->run->cancel);
        c->run->cancel = NULL;
        pthread_mutex_unlock(&c->run->lock);
    }
    if (!c->broken && PQtransactionStatus(c->conn) != PQTRANS_IDLE)
        PQclear(PQexec(c->conn, "ROLLBACK"));
    return !c->broken && !c->timed_out && (c->run == NULL || !atomic_load(&c->run->cancelled));
}

static sluice_status pg_execute(sluice_executor *ex,
                                sluice_arena *arena,
                                const sluice_exec_request *req,
                                sluice_exec_result *out,
                                sluice_error *err)
{
    int64_t started = sluice_exec_now_ms();
    pg_call c = { .state = sluice_executor_state(ex), .req = req, .arena = arena, .err = err };
    c.pool = &c.state->read;
    if (c.state->write.conninfo != NULL) {
        pg_change kind = sluice_pg_change_kind(req->code, req->code_len);
        c.change = (kind == PG_CHANGE_WRITE && c.state->allow_writes) ||
                   (kind == PG_CHANGE_DELETE && c.state->allow_deletes);
        if (c.change)
            c.pool = &c.state->write;
    }
    if (req->limits.timeout_ms > 0)
        c.deadline_ms = started + req->limits.timeout_ms;
    sluice_status st = sluice_pg_conn_take(c.pool, &c.conn, arena, err);
    if (st != SLUICE_OK)
        return st;
    st = start_run(&c);
    if (st == SLUICE_OK)
        st = begin(&c);
    PGresult *declared = NULL;
    if (st == SLUICE_OK && c.change) {
        st = run_change(&c, out);
    } else if (st == SLUICE_OK && (st = send_code(&c, &declared)) == SLUICE_OK) {
        PQclear(declared);
        out->statement_type = "SELECT";
        st = fetch_rows(&c, out);
    }
    sluice_pg_conn_give(c.pool, c.conn, end_run(&c));
    out->elapsed_ms = sluice_exec_now_ms() - started;
    return st;
}

/* ---- the plan, for the analyzer ----------------------------------------------------------- */

/* The key columns of every index on the search_path's tables, in key order (null for an
 * expression): an index scan returns rows in that order, which the analyzer's plan walk judges. */
static const char index_keys_sql[] =
    "SELECT coalesce(json_object_agg(ic.relname, k.keys), '{}') FROM pg_catalog.pg_index i "
    "JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid "
    "JOIN pg_catalog.pg_class t ON t.oid = i.indrelid "
    "CROSS JOIN LATERAL (SELECT json_agg(a.attname ORDER BY u.ord) AS keys "
    "FROM unnest(i.indkey::int2[]) WITH ORDINALITY u(attnum, ord) "
    "LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = u.attnum) k "
    "WHERE t.relnamespace = ANY (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ANY "
    "(pg_catalog.current_schemas(false)))";

/* Sends fixed sluice SQL (or the code to PREPARE) and waits for it under the call's deadline;
 * the result (caller PQclears) when its status is want. */
static sluice_status
send_and_wait(pg_call *c, const char *sql, bool prepare, ExecStatusType want, PGresult **out)
{
    *out = NULL;
    int sent = prepare ? PQsendPrepare(c->conn, "sluice_explain", sql, 0, NULL)
                       : PQsendQueryParams(c->conn, sql, 0, NULL, NULL, NULL, NULL, 0);
    if (!sent) {
        c->broken = true;
        return statement_error(c, NULL);
    }
    PGresult *r = wait_result(c);
    if (r != NULL && PQresultStatus(r) == want) {
        *out = r;
        return SLUICE_OK;
    }
    sluice_status st = statement_error(c, r);
    PQclear(r);
    return st;
}

/* PREPARE (the protocol's: one statement) with a generic plan forced, then EXPLAIN (VERBOSE,
 * FORMAT JSON) EXECUTE with NULL for each parameter (a generic plan does not look at them):
 * PostgreSQL 15 has no EXPLAIN (GENERIC_PLAN). Inside the same read-only transaction, role,
 * search_path, timeouts and planner bounds as a read. */
static sluice_status explain_in(pg_call *c, const char **plan_json)
{
    PGresult *r = NULL;
    sluice_status st =
        sluice_pg_run(c->conn, "SET LOCAL plan_cache_mode = force_generic_plan", c->arena, c->err);
    char *code =
        st == SLUICE_OK ? sluice_arena_strndup(c->arena, c->req->code, c->req->code_len) : NULL;
    if (st == SLUICE_OK && code == NULL)
        st = SLUICE_E_NOMEM;
    if (st == SLUICE_OK)
        st = send_and_wait(c, code, true, PGRES_COMMAND_OK, &r);
    PQclear(r);
    r = st == SLUICE_OK ? PQdescribePrepared(c->conn, "sluice_explain") : NULL;
    int params = r != NULL && PQresultStatus(r) == PGRES_COMMAND_OK ? PQnparams(r) : -1;
    PQclear(r);
    if (st == SLUICE_OK && params < 0)
        st = sluice_error_set(c->err, c->arena, SLUICE_E_ENGINE,
                              "PostgreSQL did not describe the prepared statement");
    sluice_buf b;
    sluice_buf_init(&b, c->arena, 0);
    sluice_buf_puts(&b, "EXPLAIN (VERBOSE, FORMAT JSON) EXECUTE sluice_explain");
    for (int i = 0; st == SLUICE_OK && i < params; i++)
        sluice_buf_puts(&b, i == 0 ? "(NULL" : ", NULL");
    if (params > 0)
        sluice_buf_puts(&b, ")");
    const char *explain = sluice_buf_cstr(&b);
    if (st == SLUICE_OK)
        st = sluice_buf_status(&b);
    PGresult *plan = NULL, *keys = NULL;
    if (st == SLUICE_OK)
        st = send_and_wait(c, explain, false, PGRES_TUPLES_OK, &plan);
    if (st == SLUICE_OK)
        st = send_and_wait(c, index_keys_sql, false, PGRES_TUPLES_OK, &keys);
    if (st == SLUICE_OK && (PQntuples(plan) != 1 || PQntuples(keys) != 1))
        st = sluice_error_set(c->err, c->arena, SLUICE_E_ENGINE, "PostgreSQL gave no plan");
    if (st == SLUICE_OK) {
        *plan_json = sluice_arena_printf(c->arena, "{\"plan\": %s, \"indexes\": %s}",
                                         PQgetvalue(plan, 0, 0), PQgetvalue(keys, 0, 0));
        if (*plan_json == NULL)
            st = SLUICE_E_NOMEM;
    }
    PQclear(plan);
    PQclear(keys);
    return st;
}

static sluice_status pg_explain(sluice_executor *ex,
                                sluice_arena *arena,
                                const sluice_exec_request *as,
                                const char **plan_json,
                                sluice_error *err)
{
    /* only what the plan depends on: the code, the time allowed, the caller in the database
     * (begin sets the role and claims as for a read) */
    int64_t timeout_ms = as->limits.timeout_ms;
    sluice_exec_request req = { .code = as->code,
                                .code_len = as->code_len,
                                .limits = { .timeout_ms = timeout_ms },
                                .identity = as->identity,
                                .db_role = as->db_role,
                                .publish_claims = as->publish_claims };
    pg_call c = { .state = sluice_executor_state(ex),
                  .req = &req,
                  .arena = arena,
                  .err = err,
                  .prepared = true };
    c.pool = &c.state->read;
    if (timeout_ms > 0)
        c.deadline_ms = sluice_exec_now_ms() + timeout_ms;
    sluice_status st = sluice_pg_conn_take(c.pool, &c.conn, arena, err);
    if (st != SLUICE_OK)
        return st;
    st = start_run(&c);
    if (st == SLUICE_OK)
        st = begin(&c);
    if (st == SLUICE_OK)
        st = explain_in(&c, plan_json);
    bool reusable = end_run(&c);
    /* a prepared statement outlives ROLLBACK; DISCARD ALL (conn_give) drops it too */
    if (!c.broken)
        PQclear(PQexec(c.conn, "DEALLOCATE sluice_explain"));
    sluice_pg_conn_give(c.pool, c.conn, reusable);
    return st;
}
