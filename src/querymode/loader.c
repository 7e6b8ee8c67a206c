/*
 * loader.c — filling one session table from a source: every request set of a fan-out in turn,
 * through the appender, with the load caps, progress, cancellation and the per-principal cache.
 *
 * Owns: the table's columns (declared, or inferred from the first rows), the row and byte caps
 * across all requests of one load, a LIMIT that stops paging, what goes into and comes out of
 * the cache. Does not own: requests and pages (http_source.c, mcp_source.c), files
 * (exec/scratch.h), which requests to send (fanout.c).
 */
#include "exec/scratch.h"
#include "querymode/http_source.h"
#include "querymode/internal.h"
#include "querymode/mcp_source.h"

#include <stdio.h>
#include <string.h>

typedef struct load_ctx {
    sluice_qm_session *session;
    sluice_qm_fetch *fetch;
    const char *table;
    sluice_scratch_table *t;
    sluice_exec_column *columns;
    int64_t appended;
    int64_t max_rows;
    json_t *keep; /* rows for the cache, or NULL */
    sluice_arena *arena;
    const sluice_qm_hooks *hooks;
} load_ctx;

static sluice_status create_table(load_ctx *lc, sluice_error *err)
{
    sluice_qm_fetch *f = lc->fetch;
    lc->columns = sluice_arena_calloc(lc->arena, f->column_count + 1, sizeof(*lc->columns));
    if (lc->columns == NULL)
        return SLUICE_E_NOMEM;
    for (size_t i = 0; i < f->column_count; i++)
        lc->columns[i] = (sluice_exec_column){ f->column_names[i], f->column_types[i] };
    return sluice_scratch_create(lc->session->db, lc->table, lc->columns, f->column_count,
                                 lc->arena, &lc->t, err);
}

static sluice_status on_rows(void *ctx, const json_t *rows, sluice_error *err)
{
    load_ctx *lc = ctx;
    if (lc->t == NULL) {
        sluice_status st = create_table(lc, err);
        if (st != SLUICE_OK)
            return st;
    }
    size_t i;
    const json_t *row;
    json_array_foreach(rows, i, row)
    {
        if (lc->appended >= lc->max_rows)
            return SLUICE_E_LIMIT;
        sluice_status st = sluice_scratch_append(lc->t, row, err);
        if (st != SLUICE_OK)
            return st;
        if (lc->keep != NULL && json_array_append(lc->keep, (json_t *)row) != 0) {
            json_decref(lc->keep); /* the cache is optional: stop keeping, keep loading */
            lc->keep = NULL;
        }
        lc->appended++;
    }
    return SLUICE_OK;
}

static void on_page(void *ctx, int64_t page, int64_t rows)
{
    load_ctx *lc = ctx;
    if (lc->hooks == NULL || lc->hooks->progress == NULL)
        return;
    char msg[96];
    snprintf(msg, sizeof(msg), "page %lld, %lld rows", (long long)page, (long long)rows);
    lc->hooks->progress(lc->hooks->progress_ctx, (double)page, msg);
}

static void declared_columns(sluice_qm_fetch *f, const sluice_config_source *src)
{
    for (size_t i = 0; i < src->column_count; i++) {
        f->column_names[i] = src->columns[i].name;
        f->column_types[i] = src->columns[i].type;
        f->column_paths[i] =
            src->columns[i].path != NULL ? src->columns[i].path : src->columns[i].name;
    }
    f->column_count = src->column_count;
}

/* Every request set in turn; stops at the first error, cap or cancellation. */
static sluice_status fetch_all(load_ctx *lc,
                               const sluice_qm_load_spec *spec,
                               sluice_qm_load_result *out,
                               sluice_error *err)
{
    sluice_qm_fetch *f = lc->fetch;
    sluice_status st = SLUICE_OK;
    for (size_t k = 0; st == SLUICE_OK && k < spec->requests->count && !f->truncated; k++) {
        f->params = spec->requests->sets[k].items;
        f->param_count = spec->requests->sets[k].count;
        st = strcmp(spec->source->kind, "mcp") == 0 ? sluice_qm_mcp_fetch(f, lc->arena, err)
                                                    : sluice_qm_http_fetch(f, lc->arena, err);
        out->requests++;
    }
    return st;
}

static sluice_status from_cache(load_ctx *lc, const sluice_qm_cached *hit, sluice_error *err)
{
    sluice_qm_fetch *f = lc->fetch;
    f->column_count = hit->column_count;
    f->column_names = sluice_arena_calloc(lc->arena, hit->column_count + 1, sizeof(char *));
    f->column_types = sluice_arena_calloc(lc->arena, hit->column_count + 1, sizeof(char *));
    if (f->column_names == NULL || f->column_types == NULL)
        return SLUICE_E_NOMEM;
    for (size_t i = 0; i < hit->column_count; i++) {
        f->column_names[i] = hit->columns[i].name;
        f->column_types[i] = hit->columns[i].type;
    }
    sluice_status st = create_table(lc, err);
    size_t i;
    const json_t *row;
    json_array_foreach(hit->rows, i, row)
    {
        if (st != SLUICE_OK || lc->appended >= lc->max_rows)
            break;
        st = sluice_scratch_append(lc->t, row, err);
        lc->appended++;
    }
    return st;
}

/* The cache is read only for auto-loads, and filled by any complete load. */
static bool try_cache(sluice_querymode *qm,
                      load_ctx *lc,
                      const sluice_qm_caller *caller,
                      const sluice_qm_load_spec *spec,
                      sluice_qm_load_result *out,
                      sluice_status *st,
                      sluice_error *err)
{
    sluice_qm_cached hit;
    if (!spec->use_cache || spec->source->cache_ttl_seconds <= 0 ||
        !sluice_qm_cache_get(qm->cache, sluice_qm_user_of(caller), spec->requests->key, lc->arena,
                             &hit))
        return false;
    *st = from_cache(lc, &hit, err);
    json_decref(hit.rows);
    out->cached = true;
    out->pages = 0;
    return true;
}

static sluice_status
record_table(load_ctx *lc, const sluice_qm_load_spec *spec, sluice_qm_load_result *out)
{
    sluice_qm_table rec = { .name = lc->table,
                            .source = spec->source->name,
                            .row_count = lc->appended,
                            .columns = lc->columns,
                            .column_count = lc->fetch->column_count,
                            .blocked = &spec->source->blocked_columns,
                            .load_key = spec->load_key };
    out->rows = lc->appended;
    out->columns = lc->columns;
    out->column_count = lc->fetch->column_count;
    return sluice_qm_table_put(lc->session, &rec);
}

/* kind = "file": sluice reads it (exec/scratch.h), never the session engine. */
static sluice_status load_file(sluice_querymode *qm,
                               sluice_arena *arena,
                               sluice_qm_session *session,
                               const sluice_qm_load_spec *spec,
                               sluice_qm_load_result *out,
                               sluice_error *err)
{
    const sluice_config_source *src = spec->source;
    const sluice_config_query_mode *qc = &qm->config->query_mode;
    sluice_exec_column *cols = sluice_arena_calloc(arena, src->column_count + 1, sizeof(*cols));
    if (cols == NULL)
        return SLUICE_E_NOMEM;
    for (size_t i = 0; i < src->column_count; i++)
        cols[i] = (sluice_exec_column){ src->columns[i].name, src->columns[i].type };
    sluice_scratch_import im = { .path = src->file,
                                 .format = src->format,
                                 .columns = cols,
                                 .column_count = src->column_count,
                                 .max_rows = spec->limit > 0 && spec->limit < qc->max_load_rows
                                                 ? spec->limit
                                                 : qc->max_load_rows,
                                 .max_bytes = qc->max_load_bytes };
    sluice_status st = sluice_scratch_import_file(session->db, spec->table, &im, arena, err);
    if (st != SLUICE_OK) {
        sluice_qm_table_remove(session, spec->table);
        return st;
    }
    bool by_limit = spec->limit > 0 && im.rows >= spec->limit;
    out->truncated = im.truncated && !by_limit;
    out->truncated_by = out->truncated ? "max_load_rows" : NULL;
    out->rows = im.rows;
    out->columns = im.out_columns;
    out->column_count = im.out_column_count;
    sluice_qm_table rec = { .name = spec->table,
                            .source = src->name,
                            .row_count = im.rows,
                            .columns = im.out_columns,
                            .column_count = im.out_column_count,
                            .blocked = &src->blocked_columns,
                            .load_key = spec->load_key };
    return sluice_qm_table_put(session, &rec);
}

sluice_status sluice_qm_load_source(sluice_querymode *qm,
                                    sluice_arena *arena,
                                    const sluice_qm_caller *caller,
                                    sluice_qm_session *session,
                                    const sluice_qm_load_spec *spec,
                                    const sluice_qm_hooks *hooks,
                                    sluice_qm_load_result *out,
                                    sluice_error *err)
{
    memset(out, 0, sizeof(*out));
    const sluice_config_source *src = spec->source;
    if (strcmp(src->kind, "file") == 0)
        return load_file(qm, arena, session, spec, out, err);
    const sluice_config_query_mode *qc = &qm->config->query_mode;
    sluice_qm_fetch f = {
        .source = src,
        .rate = &qm->rates[src - qm->config->sources],
        .max_pages = src->pagination.max_pages > 0 && src->pagination.max_pages < qc->max_pages
                         ? src->pagination.max_pages
                         : qc->max_pages,
        .max_bytes = qc->max_load_bytes,
        .column_names = sluice_arena_calloc(arena, src->column_count + 1, sizeof(char *)),
        .column_types = sluice_arena_calloc(arena, src->column_count + 1, sizeof(char *)),
        .column_paths = sluice_arena_calloc(arena, src->column_count + 1, sizeof(char *)),
        .on_rows = on_rows,
        .on_page = on_page,
        .cancelled = hooks != NULL ? hooks->cancelled : NULL,
    };
    if (f.column_names == NULL || f.column_types == NULL || f.column_paths == NULL)
        return SLUICE_E_NOMEM;
    load_ctx lc = { .session = session,
                    .fetch = &f,
                    .table = spec->table,
                    .max_rows = spec->limit > 0 && spec->limit < qc->max_load_rows
                                    ? spec->limit
                                    : qc->max_load_rows,
                    .arena = arena,
                    .hooks = hooks };
    f.ctx = &lc;
    declared_columns(&f, src);
    sluice_status st = SLUICE_OK;
    if (!try_cache(qm, &lc, caller, spec, out, &st, err)) {
        lc.keep = src->cache_ttl_seconds > 0 && qc->cache_max_bytes > 0 ? json_array() : NULL;
        st = fetch_all(&lc, spec, out, err);
        out->pages = f.pages;
    }
    if (st == SLUICE_OK && lc.t == NULL && f.column_count > 0)
        st = create_table(&lc, err); /* no rows at all: an empty table of the declared columns */
    if (st == SLUICE_OK && lc.t == NULL)
        st = sluice_error_set(err, arena, SLUICE_E_INVALID,
                              "source '%s' returned no rows and declares no columns, so there "
                              "is no table to make",
                              src->name);
    sluice_status fin = sluice_scratch_finish(lc.t, st == SLUICE_OK, st == SLUICE_OK ? err : NULL);
    if (st == SLUICE_OK)
        st = fin;
    bool by_limit = spec->limit > 0 && lc.appended >= spec->limit;
    out->truncated = f.truncated && !by_limit;
    out->truncated_by = out->truncated ? f.truncated_by : NULL;
    if (st == SLUICE_OK && !out->cached && !out->truncated && !by_limit && lc.keep != NULL)
        sluice_qm_cache_put(qm->cache, sluice_qm_user_of(caller), spec->requests->key,
                            src->cache_ttl_seconds * 1000, lc.keep, lc.columns, f.column_count,
                            f.bytes, f.pages);
    json_decref(lc.keep);
    if (st != SLUICE_OK) {
        sluice_qm_table_remove(session, spec->table);
        return st;
    }
    return record_table(&lc, spec, out);
}
