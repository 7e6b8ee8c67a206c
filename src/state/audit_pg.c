/*
 * audit_pg.c — the PostgreSQL audit sink and its verifier (see audit_pg.h).
 *
 * Why a row lock on the head row serialises the chain: the next record's prev is the hash of the
 * last one, so two replicas must never both extend the same end. The head row has to be updated
 * in the same transaction anyway (it catches a cut-off tail, as the file sink's .head does), so
 * `SELECT ... FOR UPDATE` on it orders every append at no extra cost: a second replica waits
 * until the first commits, then reads the new end. The lock also works on an empty table (an
 * advisory lock would too, but would add a second mechanism), and PostgreSQL drops it when the
 * holder's transaction ends or its connection dies, so a killed replica never blocks the others;
 * its uncommitted record simply never existed (never acknowledged either).
 * Why records are text, not jsonb: the hash covers the exact bytes the file sink writes.
 */
#include "state/audit_pg.h"

#include "core/hash.h"
#include "core/metrics.h"
#include "core/secret_text.h"
#include "state/audit_chain.h"
#include "state/pg_chain.h"

#include <inttypes.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TABLE "sluice_audit"
#define APPLICATION   "sluice-audit"
#define SQL_MAX       2048u

typedef struct audit_pg {
    pthread_mutex_t lock; /* one append at a time on this connection */
    PGconn *conn;         /* NULL: reconnect on the next append */
    char *conninfo;
    char *password;
    const sluice_clock *clock;
    uint64_t appended; /* by this replica, for count() */
    char lock_head[SQL_MAX], insert[SQL_MAX], move_head[SQL_MAX];
    char table[128];
} audit_pg;

static sluice_status
pg_failure(audit_pg *a, const char *why, sluice_arena *arena, sluice_error *err)
{
    return sluice_error_set(err, arena, SLUICE_E_IO,
                            "audit trail in PostgreSQL (table %s): %s; the record was not "
                            "acknowledged, so the action it describes is refused",
                            a->table, why);
}

/* Under the lock, inside BEGIN: the head row (locked), as seq and hash. */
static bool lock_head(audit_pg *a, uint64_t *seq, uint8_t *hash, char *why, size_t cap)
{
    PGresult *r = PQexec(a->conn, a->lock_head);
    bool ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
    if (!ok)
        snprintf(why, cap, "%s",
                 PQresultStatus(r) == PGRES_TUPLES_OK
                     ? "the head row is missing (run `sluice audit "
                       "verify --pg`)"
                     : PQerrorMessage(a->conn));
    if (ok) {
        *seq = strtoull(PQgetvalue(r, 0, 0), NULL, 10);
        const char *hex = PQgetvalue(r, 0, 1);
        ok = sluice_hash_unhex(hex, strlen(hex), hash, SLUICE_HASH_BYTES) == SLUICE_OK;
        if (!ok)
            snprintf(why, cap, "the head row's hash is malformed (run `sluice audit verify --pg`)");
    }
    PQclear(r);
    return ok;
}

static bool
exec_params(audit_pg *a, const char *sql, const char *p1, const char *p2, char *why, size_t cap)
{
    const char *params[] = { p1, p2 };
    PGresult *r = PQexecParams(a->conn, sql, 2, NULL, params, NULL, NULL, 0);
    bool ok = PQresultStatus(r) == PGRES_COMMAND_OK && strcmp(PQcmdTuples(r), "1") == 0;
    if (!ok)
        snprintf(why, cap, "%s", PQerrorMessage(a->conn));
    PQclear(r);
    return ok;
}

/* Under the lock: one transaction appending the event's members. */
static sluice_status
append_once(audit_pg *a, const char *members, size_t members_len, char *why, size_t cap)
{
    if (!sluice_pg_chain_ensure(&a->conn, a->conninfo, a->password, APPLICATION, why, cap))
        return SLUICE_E_IO;
    uint64_t seq = 0;
    uint8_t last[SLUICE_HASH_BYTES], hash[SLUICE_HASH_BYTES];
    if (!sluice_pg_chain_exec(a->conn, "BEGIN", why, cap))
        return SLUICE_E_IO;
    if (!lock_head(a, &seq, last, why, cap)) {
        sluice_pg_chain_rollback(a->conn);
        return SLUICE_E_IO;
    }
    size_t len = 0;
    char *text =
        sluice_audit_render_record(seq + 1, last, a->clock, members, members_len, &len, hash);
    if (text == NULL) {
        sluice_pg_chain_rollback(a->conn);
        snprintf(why, cap, len == 0 ? "out of memory" : "record is %zu bytes (limit is %u)", len,
                 SLUICE_LIMIT_AUDIT_LINE_BYTES);
        return len == 0 ? SLUICE_E_NOMEM : SLUICE_E_LIMIT;
    }
    text[len - 1] = '\0'; /* stored without its newline */
    char seq_text[24], hex[SLUICE_HASH_HEX_CHARS + 1];
    snprintf(seq_text, sizeof seq_text, "%" PRIu64, seq + 1);
    sluice_hash_hex(hash, SLUICE_HASH_BYTES, hex);
    bool ok = exec_params(a, a->insert, seq_text, text, why, cap) &&
              exec_params(a, a->move_head, seq_text, hex, why, cap) &&
              sluice_pg_chain_exec(a->conn, "COMMIT", why, cap);
    free(text);
    if (!ok) {
        sluice_pg_chain_rollback(a->conn);
        return SLUICE_E_IO;
    }
    a->appended++;
    return SLUICE_OK;
}

static sluice_status
pg_append(void *impl, const char *members, size_t len, sluice_arena *err_arena, sluice_error *err)
{
    audit_pg *a = impl;
    char why[512] = "";
    pthread_mutex_lock(&a->lock);
    sluice_status st = append_once(a, members, len, why, sizeof why);
    if (st == SLUICE_E_IO && a->conn != NULL && PQstatus(a->conn) != CONNECTION_OK) {
        PQfinish(a->conn); /* lost: the next append reconnects */
        a->conn = NULL;
    }
    pthread_mutex_unlock(&a->lock);
    if (st == SLUICE_OK) {
        sluice_metric_inc(SLUICE_METRIC_AUDIT_RECORDS, NULL, NULL, NULL);
        return SLUICE_OK;
    }
    why[strcspn(why, "\n")] = '\0';
    if (st == SLUICE_E_NOMEM || st == SLUICE_E_LIMIT)
        return sluice_error_set(err, err_arena, st, "audit record: %s", why);
    return pg_failure(a, why, err_arena, err);
}

static uint64_t pg_count(void *impl)
{
    audit_pg *a = impl;
    pthread_mutex_lock(&a->lock);
    uint64_t n = a->appended;
    pthread_mutex_unlock(&a->lock);
    return n;
}

static void pg_close(void *impl)
{
    audit_pg *a = impl;
    if (a->conn != NULL)
        PQfinish(a->conn);
    if (a->password != NULL) {
        explicit_bzero(a->password, strlen(a->password));
        free(a->password);
    }
    free(a->conninfo);
    pthread_mutex_destroy(&a->lock);
    free(a);
}

static const sluice_audit_sink_ops pg_ops = { "postgres", pg_append, pg_count, pg_close };

static bool prepare_sql(audit_pg *a)
{
    char q[SLUICE_PG_CHAIN_NAME_CAP], qh[SLUICE_PG_CHAIN_NAME_CAP];
    if (!sluice_pg_chain_names(a->conn, a->table, q, qh, sizeof q))
        return false;
    snprintf(a->lock_head, sizeof a->lock_head, "SELECT seq, hash FROM %s WHERE id = 1 FOR UPDATE",
             qh);
    snprintf(a->insert, sizeof a->insert, "INSERT INTO %s (seq, line) VALUES ($1::bigint, $2)", q);
    snprintf(a->move_head, sizeof a->move_head,
             "UPDATE %s SET seq = $1::bigint, hash = $2 WHERE id = 1", qh);
    return true;
}

sluice_status sluice_audit_open_pg(const sluice_audit_pg_options *o,
                                   sluice_audit **out,
                                   sluice_arena *err_arena,
                                   sluice_error *err)
{
    audit_pg *a = calloc(1, sizeof *a);
    if (a == NULL)
        return SLUICE_E_NOMEM;
    pthread_mutex_init(&a->lock, NULL);
    a->clock = o->clock;
    snprintf(a->table, sizeof a->table, "%s", o->table != NULL ? o->table : DEFAULT_TABLE);
    a->conninfo = strdup(o->conninfo);
    sluice_status st = a->conninfo != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
    if (st == SLUICE_OK)
        st = sluice_secret_text_read("[state]", o->password_file, o->password_env, &a->password,
                                     err_arena, err);
    char why[512] = "";
    if (st == SLUICE_OK &&
        (!sluice_pg_chain_ensure(&a->conn, a->conninfo, a->password, APPLICATION, why,
                                 sizeof why) ||
         !sluice_pg_chain_create(a->conn, a->table, "the sluice audit table", why, sizeof why) ||
         !prepare_sql(a))) {
        why[strcspn(why, "\n")] = '\0';
        st = sluice_error_set(err, err_arena, SLUICE_E_IO,
                              "[state] audit_postgres: cannot open the audit table %s: %s",
                              a->table, why[0] != '\0' ? why : "the table name is too long");
    }
    if (st != SLUICE_OK) {
        pg_close(a);
        return st;
    }
    return sluice_audit_wrap(&pg_ops, a, out);
}

/* ---- verify ------------------------------------------------------------------------------ */

/* The head row: has_head false when it is missing. */
static bool read_head_row(PGconn *c, const char *qh, bool *has, uint64_t *seq, uint8_t *hash)
{
    char sql[SQL_MAX];
    snprintf(sql, sizeof sql, "SELECT seq, hash FROM %s WHERE id = 1", qh);
    PGresult *r = PQexec(c, sql);
    bool ok = PQresultStatus(r) == PGRES_TUPLES_OK;
    *has = ok && PQntuples(r) == 1;
    if (*has) {
        *seq = strtoull(PQgetvalue(r, 0, 0), NULL, 10);
        const char *hex = PQgetvalue(r, 0, 1);
        if (sluice_hash_unhex(hex, strlen(hex), hash, SLUICE_HASH_BYTES) != SLUICE_OK)
            *has = false;
    }
    PQclear(r);
    return ok;
}

/* Streams the records in seq order into f, one per line (single-row mode: any size). */
static bool copy_lines(PGconn *c, const char *q, FILE *f)
{
    char sql[SQL_MAX];
    snprintf(sql, sizeof sql, "SELECT line FROM %s ORDER BY seq", q);
    if (!PQsendQuery(c, sql) || !PQsetSingleRowMode(c))
        return false;
    bool ok = true;
    PGresult *r;
    while ((r = PQgetResult(c)) != NULL) {
        ExecStatusType s = PQresultStatus(r);
        if (s == PGRES_SINGLE_TUPLE)
            ok = ok && fputs(PQgetvalue(r, 0, 0), f) >= 0 && fputc('\n', f) != EOF;
        else if (s != PGRES_TUPLES_OK)
            ok = false;
        PQclear(r);
    }
    return ok;
}

sluice_status sluice_audit_verify_pg(const sluice_audit_pg_options *o,
                                     sluice_audit_report *report,
                                     sluice_arena *err_arena,
                                     sluice_error *err)
{
    return sluice_audit_verify_pg_each(o, NULL, NULL, report, err_arena, err);
}

sluice_status sluice_audit_verify_pg_each(const sluice_audit_pg_options *o,
                                          sluice_audit_visit_fn visit,
                                          void *ctx,
                                          sluice_audit_report *report,
                                          sluice_arena *err_arena,
                                          sluice_error *err)
{
    memset(report, 0, sizeof(*report));
    char *password = NULL;
    sluice_status st = sluice_secret_text_read("audit verify", o->password_file, o->password_env,
                                               &password, err_arena, err);
    if (st != SLUICE_OK || sluice_hash_init() != SLUICE_OK)
        return st != SLUICE_OK ? st : SLUICE_E_IO;
    PGconn *c = sluice_pg_chain_connect(o->conninfo, password, APPLICATION);
    if (password != NULL) {
        explicit_bzero(password, strlen(password));
        free(password);
    }
    const char *table = o->table != NULL ? o->table : DEFAULT_TABLE;
    char q[SLUICE_PG_CHAIN_NAME_CAP], qh[SLUICE_PG_CHAIN_NAME_CAP];
    bool has_head = false;
    uint64_t head_seq = 0;
    uint8_t head_hash[SLUICE_HASH_BYTES];
    FILE *f = NULL;
    if (c == NULL || PQstatus(c) != CONNECTION_OK ||
        !sluice_pg_chain_names(c, table, q, qh, sizeof q) ||
        !read_head_row(c, qh, &has_head, &head_seq, head_hash) || (f = tmpfile()) == NULL ||
        !copy_lines(c, q, f)) {
        char why[512];
        snprintf(why, sizeof why, "%s", c != NULL ? PQerrorMessage(c) : "out of memory");
        why[strcspn(why, "\n")] = '\0';
        st = sluice_error_set(err, err_arena, SLUICE_E_IO, "cannot read the audit table %s: %s",
                              table, why);
    } else {
        rewind(f);
        st = sluice_audit_verify_lines(f, has_head, head_seq, head_hash, visit, ctx, table, report);
        if (st == SLUICE_E_INVALID && !has_head && report->line == 0)
            snprintf(report->what, sizeof report->what,
                     "the head row of %s_head is missing or malformed, so a truncated tail cannot "
                     "be ruled out",
                     table);
    }
    if (f != NULL)
        fclose(f);
    PQfinish(c);
    return st;
}

/* ---- the console's trail ------------------------------------------------------------------ */

json_t *sluice_audit_tail_pg(const sluice_audit_pg_options *o,
                             size_t max,
                             sluice_arena *err_arena,
                             sluice_error *err)
{
    char *password = NULL;
    if (sluice_secret_text_read("[state] audit_postgres", o->password_file, o->password_env,
                                &password, err_arena, err) != SLUICE_OK)
        return NULL;
    PGconn *c = sluice_pg_chain_connect(o->conninfo, password, APPLICATION);
    if (password != NULL) {
        explicit_bzero(password, strlen(password));
        free(password);
    }
    const char *table = o->table != NULL ? o->table : DEFAULT_TABLE;
    char q[SLUICE_PG_CHAIN_NAME_CAP], qh[SLUICE_PG_CHAIN_NAME_CAP], sql[SQL_MAX], limit[24];
    snprintf(limit, sizeof limit, "%zu", max);
    PGresult *r = NULL;
    json_t *out = NULL;
    if (c != NULL && PQstatus(c) == CONNECTION_OK &&
        sluice_pg_chain_names(c, table, q, qh, sizeof q)) {
        snprintf(sql, sizeof sql, "SELECT line FROM %s ORDER BY seq DESC LIMIT $1::bigint", q);
        const char *params[] = { limit };
        r = PQexecParams(c, sql, 1, NULL, params, NULL, NULL, 0);
        out = PQresultStatus(r) == PGRES_TUPLES_OK ? json_array() : NULL;
    }
    for (int i = 0; out != NULL && i < PQntuples(r); i++) {
        const char *line = PQgetvalue(r, i, 0);
        json_t *rec = json_loads(line, JSON_REJECT_DUPLICATES, NULL);
        if (!json_is_object(rec)) { /* not a record: verify --pg reports it */
            json_decref(rec);
            continue;
        }
        if (json_object_set_new(rec, "chain", json_string(table)) != 0) {
            json_decref(rec);
            rec = NULL;
        }
        if (rec == NULL || json_array_append_new(out, rec) != 0) { /* no partial trail */
            json_decref(out);
            out = NULL;
        }
    }
    if (out == NULL) {
        char why[512];
        snprintf(why, sizeof why, "%s", c != NULL ? PQerrorMessage(c) : "out of memory");
        why[strcspn(why, "\n")] = '\0';
        sluice_error_set(err, err_arena, SLUICE_E_IO, "cannot read the audit table %s: %s", table,
                         why[0] != '\0' ? why : "out of memory");
    }
    PQclear(r);
    PQfinish(c);
    return out;
}
