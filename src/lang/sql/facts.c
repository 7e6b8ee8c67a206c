/*
 * facts.c — the SQL extension of CodeFacts (sluice_sql_facts): its constructor, its JSON keys
 * and the operations a SQL change is named by.
 *
 * Owns: the shape facts only SQL has (joins, subqueries, windows, aggregates, CTEs, WHERE,
 * GROUP BY, ORDER BY, LIMIT) and how they appear in the Cedar context and the full record.
 * Does not own: the neutral record (facts/codefacts.c) or finding the facts (parsetree.c,
 * plan_walk.c, rules.c).
 */
#include "core/limits.h"
#include "lang/sql/internal.h"

#include <ctype.h>
#include <string.h>

/* Sets key to value (stolen); false when either failed. Every key is a literal, so the setter
 * that skips the key's UTF-8 check. */
static bool put(json_t *obj, const char *key, json_t *value)
{
    return value != NULL && json_object_set_new_nocheck(obj, key, value) == 0;
}

static bool sql_cedar_context(const sluice_codefacts *facts, json_t *script)
{
    const sluice_sql_facts *x = sluice_sql_ext(facts);
    bool ok =
        put(script, "joinCount", json_integer((json_int_t)x->join_count)) &&
        put(script, "subqueryCount", json_integer((json_int_t)x->subquery_count)) &&
        put(script, "hasWhere", json_boolean(x->has_where)) &&
        put(script, "hasLimit", json_boolean(x->has_limit)) &&
        put(script, "hasAggregation", json_boolean(x->aggregate_count > 0 || x->has_group_by));
    if (ok && x->limit_value >= 0)
        ok = put(script, "limit", json_integer(x->limit_value));
    return ok;
}

static void sql_write_json(const sluice_codefacts *facts, sluice_json_out *out)
{
    const sluice_sql_facts *x = sluice_sql_ext(facts);
    sluice_json_out_key(out, "cteNames");
    sluice_codefacts_list_write(out, &x->cte_names);
    sluice_json_out_key(out, "joinCount");
    sluice_json_out_integer(out, (json_int_t)x->join_count);
    sluice_json_out_key(out, "subqueryCount");
    sluice_json_out_integer(out, (json_int_t)x->subquery_count);
    sluice_json_out_key(out, "windowCount");
    sluice_json_out_integer(out, (json_int_t)x->window_count);
    sluice_json_out_key(out, "aggregateCount");
    sluice_json_out_integer(out, (json_int_t)x->aggregate_count);
    sluice_json_out_key(out, "hasWhere");
    sluice_json_out_bool(out, x->has_where);
    sluice_json_out_key(out, "hasGroupBy");
    sluice_json_out_bool(out, x->has_group_by);
    sluice_json_out_key(out, "hasOrderBy");
    sluice_json_out_bool(out, x->has_order_by);
    sluice_json_out_key(out, "hasLimit");
    sluice_json_out_bool(out, x->has_limit);
    sluice_json_out_key(out, "limit");
    if (x->limit_value >= 0)
        sluice_json_out_integer(out, x->limit_value);
    else
        sluice_json_out_null(out);
}

static void *sql_copy(const sluice_codefacts *facts, sluice_arena *arena)
{
    const sluice_sql_facts *x = sluice_sql_ext(facts);
    sluice_sql_facts *c = sluice_arena_alloc(arena, sizeof *c);
    if (c == NULL)
        return NULL;
    *c = *x; /* counts and flags; the lists are replaced */
    if (sluice_codefacts_list_copy(arena, &x->cte_names, &c->cte_names) != SLUICE_OK ||
        sluice_codefacts_list_copy(arena, &x->join_keys, &c->join_keys) != SLUICE_OK ||
        sluice_codefacts_list_copy(arena, &x->filter_columns, &c->filter_columns) != SLUICE_OK)
        return NULL;
    return c;
}

static const sluice_codefacts_ext_ops sql_ext_ops = {
    .cedar_context = sql_cedar_context,
    .write_json = sql_write_json,
    .copy = sql_copy,
};

sluice_codefacts *sluice_sql_facts_new(sluice_arena *arena)
{
    sluice_codefacts *f = sluice_codefacts_new(arena, "sql");
    sluice_sql_facts *x = sluice_arena_calloc(arena, 1, sizeof *x);
    if (f == NULL || x == NULL)
        return NULL;
    x->limit_value = -1;
    x->guessed_rows = -1;
    f->ext = x;
    f->ext_ops = &sql_ext_ops;
    return f;
}

const sluice_sql_facts *sluice_sql_facts_of(const sluice_codefacts *facts)
{
    static const sluice_sql_facts none = { .limit_value = -1, .guessed_rows = -1 };
    return facts != NULL && facts->ext_ops == &sql_ext_ops ? facts->ext : &none;
}

/* SQL has no named operations; a change is named "<kind>_<table>" ("update_budget_note"), so
 * allowed_operations and calledOperations work for SQL as they do for API operations. */
sluice_status sluice_sql_name_operations(sluice_codefacts *facts)
{
    if (facts->operations.count > 0 || facts->statement_kind == NULL)
        return SLUICE_OK;
    char kind[32];
    size_t n = 0;
    for (; facts->statement_kind[n] != '\0' && n + 1 < sizeof kind; n++)
        kind[n] = (char)tolower((unsigned char)facts->statement_kind[n]);
    kind[n] = '\0';
    for (size_t i = 0; n > 0 && i < facts->resources_written.count; i++) {
        char *op =
            sluice_arena_printf(facts->arena, "%s_%s", kind, facts->resources_written.items[i]);
        if (op == NULL)
            return SLUICE_E_NOMEM;
        for (char *c = op; *c != '\0'; c++)
            *c = (char)tolower((unsigned char)*c);
        sluice_status st = sluice_codefacts_list_add(facts, &facts->operations, op);
        if (st != SLUICE_OK)
            return st;
    }
    return SLUICE_OK;
}

const char *sluice_sql_dotted(sluice_arena *arena, const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return NULL;
    size_t na = strlen(a), nb = strlen(b);
    char *out = sluice_arena_alloc(arena, na + nb + 2);
    if (out == NULL)
        return NULL;
    memcpy(out, a, na);
    out[na] = '.';
    memcpy(out + na + 1, b, nb + 1);
    return out;
}

sluice_status sluice_sql_check_length(size_t code_len, sluice_arena *arena, sluice_error *err)
{
    if (code_len <= SLUICE_LIMIT_CODE_BYTES)
        return SLUICE_OK;
    return sluice_error_set(err, arena, SLUICE_E_LIMIT,
                            "the SQL is too long (%zu bytes; limit is %u)", code_len,
                            SLUICE_LIMIT_CODE_BYTES);
}
