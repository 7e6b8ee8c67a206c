/*
 * variables.c — validate_code checks the variables against the statement's parameters, so a
 * missing `$id`, a variable no parameter uses or a value of the wrong type is refused at
 * validate (with where and how to fix it), not after a token was issued.
 *
 * Owns: comparing the prepared statement's parameters (their names and the types DuckDB's binder
 * inferred) with the variables object. Does not own: binding values at execute (exec/duckdb.c,
 * exec/sqlite.c bind them again and keep their own checks) nor preparing the statement
 * (statement.c).
 */
#include "lang/sql/internal.h"
#include "syntax/sqltree/duckdb_type.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef enum want { WANT_ANY, WANT_INTEGER, WANT_NUMBER, WANT_BOOLEAN, WANT_TEXT } want;

/* What JSON a parameter of this inferred type accepts; WANT_ANY when DuckDB could not infer
 * one (the parameter stands where any type goes) or the type takes any scalar. */
static want want_of(duckdb_type t)
{
    sluice_duck_type_info info = sluice_duck_type(t);
    switch (info.kind) {
    case SLUICE_DUCK_INTEGER:
        return WANT_INTEGER;
    case SLUICE_DUCK_FLOAT:
    case SLUICE_DUCK_DECIMAL:
        return WANT_NUMBER;
    case SLUICE_DUCK_BOOLEAN:
        return WANT_BOOLEAN;
    case SLUICE_DUCK_DATE:
    case SLUICE_DUCK_INTERVAL:
        return WANT_TEXT;
    case SLUICE_DUCK_TIME: /* TIME and TIMESTAMP [WITH TIME ZONE]; the other precisions any */
    case SLUICE_DUCK_TIMESTAMP:
        return t == DUCKDB_TYPE_TIME || t == DUCKDB_TYPE_TIMESTAMP || t == DUCKDB_TYPE_TIMESTAMP_TZ
                   ? WANT_TEXT
                   : WANT_ANY;
    default:
        return WANT_ANY;
    }
}

static const char *want_name(want w)
{
    return w == WANT_INTEGER   ? "a whole number"
           : w == WANT_NUMBER  ? "a number"
           : w == WANT_BOOLEAN ? "true or false"
                               : "a string (e.g. \"2026-01-01\")";
}

/* A JSON string the engine's cast would read as a number of the wanted kind. */
static bool numeric_text(const json_t *v, want w)
{
    const char *s = json_string_value(v);
    char *end = NULL;
    errno = 0;
    if (w == WANT_INTEGER)
        (void)strtoll(s, &end, 10);
    else
        (void)strtod(s, &end);
    return errno == 0 && end != s && end == s + json_string_length(v); /* no NUL inside */
}

static bool fits(const json_t *v, want w)
{
    if (json_is_null(v) || w == WANT_ANY)
        return !json_is_object(v) && !json_is_array(v);
    switch (w) {
    case WANT_INTEGER:
        return json_is_integer(v) || (json_is_string(v) && numeric_text(v, w));
    case WANT_NUMBER:
        return json_is_number(v) || (json_is_string(v) && numeric_text(v, w));
    case WANT_BOOLEAN:
        return json_is_boolean(v);
    default:
        return json_is_string(v);
    }
}

/* The variable a parameter names, marking its slot (the variables' order) as used; NULL when
 * there is none. Matches by exact name, as the executors bind them. */
static const json_t *use_variable(const json_t *vars, const char *name, bool *used)
{
    size_t slot = 0;
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)vars, key, value)
    {
        if (strcmp(key, name) == 0) {
            used[slot] = true;
            return value;
        }
        slot++;
    }
    return NULL;
}

/* Line and column of the first "$name" (or ":name") parameter token; 0, 0 when not found. */
static void locate_param(const sluice_sql_ctx *ctx, const char *name, size_t *line, size_t *col)
{
    *line = *col = 0;
    size_t nlen = strlen(name);
    for (size_t pos = 0; pos < ctx->code_len;) {
        sluice_sql_token kind;
        size_t n = sluice_sql_lex(ctx->code, ctx->code_len, pos, &kind);
        if (n == 0)
            break;
        if (kind == SLUICE_SQL_TK_PARAM && n == nlen + 1 &&
            memcmp(ctx->code + pos + 1, name, nlen) == 0) {
            sluice_error_locate(ctx->code, ctx->code_len, pos, line, col);
            return;
        }
        pos += n;
    }
}

/* One parameter against its variable (marking it used). */
static void check_param(
    sluice_sql_ctx *ctx, duckdb_prepared_statement ps, size_t i, const json_t *vars, bool *used)
{
    const char *name = sluice_sql_param_name(ctx, ps, i);
    if (name == NULL)
        return; /* the arena's failure fails the analysis closed */
    size_t line, col;
    locate_param(ctx, name, &line, &col);
    const json_t *v = json_is_object(vars) ? use_variable(vars, name, used) : NULL;
    if (v == NULL) {
        sluice_codefacts_violate(ctx->facts, "sql_variables", line, col,
                                 "pass it in validate_code's and execute_code's variables",
                                 "parameter $%s has no value: the variables object has no \"%s\"",
                                 name, name);
        return;
    }
    want w = want_of(sluice_sql_param_type(ctx, ps, i));
    if (fits(v, w))
        return;
    if (json_is_object(v) || json_is_array(v))
        sluice_codefacts_violate(ctx->facts, "sql_variables", line, col,
                                 "pass a string, number, boolean or null",
                                 "variable \"%s\" is an object or array; parameter $%s takes one "
                                 "value",
                                 name, name);
    else if (json_is_string(v))
        sluice_codefacts_violate(ctx->facts, "sql_variables", line, col,
                                 "pass a value of the parameter's type",
                                 "variable \"%s\" does not fit parameter $%s: it must be %s, not "
                                 "the text \"%.40s\"",
                                 name, name, want_name(w), json_string_value(v));
    else
        sluice_codefacts_violate(
            ctx->facts, "sql_variables", line, col, "pass a value of the parameter's type",
            "variable \"%s\" does not fit parameter $%s: it must be %s, not "
            "%s",
            name, name, want_name(w), json_is_boolean(v) ? "a boolean" : "a number");
}

sluice_status sluice_sql_check_variables(sluice_sql_ctx *ctx,
                                         duckdb_prepared_statement ps,
                                         const char *variables_json)
{
    if (variables_json == NULL)
        return SLUICE_OK; /* analysis without a request: nothing to check against */
    json_t *vars = json_loads(variables_json, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    if (vars == NULL)
        return SLUICE_E_NOMEM; /* the pipeline wrote it: only memory makes it fail */
    if (vars != NULL && !json_is_object(vars) && !json_is_null(vars)) {
        sluice_codefacts_violate(ctx->facts, "sql_variables", 0, 0,
                                 "send variables as an object: {\"name\": value}",
                                 "variables must be a JSON object");
        json_decref(vars);
        return SLUICE_OK;
    }
    size_t nvars = json_is_object(vars) ? json_object_size(vars) : 0;
    bool *used = sluice_arena_calloc(ctx->arena, nvars + 1, sizeof(bool));
    if (used == NULL) {
        json_decref(vars);
        return SLUICE_E_NOMEM;
    }
    size_t n = sluice_sql_param_count(ctx, ps);
    for (size_t i = 1; i <= n; i++)
        check_param(ctx, ps, i, vars, used);
    size_t k = 0;
    const char *key;
    json_t *value;
    if (json_is_object(vars))
        json_object_foreach(vars, key, value)
        {
            (void)value;
            if (!used[k++])
                sluice_codefacts_violate(ctx->facts, "sql_variables", 0, 0,
                                         "refer to it as $<name> in the statement or remove it",
                                         "variable \"%s\" is not used by the statement (no $%s)",
                                         key, key);
        }
    json_decref(vars);
    return SLUICE_OK;
}
