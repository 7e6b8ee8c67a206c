/*
 * variables.c — validate_code checks a PostgreSQL statement's parameters against its variables:
 * PostgreSQL parameters are positional ($1, $2, ...) and the variables name them "1", "2", ...
 * (exec/postgres.c), so a $N without a variable "N", a variable no $N uses, or one that is not a
 * position is refused at validate, not after a token was issued. Types are the server's to
 * infer at execute (the values go as text), so they are not judged here.
 *
 * Owns: collecting the ParamRef numbers of the parse tree and comparing them with the variables.
 * Does not own: binding (exec/postgres.c keeps its own checks).
 */
#include "core/error.h"
#include "lang/pgsql/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parameters tracked: a statement with a $N above this is refused as having too many. */
#define PG_MAX_PARAMS 256
/* libpg_query's JSON nests a few levels per SQL level, and the parser's own stack bounds SQL
 * nesting; this only keeps the walk's recursion bounded whatever the tree. */
#define PG_WALK_MAX_DEPTH 4096u

static void collect(const json_t *node, bool *used, int *max, size_t depth)
{
    if (depth > PG_WALK_MAX_DEPTH)
        return;
    if (json_is_array(node)) {
        size_t i;
        const json_t *v;
        json_array_foreach(node, i, v) collect(v, used, max, depth + 1);
        return;
    }
    if (!json_is_object(node))
        return;
    const json_t *ref = json_object_get(node, "ParamRef");
    json_int_t n = ref != NULL ? json_integer_value(json_object_get(ref, "number")) : 0;
    if (n > 0) {
        if (n > *max)
            *max = (int)(n > PG_MAX_PARAMS ? PG_MAX_PARAMS + 1 : n);
        if (n <= PG_MAX_PARAMS)
            used[n] = true;
    }
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)node, key, v) collect(v, used, max, depth + 1);
}

/* Line and column of the first "$n" not followed by a digit; 0, 0 when not found. */
static void locate(const pg_ctx *c, int n, size_t *line, size_t *col)
{
    char want[16];
    int len = snprintf(want, sizeof want, "$%d", n);
    *line = *col = 0;
    for (const char *p = strstr(c->code, want); p != NULL; p = strstr(p + 1, want))
        if (p[len] < '0' || p[len] > '9') {
            sluice_error_locate(c->code, c->code_len, (size_t)(p - c->code), line, col);
            return;
        }
}

/* The position a variable's name gives ("3" for $3), or 0 when it is not one. */
static int position_of(const char *key)
{
    char *end = NULL;
    long i = strtol(key, &end, 10);
    return end != key && *end == '\0' && i >= 1 && i <= PG_MAX_PARAMS ? (int)i : 0;
}

sluice_status
sluice_pgsql_check_variables(pg_ctx *c, const json_t *tree, const char *variables_json)
{
    if (variables_json == NULL || tree == NULL)
        return SLUICE_OK; /* analysis without a request: nothing to check against */
    json_t *vars = json_loads(variables_json, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    if (vars == NULL)
        return SLUICE_E_NOMEM;
    bool used[PG_MAX_PARAMS + 1] = { false }, given[PG_MAX_PARAMS + 1] = { false };
    int max = 0;
    collect(tree, used, &max, 0);
    const char *key;
    json_t *v;
    json_object_foreach(vars, key, v)
    {
        int i = position_of(key);
        if (i == 0)
            sluice_codefacts_violate(c->facts, "sql_variables", 0, 0,
                                     "name the variables \"1\", \"2\", ... for $1, $2, ...",
                                     "variable \"%s\": PostgreSQL parameters are positional", key);
        else if (!used[i])
            sluice_codefacts_violate(
                c->facts, "sql_variables", 0, 0, "use $<n> in the statement or remove the variable",
                "variable \"%s\" is not used by the statement (no $%d)", key, i);
        else
            given[i] = true;
    }
    for (int i = 1; i <= max && i <= PG_MAX_PARAMS; i++)
        if (used[i] && !given[i]) {
            size_t line, col;
            locate(c, i, &line, &col);
            sluice_codefacts_violate(c->facts, "sql_variables", line, col,
                                     "pass it in validate_code's and execute_code's variables",
                                     "parameter $%d has no value: the variables object has no "
                                     "\"%d\"",
                                     i, i);
        }
    if (max > PG_MAX_PARAMS)
        sluice_codefacts_violate(c->facts, "sql_variables", 0, 0, "use fewer parameters",
                                 "the statement uses more than %d parameters", PG_MAX_PARAMS);
    json_decref(vars);
    return c->nomem || sluice_arena_failed(c->arena) ? SLUICE_E_NOMEM : SLUICE_OK;
}
