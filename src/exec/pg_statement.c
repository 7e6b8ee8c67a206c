/*
 * pg_statement.c — what kind of statement the PostgreSQL executor was handed, found with
 * PostgreSQL's own parser (libpg_query) and independently of the analyzer: the executor's own
 * wall decides which role a call runs as, so a bypassed or wrong analysis can never move a
 * statement onto the write role that the executor would not have put there itself.
 *
 * Owns: the change kind of one statement. Does not own: whether it may run (lang/pgsql/ and
 * policy decide), the transaction it runs in (postgres.c).
 */
#include "exec/pg_internal.h"

#include <pg_query.h>
#include <stdlib.h>
#include <string.h>

/* The one statement's node of a libpg_query tree, or NULL when there is not exactly one. */
static json_t *only_statement(json_t *tree)
{
    json_t *stmts = json_object_get(tree, "stmts");
    if (!json_is_array(stmts) || json_array_size(stmts) != 1)
        return NULL;
    return json_object_get(json_array_get(stmts, 0), "stmt");
}

static pg_change kind_of(json_t *stmt)
{
    static const struct {
        const char *type;
        pg_change kind;
    } changes[] = {
        { "InsertStmt", PG_CHANGE_WRITE },    { "UpdateStmt", PG_CHANGE_WRITE },
        { "MergeStmt", PG_CHANGE_WRITE },     { "DeleteStmt", PG_CHANGE_DELETE },
        { "TruncateStmt", PG_CHANGE_DELETE },
    };
    if (!json_is_object(stmt) || json_object_size(stmt) != 1)
        return PG_CHANGE_NONE;
    const char *type = json_object_iter_key(json_object_iter(stmt));
    json_t *body = json_object_get(stmt, type);
    if (json_object_get(body, "withClause") != NULL)
        return PG_CHANGE_NONE; /* a WITH can hold further changes: never on the write role */
    for (size_t i = 0; i < sizeof changes / sizeof changes[0]; i++)
        if (strcmp(type, changes[i].type) == 0)
            return changes[i].kind;
    return PG_CHANGE_NONE;
}

pg_change sluice_pg_change_kind(const char *code, size_t code_len)
{
    char *text = strndup(code, code_len);
    if (text == NULL)
        return PG_CHANGE_NONE; /* fail closed: the read path refuses any change */
    PgQueryParseResult r = pg_query_parse(text);
    free(text);
    pg_change kind = PG_CHANGE_NONE;
    if (r.error == NULL) {
        json_t *tree = json_loads(r.parse_tree, 0, NULL);
        kind = kind_of(only_statement(tree));
        json_decref(tree);
    }
    pg_query_free_parse_result(r);
    return kind;
}
