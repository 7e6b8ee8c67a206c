/*
 * parse.c — PostgreSQL's own parser (libpg_query) for the analyzer: the JSON parse tree,
 * exactly one statement, the statement kind and action, the canonical form and hash, and the
 * small node helpers the other stages use.
 *
 * Does not own: name resolution (query.c, expr.c).
 */
#include "core/hash.h"
#include "lang/pgsql/internal.h"
#include "lang/sql/lexer.h"

#include <ctype.h>
#include <pg_query.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Keywords that build a deeper tree node around what precedes or follows them. */
static bool deepening_keyword(const char *t, size_t n)
{
    static const char *const words[] = {
        "and",   "or",        "not",     "is",   "isnull",   "notnull", "like",
        "ilike", "similar",   "between", "in",   "collate",  "at",      "case",
        "union", "intersect", "except",  "join", "overlaps", "escape",
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i]) == n && strncasecmp(t, words[i], n) == 0)
            return true;
    return false;
}

/* A violation at byte offset at. */
static void
violate_at(pg_ctx *c, size_t at, const char *rule, const char *suggestion, const char *message)
{
    size_t line = 0, column = 0;
    sluice_error_locate(c->code, c->code_len, at, &line, &column);
    if (sluice_codefacts_violate(c->facts, rule, line, column, suggestion, "%s", message) !=
        SLUICE_OK)
        c->nomem = true;
}

/* The token-level bound on what libpg_query may see (see SLUICE_PGSQL_MAX_OPERATORS): false,
 * with a violation naming the limit and where it was passed, when the text is over it. Cheap:
 * one pass, nothing allocated. */
static bool within_parse_bounds(pg_ctx *c, const char *text, size_t len)
{
    size_t nesting = 0, operators = 0, tokens = 0;
    char message[160];
    for (size_t p = 0; p < len;) {
        sluice_sql_token kind;
        size_t n = sluice_sql_lex(text, len, p, &kind);
        if (n == 0)
            break;
        char ch = text[p];
        if (kind != SLUICE_SQL_TK_SPACE && kind != SLUICE_SQL_TK_COMMENT &&
            ++tokens > SLUICE_PGSQL_MAX_TOKENS) {
            snprintf(message, sizeof message, "the SQL has more than %u tokens (limit is %u)",
                     SLUICE_PGSQL_MAX_TOKENS, SLUICE_PGSQL_MAX_TOKENS);
            violate_at(c, p, "too_complex",
                       "shorten the statement: fewer list items (a long IN list can be a join "
                       "with a table), or split the question into smaller queries",
                       message);
            return false;
        }
        if (kind == SLUICE_SQL_TK_OTHER && (ch == '(' || ch == '[') &&
            ++nesting > SLUICE_PGSQL_MAX_NESTING) {
            snprintf(message, sizeof message,
                     "the SQL nests brackets more than %u levels deep (limit is %u)",
                     SLUICE_PGSQL_MAX_NESTING, SLUICE_PGSQL_MAX_NESTING);
            violate_at(c, p, "too_complex", "flatten the query: use a CTE for a nested part",
                       message);
            return false;
        }
        if (kind == SLUICE_SQL_TK_OTHER && (ch == ')' || ch == ']') && nesting > 0)
            nesting--;
        bool deepens = (kind == SLUICE_SQL_TK_OTHER && strchr("(),[];.", ch) == NULL) ||
                       (kind == SLUICE_SQL_TK_WORD && deepening_keyword(text + p, n));
        if (deepens && ++operators > SLUICE_PGSQL_MAX_OPERATORS) {
            snprintf(message, sizeof message,
                     "the SQL has more than %u operators and nesting keywords (limit is %u)",
                     SLUICE_PGSQL_MAX_OPERATORS, SLUICE_PGSQL_MAX_OPERATORS);
            violate_at(c, p, "too_complex", "split the question into smaller queries", message);
            return false;
        }
        p += n;
    }
    return true;
}

static void tree_release(void *p)
{
    json_decref(p);
}

sluice_status sluice_pgsql_parse(pg_ctx *c, const char *text, json_t **tree)
{
    *tree = NULL;
    if (!within_parse_bounds(c, text, strlen(text)))
        return c->nomem ? SLUICE_E_NOMEM : SLUICE_OK;
    PgQueryParseResult r = pg_query_parse(text);
    sluice_status st = SLUICE_OK;
    if (r.error != NULL) {
        size_t line = 0, column = 0;
        size_t pos = r.error->cursorpos > 0 ? (size_t)r.error->cursorpos - 1 : 0;
        if (pos > c->code_len)
            pos = c->code_len;
        sluice_error_locate(c->code, c->code_len, pos, &line, &column);
        st = sluice_codefacts_violate(c->facts, "syntax_error", line, column,
                                      "write one PostgreSQL SELECT statement",
                                      "PostgreSQL cannot parse the SQL: %s", r.error->message);
    } else {
        json_error_t jerr;
        *tree = json_loads(r.parse_tree, 0, &jerr);
        if (*tree == NULL && json_error_code(&jerr) == json_error_stack_overflow) {
            char message[160];
            snprintf(message, sizeof message,
                     "the SQL nests deeper than its parse tree may (%d levels of JSON)",
                     JSON_PARSER_MAX_DEPTH);
            violate_at(c, 0, "too_complex", "split the question into smaller queries", message);
        } else if (*tree == NULL ||
                   sluice_arena_cleanup_add(c->arena, tree_release, *tree) != SLUICE_OK) {
            /* cleanup_add releases the tree itself when it fails */
            *tree = NULL;
            st = SLUICE_E_NOMEM;
        }
    }
    pg_query_free_parse_result(r);
    return st;
}

json_t *sluice_pgsql_single_statement(pg_ctx *c, json_t *tree)
{
    json_t *stmts = json_object_get(tree, "stmts");
    size_t n = json_is_array(stmts) ? json_array_size(stmts) : 0;
    if (n == 0) {
        sluice_codefacts_violate(c->facts, "empty_statement", 0, 0, "write one SELECT statement",
                                 "the SQL holds no statement");
        return NULL;
    }
    if (n > 1) {
        json_t *second = json_array_get(stmts, 1);
        size_t line = 0, column = 0;
        json_int_t at = json_integer_value(json_object_get(second, "stmt_location"));
        sluice_error_locate(c->code, c->code_len, (size_t)at, &line, &column);
        sluice_codefacts_violate(c->facts, "multiple_statements", line, column,
                                 "send one statement per call",
                                 "the SQL holds %zu statements; exactly one is allowed", n);
        return NULL;
    }
    return json_object_get(json_array_get(stmts, 0), "stmt");
}

/* "DeleteStmt" -> "DELETE", "VariableSetStmt" -> "SET" ... */
static const char *kind_name(pg_ctx *c, const char *type)
{
    static const struct {
        const char *type;
        const char *kind;
    } names[] = {
        { "VariableSetStmt", "SET" },
        { "VariableShowStmt", "SHOW" },
        { "TransactionStmt", "TRANSACTION" },
        { "ExplainStmt", "EXPLAIN" },
        { "CreateTableAsStmt", "CREATE" },
        { "CreateStmt", "CREATE" },
        { "DropStmt", "DROP" },
        { "CopyStmt", "COPY" },
        { "DoStmt", "DO" },
        { "CallStmt", "CALL" },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(type, names[i].type) == 0)
            return names[i].kind;
    size_t n = strlen(type);
    if (n > 4 && strcmp(type + n - 4, "Stmt") == 0)
        n -= 4;
    char *k = sluice_arena_strndup(c->arena, type, n);
    if (k == NULL) {
        c->nomem = true;
        return "UNKNOWN";
    }
    for (char *p = k; *p != '\0'; p++)
        *p = (char)toupper((unsigned char)*p);
    return k;
}

void sluice_pgsql_classify(pg_ctx *c, json_t *stmt)
{
    const char *type = sluice_pgsql_node_type(stmt);
    sluice_codefacts *f = c->facts;
    if (type == NULL)
        type = "Unknown";
    f->statement_kind = kind_name(c, type);
    if (strcmp(type, "SelectStmt") == 0)
        f->action = SLUICE_ACTION_READ;
    else if (strcmp(type, "InsertStmt") == 0 || strcmp(type, "UpdateStmt") == 0 ||
             strcmp(type, "MergeStmt") == 0)
        f->action = SLUICE_ACTION_WRITE;
    else if (strcmp(type, "DeleteStmt") == 0 || strcmp(type, "TruncateStmt") == 0)
        f->action = SLUICE_ACTION_DELETE;
    else
        f->action = SLUICE_ACTION_ADMIN;
}

/* Drops every "location" key (and libpg_query's statement offsets) so only the SQL's
 * meaning remains. */
static void strip_locations(json_t *node)
{
    if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++)
            strip_locations(json_array_get(node, i));
        return;
    }
    if (!json_is_object(node))
        return;
    json_object_del(node, "location");
    json_object_del(node, "stmt_location");
    json_object_del(node, "stmt_len");
    const char *key;
    json_t *v;
    json_object_foreach(node, key, v) strip_locations(v);
}

sluice_status sluice_pgsql_canonicalize(pg_ctx *c, json_t *tree)
{
    json_t *copy = json_deep_copy(tree);
    if (copy == NULL)
        return SLUICE_E_NOMEM;
    strip_locations(copy);
    char *text = json_dumps(copy, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(copy);
    if (text == NULL)
        return SLUICE_E_NOMEM;
    c->facts->canonical = sluice_arena_strdup(c->arena, text);
    uint8_t digest[SLUICE_HASH_BYTES];
    sluice_hash_sha256(text, strlen(text), digest);
    free(text);
    if (c->facts->canonical == NULL)
        return SLUICE_E_NOMEM;
    sluice_hash_hex(digest, sizeof digest, c->facts->code_hash);
    return SLUICE_OK;
}

/* ---- node helpers ---- */

const char *sluice_pgsql_node_type(json_t *node)
{
    if (!json_is_object(node) || json_object_size(node) != 1)
        return NULL;
    return json_object_iter_key(json_object_iter(node));
}

json_t *sluice_pgsql_node_body(json_t *node, const char *type)
{
    const char *t = sluice_pgsql_node_type(node);
    return t != NULL && strcmp(t, type) == 0 ? json_object_get(node, type) : NULL;
}

const char *sluice_pgsql_string(json_t *node)
{
    return json_string_value(json_object_get(sluice_pgsql_node_body(node, "String"), "sval"));
}

void sluice_pgsql_violate(
    pg_ctx *c, json_t *body, const char *rule, const char *suggestion, const char *fmt, ...)
{
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    size_t line = 0, column = 0;
    json_t *loc = json_object_get(body, "location");
    if (json_is_integer(loc) && json_integer_value(loc) >= 0)
        sluice_error_locate(c->code, c->code_len, (size_t)json_integer_value(loc), &line, &column);
    if (sluice_codefacts_violate(c->facts, rule, line, column, suggestion, "%s", message) !=
        SLUICE_OK)
        c->nomem = true;
}

void sluice_pgsql_add(pg_ctx *c, sluice_codefacts_list *list, const char *s)
{
    if (s != NULL && sluice_codefacts_list_add(c->facts, list, s) != SLUICE_OK)
        c->nomem = true;
}

void sluice_pgsql_add_all(pg_ctx *c, sluice_codefacts_list *list, const sluice_codefacts_list *from)
{
    for (size_t i = 0; i < from->count; i++)
        sluice_pgsql_add(c, list, from->items[i]);
}
