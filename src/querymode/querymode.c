/*
 * querymode.c — the query-mode operations (see querymode.h).
 */
#include "querymode/querymode.h"

#include "codemode/present.h"
#include "core/buf.h"
#include "core/clock.h"
#include "exec/scratch.h"
#include "lang/registry.h"
#include "policy/policy.h"
#include "querymode/http_source.h"
#include "querymode/internal.h"
#include "querymode/where.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *server_id(const sluice_querymode *qm)
{
    return qm->config->code_mode.server_id != NULL ? qm->config->code_mode.server_id
                                                   : qm->config->server.name;
}

sluice_status sluice_querymode_open(const sluice_config *config,
                                    const sluice_querymode_services *with,
                                    sluice_querymode **out,
                                    sluice_arena *err_arena,
                                    sluice_error *err)
{
    *out = NULL;
    for (size_t i = 0; i < config->source_count; i++) {
        const sluice_config_source *s = &config->sources[i];
        for (size_t c = 0; c < s->column_count; c++)
            if (!sluice_scratch_type_ok(s->columns[c].type))
                return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                        "%s:%zu: source '%s' column '%s' has type '%s'; use "
                                        "VARCHAR, BIGINT, INTEGER, DOUBLE, BOOLEAN, DATE, "
                                        "TIMESTAMP or DECIMAL(p,s)",
                                        config->path != NULL ? config->path : "config", s->line,
                                        s->name, s->columns[c].name, s->columns[c].type);
    }
    sluice_querymode *qm = calloc(1, sizeof(*qm));
    if (qm == NULL)
        return SLUICE_E_NOMEM;
    qm->config = config;
    qm->rt = with != NULL ? with->rt : NULL;
    qm->policy = with != NULL ? with->policy : NULL;
    qm->sql = sluice_lang_find("sql");
    if (qm->sql == NULL) {
        free(qm);
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "query mode needs the SQL front end, which is not registered");
    }
    const sluice_clock *clock = with != NULL ? with->clock : NULL;
    sluice_status st = sluice_qm_registry_new(&config->query_mode, clock, &qm->sessions);
    if (st == SLUICE_OK)
        st = sluice_qm_cache_new(config->query_mode.cache_max_bytes, clock, &qm->cache);
    qm->rates = calloc(config->source_count + 1, sizeof(*qm->rates));
    if (st == SLUICE_OK && qm->rates == NULL)
        st = SLUICE_E_NOMEM;
    for (size_t i = 0; st == SLUICE_OK && i < config->source_count; i++)
        pthread_mutex_init(&qm->rates[i].mu, NULL);
    if (st != SLUICE_OK) {
        sluice_qm_registry_free(qm->sessions);
        sluice_qm_cache_free(qm->cache);
        free(qm->rates);
        free(qm);
        return st;
    }
    *out = qm;
    return SLUICE_OK;
}

void sluice_querymode_close(sluice_querymode *qm)
{
    if (qm == NULL)
        return;
    sluice_qm_registry_free(qm->sessions);
    sluice_qm_cache_free(qm->cache);
    for (size_t i = 0; i < qm->config->source_count; i++)
        pthread_mutex_destroy(&qm->rates[i].mu);
    free(qm->rates);
    free(qm);
}

size_t sluice_querymode_expire(sluice_querymode *qm)
{
    return sluice_qm_expire(qm->sessions);
}

size_t sluice_querymode_session_count(sluice_querymode *qm)
{
    return sluice_qm_session_count(qm->sessions);
}

void sluice_querymode_session_closed(sluice_querymode *qm, const char *transport_session)
{
    sluice_qm_close_transport(qm->sessions, transport_session != NULL ? transport_session : "");
}

/* ---- refusals (their record: guard.c's audit) -------------------------------------------- */

/* A refusal's record; the refusal's own status and message are kept. */
static sluice_status refused(sluice_querymode *qm,
                             sluice_arena *arena,
                             const sluice_qm_caller *c,
                             const char *tool,
                             sluice_status st,
                             sluice_error *err)
{
    json_t *fields =
        json_pack("{s:s, s:s}", "tool", tool, "message",
                  err != NULL && err->message != NULL ? err->message : sluice_status_name(st));
    return sluice_runtime_audit_outcome(
        qm->rt, arena, (sluice_runtime_event){ c, "query_mode_deny", fields }, st, err);
}

/* An operation's answer goes out only once its audit record is written (audited is the audit's
 * status): then *out takes result and *text text; else result is dropped. */
static sluice_status hand_out(
    sluice_status audited, json_t *result, const char *text_in, json_t **out, const char **text)
{
    if (audited != SLUICE_OK) {
        json_decref(result);
        return audited;
    }
    *out = result;
    *text = text_in;
    return SLUICE_OK;
}

/* ---- load -------------------------------------------------------------------------------- */

static const sluice_config_source *find_source(const sluice_querymode *qm, const char *name)
{
    for (size_t i = 0; name != NULL && i < qm->config->source_count; i++)
        if (strcmp(qm->config->sources[i].name, name) == 0)
            return &qm->config->sources[i];
    return NULL;
}

static const char *source_names(const sluice_querymode *qm, sluice_arena *arena)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    for (size_t i = 0; i < qm->config->source_count; i++)
        sluice_buf_printf(&b, "%s%s", i > 0 ? ", " : "", qm->config->sources[i].name);
    if (qm->config->source_count == 0)
        sluice_buf_puts(&b, "(none configured)");
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : "";
}

static json_t *columns_json(const sluice_exec_column *cols, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < n; i++)
        json_array_append_new(a,
                              json_pack("{s:s, s:s}", "name", cols[i].name, "type", cols[i].type));
    return a;
}

static char *iso_time(sluice_arena *arena, int64_t ms)
{
    char text[SLUICE_CLOCK_UTC_TEXT];
    sluice_clock_utc_text_ms(ms, text);
    return sluice_arena_strdup(arena, text);
}

/* The request plan of a `load`: defaults, args, then where (exact: nothing re-filters). */
static sluice_status load_requests(const sluice_config_source *src,
                                   const json_t *arguments,
                                   sluice_qm_requests *req,
                                   sluice_arena *arena,
                                   sluice_error *err)
{
    const char *where = json_string_value(json_object_get(arguments, "where"));
    sluice_qm_term *terms = NULL;
    size_t n = 0;
    sluice_status st =
        where != NULL ? sluice_qm_where_parse(where, arena, &terms, &n, err) : SLUICE_OK;
    sluice_qm_fanout_options o = { .widen = false, .label = "where" };
    if (st == SLUICE_OK)
        st = sluice_qm_fanout(src, json_object_get(arguments, "args"), terms, n, &o, req, arena,
                              err);
    return st;
}

static json_t *load_json(const char *table,
                         const sluice_config_source *src,
                         const sluice_qm_load_result *r,
                         const char *expires)
{
    return json_pack("{s:s, s:s, s:I, s:o, s:I, s:I, s:b, s:o, s:s}", "table", table, "source",
                     src->name, "rowCount", (json_int_t)r->rows, "columns",
                     columns_json(r->columns, r->column_count), "pages", (json_int_t)r->pages,
                     "requests", (json_int_t)r->requests, "truncated", r->truncated, "truncatedBy",
                     r->truncated_by != NULL ? json_string(r->truncated_by) : json_null(),
                     "expiresAt", expires != NULL ? expires : "");
}

sluice_status sluice_querymode_load(sluice_querymode *qm,
                                    const sluice_querymode_request *in,
                                    const json_t *arguments,
                                    json_t **out,
                                    const char **text)
{
    sluice_arena *arena = in->arena;
    const sluice_qm_caller *caller = in->caller;
    const sluice_qm_hooks *hooks = in->hooks;
    sluice_error *err = in->err;
    const char *name = json_string_value(json_object_get(arguments, "source"));
    const sluice_config_source *src = find_source(qm, name);
    if (src == NULL) {
        sluice_error_set(err, arena, SLUICE_E_NOT_FOUND,
                         "no source named '%.64s'; sources: %s (search_tables lists them)",
                         name != NULL ? name : "", source_names(qm, arena));
        return refused(qm, arena, caller, "load", SLUICE_E_NOT_FOUND, err);
    }
    const char *table = json_string_value(json_object_get(arguments, "table"));
    if (table == NULL)
        table = src->name;
    if (!sluice_scratch_name_ok(table)) {
        sluice_error_set(err, arena, SLUICE_E_INVALID,
                         "table '%.64s' must be a plain identifier ([A-Za-z_][A-Za-z0-9_]*)",
                         table);
        return refused(qm, arena, caller, "load", SLUICE_E_INVALID, err);
    }
    sluice_qm_requests req;
    sluice_status st = load_requests(src, arguments, &req, arena, err);
    if (st == SLUICE_OK)
        st = sluice_qm_policy_source(qm, arena, caller, src, err);
    if (st != SLUICE_OK)
        return refused(qm, arena, caller, "load", st, err);
    sluice_qm_session *s = NULL;
    st = sluice_qm_acquire(qm->sessions, sluice_qm_user_of(caller), server_id(qm),
                           caller->session_id, &s, arena, err);
    if (st != SLUICE_OK)
        return refused(qm, arena, caller, "load", st, err);
    sluice_qm_load_spec spec = { .source = src, .table = table, .requests = &req };
    sluice_qm_load_result r;
    st = sluice_qm_load_source(qm, arena, caller, s, &spec, hooks, &r, err);
    char *expires = iso_time(arena, sluice_qm_expires_at_ms(qm->sessions, s));
    sluice_qm_release(qm->sessions, s);
    if (st != SLUICE_OK)
        return refused(qm, arena, caller, "load", st, err);
    json_t *result = load_json(table, src, &r, expires);
    if (result == NULL)
        return SLUICE_E_NOMEM;
    st = sluice_qm_audit(qm, arena, caller, "query_mode_load",
                         json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:b}", "tool", "load", "source",
                                   src->name, "table", table, "rows", (json_int_t)r.rows, "pages",
                                   (json_int_t)r.pages, "requests", (json_int_t)r.requests,
                                   "truncated", r.truncated),
                         err);
    return hand_out(st, result, NULL, out, text);
}

/* ---- query ------------------------------------------------------------------------------- */

/* The rules the analysis applies: code mode's, read-only, with every session table's blocked
 * columns as "table.column". */
static sluice_status query_rules(const sluice_querymode *qm,
                                 const sluice_qm_session *s,
                                 sluice_arena *arena,
                                 sluice_config_code_mode *rules)
{
    *rules = qm->config->code_mode;
    rules->sql_allow_writes = rules->sql_allow_deletes = rules->sql_allow_ddl = false;
    memset(&rules->sql_allowed_tables, 0, sizeof(rules->sql_allowed_tables));
    memset(&rules->sql_blocked_tables, 0, sizeof(rules->sql_blocked_tables));
    memset(&rules->sql_blocked_columns, 0, sizeof(rules->sql_blocked_columns));
    size_t n = 0;
    for (size_t i = 0; i < s->table_count; i++)
        n += s->tables[i].blocked != NULL ? s->tables[i].blocked->count : 0;
    const char **items = sluice_arena_calloc(arena, n + 1, sizeof(char *));
    if (items == NULL)
        return SLUICE_E_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < s->table_count; i++)
        for (size_t j = 0; s->tables[i].blocked != NULL && j < s->tables[i].blocked->count; j++) {
            items[k] = sluice_arena_printf(arena, "%s.%s", s->tables[i].name,
                                           s->tables[i].blocked->items[j]);
            if (items[k++] == NULL)
                return SLUICE_E_NOMEM;
        }
    rules->blocked_fields.items = items;
    rules->blocked_fields.count = k;
    return SLUICE_OK;
}

static sluice_status
violation_error(const sluice_codefacts *facts, sluice_arena *arena, sluice_error *err)
{
    if (facts->violation_count == 0)
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "query mode runs one read-only SELECT; this statement (%s) is "
                                "refused",
                                facts->statement_kind != NULL && facts->statement_kind[0] != '\0'
                                    ? facts->statement_kind
                                    : "unparseable");
    const sluice_codefacts_violation *v = &facts->violations[0];
    return sluice_error_set(err, arena, SLUICE_E_DENIED, "refused (%s)%s%.0zu%s%.0zu: %s%s%s",
                            v->rule, v->line > 0 ? " at line " : "", v->line,
                            v->line > 0 ? ", column " : "", v->column, v->message,
                            v->suggestion != NULL ? " Fix: " : "",
                            v->suggestion != NULL ? v->suggestion : "");
}

/* A query's tables, as Cedar sees them: the sources they came from. */
static sluice_status check_policy(sluice_querymode *qm,
                                  sluice_arena *arena,
                                  const sluice_qm_caller *caller,
                                  sluice_qm_session *s,
                                  sluice_codefacts *facts,
                                  sluice_error *err)
{
    for (size_t i = 0; i < facts->resources_read.count; i++) {
        const sluice_qm_table *t = sluice_qm_table_find(s, facts->resources_read.items[i]);
        if (t != NULL)
            facts->resources_read.items[i] = t->source;
    }
    return sluice_qm_policy_read(qm, arena, caller, facts, err);
}

/* One query call on its way through analysis, policy and the run (query mode's request
 * object): what was asked, and what the stages concluded. Everything lives in arena. */
typedef struct query_request {
    sluice_querymode *qm;
    sluice_arena *arena;
    const sluice_qm_caller *caller;
    sluice_qm_session *s; /* the caller's session, held for the call */
    const char *sql;
    const sluice_qm_hooks *hooks;
    sluice_error *err;
    sluice_codefacts *facts; /* the analysis, once made (NULL before) */
    sluice_exec_result res;  /* the run's result */
} query_request;

static sluice_status run_query(query_request *q)
{
    sluice_querymode *qm = q->qm;
    sluice_arena *arena = q->arena;
    sluice_qm_session *s = q->s;
    const char *sql = q->sql;
    sluice_error *err = q->err;
    sluice_config_code_mode rules;
    sluice_status st = query_rules(qm, s, arena, &rules);
    if (st != SLUICE_OK)
        return st;
    sluice_frontend_context ctx = { .code_mode = &rules,
                                    .engine = SLUICE_ENGINE_DUCKDB,
                                    .executor = s->db };
    st = qm->sql->analyze(arena, sql, strlen(sql), NULL, &ctx, &q->facts, err);
    if (st != SLUICE_OK)
        return st;
    sluice_codefacts *facts = q->facts;
    if (facts->incomplete || facts->violation_count > 0 || facts->action != SLUICE_ACTION_READ)
        return violation_error(facts, arena, err);
    st = check_policy(qm, arena, q->caller, s, facts, err);
    if (st != SLUICE_OK)
        return st;
    const sluice_config_query_mode *qc = &qm->config->query_mode;
    sluice_exec_request req = {
        .code = sql,
        .code_len = strlen(sql),
        .limits = { .timeout_ms = qc->query_timeout_seconds * 1000,
                    .max_rows = qc->query_max_rows,
                    .max_bytes = qc->query_max_bytes,
                    .timeout_setting = "query_timeout_seconds" },
        .identity = q->caller->identity,
        .scrub_errors = facts->blocked_used.count > 0,
        .register_cancel = q->hooks != NULL ? q->hooks->register_cancel : NULL,
        .cancel_ctx = q->hooks != NULL ? q->hooks->cancel_ctx : NULL,
    };
    memset(&q->res, 0, sizeof q->res);
    return sluice_executor_execute(s->db, arena, &req, &q->res, err);
}

sluice_status sluice_querymode_query(sluice_querymode *qm,
                                     const sluice_querymode_request *in,
                                     const char *sql,
                                     json_t **out,
                                     const char **text)
{
    sluice_arena *arena = in->arena;
    const sluice_qm_caller *caller = in->caller;
    const sluice_qm_hooks *hooks = in->hooks;
    sluice_error *err = in->err;
    sluice_qm_session *s = NULL;
    sluice_status st = sluice_qm_acquire(qm->sessions, sluice_qm_user_of(caller), server_id(qm),
                                         caller->session_id, &s, arena, err);
    if (st != SLUICE_OK)
        return refused(qm, arena, caller, "query", st, err);
    query_request q = {
        .qm = qm, .arena = arena, .caller = caller, .s = s, .sql = sql, .hooks = hooks, .err = err
    };
    json_t *loaded = NULL;
    st = sql != NULL ? sluice_qm_autoload(qm, arena, caller, s, sql, hooks, &loaded, err)
                     : sluice_error_set(err, arena, SLUICE_E_INVALID, "query needs sql");
    if (st == SLUICE_OK)
        st = run_query(&q);
    char *expires = iso_time(arena, sluice_qm_expires_at_ms(qm->sessions, s));
    sluice_qm_release(qm->sessions, s);
    if (st != SLUICE_OK) {
        json_decref(loaded);
        json_t *fields =
            json_pack("{s:s, s:s, s:s}", "tool", "query", "code", sql != NULL ? sql : "", "message",
                      err != NULL && err->message != NULL ? err->message : "");
        return sluice_runtime_audit_outcome(
            qm->rt, arena, (sluice_runtime_event){ caller, "query_mode_deny", fields }, st, err);
    }
    const sluice_exec_result *res = &q.res;
    json_t *result = sluice_present_result_json(res);
    const char *fenced = sluice_present_untrusted_text(arena, res);
    if (result == NULL || fenced == NULL ||
        json_object_set_new(result, "expiresAt", json_string(expires != NULL ? expires : "")) !=
            0 ||
        (json_array_size(loaded) > 0 && json_object_set(result, "autoLoaded", loaded) != 0)) {
        json_decref(result);
        json_decref(loaded);
        return SLUICE_E_NOMEM;
    }
    json_decref(loaded);
    json_t *tables = sluice_codefacts_list_json(&q.facts->resources_read);
    st = sluice_qm_audit(qm, arena, caller, "query_mode_query",
                         json_pack("{s:s, s:s, s:o, s:I, s:b}", "tool", "query", "code", sql,
                                   "sources", tables != NULL ? tables : json_array(), "rows",
                                   (json_int_t)res->row_count, "truncated", res->truncated),
                         err);
    return hand_out(st, result, fenced, out, text);
}

/* ---- catalog ------------------------------------------------------------------------------ */

static json_t *source_json(const sluice_config_source *src, sluice_arena *arena)
{
    json_t *cols = json_array();
    for (size_t i = 0; cols != NULL && i < src->column_count; i++)
        json_array_append_new(cols, json_pack("{s:s, s:s, s:b}", "name", src->columns[i].name,
                                              "type", src->columns[i].type, "blocked", 0));
    for (size_t i = 0; i < src->blocked_columns.count; i++) {
        size_t k;
        json_t *c;
        json_array_foreach(cols, k, c) if (strcasecmp(json_string_value(json_object_get(c, "name")),
                                                      src->blocked_columns.items[i]) == 0)
            json_object_set_new(c, "blocked", json_true());
    }
    json_t *required = json_array();
    json_t *filters = json_array();
    for (size_t i = 0; i < src->param_count; i++) {
        const sluice_config_source_param *p = &src->params[i];
        if (p->column != NULL)
            json_array_append_new(filters, json_pack("{s:s, s:s, s:b}", "column", p->column,
                                                     "operator", p->op, "required", p->required));
        else if (p->required)
            json_array_append_new(required, json_string(p->name));
    }
    (void)arena;
    return json_pack("{s:s, s:s, s:s, s:o, s:o, s:o}", "name", src->name, "kind", "source",
                     "description", src->description != NULL ? src->description : "", "columns",
                     cols, "filters", filters, "requiredArgs", required);
}

static json_t *table_json(const sluice_qm_table *t)
{
    return json_pack("{s:s, s:s, s:s, s:I, s:o}", "name", t->name, "kind", "session_table",
                     "source", t->source, "rowCount", (json_int_t)t->row_count, "columns",
                     columns_json(t->columns, t->column_count));
}

static bool matches(const char *query, const char *a, const char *b)
{
    return query == NULL || query[0] == '\0' || strcasestr(a, query) != NULL ||
           (b != NULL && strcasestr(b, query) != NULL);
}

sluice_status sluice_querymode_search(sluice_querymode *qm,
                                      sluice_arena *arena,
                                      const sluice_qm_caller *caller,
                                      const char *query,
                                      json_t **out,
                                      sluice_error *err)
{
    (void)err;
    json_t *hits = json_array();
    for (size_t i = 0; hits != NULL && i < qm->config->source_count; i++) {
        const sluice_config_source *src = &qm->config->sources[i];
        if (matches(query, src->name, src->description))
            json_array_append_new(hits, source_json(src, arena));
    }
    sluice_qm_session *s = NULL;
    if (sluice_qm_find(qm->sessions, sluice_qm_user_of(caller), server_id(qm), caller->session_id,
                       &s) == SLUICE_OK) {
        for (size_t i = 0; hits != NULL && i < s->table_count; i++)
            if (matches(query, s->tables[i].name, s->tables[i].source))
                json_array_append_new(hits, table_json(&s->tables[i]));
        sluice_qm_release(qm->sessions, s);
    }
    *out = hits != NULL ? json_pack("{s:o}", "tables", hits) : NULL;
    return *out != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
}

sluice_status sluice_querymode_describe(sluice_querymode *qm,
                                        sluice_arena *arena,
                                        const sluice_qm_caller *caller,
                                        const char *table,
                                        json_t **out,
                                        sluice_error *err)
{
    sluice_qm_session *s = NULL;
    json_t *found = NULL;
    if (sluice_qm_find(qm->sessions, sluice_qm_user_of(caller), server_id(qm), caller->session_id,
                       &s) == SLUICE_OK) {
        const sluice_qm_table *t = sluice_qm_table_find(s, table);
        found = t != NULL ? table_json(t) : NULL;
        sluice_qm_release(qm->sessions, s);
    }
    const sluice_config_source *src = found == NULL ? find_source(qm, table) : NULL;
    if (src != NULL)
        found = source_json(src, arena);
    if (found == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOT_FOUND,
                                "no table or source named '%.64s' in your session; sources: %s",
                                table, source_names(qm, arena));
    *out = found;
    return SLUICE_OK;
}

sluice_status sluice_querymode_drop(sluice_querymode *qm,
                                    sluice_arena *arena,
                                    const sluice_qm_caller *caller,
                                    const char *table,
                                    json_t **out,
                                    sluice_error *err)
{
    sluice_qm_session *s = NULL;
    sluice_status st = sluice_qm_find(qm->sessions, sluice_qm_user_of(caller), server_id(qm),
                                      caller->session_id, &s);
    if (st == SLUICE_OK) {
        st = sluice_qm_table_find(s, table) != NULL ? SLUICE_OK : SLUICE_E_NOT_FOUND;
        if (st == SLUICE_OK)
            st = sluice_scratch_drop(s->db, table, arena, err);
        if (st == SLUICE_OK)
            sluice_qm_table_remove(s, table);
        sluice_qm_release(qm->sessions, s);
    }
    if (st == SLUICE_E_NOT_FOUND)
        return sluice_error_set(err, arena, st, "your session has no table '%.64s'", table);
    if (st != SLUICE_OK)
        return st;
    *out = json_pack("{s:s, s:b}", "table", table, "dropped", 1);
    return sluice_qm_audit(qm, arena, caller, "query_mode_drop",
                           json_pack("{s:s, s:s}", "tool", "drop_table", "table", table), err);
}
