/*
 * statement.c — exactly one statement: split, prepare (bind, never execute), classify.
 *
 * Owns: the statement-count rule, syntax errors with line and column, the statement type →
 * action map (an allowlist: an enum value we do not name is refused), and the helper that asks
 * DuckDB to serialize the statement's parse tree or bound plan as JSON.
 * Does not own: what a SELECT reads (parsetree.c, plan_walk.c) or the config rules (rules.c).
 */
#include "core/error.h"
#include "exec/executor.h"
#include "lang/sql/internal.h"

#include <ctype.h>
#include <string.h>

/* Statement types by DuckDB enum value (duckdb.h 1.4.4 names; 28-30 from the 1.5 library). */
typedef struct stmt_class {
    const char *kind;
    sluice_action action;
} stmt_class;

static const stmt_class stmt_classes[] = {
    [DUCKDB_STATEMENT_TYPE_SELECT] = { "SELECT", SLUICE_ACTION_READ },
    [DUCKDB_STATEMENT_TYPE_INSERT] = { "INSERT", SLUICE_ACTION_WRITE },
    [DUCKDB_STATEMENT_TYPE_UPDATE] = { "UPDATE", SLUICE_ACTION_WRITE },
    [DUCKDB_STATEMENT_TYPE_EXPLAIN] = { "EXPLAIN", SLUICE_ACTION_ADMIN },
    [DUCKDB_STATEMENT_TYPE_DELETE] = { "DELETE", SLUICE_ACTION_DELETE },
    [DUCKDB_STATEMENT_TYPE_PREPARE] = { "PREPARE", SLUICE_ACTION_ADMIN },
    [DUCKDB_STATEMENT_TYPE_CREATE] = { "CREATE", SLUICE_ACTION_ADMIN },
    [DUCKDB_STATEMENT_TYPE_EXECUTE] = { "EXECUTE", SLUICE_ACTION_ADMIN },
    [DUCKDB_STATEMENT_TYPE_ALTER] = { "ALTER", SLUICE_ACTION_ADMIN },
    [DUCKDB_STATEMENT_TYPE_TRANSACTION] = { "TRANSACTION", SLUICE_ACTION_ADMIN },
    [DUCKDB_STATEMENT_TYPE_COPY] = { "COPY", SLUICE_ACTION_ADMIN },
    [DUCKDB_STATEMENT_TYPE_ANALYZE] = { "ANALYZE", SLUICE_ACTION_ADMIN },
    [DUCKDB_STATEMENT_TYPE_VARIABLE_SET] = { "SET VARIABLE", SLUICE_ACTION_ADMIN },
    [DUCKDB_STATEMENT_TYPE_CREATE_FUNC] = { "CREATE FUNCTION", SLUICE_ACTION_ADMIN },
    [DUCKDB_STATEMENT_TYPE_DROP] = { "DROP", SLUICE_ACTION_ADMIN },
    [DUCKDB_STATEMENT_TYPE_EXPORT] = { "EXPORT", SLUICE_ACTION_ADMIN },
    [DUCKDB_STATEMENT_TYPE_PRAGMA] = { "PRAGMA", SLUICE_ACTION_ADMIN },
    [DUCKDB_STATEMENT_TYPE_VACUUM] = { "VACUUM", SLUICE_ACTION_ADMIN },
    [DUCKDB_STATEMENT_TYPE_CALL] = { "CALL", SLUICE_ACTION_ADMIN },
    [DUCKDB_STATEMENT_TYPE_SET] = { "SET", SLUICE_ACTION_ADMIN },
    [DUCKDB_STATEMENT_TYPE_LOAD] = { "LOAD", SLUICE_ACTION_ADMIN },
    [DUCKDB_STATEMENT_TYPE_RELATION] = { "RELATION", SLUICE_ACTION_ADMIN },
    [DUCKDB_STATEMENT_TYPE_EXTENSION] = { "EXTENSION", SLUICE_ACTION_ADMIN },
    [DUCKDB_STATEMENT_TYPE_LOGICAL_PLAN] = { "LOGICAL_PLAN", SLUICE_ACTION_ADMIN },
    [DUCKDB_STATEMENT_TYPE_ATTACH] = { "ATTACH", SLUICE_ACTION_ADMIN },
    [DUCKDB_STATEMENT_TYPE_DETACH] = { "DETACH", SLUICE_ACTION_ADMIN },
    [28] = { "COPY DATABASE", SLUICE_ACTION_ADMIN },
    [29] = { "UPDATE EXTENSIONS", SLUICE_ACTION_ADMIN },
    [30] = { "MERGE", SLUICE_ACTION_WRITE },
};

/* When prepare fails (COPY and EXPORT already fail there with external access off; a missing
 * table fails any statement) the kind comes from the first keyword, so the message and the
 * action still say what the statement was. */
typedef struct keyword_class {
    const char *word;
    const char *kind;
    sluice_action action;
} keyword_class;

static const keyword_class keyword_classes[] = {
    { "select", "SELECT", SLUICE_ACTION_READ },     { "with", "SELECT", SLUICE_ACTION_READ },
    { "from", "SELECT", SLUICE_ACTION_READ },       { "values", "SELECT", SLUICE_ACTION_READ },
    { "table", "SELECT", SLUICE_ACTION_READ },      { "insert", "INSERT", SLUICE_ACTION_WRITE },
    { "update", "UPDATE", SLUICE_ACTION_WRITE },    { "merge", "MERGE", SLUICE_ACTION_WRITE },
    { "upsert", "INSERT", SLUICE_ACTION_WRITE },    { "delete", "DELETE", SLUICE_ACTION_DELETE },
    { "truncate", "DELETE", SLUICE_ACTION_DELETE },
};

static const char *first_word(sluice_sql_ctx *ctx)
{
    size_t p = 0;
    while (p < ctx->code_len) {
        sluice_sql_token k;
        size_t n = sluice_sql_lex(ctx->code, ctx->code_len, p, &k);
        if (n == 0)
            break;
        if (k == SLUICE_SQL_TK_WORD) {
            char *w = sluice_arena_strndup(ctx->arena, ctx->code + p, n);
            for (char *c = w; c != NULL && *c != '\0'; c++)
                *c = (char)tolower((unsigned char)*c);
            return w;
        }
        if (k != SLUICE_SQL_TK_SPACE && k != SLUICE_SQL_TK_COMMENT && k != SLUICE_SQL_TK_OTHER)
            break;
        p += n;
    }
    return NULL;
}

static void classify_by_keyword(sluice_sql_ctx *ctx)
{
    const char *w = first_word(ctx);
    ctx->facts->action = SLUICE_ACTION_ADMIN;
    ctx->facts->statement_kind = "UNKNOWN";
    if (w == NULL)
        return;
    for (size_t i = 0; i < sizeof(keyword_classes) / sizeof(keyword_classes[0]); i++)
        if (strcmp(w, keyword_classes[i].word) == 0) {
            ctx->facts->statement_kind = keyword_classes[i].kind;
            ctx->facts->action = keyword_classes[i].action;
            return;
        }
    char *kind = sluice_arena_strdup(ctx->arena, w);
    for (char *c = kind; c != NULL && *c != '\0'; c++)
        *c = (char)toupper((unsigned char)*c);
    ctx->facts->statement_kind = kind != NULL ? kind : "UNKNOWN";
}

static void json_decref_cleanup(void *p)
{
    json_decref(p);
}

/* DuckDB's messages start with the error class ("Parser Error: ..."); the first line is the
 * part meant for a reader (the rest is a caret block we replace with line/column). */
static const char *first_line(sluice_arena *arena, const char *msg)
{
    if (msg == NULL)
        return "unknown error";
    const char *nl = strchr(msg, '\n');
    return nl == NULL ? msg : sluice_arena_strndup(arena, msg, (size_t)(nl - msg));
}

json_t *sluice_sql_serialize(sluice_sql_ctx *ctx, const char *fn, const char **raw)
{
    bool plan = strcmp(fn, "json_serialize_plan") == 0;
    /* The bind unit gives the very value without the query (issue 23); built without it, the
     * query runs as before. */
    json_t *doc = NULL;
    sluice_error unit_err;
    sluice_error_clear(&unit_err);
    sluice_status unit = sluice_executor_bind_tree(ctx->conn, ctx->code,
                                                   plan ? SLUICE_BIND_PLAN : SLUICE_BIND_PARSE_TREE,
                                                   ctx->arena, &doc, raw, &unit_err);
    if (unit == SLUICE_OK)
        return doc;
    if (unit != SLUICE_E_UNSUPPORTED) {
        ctx->facts->incomplete = true; /* as when json_loads refuses the query's text */
        return NULL;
    }
    char *q = sluice_arena_printf(
        ctx->arena, "SELECT %s($1::VARCHAR, skip_null := true, skip_empty := true)", fn);
    duckdb_prepared_statement ps = NULL;
    duckdb_result res;
    json_t *out = NULL;
    bool was_incomplete = ctx->facts->incomplete;
    ctx->facts->incomplete = true; /* until a document is in hand (fail closed) */
    if (q == NULL)
        return NULL;
    if (duckdb_prepare(ctx->conn, q, &ps) == DuckDBError) {
        sluice_codefacts_violate(ctx->facts, "internal", 0, 0, NULL,
                                 "the analyzer could not run %s: %s", fn,
                                 first_line(ctx->arena, duckdb_prepare_error(ps)));
        duckdb_destroy_prepare(&ps);
        return NULL;
    }
    duckdb_bind_varchar(ps, 1, ctx->code);
    if (duckdb_execute_prepared(ps, &res) == DuckDBError) {
        sluice_codefacts_violate(ctx->facts, "internal", 0, 0, NULL,
                                 "the analyzer could not run %s: %s", fn,
                                 first_line(ctx->arena, duckdb_result_error(&res)));
    } else if (duckdb_row_count(&res) == 1) {
        char *text = duckdb_value_varchar(&res, 0, 0);
        json_error_t jerr;
        if (text != NULL)
            out = json_loads(text, JSON_DECODE_INT_AS_REAL, &jerr);
        if (raw != NULL && text != NULL)
            *raw = sluice_arena_strdup(ctx->arena, text);
        duckdb_free(text);
        if (out != NULL && sluice_arena_cleanup_add(ctx->arena, json_decref_cleanup, out) != 0)
            out = NULL;
        if (out != NULL && (raw == NULL || *raw != NULL))
            ctx->facts->incomplete = was_incomplete;
    }
    duckdb_destroy_result(&res);
    duckdb_destroy_prepare(&ps);
    return out;
}

/* A value of the one parse or bind; NULL (the analysis then fails closed) when JSON could not
 * hold it, as when json_loads refuses the query's text. */
static const sluice_tree *bound_value(sluice_sql_ctx *ctx, const sluice_tree *v)
{
    if (v == NULL)
        ctx->facts->incomplete = true;
    return v;
}

/* sluice_sql_serialize's value copied into the arena tree once, so both routes feed the same
 * readers. */
static const sluice_tree *queried_tree(sluice_sql_ctx *ctx, const char *fn, const char **raw)
{
    json_t *doc = sluice_sql_serialize(ctx, fn, raw);
    sluice_tree *tree = NULL;
    if (doc != NULL && sluice_tree_from_json(ctx->arena, doc, &tree) != SLUICE_OK)
        ctx->facts->incomplete = true; /* as when json_loads refuses the query's text */
    return tree;
}

const sluice_tree *sluice_sql_serialize_sql(sluice_sql_ctx *ctx, const char **text)
{
    if (ctx->bound != NULL) {
        if (text != NULL && ctx->bound->parse_tree != NULL)
            *text = ctx->bound->parse_tree_text;
        return bound_value(ctx, ctx->bound->parse_tree);
    }
    const char *raw = NULL;
    const sluice_tree *tree = queried_tree(ctx, "json_serialize_sql", text != NULL ? &raw : NULL);
    if (raw != NULL && (*text = sluice_sql_strip_locations(ctx->arena, raw)) == NULL)
        ctx->facts->incomplete = true; /* out of memory: fail closed */
    return tree;
}

const sluice_tree *sluice_sql_serialize_plan(sluice_sql_ctx *ctx)
{
    if (ctx->bound != NULL && ctx->bound->planned)
        return bound_value(ctx, ctx->bound->plan);
    return queried_tree(ctx, "json_serialize_plan", NULL);
}

/* A syntax error: DuckDB's parser message, placed by the byte offset json_serialize_sql reports
 * ("position"), which the caret text of duckdb_extract_statements_error lacks. */
static void syntax_violation(sluice_sql_ctx *ctx, const char *extract_error)
{
    size_t line = 0, column = 0;
    const char *msg = NULL;
    const sluice_tree *tree = sluice_sql_serialize_sql(ctx, NULL);
    if (tree != NULL && sluice_tree_is_true(sluice_tree_get(tree, "error"))) {
        msg = sluice_tree_string_value(sluice_tree_get(tree, "error_message"));
        const char *pos = sluice_tree_string_value(sluice_tree_get(tree, "position"));
        if (pos != NULL) {
            char *end;
            unsigned long long off = strtoull(pos, &end, 10);
            if (*end == '\0' && off <= ctx->code_len)
                sluice_error_locate(ctx->code, ctx->code_len, (size_t)off, &line, &column);
        }
    }
    if (msg == NULL) {
        msg = first_line(ctx->arena, extract_error);
        if (strncmp(msg, "Parser Error: ", 14) == 0)
            msg += 14;
    }
    sluice_codefacts_violate(ctx->facts, "syntax_error", line, column,
                             "fix the SQL syntax at the position shown; one statement, DuckDB "
                             "dialect",
                             "%s", msg);
}

static void count_violation(sluice_sql_ctx *ctx, size_t count)
{
    size_t off = sluice_sql_second_statement(ctx->code, ctx->code_len);
    size_t line = 0, column = 0;
    if (off < ctx->code_len)
        sluice_error_locate(ctx->code, ctx->code_len, off, &line, &column);
    if (line > 0)
        sluice_codefacts_violate(ctx->facts, "multiple_statements", line, column,
                                 "send one statement per validate_code call",
                                 "exactly one statement is allowed; found %zu (the second "
                                 "starts at line %zu, column %zu)",
                                 count, line, column);
    else
        sluice_codefacts_violate(ctx->facts, "multiple_statements", 0, 0,
                                 "send one statement per validate_code call",
                                 "exactly one statement is allowed; found %zu", count);
}

/* The C API's type t. DuckDB 1.4's C API says INVALID for the types it has no C value for; the
 * unit names those (name: DuckDB's own, NULL when unknown), and the three DuckDB has are given
 * the values DuckDB 1.5's C API gives them (stmt_classes 28-30). Any other INVALID stays so and
 * is refused by classify. */
static duckdb_statement_type statement_type(duckdb_statement_type t, const char *name)
{
    static const struct {
        const char *name;
        int type;
    } named[] = { { "COPY_DATABASE_STATEMENT", 28 },
                  { "UPDATE_EXTENSIONS_STATEMENT", 29 },
                  { "MERGE_INTO_STATEMENT", 30 } };
    if (t != DUCKDB_STATEMENT_TYPE_INVALID)
        return t;
    for (size_t i = 0; name != NULL && i < sizeof(named) / sizeof(named[0]); i++)
        if (strcmp(name, named[i].name) == 0)
            return (duckdb_statement_type)named[i].type;
    return t;
}

static bool classify(sluice_sql_ctx *ctx, duckdb_statement_type type)
{
    size_t n = sizeof(stmt_classes) / sizeof(stmt_classes[0]);
    if ((size_t)type >= n || stmt_classes[type].kind == NULL) {
        ctx->facts->action = SLUICE_ACTION_ADMIN;
        ctx->facts->statement_kind = "UNKNOWN";
        sluice_codefacts_violate(ctx->facts, "unsupported_statement", 0, 0, NULL,
                                 "statement type %d is not known to sluice; the statement is "
                                 "refused",
                                 (int)type);
        return false;
    }
    ctx->type = type;
    ctx->facts->statement_kind = stmt_classes[type].kind;
    ctx->facts->action = stmt_classes[type].action;
    return true;
}

/* What the statement count means: exactly one goes on; otherwise the violation. error: the
 * parser's, when it found none. */
static void count_statements(sluice_sql_ctx *ctx, size_t n, const char *error)
{
    if (n == 1) {
        ctx->single = true;
    } else if (n > 1) {
        classify_by_keyword(ctx);
        count_violation(ctx, n);
    } else if (error != NULL) {
        syntax_violation(ctx, error);
    } else {
        sluice_codefacts_violate(ctx->facts, "empty_statement", 0, 0, "send one SQL statement",
                                 "no SQL statement was found");
    }
}

/* The unit's status: memory fails the analysis; anything else it cannot do leaves the facts
 * incomplete (nothing is approved). */
static sluice_status unit_failed(sluice_sql_ctx *ctx, sluice_status st)
{
    if (st == SLUICE_E_NOMEM)
        return st;
    ctx->facts->incomplete = true;
    return SLUICE_OK;
}

sluice_status sluice_sql_statement_extract(sluice_sql_ctx *ctx, duckdb_extracted_statements *out)
{
    *out = NULL;
    bool fits;
    sluice_status bounded = sluice_sql_bounds_parse(ctx, &fits);
    if (bounded != SLUICE_OK || !fits)
        return bounded; /* refused: nothing is parsed, so no stage after this one runs */
    sluice_error unit_err;
    sluice_error_clear(&unit_err);
    sluice_status unit =
        sluice_executor_bind_parse(ctx->conn, ctx->code, ctx->arena, &ctx->bound, &unit_err);
    if (unit == SLUICE_OK) {
        count_statements(ctx, ctx->bound->statement_count, ctx->bound->parse_error);
        return SLUICE_OK;
    }
    ctx->bound = NULL;
    if (unit != SLUICE_E_UNSUPPORTED)
        return unit_failed(ctx, unit);
    duckdb_extracted_statements ex = NULL;
    idx_t n = duckdb_extract_statements(ctx->conn, ctx->code, &ex);
    count_statements(ctx, (size_t)n, n == 0 ? duckdb_extract_statements_error(ex) : NULL);
    if (n == 1)
        *out = ex;
    else
        duckdb_destroy_extracted(&ex);
    return SLUICE_OK;
}

/* The one bind through the unit: DuckDB's refusal or the statement's type. */
static sluice_status bind_once(sluice_sql_ctx *ctx)
{
    sluice_bound_statement *b = ctx->bound;
    sluice_error unit_err;
    sluice_error_clear(&unit_err);
    sluice_status st = sluice_executor_bind_plan(ctx->conn, b, ctx->arena, &unit_err);
    if (st != SLUICE_OK)
        return unit_failed(ctx, st);
    if (b->bind_error != NULL) {
        classify_by_keyword(ctx);
        sluice_sql_bind_violation(ctx, b->bind_error);
        return SLUICE_OK;
    }
    if (!classify(ctx, statement_type((duckdb_statement_type)b->statement_type, b->statement_name)))
        return SLUICE_OK;
    ctx->result_columns = b->column_count;
    ctx->statement_bound = true;
    return SLUICE_OK;
}

sluice_status sluice_sql_statement_bind(sluice_sql_ctx *ctx,
                                        duckdb_extracted_statements ex,
                                        duckdb_prepared_statement *prepared)
{
    *prepared = NULL;
    if (ctx->bound != NULL)
        return bind_once(ctx);
    duckdb_prepared_statement ps = NULL;
    if (duckdb_prepare_extracted_statement(ctx->conn, ex, 0, &ps) == DuckDBError) {
        classify_by_keyword(ctx);
        sluice_sql_bind_violation(ctx, duckdb_prepare_error(ps));
        duckdb_destroy_prepare(&ps);
        return SLUICE_OK;
    }
    duckdb_statement_type t = duckdb_prepared_statement_type(ps);
    if (!classify(ctx, statement_type(t, t == DUCKDB_STATEMENT_TYPE_INVALID
                                             ? sluice_executor_bind_statement_kind(ps)
                                             : NULL))) {
        duckdb_destroy_prepare(&ps);
        return SLUICE_OK;
    }
    ctx->result_columns = (size_t)duckdb_prepared_statement_column_count(ps);
    ctx->statement_bound = true;
    *prepared = ps;
    return SLUICE_OK;
}

/* A string of DuckDB's malloc (NULL when none) copied into the arena and freed: "" for none
 * when none is "". */
static const char *take(sluice_sql_ctx *ctx, const char *s, const char *none)
{
    const char *out = s != NULL ? sluice_arena_strdup(ctx->arena, s) : none;
    duckdb_free((void *)s);
    return out;
}

size_t sluice_sql_param_count(const sluice_sql_ctx *ctx, duckdb_prepared_statement ps)
{
    return ctx->bound != NULL ? ctx->bound->param_count : (size_t)duckdb_nparams(ps);
}

const char *sluice_sql_param_name(sluice_sql_ctx *ctx, duckdb_prepared_statement ps, size_t i)
{
    if (ctx->bound == NULL)
        return take(ctx, duckdb_parameter_name(ps, i), "");
    const char *name =
        i >= 1 && i <= ctx->bound->param_count ? ctx->bound->param_names[i - 1] : NULL;
    return name != NULL ? name : "";
}

duckdb_type sluice_sql_param_type(const sluice_sql_ctx *ctx, duckdb_prepared_statement ps, size_t i)
{
    if (ctx->bound == NULL)
        return duckdb_param_type(ps, i);
    return i >= 1 && i <= ctx->bound->param_count ? (duckdb_type)ctx->bound->param_types[i - 1]
                                                  : DUCKDB_TYPE_INVALID;
}

const char *sluice_sql_column_name(sluice_sql_ctx *ctx, duckdb_prepared_statement ps, size_t i)
{
    if (ctx->bound == NULL)
        return take(ctx, duckdb_prepared_statement_column_name(ps, i), NULL);
    return i < ctx->bound->column_count ? ctx->bound->column_names[i] : NULL;
}

duckdb_type
sluice_sql_column_type(const sluice_sql_ctx *ctx, duckdb_prepared_statement ps, size_t i)
{
    if (ctx->bound == NULL)
        return duckdb_prepared_statement_column_type(ps, i);
    return i < ctx->bound->column_count ? (duckdb_type)ctx->bound->column_types[i]
                                        : DUCKDB_TYPE_INVALID;
}
