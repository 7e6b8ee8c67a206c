/*
 * where.c — the `where` filter of `load` (see where.h).
 */
#include "querymode/where.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

typedef struct lexer {
    const char *text;
    const char *p;
    sluice_arena *arena;
    sluice_error *err;
} lexer;

static void skip_space(lexer *lx)
{
    while (isspace((unsigned char)*lx->p))
        lx->p++;
}

static size_t col(const lexer *lx)
{
    return (size_t)(lx->p - lx->text) + 1;
}

static sluice_status expected(lexer *lx, const char *what)
{
    return sluice_error_set(lx->err, lx->arena, SLUICE_E_INVALID,
                            "where, column %zu: expected %s (write it as "
                            "\"Column >= 'value' AND Other = 'value'\")",
                            col(lx), what);
}

static const char *identifier(lexer *lx)
{
    const char *start = lx->p;
    bool quoted = *lx->p == '"';
    if (quoted)
        start = ++lx->p;
    while (isalnum((unsigned char)*lx->p) || *lx->p == '_')
        lx->p++;
    size_t n = (size_t)(lx->p - start);
    if (quoted) {
        if (*lx->p != '"')
            return NULL;
        lx->p++;
    }
    return n > 0 && !isdigit((unsigned char)start[0]) ? sluice_arena_strndup(lx->arena, start, n)
                                                      : NULL;
}

static const char *operator(lexer *lx)
{
    static const char *const ops[] = { ">=", "<=", "=", ">", "<" };
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (strncmp(lx->p, ops[i], strlen(ops[i])) == 0) {
            lx->p += strlen(ops[i]);
            return ops[i];
        }
    return NULL;
}

static const char *string_literal(lexer *lx)
{
    lx->p++; /* the opening quote */
    char *out = sluice_arena_alloc(lx->arena, strlen(lx->p) + 1);
    if (out == NULL)
        return NULL;
    size_t n = 0;
    while (*lx->p != '\0') {
        if (*lx->p == '\'' && lx->p[1] == '\'') {
            out[n++] = '\'';
            lx->p += 2;
        } else if (*lx->p == '\'') {
            lx->p++;
            out[n] = '\0';
            return out;
        } else {
            out[n++] = *lx->p++;
        }
    }
    return NULL;
}

static const char *literal(lexer *lx)
{
    if (strncasecmp(lx->p, "DATE", 4) == 0 || strncasecmp(lx->p, "TIMESTAMP", 9) == 0) {
        lx->p += toupper((unsigned char)lx->p[0]) == 'D' ? 4 : 9;
        skip_space(lx);
    }
    if (*lx->p == '\'')
        return string_literal(lx);
    const char *start = lx->p;
    if (*lx->p == '-' || *lx->p == '+')
        lx->p++;
    while (isdigit((unsigned char)*lx->p) || *lx->p == '.')
        lx->p++;
    return lx->p > start ? sluice_arena_strndup(lx->arena, start, (size_t)(lx->p - start)) : NULL;
}

/* True (and past it) when the text continues with the keyword kw as a whole word. */
static bool keyword(lexer *lx, const char *kw)
{
    size_t n = strlen(kw);
    if (strncasecmp(lx->p, kw, n) != 0 || isalnum((unsigned char)lx->p[n]) || lx->p[n] == '_')
        return false;
    lx->p += n;
    skip_space(lx);
    return true;
}

static const char **one_value(lexer *lx, size_t *count)
{
    const char **v = sluice_arena_calloc(lx->arena, 1, sizeof(*v));
    if (v == NULL)
        return NULL;
    const char *start = lx->p;
    v[0] = literal(lx);
    *count = 1;
    if (v[0] == NULL) {
        lx->p = start; /* report where the bad value starts, not where the text ran out */
        return NULL;
    }
    skip_space(lx);
    return v;
}

static const char *const value_hint = "a value ('text', a number or DATE 'YYYY-MM-DD')";

/* IN ( literal {, literal} ): one "=" term with every value. */
static sluice_status in_list(lexer *lx, sluice_qm_term *t)
{
    if (*lx->p != '(')
        return expected(lx, "( after IN");
    lx->p++;
    t->op = "=";
    t->values = sluice_arena_calloc(lx->arena, SLUICE_QM_WHERE_MAX_IN, sizeof(*t->values));
    if (t->values == NULL)
        return SLUICE_E_NOMEM;
    for (;;) {
        skip_space(lx);
        if (t->value_count == SLUICE_QM_WHERE_MAX_IN)
            return sluice_error_set(lx->err, lx->arena, SLUICE_E_LIMIT,
                                    "where, column %zu: an IN list holds at most %u values",
                                    col(lx), SLUICE_QM_WHERE_MAX_IN);
        const char *start = lx->p;
        const char *v = literal(lx);
        if (v == NULL) {
            lx->p = start;
            return expected(lx, value_hint);
        }
        t->values[t->value_count++] = v;
        skip_space(lx);
        if (*lx->p == ')')
            break;
        if (*lx->p != ',')
            return expected(lx, ", or ) in the IN list");
        lx->p++;
    }
    lx->p++;
    skip_space(lx);
    return SLUICE_OK;
}

/* One comparison; BETWEEN fills t and t[1] (*used = 2). */
static sluice_status term(lexer *lx, sluice_qm_term *t, size_t room, size_t *used)
{
    *used = 1;
    skip_space(lx);
    t->column_at = col(lx);
    const char *start = lx->p;
    t->column = identifier(lx);
    if (t->column == NULL) {
        lx->p = start;
        return expected(lx, "a column name");
    }
    skip_space(lx);
    if (keyword(lx, "IN"))
        return in_list(lx, t);
    if (keyword(lx, "BETWEEN")) {
        if (room < 2)
            return sluice_error_set(lx->err, lx->arena, SLUICE_E_LIMIT,
                                    "where has more than %u terms", SLUICE_QM_WHERE_MAX_TERMS);
        t[1] = *t;
        t->op = ">=";
        t[1].op = "<=";
        if ((t->values = one_value(lx, &t->value_count)) == NULL)
            return expected(lx, value_hint);
        if (!keyword(lx, "AND"))
            return expected(lx, "AND between the two BETWEEN bounds");
        if ((t[1].values = one_value(lx, &t[1].value_count)) == NULL)
            return expected(lx, value_hint);
        *used = 2;
        return SLUICE_OK;
    }
    t->op = operator(lx);
    if (t->op == NULL)
        return expected(lx, "one of =, >=, >, <=, <, IN (...) or BETWEEN");
    skip_space(lx);
    if ((t->values = one_value(lx, &t->value_count)) == NULL)
        return expected(lx, value_hint);
    return SLUICE_OK;
}

sluice_status sluice_qm_where_parse(
    const char *text, sluice_arena *arena, sluice_qm_term **out, size_t *count, sluice_error *err)
{
    *out = NULL;
    *count = 0;
    if (strlen(text) > SLUICE_QM_WHERE_MAX_BYTES)
        return sluice_error_set(err, arena, SLUICE_E_LIMIT, "where is longer than %u bytes",
                                SLUICE_QM_WHERE_MAX_BYTES);
    sluice_qm_term *terms = sluice_arena_calloc(arena, SLUICE_QM_WHERE_MAX_TERMS, sizeof(*terms));
    if (terms == NULL)
        return SLUICE_E_NOMEM;
    lexer lx = { .text = text, .p = text, .arena = arena, .err = err };
    skip_space(&lx);
    if (*lx.p == '\0')
        return SLUICE_OK;
    for (;;) {
        if (*count == SLUICE_QM_WHERE_MAX_TERMS)
            return sluice_error_set(err, arena, SLUICE_E_LIMIT, "where has more than %u terms",
                                    SLUICE_QM_WHERE_MAX_TERMS);
        size_t used = 0;
        sluice_status st = term(&lx, &terms[*count], SLUICE_QM_WHERE_MAX_TERMS - *count, &used);
        if (st != SLUICE_OK)
            return st;
        *count += used;
        if (*lx.p == '\0')
            break;
        if (!keyword(&lx, "AND"))
            return expected(&lx, "AND or the end (only AND-ed comparisons push down)");
    }
    *out = terms;
    return SLUICE_OK;
}
