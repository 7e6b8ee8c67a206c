/*
 * plan.c — the second judge of the PostgreSQL analyzer: PostgreSQL's own plan for a read that
 * references blocked columns (EXPLAIN (VERBOSE, FORMAT JSON) of a generic plan, fetched by the
 * executor inside the read role's read-only transaction, exec/postgres.c), walked as a
 * fail-closed allowlist. PostgreSQL resolved every name in it; every expression it prints is
 * qualified by a relation alias that EXPLAIN makes unique, so each maps to base columns.
 *
 * What it refuses (the contract of docs/security.md: a blocked column may influence the result
 * only through the allowed bare predicates):
 *   - an output of the plan computed from a blocked (or tainted) column;
 *   - an order the plan produces from one: Sort and Incremental Sort keys, a Merge Join's
 *     condition, an index scan over an index with a blocked key (rows come back in key order);
 *   - a row count computed from one: a set-returning function's arguments (Function Scan,
 *     ProjectSet);
 *   - what it cannot map: a node type or a key it does not know, a VALUES list (EXPLAIN does not
 *     print its rows), a scan of something other than a table, a CTE, a subquery or a function.
 * Where it refuses what the parse-tree layer accepted, the two disagree, and the statement is
 * refused (rule plan_refused).
 *
 * Lineage of a derived relation (a CTE scan, a subquery scan, a work table) is the union of its
 * plan's outputs: EXPLAIN names a derived column but not its position, so the union is the
 * sound choice (it may refuse a CTE that returns a blocked column next to the one used).
 *
 * Does not own: fetching the plan (exec/postgres.c), the parse-tree analysis (query.c, expr.c).
 */
#include "lang/pgsql/internal.h"
#include "lang/sql/lexer.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct plan_rel {
    const char *alias;
    const sluice_schema_table *table; /* a base table; NULL for a derived relation */
    sluice_codefacts_list lineage;    /* derived: the union of its outputs' base columns */
} plan_rel;

typedef struct plan_sub {
    const char *name; /* "CTE m", "SubPlan 2", "InitPlan 1 (returns $0)" */
    sluice_codefacts_list lineage;
} plan_sub;

typedef struct plan_walk {
    pg_ctx *c;
    json_t *indexes;
    plan_rel rels[SLUICE_PGSQL_MAX_PLAN_RELS];
    size_t rel_count;
    plan_sub subs[SLUICE_PGSQL_MAX_PLAN_RELS];
    size_t sub_count;
    sluice_codefacts_list worktable; /* every Recursive Union's outputs */
    size_t nodes;
    bool checking; /* the last pass: the rules are applied */
    bool refused;
} plan_walk;

/* Keys of a plan node that this walk knows; any other key is refused (an unknown key may carry
 * an expression the rules never saw). */
static const char *const known_keys[] = {
    "Node Type",
    "Parent Relationship",
    "Subplan Name",
    "Parallel Aware",
    "Async Capable",
    "Startup Cost",
    "Total Cost",
    "Plan Rows",
    "Plan Width",
    "Output",
    "Plans",
    "Relation Name",
    "Schema",
    "Alias",
    "Filter",
    "Join Filter",
    "Hash Cond",
    "Merge Cond",
    "Index Cond",
    "Recheck Cond",
    "Index Name",
    "Scan Direction",
    "Join Type",
    "Inner Unique",
    "Strategy",
    "Partial Mode",
    "Group Key",
    "Grouping Sets",
    "Planned Partitions",
    "Sort Key",
    "Presorted Key",
    "Function Name",
    "Function Call",
    "CTE Name",
    "One-Time Filter",
    "Command",
    "Workers Planned",
    "Single Copy",
    "Cache Key",
    "Cache Mode",
    "TID Cond",
    "Sampling Method",
    "Sampling Parameters",
    "Repeatable",
    "Order By",
    "Run Condition",
    "Subplans Removed",
    "Distinct Key",
    "Sort Method",
};

/* Node types this walk knows (scans are judged by kind below). */
static const char *const known_nodes[] = {
    "Result",
    "ProjectSet",
    "Append",
    "Merge Append",
    "Recursive Union",
    "BitmapAnd",
    "BitmapOr",
    "Nested Loop",
    "Merge Join",
    "Hash Join",
    "Materialize",
    "Memoize",
    "Sort",
    "Incremental Sort",
    "Group",
    "Aggregate",
    "WindowAgg",
    "Unique",
    "SetOp",
    "Limit",
    "Hash",
    "Gather",
    "Gather Merge",
    "Seq Scan",
    "Index Scan",
    "Index Only Scan",
    "Bitmap Index Scan",
    "Bitmap Heap Scan",
    "Tid Scan",
    "Tid Range Scan",
    "Sample Scan",
    "Subquery Scan",
    "CTE Scan",
    "WorkTable Scan",
    "Function Scan",
    "Values Scan",
};

static bool in_list(const char *const *list, size_t n, const char *s)
{
    for (size_t i = 0; s != NULL && i < n; i++)
        if (strcmp(list[i], s) == 0)
            return true;
    return false;
}

#define IN_LIST(list, s) in_list((list), sizeof(list) / sizeof((list)[0]), (s))

/* A refusal, recorded in the last pass only (earlier passes may not know every subplan yet). */
static void refuse(plan_walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void refuse(plan_walk *w, const char *fmt, ...)
{
    if (!w->checking)
        return;
    w->refused = true;
    char message[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    sluice_pgsql_violate(
        w->c, NULL, "plan_refused",
        "use blocked fields only bare with = in WHERE or ON; never order, count or "
        "return by them",
        "PostgreSQL's plan for this statement %s", message);
}

static plan_rel *find_rel(plan_walk *w, const char *alias)
{
    for (size_t i = 0; i < w->rel_count; i++)
        if (strcmp(w->rels[i].alias, alias) == 0)
            return &w->rels[i];
    return NULL;
}

static plan_sub *find_sub(plan_walk *w, const char *name, size_t len)
{
    for (size_t i = 0; i < w->sub_count; i++)
        if (strncmp(w->subs[i].name, name, len) == 0 &&
            (w->subs[i].name[len] == '\0' || w->subs[i].name[len] == ' '))
            return &w->subs[i];
    return NULL;
}

/* Registers (or finds) a relation by alias; NULL when there are too many. */
static plan_rel *add_rel(plan_walk *w, const char *alias, const sluice_schema_table *table)
{
    plan_rel *r = find_rel(w, alias);
    if (r != NULL)
        return r;
    if (w->rel_count == SLUICE_PGSQL_MAX_PLAN_RELS) {
        refuse(w, "has more relations than sluice follows (limit is %u)",
               SLUICE_PGSQL_MAX_PLAN_RELS);
        return NULL;
    }
    r = &w->rels[w->rel_count++];
    r->alias = alias;
    r->table = table;
    return r;
}

static void add_lineage(plan_walk *w, sluice_codefacts_list *to, const char *base)
{
    sluice_pgsql_add(w->c, to, base);
}

/* How much the walk knows about relations and subplans: it settles when a pass adds nothing. */
static size_t known(const plan_walk *w)
{
    size_t n = w->rel_count + w->sub_count + w->worktable.count;
    for (size_t i = 0; i < w->rel_count; i++)
        n += w->rels[i].lineage.count;
    for (size_t i = 0; i < w->sub_count; i++)
        n += w->subs[i].lineage.count;
    return n;
}

static void add_all(plan_walk *w, sluice_codefacts_list *to, const sluice_codefacts_list *from)
{
    for (size_t i = 0; i < from->count; i++)
        add_lineage(w, to, from->items[i]);
}

/* One identifier token as text (a quoted one unquoted), in the context's arena. */
static const char *ident(plan_walk *w, const char *t, size_t n, sluice_sql_token kind)
{
    if (kind != SLUICE_SQL_TK_QUOTED)
        return sluice_arena_strndup(w->c->arena, t, n);
    char *s = sluice_arena_strndup(w->c->arena, t + 1, n >= 2 ? n - 2 : 0);
    if (s == NULL)
        return NULL;
    char *o = s;
    for (const char *p = s; *p != '\0'; p++) {
        *o++ = *p;
        if (*p == '"' && p[1] == '"')
            p++;
    }
    *o = '\0';
    return s;
}

/* A base table's column, or every column of it (column NULL: a whole-row reference). */
static void table_lineage(plan_walk *w,
                          const sluice_schema_table *t,
                          const char *column,
                          sluice_codefacts_list *out)
{
    for (size_t i = 0; i < t->column_count; i++)
        if (column == NULL || strcmp(t->columns[i].name, column) == 0) {
            const char *base =
                sluice_arena_printf(w->c->arena, "%s.%s", t->name, t->columns[i].name);
            if (base == NULL)
                w->c->nomem = true;
            else
                add_lineage(w, out, base);
        }
}

/* The base columns an expression EXPLAIN printed is computed from: every alias.column (or
 * alias.*) of a known relation, every (SubPlan n) and $n of an InitPlan. A qualifier that names
 * no relation is a schema (of a function, type or operator). */
static void expr_lineage(plan_walk *w, const char *text, sluice_codefacts_list *out)
{
    size_t len = text != NULL ? strlen(text) : 0;
    const char *prev = NULL;
    size_t prev_len = 0;
    sluice_sql_token prev_kind = SLUICE_SQL_TK_END;
    for (size_t p = 0; p < len && !w->c->nomem;) {
        sluice_sql_token kind;
        size_t n = sluice_sql_lex(text, len, p, &kind);
        if (n == 0)
            break;
        const char *t = text + p;
        if (kind == SLUICE_SQL_TK_OTHER && *t == '.' && prev != NULL &&
            (prev_kind == SLUICE_SQL_TK_WORD || prev_kind == SLUICE_SQL_TK_QUOTED)) {
            sluice_sql_token next_kind;
            size_t m = sluice_sql_lex(text, len, p + 1, &next_kind);
            const char *alias = ident(w, prev, prev_len, prev_kind);
            plan_rel *r = alias != NULL ? find_rel(w, alias) : NULL;
            if (r != NULL && m > 0) {
                bool star = next_kind == SLUICE_SQL_TK_OTHER && text[p + 1] == '*';
                const char *column = star ? NULL : ident(w, text + p + 1, m, next_kind);
                if (r->table != NULL)
                    table_lineage(w, r->table, column, out);
                else
                    add_all(w, out, &r->lineage);
            }
        } else if (kind == SLUICE_SQL_TK_WORD && n == 7 && strncmp(t, "SubPlan", 7) == 0) {
            size_t q = p + n;
            while (q < len && (text[q] == ' ' || (text[q] >= '0' && text[q] <= '9')))
                q++;
            plan_sub *s = find_sub(w, t, q - p);
            if (s != NULL)
                add_all(w, out, &s->lineage);
            else
                refuse(w, "names a subplan it does not show");
        } else if (kind == SLUICE_SQL_TK_PARAM && n > 1) {
            /* $n: a parameter of the statement (no columns) or an InitPlan's value; every
             * InitPlan that returns it counts (PostgreSQL 15 prints both as $n) */
            for (size_t i = 0; i < w->sub_count; i++) {
                const char *ret = strstr(w->subs[i].name, "returns ");
                for (const char *q = ret; q != NULL && (q = strstr(q, "$")) != NULL; q++)
                    if (strncmp(q, t, n) == 0 && (q[n] < '0' || q[n] > '9'))
                        add_all(w, out, &w->subs[i].lineage);
            }
        }
        if (kind != SLUICE_SQL_TK_SPACE && kind != SLUICE_SQL_TK_COMMENT) {
            prev = t;
            prev_len = n;
            prev_kind = kind;
        }
        p += n;
    }
}

static bool lineage_blocked(plan_walk *w, const sluice_codefacts_list *l, const char **which)
{
    for (size_t i = 0; i < l->count; i++)
        if (sluice_pgsql_blocked(w->c, l->items[i])) {
            *which = l->items[i];
            return true;
        }
    return false;
}

/* A key that holds one expression or a list of them. */
static void key_lineage(plan_walk *w, json_t *node, const char *key, sluice_codefacts_list *out)
{
    json_t *v = json_object_get(node, key);
    if (json_is_string(v))
        expr_lineage(w, json_string_value(v), out);
    for (size_t i = 0; json_is_array(v) && i < json_array_size(v); i++)
        expr_lineage(w, json_string_value(json_array_get(v, i)), out);
}

/* Refuses when key's expressions depend on a blocked column; what names the channel. */
static void check_key(plan_walk *w, json_t *node, const char *key, const char *what)
{
    sluice_codefacts_list l = { 0 };
    key_lineage(w, node, key, &l);
    const char *which = NULL;
    if (w->checking && lineage_blocked(w, &l, &which))
        refuse(w, "%s %s (%s)", what, which, key);
}

/* Every expression string under v (a key's value, or Grouping Sets' nested lists). */
static void strings_under(json_t *v, json_t *into)
{
    if (json_is_string(v))
        json_array_append(into, v);
    size_t i;
    json_t *x;
    const char *k;
    if (json_is_array(v))
        json_array_foreach(v, i, x) strings_under(x, into);
    if (json_is_object(v))
        json_object_foreach(v, k, x) strings_under(x, into);
}

/* Group keys (also of grouping sets): a bare base-table column may be one, as GROUP BY ssn may;
 * a key computed from a blocked column counts its distinct values (docs/security.md). */
static void check_group_keys(plan_walk *w, json_t *node)
{
    json_t *keys = json_array();
    if (keys == NULL) {
        w->c->nomem = true;
        return;
    }
    strings_under(json_object_get(node, "Group Key"), keys);
    strings_under(json_object_get(node, "Grouping Sets"), keys);
    size_t i;
    json_t *k;
    json_array_foreach(keys, i, k)
    {
        const char *text = json_string_value(k);
        const char *dot = strchr(text, '.');
        plan_rel *r = NULL;
        if (dot != NULL && strspn(text, "abcdefghijklmnopqrstuvwxyz0123456789_.") == strlen(text) &&
            strchr(dot + 1, '.') == NULL) {
            char alias[256];
            size_t n = (size_t)(dot - text);
            if (n < sizeof alias) {
                memcpy(alias, text, n);
                alias[n] = '\0';
                r = find_rel(w, alias);
            }
        }
        if (r != NULL && r->table != NULL)
            continue; /* a bare column of a base table */
        sluice_codefacts_list l = { 0 };
        expr_lineage(w, text, &l);
        const char *which = NULL;
        if (lineage_blocked(w, &l, &which)) {
            refuse(w, "groups by %s, computed from %s", text, which);
            break;
        }
    }
    json_decref(keys);
}

/* An index scan returns rows in its key order: refused when a key column is blocked. */
static void check_index(plan_walk *w, json_t *node, const sluice_schema_table *t)
{
    const char *name = json_string_value(json_object_get(node, "Index Name"));
    json_t *keys = json_object_get(w->indexes, name != NULL ? name : "");
    if (!json_is_array(keys)) {
        refuse(w, "scans index %s, whose keys sluice does not know", name != NULL ? name : "?");
        return;
    }
    for (size_t i = 0; i < json_array_size(keys); i++) {
        const char *col = json_string_value(json_array_get(keys, i));
        const char *base = col != NULL && t != NULL
                               ? sluice_arena_printf(w->c->arena, "%s.%s", t->name, col)
                               : NULL;
        if (col == NULL || base == NULL || sluice_pgsql_blocked(w->c, base)) {
            refuse(w, "reads index %s in the order of %s", name,
                   col != NULL ? col : "an expression");
            return;
        }
    }
}

static const sluice_schema_table *base_table(plan_walk *w, json_t *node)
{
    const char *name = json_string_value(json_object_get(node, "Relation Name"));
    const char *schema = json_string_value(json_object_get(node, "Schema"));
    for (size_t i = 0; name != NULL && w->c->schema != NULL && i < w->c->schema->table_count; i++) {
        const sluice_schema_table *t = &w->c->schema->tables[i];
        if (!t->is_view && strcmp(t->name, name) == 0 &&
            (schema == NULL || t->schema == NULL || strcmp(t->schema, schema) == 0))
            return t;
    }
    return NULL;
}

static void walk_node(plan_walk *w, json_t *node, sluice_codefacts_list *out);

/* The node's children; each subplan (a CTE, an InitPlan, a SubPlan) registered by name with
 * its outputs' lineage; *derived the lineage of the children's outputs. */
static void children(plan_walk *w, json_t *node, sluice_codefacts_list *derived)
{
    json_t *plans = json_object_get(node, "Plans");
    for (size_t i = 0; i < json_array_size(plans); i++) {
        json_t *child = json_array_get(plans, i);
        sluice_codefacts_list l = { 0 };
        walk_node(w, child, &l);
        const char *sub = json_string_value(json_object_get(child, "Subplan Name"));
        if (sub == NULL) {
            add_all(w, derived, &l);
            continue;
        }
        plan_sub *s = find_sub(w, sub, strlen(sub));
        if (s == NULL && w->sub_count < SLUICE_PGSQL_MAX_PLAN_RELS) {
            s = &w->subs[w->sub_count++];
            s->name = sub;
        }
        if (s == NULL)
            refuse(w, "has more subplans than sluice follows (limit is %u)",
                   SLUICE_PGSQL_MAX_PLAN_RELS);
        else
            add_all(w, &s->lineage, &l);
    }
}

static void scan(plan_walk *w, json_t *node, const char *type, sluice_codefacts_list *derived)
{
    const char *alias = json_string_value(json_object_get(node, "Alias"));
    if (strcmp(type, "Bitmap Index Scan") == 0)
        return; /* feeds a Bitmap Heap Scan: physical order, conditions only */
    if (alias == NULL) {
        refuse(w, "scans a relation without a name");
        return;
    }
    if (strcmp(type, "Values Scan") == 0) {
        refuse(w,
               "reads a VALUES list (%s) next to blocked columns; EXPLAIN does not show its rows",
               alias);
        return;
    }
    const sluice_schema_table *t = NULL;
    if (json_object_get(node, "Relation Name") != NULL) {
        t = base_table(w, node);
        if (t == NULL) {
            refuse(w, "reads %s, which is not a table of the catalog",
                   json_string_value(json_object_get(node, "Relation Name")));
            return;
        }
        if (strcmp(type, "Index Scan") == 0 || strcmp(type, "Index Only Scan") == 0)
            check_index(w, node, t);
    }
    plan_rel *r = add_rel(w, alias, t);
    if (r == NULL || t != NULL)
        return;
    if (strcmp(type, "CTE Scan") == 0) {
        const char *cte = json_string_value(json_object_get(node, "CTE Name"));
        char name[300];
        snprintf(name, sizeof name, "CTE %s", cte != NULL ? cte : "");
        plan_sub *s = find_sub(w, name, strlen(name));
        if (s != NULL)
            add_all(w, &r->lineage, &s->lineage);
    } else if (strcmp(type, "WorkTable Scan") == 0) {
        add_all(w, &r->lineage, &w->worktable);
    } else if (strcmp(type, "Function Scan") == 0) {
        sluice_codefacts_list args = { 0 };
        key_lineage(w, node, "Function Call", &args);
        add_all(w, &r->lineage, &args);
        check_key(w, node, "Function Call", "counts rows by");
    } else if (strcmp(type, "Subquery Scan") == 0) {
        add_all(w, &r->lineage, derived);
    } else {
        refuse(w, "has a %s, which sluice does not follow", type);
    }
}

static void walk_node(plan_walk *w, json_t *node, sluice_codefacts_list *out)
{
    const char *type = json_string_value(json_object_get(node, "Node Type"));
    if (!json_is_object(node) || !IN_LIST(known_nodes, type)) {
        refuse(w, "has a %s node, which sluice does not judge", type != NULL ? type : "?");
        return;
    }
    if (++w->nodes > SLUICE_PGSQL_MAX_PLAN_NODES) {
        refuse(w, "has more than %u nodes", SLUICE_PGSQL_MAX_PLAN_NODES);
        return;
    }
    const char *key;
    json_t *v;
    json_object_foreach(node, key, v)
    {
        if (!IN_LIST(known_keys, key)) {
            refuse(w, "shows %s on a %s node, which sluice does not judge", key, type);
            return;
        }
    }
    sluice_codefacts_list derived = { 0 };
    children(w, node, &derived);
    if (strstr(type, "Scan") != NULL)
        scan(w, node, type, &derived);
    if (strcmp(type, "Recursive Union") == 0)
        add_all(w, &w->worktable, &derived);
    /* orders and row counts */
    check_key(w, node, "Sort Key", "orders rows by");
    check_key(w, node, "Presorted Key", "orders rows by");
    check_key(w, node, "Order By", "orders rows by");
    check_key(w, node, "Merge Cond", "merges rows in the order of");
    if (w->checking)
        check_group_keys(w, node);
    if (strcmp(type, "ProjectSet") == 0)
        check_key(w, node, "Output", "counts rows (a set-returning function) by");
    key_lineage(w, node, "Output", out);
}

sluice_status sluice_pgsql_judge_plan(pg_ctx *c, const char *plan_json, bool *refused)
{
    *refused = false;
    json_error_t jerr;
    /* a plan of inlined copies estimates rows past 2^63: as reals, not a parse failure */
    json_t *root = json_loads(plan_json, JSON_DECODE_INT_AS_REAL, &jerr);
    json_t *plan = json_object_get(json_array_get(json_object_get(root, "plan"), 0), "Plan");
    plan_walk *w = sluice_arena_calloc(c->arena, 1, sizeof(*w));
    if (root == NULL || w == NULL) {
        json_decref(root);
        return SLUICE_E_NOMEM;
    }
    w->c = c;
    w->indexes = json_object_get(root, "indexes");
    if (plan == NULL) {
        w->checking = true;
        refuse(w, "could not be read");
    }
    /* derived lineage grows until it settles (a CTE may be shown after its scans); then one
     * more pass applies the rules */
    bool settled = false;
    for (size_t pass = 0; plan != NULL && !settled && pass < SLUICE_PGSQL_MAX_TAINT_PASSES;
         pass++) {
        size_t before = known(w);
        w->nodes = 0;
        sluice_codefacts_list out = { 0 };
        walk_node(w, plan, &out);
        settled = known(w) == before;
    }
    w->checking = true;
    if (plan != NULL && !settled) {
        refuse(w, "does not settle in %u passes", SLUICE_PGSQL_MAX_TAINT_PASSES);
    } else if (plan != NULL) {
        w->nodes = 0;
        sluice_codefacts_list out = { 0 };
        walk_node(w, plan, &out);
        const char *which = NULL;
        if (lineage_blocked(w, &out, &which))
            refuse(w, "returns a value computed from %s", which);
    }
    json_decref(root);
    *refused = w->refused;
    return c->nomem ? SLUICE_E_NOMEM : SLUICE_OK;
}
