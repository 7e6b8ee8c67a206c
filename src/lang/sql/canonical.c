/*
 * canonical.c — the canonical form of one SQL statement and its SHA-256 (the code hash the
 * approval token binds).
 *
 * Two forms, each prefixed with its name so they can never collide:
 *   "sql/tree/1\n"   + DuckDB's parse tree (json_serialize_sql) with every "query_location"
 *                      removed — for SELECT. Whitespace, comments and keyword case are not in
 *                      the tree; every literal is, exactly (the text is DuckDB's own, so big
 *                      integers are not rounded).
 *   "sql/tokens/1\n" + the token stream (lexer.c) with comments and whitespace dropped, unquoted
 *                      words lower-cased, everything else verbatim, tokens joined by one space,
 *                      trailing ';' dropped — for every other statement (sqlite3Normalize
 *                      without the literal masking). These are refused unless config allows them.
 * Does not own: deciding what the statement is (statement.c).
 */
#include "core/buf.h"
#include "core/hash.h"
#include "lang/sql/internal.h"

#include <ctype.h>
#include <string.h>

static const char key_location[] = "\"query_location\":";

/* Copies DuckDB's compact JSON (n bytes) into out, which has room for n, dropping
 * "query_location":<n> members; returns the bytes written. The scan tracks string state, so the
 * key can only match as a member name, never inside a string value. Dropping never lengthens
 * the text, so the copy is written straight into one allocation, not grown. The bind unit
 * writes the parse tree's text without them in the first place (exec/duckdb_plan.cpp); this is
 * for the query's text on the C API route. */
static size_t strip_locations(char *out, const char *raw, size_t n)
{
    size_t len = 0, klen = sizeof(key_location) - 1;
    bool in_string = false;
    for (size_t i = 0; i < n; i++) {
        char c = raw[i];
        if (in_string) {
            out[len++] = c;
            if (c == '\\' && i + 1 < n)
                out[len++] = raw[++i];
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"' && strncmp(raw + i, key_location, klen) == 0) {
            i += klen;
            while (i < n && (isdigit((unsigned char)raw[i]) || raw[i] == '-'))
                i++;
            if (i < n && raw[i] == ',')
                continue; /* member followed by another: drop its comma too */
            if (len > 0 && out[len - 1] == ',')
                len--; /* last member: drop the comma before it */
            i--;
            continue;
        }
        if (c == '"')
            in_string = true;
        out[len++] = c;
    }
    return len;
}

static void token_form(sluice_buf *b, const char *t, size_t len)
{
    size_t p = 0, mark = 0;
    while (p < len) {
        sluice_sql_token k;
        size_t n = sluice_sql_lex(t, len, p, &k);
        if (n == 0)
            break;
        if (k != SLUICE_SQL_TK_SPACE && k != SLUICE_SQL_TK_COMMENT) {
            if (b->len > 0 && b->data[b->len - 1] != '\n')
                sluice_buf_putc(b, ' ');
            for (size_t i = 0; i < n; i++) {
                char c = t[p + i];
                sluice_buf_putc(b, k == SLUICE_SQL_TK_WORD ? (char)tolower((unsigned char)c) : c);
            }
            if (k != SLUICE_SQL_TK_SEMI)
                mark = b->len;
        }
        p += n;
    }
    /* drop trailing ';' tokens (and the spaces before them) */
    if (b->data != NULL && b->len > mark) {
        b->len = mark;
        b->data[mark] = '\0';
    }
}

const char *sluice_sql_strip_locations(sluice_arena *arena, const char *raw)
{
    size_t n = strlen(raw);
    char *out = sluice_arena_alloc(arena, n + 1);
    if (out != NULL)
        out[strip_locations(out, raw, n)] = '\0';
    return out;
}

/* "sql/tree/1\n" + the parse tree's text without locations, in the arena (NULL: no memory). */
static const char *tree_form(sluice_sql_ctx *ctx, size_t *len)
{
    static const char head[] = "sql/tree/1\n";
    size_t n = strlen(ctx->parse_tree_text), h = sizeof(head) - 1;
    char *out = sluice_arena_alloc(ctx->arena, h + n + 1);
    if (out == NULL)
        return NULL;
    memcpy(out, head, h);
    memcpy(out + h, ctx->parse_tree_text, n + 1);
    *len = h + n;
    return out;
}

sluice_status sluice_sql_canonicalize(sluice_sql_ctx *ctx)
{
    const char *form = NULL;
    size_t len = 0;
    if (ctx->parse_tree_text != NULL && ctx->parse_tree != NULL &&
        sluice_tree_kind_of(sluice_tree_get(ctx->parse_tree, "error")) == SLUICE_TREE_FALSE) {
        form = tree_form(ctx, &len);
        if (form == NULL)
            return SLUICE_E_NOMEM;
    } else {
        sluice_buf b;
        sluice_buf_init(&b, ctx->arena, 0);
        sluice_buf_puts(&b, "sql/tokens/1\n");
        token_form(&b, ctx->code, ctx->code_len);
        if (sluice_buf_status(&b) != SLUICE_OK)
            return sluice_buf_status(&b);
        form = sluice_buf_cstr(&b);
        len = b.len;
    }
    uint8_t digest[SLUICE_HASH_BYTES];
    sluice_hash_sha256(form, len, digest);
    sluice_hash_hex(digest, sizeof digest, ctx->facts->code_hash);
    ctx->facts->canonical = form;
    return SLUICE_OK;
}
