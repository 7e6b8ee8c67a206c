/*
 * program_store_pg.c — the saved-program store in PostgreSQL (see program_store_pg.h).
 *
 * Why the head row and not only the prev links: a chain cut at its end is still a valid chain,
 * and the cut may drop a demotion; the head row is updated in the same transaction as each line,
 * so the two disagree only when someone with the table owner's rights edited them (the triggers
 * refuse it to everyone else). Its FOR UPDATE lock is also what orders two replicas' appends,
 * exactly as the audit sink does (audit_pg.c), and PostgreSQL drops it with a dead connection.
 * Why one connection under a mutex: a read is a handful of rows on each tools/list and saved
 * call; a pool would buy nothing the mutex costs.
 */
#include "state/program_store_pg.h"

#include "core/hash.h"
#include "core/limits.h"
#include "core/secret_text.h"
#include "state/pg_chain.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TABLE "sluice_programs"
#define APPLICATION   "sluice-programs"
#define SQL_MAX       512u
#define WHY_MAX       512u

typedef struct program_pg {
    pthread_mutex_t lock; /* one statement sequence at a time on the connection */
    PGconn *conn;         /* NULL: reconnect on the next read or append */
    char *conninfo;
    char *password;
    uint64_t seen; /* the highest line count this process read: the head never goes back */
    char table[64];
    char where[128]; /* "table sluice_programs in PostgreSQL", for messages */
    char head_sql[SQL_MAX], lock_sql[SQL_MAX], lines_sql[SQL_MAX], insert_sql[SQL_MAX],
        move_sql[SQL_MAX];
} program_pg;

/* The database could not be asked (why: libpq's reason); op is "read" or "written". */
static sluice_status
unreachable(program_pg *p, const char *op, const char *why, sluice_arena *arena, sluice_error *err)
{
    return sluice_error_set(err, arena, SLUICE_E_IO,
                            "the saved-program store (%s) cannot be %s: %s; no saved program is "
                            "listed or runs until PostgreSQL answers again",
                            p->where, op, why);
}

static sluice_status
damaged(program_pg *p, sluice_arena *arena, sluice_error *err, const char *what)
{
    return sluice_error_set(err, arena, SLUICE_E_INVALID,
                            "the saved-program store (%s) is damaged: %s; no saved program runs "
                            "until it is restored from a backup",
                            p->where, what);
}

/* The head row (inside a transaction; locked when lock): its line count and last hash. */
static sluice_status head_of(program_pg *p,
                             bool lock,
                             uint64_t *seq,
                             char hash[SLUICE_HASH_HEX_CHARS + 1],
                             sluice_arena *arena,
                             sluice_error *err)
{
    PGresult *r = PQexec(p->conn, lock ? p->lock_sql : p->head_sql);
    sluice_status st = SLUICE_OK;
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        char why[WHY_MAX];
        snprintf(why, sizeof why, "%s", PQerrorMessage(p->conn));
        why[strcspn(why, "\n")] = '\0';
        st = unreachable(p, "read", why, arena, err);
    } else if (PQntuples(r) != 1 || strlen(PQgetvalue(r, 0, 1)) != SLUICE_HASH_HEX_CHARS) {
        st = damaged(p, arena, err, "its head row is missing or malformed");
    } else {
        *seq = strtoull(PQgetvalue(r, 0, 0), NULL, 10);
        memcpy(hash, PQgetvalue(r, 0, 1), SLUICE_HASH_HEX_CHARS + 1);
    }
    PQclear(r);
    return st;
}

/* The lines of r (seq, line in seq order) into the arena, each where its seq says. */
static sluice_status copy_lines(
    program_pg *p, PGresult *r, sluice_program_line **out, sluice_arena *arena, sluice_error *err)
{
    size_t n = (size_t)PQntuples(r), bytes = 0;
    sluice_program_line *v = sluice_arena_calloc(arena, n + 1, sizeof *v);
    if (v == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        size_t len = (size_t)PQgetlength(r, (int)i, 1);
        bytes += len + 1;
        if (strtoull(PQgetvalue(r, (int)i, 0), NULL, 10) != i + 1) {
            char what[160];
            snprintf(what, sizeof what, "line %zu is missing (a line was deleted)", i + 1);
            return damaged(p, arena, err, what);
        }
        if (bytes > SLUICE_LIMIT_PROGRAM_STORE_BYTES)
            return sluice_error_set(err, arena, SLUICE_E_LIMIT,
                                    "the saved-program store (%s) holds more than %u bytes; no "
                                    "saved program runs until it is trimmed",
                                    p->where, SLUICE_LIMIT_PROGRAM_STORE_BYTES);
        if (len > SLUICE_LIMIT_PROGRAM_LINE_BYTES) {
            char what[160];
            snprintf(what, sizeof what, "line %zu is longer than %u bytes", i + 1,
                     SLUICE_LIMIT_PROGRAM_LINE_BYTES);
            return damaged(p, arena, err, what);
        }
        v[i].text = sluice_arena_strdup(arena, PQgetvalue(r, (int)i, 1));
        v[i].line_no = i + 1;
        if (v[i].text == NULL)
            return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    }
    *out = v;
    return SLUICE_OK;
}

/* Inside a transaction: every line, checked against the head row (locked when lock) and the line
 * contract. *out and *count are set only on SLUICE_OK. */
static sluice_status load(program_pg *p,
                          bool lock,
                          sluice_arena *arena,
                          sluice_program_line **out,
                          size_t *count,
                          sluice_error *err)
{
    uint64_t head = 0;
    char head_hash[SLUICE_HASH_HEX_CHARS + 1];
    sluice_status st = head_of(p, lock, &head, head_hash, arena, err);
    if (st != SLUICE_OK)
        return st;
    PGresult *r = PQexec(p->conn, p->lines_sql);
    sluice_program_line *v = NULL;
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        char why[WHY_MAX];
        snprintf(why, sizeof why, "%s", PQerrorMessage(p->conn));
        why[strcspn(why, "\n")] = '\0';
        st = unreachable(p, "read", why, arena, err);
    } else {
        st = copy_lines(p, r, &v, arena, err);
    }
    size_t n = st == SLUICE_OK ? (size_t)PQntuples(r) : 0;
    PQclear(r);
    if (st != SLUICE_OK)
        return st;
    char last[SLUICE_HASH_HEX_CHARS + 1] = SLUICE_PROGRAM_STORE_FIRST_PREV;
    if (n > 0)
        sluice_program_store_line_hash(v[n - 1].text, last);
    char what[256];
    if (n != head) {
        snprintf(what, sizeof what,
                 "it has %zu lines and its head row says %" PRIu64 " (lines were %s its end; a "
                 "demotion may be among them)",
                 n, head, n < head ? "cut from" : "added past");
        return damaged(p, arena, err, what);
    }
    if (strcmp(last, head_hash) != 0)
        return damaged(p, arena, err, "its last line is not the one its head row vouches for");
    if (n < p->seen) {
        snprintf(what, sizeof what,
                 "it was cut back to %zu lines where this server already read %" PRIu64, n,
                 p->seen);
        return damaged(p, arena, err, what);
    }
    st = sluice_program_store_check_lines(v, n, p->where, arena, err);
    if (st != SLUICE_OK)
        return st;
    p->seen = n;
    *out = v;
    *count = n;
    return SLUICE_OK;
}

/* Under the lock: a live connection, or SLUICE_E_IO. */
static sluice_status
connected(program_pg *p, const char *op, sluice_arena *arena, sluice_error *err)
{
    char why[WHY_MAX];
    if (sluice_pg_chain_ensure(&p->conn, p->conninfo, p->password, APPLICATION, why, sizeof why))
        return SLUICE_OK;
    return unreachable(p, op, why, arena, err);
}

/* Under the lock, after a failure: a connection that is no longer OK is dropped, so the next
 * read or append reconnects. */
static void drop_if_lost(program_pg *p)
{
    if (p->conn != NULL && PQstatus(p->conn) != CONNECTION_OK) {
        PQfinish(p->conn);
        p->conn = NULL;
    }
}

static sluice_status pg_read(void *impl,
                             sluice_arena *arena,
                             sluice_program_line **out,
                             size_t *out_count,
                             sluice_error *err)
{
    program_pg *p = impl;
    pthread_mutex_lock(&p->lock);
    sluice_status st = connected(p, "read", arena, err);
    char why[WHY_MAX];
    if (st == SLUICE_OK &&
        !sluice_pg_chain_exec(p->conn, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", why,
                              sizeof why))
        st = unreachable(p, "read", why, arena, err);
    else if (st == SLUICE_OK)
        st = load(p, false, arena, out, out_count, err);
    if (p->conn != NULL)
        sluice_pg_chain_rollback(p->conn); /* read only: nothing to keep */
    drop_if_lost(p);
    pthread_mutex_unlock(&p->lock);
    return st;
}

/* Inside the append's transaction, the head row locked and lines checked: inserts text as line
 * count + 1 and moves the head to it. */
static sluice_status
insert_line(program_pg *p, size_t count, const char *text, sluice_arena *arena, sluice_error *err)
{
    char seq[24], hex[SLUICE_HASH_HEX_CHARS + 1], why[WHY_MAX];
    snprintf(seq, sizeof seq, "%zu", count + 1);
    sluice_program_store_line_hash(text, hex);
    const char *line_params[] = { seq, text };
    const char *head_params[] = { seq, hex };
    const char *sql[] = { p->insert_sql, p->move_sql };
    const char *const *params[] = { line_params, head_params };
    for (size_t i = 0; i < 2; i++) {
        PGresult *r = PQexecParams(p->conn, sql[i], 2, NULL, params[i], NULL, NULL, 0);
        bool ok = PQresultStatus(r) == PGRES_COMMAND_OK && strcmp(PQcmdTuples(r), "1") == 0;
        PQclear(r);
        if (!ok) {
            snprintf(why, sizeof why, "%s", PQerrorMessage(p->conn));
            why[strcspn(why, "\n")] = '\0';
            return unreachable(p, "written", why, arena, err);
        }
    }
    if (!sluice_pg_chain_exec(p->conn, "COMMIT", why, sizeof why))
        return unreachable(p, "written", why, arena, err);
    p->seen = count + 1;
    return SLUICE_OK;
}

/* Under the lock, inside BEGIN: the append of program_store.h, up to the insert. */
static sluice_status append_locked(program_pg *p,
                                   sluice_arena *arena,
                                   const sluice_program_append *req,
                                   sluice_error *err)
{
    sluice_program_line *lines = NULL;
    size_t count = 0;
    sluice_status st = load(p, true, arena, &lines, &count, err);
    if (st != SLUICE_OK)
        return st;
    const char *text = sluice_program_store_next_line(req, lines, count, p->where, arena, err);
    if (text == NULL)
        return err->status;
    return insert_line(p, count, text, arena, err);
}

static sluice_status
pg_append(void *impl, sluice_arena *arena, const sluice_program_append *req, sluice_error *err)
{
    program_pg *p = impl;
    pthread_mutex_lock(&p->lock);
    sluice_status st = connected(p, "written", arena, err);
    char why[WHY_MAX];
    if (st == SLUICE_OK && !sluice_pg_chain_exec(p->conn, "BEGIN", why, sizeof why))
        st = unreachable(p, "written", why, arena, err);
    else if (st == SLUICE_OK)
        st = append_locked(p, arena, req, err);
    if (st != SLUICE_OK && p->conn != NULL)
        sluice_pg_chain_rollback(p->conn); /* nothing of a failed append stays */
    drop_if_lost(p);
    pthread_mutex_unlock(&p->lock);
    return st;
}

static void pg_close(void *impl)
{
    program_pg *p = impl;
    if (p == NULL)
        return;
    if (p->conn != NULL)
        PQfinish(p->conn);
    if (p->password != NULL) {
        explicit_bzero(p->password, strlen(p->password));
        free(p->password);
    }
    free(p->conninfo);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

static const sluice_program_store_ops pg_ops = {
    .name = "postgres",
    .read = pg_read,
    .append = pg_append,
    .close = pg_close,
};

/* The statements, with the table's quoted names. */
static bool prepare_sql(program_pg *p)
{
    char q[SLUICE_PG_CHAIN_NAME_CAP], qh[SLUICE_PG_CHAIN_NAME_CAP];
    if (!sluice_pg_chain_names(p->conn, p->table, q, qh, sizeof q))
        return false;
    snprintf(p->head_sql, sizeof p->head_sql, "SELECT seq, hash FROM %s WHERE id = 1", qh);
    snprintf(p->lock_sql, sizeof p->lock_sql, "SELECT seq, hash FROM %s WHERE id = 1 FOR UPDATE",
             qh);
    snprintf(p->lines_sql, sizeof p->lines_sql, "SELECT seq, line FROM %s ORDER BY seq", q);
    snprintf(p->insert_sql, sizeof p->insert_sql,
             "INSERT INTO %s (seq, line) VALUES ($1::bigint, $2)", q);
    snprintf(p->move_sql, sizeof p->move_sql,
             "UPDATE %s SET seq = $1::bigint, hash = $2 WHERE id = 1", qh);
    return true;
}

sluice_status sluice_program_store_open_pg(const sluice_program_store_pg_options *o,
                                           sluice_program_store **out,
                                           sluice_arena *err_arena,
                                           sluice_error *err)
{
    program_pg *p = calloc(1, sizeof *p);
    if (p == NULL)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    pthread_mutex_init(&p->lock, NULL);
    snprintf(p->table, sizeof p->table, "%s", o->table != NULL ? o->table : DEFAULT_TABLE);
    snprintf(p->where, sizeof p->where, "table %s in PostgreSQL", p->table);
    p->conninfo = strdup(o->conninfo);
    sluice_status st = p->conninfo != NULL
                           ? SLUICE_OK
                           : sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    if (st == SLUICE_OK)
        st = sluice_secret_text_read("[state] programs_postgres", o->password_file, o->password_env,
                                     &p->password, err_arena, err);
    char why[WHY_MAX] = "";
    if (st == SLUICE_OK &&
        (!sluice_pg_chain_ensure(&p->conn, p->conninfo, p->password, APPLICATION, why,
                                 sizeof why) ||
         !sluice_pg_chain_create(p->conn, p->table, "the sluice saved-program table", why,
                                 sizeof why) ||
         !prepare_sql(p)))
        st = sluice_error_set(err, err_arena, SLUICE_E_IO,
                              "[state] programs_postgres: cannot open the saved-program table "
                              "%s: %s; fix the conninfo or start the database, then restart",
                              p->table, why[0] != '\0' ? why : "the table name is too long");
    if (st != SLUICE_OK) {
        pg_close(p);
        return st;
    }
    st = sluice_program_store_wrap(&pg_ops, p, out);
    return st == SLUICE_OK ? SLUICE_OK
                           : sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
}
