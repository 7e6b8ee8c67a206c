/*
 * write.c — changes in the PostgreSQL analyzer: INSERT, UPDATE, DELETE and TRUNCATE resolved
 * against the catalog like reads, so policies see the same facts as on DuckDB (the tables
 * written, the operations "<kind>_<table>", the columns read by WHERE).
 *
 * Owns: what a change may do on PostgreSQL. The target is one base table of the catalog (never
 * a view or a CTE); no value written may be computed from a blocked field (it would copy the
 * value into a column that can be read); WHERE, FROM and USING follow the predicate rules of
 * reads; RETURNING, WITH, ON CONFLICT DO UPDATE and MERGE are refused (not analyzed);
 * sql_allow_writes, sql_allow_deletes and sql_require_where_on_writes decide as on DuckDB.
 * Does not own: running it (exec/postgres.c runs it as the write role), names and predicates
 * (query.c, expr.c).
 */
#include "lang/pgsql/internal.h"

#include <string.h>

static void refuse(pg_ctx *c, json_t *body, const char *suggestion, const char *what)
{
    sluice_pgsql_violate(c, body, "statement_not_allowed", suggestion,
                         "%s is not analyzed; the %s is refused", what, c->facts->statement_kind);
}

/* No value written may carry a blocked field's value into the table. */
static void
check_value(pg_ctx *c, json_t *at, const sluice_codefacts_list *lineage, const char *column)
{
    for (size_t k = 0; k < lineage->count; k++)
        if (sluice_pgsql_blocked(c, lineage->items[k])) {
            sluice_pgsql_violate(
                c, at, "blocked_column", "write literals or parameters, never blocked fields",
                "the value written to %s is computed from %s, a blocked field: the write "
                "would copy it where it can be read",
                column != NULL ? column : "the table", lineage->items[k]);
            return;
        }
}

static void where_clause(pg_ctx *c, pg_scope *s, json_t *body)
{
    json_t *where = json_object_get(body, "whereClause");
    sluice_sql_ext(c->facts)->has_where = where != NULL;
    sluice_codefacts_list ignore = { 0 };
    sluice_pgsql_expr(c, s, where, PG_PREDICATE, &ignore);
}

static void insert_stmt(pg_ctx *c, pg_scope *s, json_t *body)
{
    json_t *conflict =
        sluice_pgsql_node_body(json_object_get(body, "onConflictClause"), "OnConflictClause");
    if (conflict == NULL)
        conflict = json_object_get(body, "onConflictClause");
    const char *action = json_string_value(json_object_get(conflict, "action"));
    if (action != NULL && strcmp(action, "ONCONFLICT_NOTHING") != 0)
        refuse(c, conflict, "use ON CONFLICT DO NOTHING, or an UPDATE", "ON CONFLICT DO UPDATE");
    json_t *select = json_object_get(body, "selectStmt");
    if (select == NULL)
        return; /* DEFAULT VALUES */
    /* VALUES or a SELECT, resolved as a query of its own (it cannot see the target). */
    pg_rel rel = sluice_pgsql_query(c, NULL, NULL, select);
    json_t *cols = json_object_get(body, "cols");
    for (size_t i = 0; i < rel.count; i++) {
        json_t *rt = sluice_pgsql_node_body(json_array_get(cols, i), "ResTarget");
        check_value(c, body, &rel.cols[i].lineage, json_string_value(json_object_get(rt, "name")));
    }
    (void)s;
}

static void update_stmt(pg_ctx *c, pg_scope *s, json_t *body)
{
    sluice_pgsql_from_list(c, s, json_object_get(body, "fromClause"));
    json_t *targets = json_object_get(body, "targetList");
    for (size_t i = 0; i < json_array_size(targets); i++) {
        json_t *rt = sluice_pgsql_node_body(json_array_get(targets, i), "ResTarget");
        sluice_codefacts_list lineage = { 0 };
        sluice_pgsql_expr(c, s, json_object_get(rt, "val"), PG_VALUE, &lineage);
        sluice_pgsql_add_all(c, &c->facts->fields_read, &lineage);
        check_value(c, rt, &lineage, json_string_value(json_object_get(rt, "name")));
    }
    where_clause(c, s, body);
}

static void delete_stmt(pg_ctx *c, pg_scope *s, json_t *body)
{
    sluice_pgsql_from_list(c, s, json_object_get(body, "usingClause"));
    where_clause(c, s, body);
}

static void truncate_stmt(pg_ctx *c, json_t *body)
{
    json_t *rels = json_object_get(body, "relations");
    for (size_t i = 0; i < json_array_size(rels); i++) {
        pg_scope s = { 0 };
        sluice_pgsql_target(c, &s, sluice_pgsql_node_body(json_array_get(rels, i), "RangeVar"));
    }
}

void sluice_pgsql_change(pg_ctx *c, json_t *stmt)
{
    const char *type = sluice_pgsql_node_type(stmt);
    json_t *body = type != NULL ? json_object_get(stmt, type) : NULL;
    if (type == NULL || strcmp(type, "MergeStmt") == 0) {
        refuse(c, body, "write an INSERT or an UPDATE", "MERGE");
        return;
    }
    if (json_object_get(body, "withClause") != NULL)
        refuse(c, body, "move the WITH query into a subquery", "a WITH on a change");
    if (json_array_size(json_object_get(body, "returningList")) > 0)
        refuse(c, body, "remove RETURNING and read the rows with a SELECT", "RETURNING");
    pg_scope s = { 0 };
    if (strcmp(type, "TruncateStmt") == 0)
        truncate_stmt(c, body);
    else if (sluice_pgsql_target(c, &s, json_object_get(body, "relation"))) {
        if (strcmp(type, "InsertStmt") == 0)
            insert_stmt(c, &s, body);
        else if (strcmp(type, "UpdateStmt") == 0)
            update_stmt(c, &s, body);
        else
            delete_stmt(c, &s, body);
    }
    sluice_sql_change_rules(c->facts, c->cm, strcmp(type, "InsertStmt") != 0);
}
