/*
 * rules.c — the sql_* configuration rules of [code_mode], applied to SQL CodeFacts.
 *
 * Owns: sql_reads_enabled, sql_allow_writes, sql_allow_deletes, sql_allow_ddl,
 * sql_require_where_on_writes, sql_require_limit, sql_allowed_tables, sql_blocked_tables,
 * sql_max_joins and sql_max_rows. Each violation's rule is the config key, so the reader knows
 * which setting refused the statement. Tables are checked on base tables (views and CTEs
 * already resolved by the plan walk).
 * Does not own: blocked fields (plan_walk.c) or functions (functions.c).
 */
#include "lang/sql/internal.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

/* DDL proper: what sql_allow_ddl opens. Every other Admin statement (ATTACH, PRAGMA, SET,
 * COPY, LOAD, CALL, ...) reaches files, settings or the engine itself and is never allowed. */
static bool is_ddl(duckdb_statement_type t)
{
    return t == DUCKDB_STATEMENT_TYPE_CREATE || t == DUCKDB_STATEMENT_TYPE_ALTER ||
           t == DUCKDB_STATEMENT_TYPE_DROP || t == DUCKDB_STATEMENT_TYPE_CREATE_FUNC;
}

static bool word_is(const char *t, size_t n, const char *w)
{
    return strlen(w) == n && strncasecmp(t, w, n) == 0;
}

/* Token-level facts of a write (the parse tree serializer only takes SELECT): the target table
 * (the name after INTO / UPDATE / FROM / TABLE), whether a WHERE appears outside parentheses, and
 * whether RETURNING appears anywhere (refused: its output is not lineage-checked). */
static void write_facts(sluice_sql_ctx *ctx, bool *has_where, bool *has_returning)
{
    const char *t = ctx->code;
    size_t len = ctx->code_len, p = 0, depth = 0;
    bool want_name = false, named = false;
    *has_where = false;
    *has_returning = false;
    while (p < len) {
        sluice_sql_token k;
        size_t n = sluice_sql_lex(t, len, p, &k);
        if (n == 0 || k == SLUICE_SQL_TK_ILLEGAL)
            break;
        if (k == SLUICE_SQL_TK_OTHER && t[p] == '(')
            depth++;
        else if (k == SLUICE_SQL_TK_OTHER && t[p] == ')' && depth > 0)
            depth--;
        else if (k == SLUICE_SQL_TK_WORD && depth == 0 && word_is(t + p, n, "where"))
            *has_where = true;
        else if (k == SLUICE_SQL_TK_WORD && word_is(t + p, n, "returning"))
            *has_returning = true;
        if (!named && (k == SLUICE_SQL_TK_WORD || k == SLUICE_SQL_TK_QUOTED)) {
            if (want_name && !word_is(t + p, n, "table") && !word_is(t + p, n, "from") &&
                !word_is(t + p, n, "only")) {
                char *name = sluice_arena_strndup(ctx->arena, t + p, n);
                for (char *c = name; c != NULL && *c != '\0' && k == SLUICE_SQL_TK_WORD; c++)
                    *c = (char)tolower((unsigned char)*c);
                sluice_codefacts_list_add(ctx->facts, &ctx->facts->resources_written, name);
                named = true;
            }
            if (word_is(t + p, n, "into") || word_is(t + p, n, "update") ||
                word_is(t + p, n, "from") || word_is(t + p, n, "truncate"))
                want_name = true;
        }
        p += n;
    }
}

static bool listed(const sluice_strlist *list, const char *table)
{
    const char *bare = strrchr(table, '.');
    bare = bare != NULL ? bare + 1 : table;
    for (size_t i = 0; i < list->count; i++)
        if (strcasecmp(list->items[i], table) == 0 || strcasecmp(list->items[i], bare) == 0)
            return true;
    return false;
}

static void check_tables(sluice_sql_ctx *ctx, const sluice_codefacts_list *tables)
{
    const sluice_config_code_mode *cm = ctx->cm;
    for (size_t i = 0; i < tables->count; i++) {
        const char *t = tables->items[i];
        if (listed(&cm->sql_blocked_tables, t))
            sluice_codefacts_violate(ctx->facts, "sql_blocked_tables", 0, 0,
                                     "use only the tables listed in the code-mode://schema "
                                     "resource",
                                     "table %s is blocked by configuration", t);
        else if (cm->sql_allowed_tables.count > 0 && !listed(&cm->sql_allowed_tables, t))
            sluice_codefacts_violate(ctx->facts, "sql_allowed_tables", 0, 0,
                                     "use only the tables listed in the code-mode://schema "
                                     "resource",
                                     "table %s is not in sql_allowed_tables", t);
    }
}

static void check_read(sluice_sql_ctx *ctx)
{
    const sluice_config_code_mode *cm = ctx->cm;
    sluice_codefacts *f = ctx->facts;
    if (!cm->sql_reads_enabled)
        sluice_codefacts_violate(f, "sql_reads_enabled", 0, 0,
                                 "ask an administrator to enable SQL reads",
                                 "SQL reads are disabled by configuration");
    if (cm->sql_require_limit && !sluice_sql_ext(f)->has_limit)
        sluice_codefacts_violate(f, "sql_require_limit", 0, 0, "add LIMIT n to the outermost query",
                                 "a LIMIT is required on every query");
    if (sluice_sql_ext(f)->limit_value > cm->sql_max_rows)
        sluice_codefacts_violate(
            f, "sql_max_rows", 0, 0,
            sluice_arena_printf(ctx->arena, "use LIMIT %lld or less", (long long)cm->sql_max_rows),
            "LIMIT %lld is above sql_max_rows (%lld)", (long long)sluice_sql_ext(f)->limit_value,
            (long long)cm->sql_max_rows);
    if (cm->sql_max_joins >= 0 && sluice_sql_ext(f)->join_count > (size_t)cm->sql_max_joins)
        sluice_codefacts_violate(f, "sql_max_joins", 0, 0,
                                 "split the question or pre-aggregate in a CTE",
                                 "the statement has %zu joins; sql_max_joins is %lld",
                                 sluice_sql_ext(f)->join_count, (long long)cm->sql_max_joins);
}

void sluice_sql_change_rules(sluice_codefacts *f,
                             const sluice_config_code_mode *cm,
                             bool needs_where)
{
    if (f->action == SLUICE_ACTION_WRITE && !cm->sql_allow_writes)
        sluice_codefacts_violate(f, "sql_allow_writes", 0, 0,
                                 "code mode is read-only here; ask for a curated tool or an "
                                 "administrator",
                                 "%s statements are not allowed: writes are disabled",
                                 f->statement_kind);
    if (f->action == SLUICE_ACTION_DELETE && !cm->sql_allow_deletes)
        sluice_codefacts_violate(
            f, "sql_allow_deletes", 0, 0, "code mode is read-only here; ask an administrator",
            "%s statements are not allowed: deletes are disabled", f->statement_kind);
    if (needs_where && cm->sql_require_where_on_writes && !sluice_sql_ext(f)->has_where)
        sluice_codefacts_violate(f, "sql_require_where_on_writes", 0, 0,
                                 "add a WHERE clause naming the rows to change",
                                 "%s without WHERE would touch every row", f->statement_kind);
}

static void check_write(sluice_sql_ctx *ctx)
{
    const sluice_config_code_mode *cm = ctx->cm;
    sluice_codefacts *f = ctx->facts;
    bool has_where, has_returning;
    write_facts(ctx, &has_where, &has_returning);
    sluice_sql_ext(f)->has_where = has_where;
    sluice_sql_change_rules(f, cm,
                            ctx->type == DUCKDB_STATEMENT_TYPE_UPDATE ||
                                ctx->type == DUCKDB_STATEMENT_TYPE_DELETE);
    if (has_returning)
        sluice_codefacts_violate(f, "statement_not_allowed", 0, 0,
                                 "remove RETURNING and read the rows with a SELECT",
                                 "RETURNING is not analyzed for blocked fields; the statement "
                                 "is refused");
}

static void check_admin(sluice_sql_ctx *ctx)
{
    sluice_codefacts *f = ctx->facts;
    if (!is_ddl(ctx->type)) {
        sluice_codefacts_violate(f, "statement_not_allowed", 0, 0,
                                 "code mode runs SELECT (and, where configured, INSERT, UPDATE, "
                                 "DELETE and DDL) only",
                                 "%s statements are never allowed in code mode", f->statement_kind);
        return;
    }
    if (!ctx->cm->sql_allow_ddl)
        sluice_codefacts_violate(f, "sql_allow_ddl", 0, 0, "ask an administrator",
                                 "%s statements are not allowed: DDL is disabled",
                                 f->statement_kind);
}

sluice_status sluice_sql_rules_apply(sluice_sql_ctx *ctx)
{
    switch (ctx->facts->action) {
    case SLUICE_ACTION_READ:
        check_read(ctx);
        break;
    case SLUICE_ACTION_WRITE:
    case SLUICE_ACTION_DELETE:
        check_write(ctx);
        break;
    case SLUICE_ACTION_ADMIN:
        check_admin(ctx);
        break;
    }
    check_tables(ctx, &ctx->facts->resources_read);
    check_tables(ctx, &ctx->facts->resources_written);
    return SLUICE_OK;
}
