/*
 * report.c — the execute child's report: {"status", "error"{...}} or {"status":0, "type",
 * "columns", "rows", "truncated", "truncated_by"} or {"status":0, "in_parent":true}.
 *
 * Owns: both directions of that form. Rows are re-added through the row accumulator so
 * rows_text and bytes are measured by the same code as in-process results.
 * Does not own: what the values mean (values.c made them in the child).
 */
#include "exec/report.h"

#include "exec/values.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static json_t *str_or_null(const char *s)
{
    return s != NULL ? json_string(s) : json_null();
}

static json_t *error_object(const sluice_error *err)
{
    json_t *e = json_object();
    json_object_set_new(e, "message", str_or_null(err != NULL ? err->message : NULL));
    json_object_set_new(e, "hint", str_or_null(err != NULL ? err->hint : NULL));
    json_object_set_new(e, "line", json_integer(err != NULL ? (json_int_t)err->line : 0));
    json_object_set_new(e, "column", json_integer(err != NULL ? (json_int_t)err->column : 0));
    return e;
}

static json_t *result_object(const sluice_exec_result *res, json_t *doc)
{
    json_t *cols = json_array();
    for (size_t i = 0; i < res->column_count; i++) {
        json_t *c = json_array();
        json_array_append_new(c, str_or_null(res->columns[i].name));
        json_array_append_new(c, str_or_null(res->columns[i].type));
        json_array_append_new(cols, c);
    }
    json_object_set_new(doc, "columns", cols);
    json_object_set(doc, "rows", res->rows != NULL ? res->rows : json_array());
    json_object_set_new(doc, "type", str_or_null(res->statement_type));
    json_object_set_new(doc, "truncated", json_boolean(res->truncated));
    json_object_set_new(doc, "truncated_by", str_or_null(res->truncated_by));
    return doc;
}

void sluice_exec_report_write(sluice_buf *out,
                              sluice_status status,
                              const sluice_error *err,
                              const sluice_exec_result *res,
                              bool in_parent)
{
    json_t *doc = json_object();
    if (doc == NULL)
        return; /* an empty report: the parent refuses */
    json_object_set_new(doc, "status", json_integer(status));
    if (in_parent)
        json_object_set_new(doc, "in_parent", json_true());
    else if (status != SLUICE_OK)
        json_object_set_new(doc, "error", error_object(err));
    else
        result_object(res, doc);
    char *text = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    if (text == NULL)
        return; /* an empty report: the parent refuses */
    sluice_buf_puts(out, text);
    free(text);
}

static void json_decref_cleanup(void *p)
{
    json_decref(p);
}

static const char *arena_str(sluice_arena *arena, const json_t *v)
{
    return json_is_string(v) ? sluice_arena_strdup(arena, json_string_value(v)) : NULL;
}

static sluice_status
read_error(const json_t *e, sluice_status st, sluice_arena *arena, sluice_error *err)
{
    const char *msg = json_string_value(json_object_get(e, "message"));
    size_t line = (size_t)json_integer_value(json_object_get(e, "line"));
    size_t column = (size_t)json_integer_value(json_object_get(e, "column"));
    sluice_status r = sluice_error_at(err, arena, st, line > 0 ? "<code>" : NULL, line, column,
                                      "%s", msg != NULL ? msg : "the query failed");
    if (err != NULL)
        err->hint = arena_str(arena, json_object_get(e, "hint"));
    return r;
}

static sluice_status read_result(const json_t *doc,
                                 const sluice_exec_limits *limits,
                                 sluice_arena *arena,
                                 sluice_exec_result *out)
{
    const json_t *cols = json_object_get(doc, "columns");
    const json_t *rows = json_object_get(doc, "rows");
    if (!json_is_array(cols) || !json_is_array(rows))
        return SLUICE_E_INTERNAL;
    out->column_count = json_array_size(cols);
    out->columns = sluice_arena_calloc(arena, out->column_count + 1, sizeof(*out->columns));
    if (out->columns == NULL)
        return SLUICE_E_NOMEM;
    for (size_t i = 0; i < out->column_count; i++) {
        const json_t *c = json_array_get(cols, i);
        out->columns[i].name = arena_str(arena, json_array_get(c, 0));
        out->columns[i].type = arena_str(arena, json_array_get(c, 1));
        if (out->columns[i].name == NULL || out->columns[i].type == NULL)
            return SLUICE_E_NOMEM;
    }
    sluice_exec_rows acc;
    if (sluice_exec_rows_init(&acc, arena, limits) != SLUICE_OK)
        return SLUICE_E_NOMEM;
    bool more = true;
    for (size_t i = 0; more && i < json_array_size(rows); i++) {
        json_t *row = json_array_get(rows, i);
        json_incref(row);
        sluice_status st = sluice_exec_rows_add(&acc, row, &more);
        if (st != SLUICE_OK)
            return st;
    }
    sluice_exec_rows_finish(&acc, out);
    if (json_is_true(json_object_get(doc, "truncated")) && !out->truncated) {
        out->truncated = true;
        out->truncated_by = arena_str(arena, json_object_get(doc, "truncated_by"));
    }
    out->statement_type = arena_str(arena, json_object_get(doc, "type"));
    return SLUICE_OK;
}

sluice_status sluice_exec_report_read(const char *text,
                                      size_t len,
                                      const sluice_exec_limits *limits,
                                      sluice_arena *arena,
                                      sluice_exec_result *out,
                                      bool *in_parent,
                                      sluice_error *err)
{
    *in_parent = false;
    json_t *doc = json_loadb(text, len, JSON_ALLOW_NUL, NULL);
    if (doc == NULL)
        return SLUICE_E_INTERNAL;
    /* On failure cleanup_add has released doc itself. */
    if (sluice_arena_cleanup_add(arena, json_decref_cleanup, doc) != SLUICE_OK)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory reading the result");
    const json_t *status = json_object_get(doc, "status");
    if (!json_is_integer(status))
        return SLUICE_E_INTERNAL;
    sluice_status st = (sluice_status)json_integer_value(status);
    if (json_is_true(json_object_get(doc, "in_parent"))) {
        *in_parent = true;
        return SLUICE_OK;
    }
    if (st != SLUICE_OK)
        return read_error(json_object_get(doc, "error"), st, arena, err);
    return read_result(doc, limits, arena, out);
}
