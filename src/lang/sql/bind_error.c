/*
 * bind_error.c — a statement the binder refused (a wrong table, column or function name, the
 * commonest model mistake), as a violation a model can act on: DuckDB's sentence (not its JSON
 * nor its "Binder Error:" class), the line and column of the name, and its "did you mean".
 *
 * Owns: reading DuckDB's error — its JSON form ({"exception_message", "position", ...}) or its
 * text form ("Catalog Error: ...\nDid you mean ...\n\nLINE 2: FROM customer\n      ^") — into
 * one violation. Does not own: when binding happens (statement.c).
 */
#include "core/buf.h"
#include "lang/sql/internal.h"

#include <stdlib.h>
#include <string.h>

/* Other detail (DuckDB's "Candidate functions:" lines) is cut here: the sentence stays short
 * enough to read, and the schema resource has the rest. */
#define BIND_ERROR_DETAIL_MAX 400u

/* What one error text says. */
typedef struct bind_text {
    sluice_buf msg;
    bool suggested;     /* msg holds a "Did you mean" */
    size_t line_no;     /* "LINE n:", 0 when absent */
    size_t line_head;   /* bytes of "LINE n: " */
    bool shown_partial; /* DuckDB cut the line ("...") so the caret cannot be trusted */
    size_t column;      /* 1-based, from the caret; 0 when absent */
} bind_text;

static bool starts(const char *line, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && strncmp(line, prefix, n) == 0;
}

/* The first line, without its class ("Binder Error: "), "!" read as ".". */
static void first_sentence(bind_text *t, const char *line, size_t len)
{
    const char *cls = memchr(line, ':', len);
    if (cls != NULL && cls - line >= 6 && strncmp(cls - 6, " Error", 6) == 0 &&
        memchr(line, ' ', len) == cls - 6 && (size_t)(cls + 2 - line) <= len) {
        len -= (size_t)(cls + 2 - line);
        line = cls + 2;
    }
    while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '!'))
        len--;
    sluice_buf_printf(&t->msg, "%.*s.", (int)len, line);
}

/* "Candidate bindings: "plan", "ssn"" suggests the first, as DuckDB ranks them. */
static void suggest_first_quoted(bind_text *t, const char *line, size_t len)
{
    const char *q = memchr(line, '"', len);
    const char *end = q != NULL ? memchr(q + 1, '"', len - (size_t)(q + 1 - line)) : NULL;
    if (end != NULL) {
        sluice_buf_printf(&t->msg, " Did you mean %.*s?", (int)(end - q + 1), q);
        t->suggested = true;
    }
}

static void read_line(bind_text *t, const char *line, size_t len)
{
    const char *caret = memchr(line, '^', len);
    bool caret_line = t->line_no > 0 && t->column == 0 && caret != NULL;
    while (!caret_line && len > 0 && (*line == ' ' || *line == '\t')) {
        line++; /* indentation, except the caret line's, which is its column */
        len--;
    }
    if (t->msg.len == 0) {
        first_sentence(t, line, len);
    } else if (starts(line, len, "Did you mean")) {
        if (!t->suggested)
            sluice_buf_printf(&t->msg, " %.*s", (int)len, line);
        t->suggested = true;
    } else if (starts(line, len, "Candidate bindings")) {
        if (!t->suggested)
            suggest_first_quoted(t, line, len);
    } else if (starts(line, len, "LINE ") && memchr(line, ':', len) != NULL) {
        const char *colon = memchr(line, ':', len);
        t->line_no = (size_t)strtoul(line + 5, NULL, 10);
        t->line_head = (size_t)(colon + 2 - line);
        t->shown_partial = starts(colon + 2, len - t->line_head, "...");
    } else if (caret_line) {
        size_t at = (size_t)(caret - line);
        if (!t->shown_partial && at >= t->line_head)
            t->column = at - t->line_head + 1;
    } else if (!t->suggested && len > 0 && t->msg.len < BIND_ERROR_DETAIL_MAX) {
        sluice_buf_printf(&t->msg, " %.*s", (int)len, line);
    }
}

/* Reads text line by line into t; NULL message when out of memory. */
static const char *read_text(sluice_arena *arena, const char *text, bind_text *t)
{
    sluice_buf_init(&t->msg, arena, BIND_ERROR_DETAIL_MAX + 512);
    for (const char *p = text; *p != '\0';) {
        const char *nl = strchr(p, '\n');
        size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);
        if (len > 0)
            read_line(t, p, len);
        p += len + (nl != NULL ? 1 : 0);
    }
    if (!t->suggested && t->msg.len >= BIND_ERROR_DETAIL_MAX)
        sluice_buf_printf(&t->msg, " ...");
    return sluice_buf_status(&t->msg) == SLUICE_OK ? sluice_buf_cstr(&t->msg) : NULL;
}

void sluice_sql_bind_violation(sluice_sql_ctx *ctx, const char *error)
{
    static const char *const hint = "check table and column names against the code-mode://schema "
                                    "resource";
    bind_text t = { 0 };
    size_t line = 0, column = 0;
    json_t *err = error != NULL ? json_loads(error, 0, NULL) : NULL;
    const char *text = json_string_value(json_object_get(err, "exception_message"));
    const char *msg = read_text(ctx->arena, text != NULL ? text : error != NULL ? error : "", &t);
    const char *pos = json_string_value(json_object_get(err, "position"));
    char *end = NULL;
    unsigned long long off = pos != NULL ? strtoull(pos, &end, 10) : 0;
    if (pos != NULL && end != pos && *end == '\0' && off <= ctx->code_len) {
        sluice_error_locate(ctx->code, ctx->code_len, (size_t)off, &line, &column);
    } else {
        line = t.line_no;
        column = t.line_no > 0 ? t.column : 0;
    }
    if (msg == NULL || *msg == '\0')
        msg = error != NULL ? error : "the statement does not bind";
    sluice_codefacts_violate(ctx->facts, "cannot_bind", line, column, hint, "%s", msg);
    json_decref(err);
}
