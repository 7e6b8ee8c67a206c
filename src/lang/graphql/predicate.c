/*
 * predicate.c — blocked fields named in arguments (see validate.h): the one contract of every
 * engine (docs/security.md), in GraphQL's terms. A blocked field may be looked up by equality
 * (`customerBySsn(ssn: "...")`, `filter: { ssn: $v }`): each such query confirms one guess, so
 * it is allowed and raises the risk to high. Anything else an argument can say about it derives
 * bits of the value the caller never sees: a prefix or range (`ssnStartsWith`, `ssn_gt`), an
 * order (`orderBy: SSN`, `SSN_DESC`; a cursor may even carry the ordered value), a list of
 * guesses (`ssn_in`), an operator object (`ssn: { startsWith: ... }`): refused, rule
 * graphql_blocked_predicate.
 *
 * Owns: matching argument, input-field and enum-value names against the blocked fields by words
 * (`ssnStartsWith` is ssn + starts + with; `SSN_DESC` is SSN + DESC), and judging every value
 * an argument receives: literals, variables' bound values (the variables object of the request,
 * bound in the token) and their defaults, through lists and input objects.
 * Does not own: blocked fields in the selection (operation.c), what an upstream does with a
 * free-text argument (a search string it parses itself: docs/graphql.md, residual risks).
 */
#include "lang/graphql/predicate.h"

#include "core/limits.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

enum { MAX_WORDS = 16 };

typedef struct judge {
    sluice_gql_vctx *v;
    const sluice_strlist *const *blocked; /* [2]: graphql_blocked_fields, blocked_fields */
    const json_t *vars;
    const sluice_gql_definition *op;
    unsigned depth;
} judge;

/* The words of a name: split at '_' and digits' edges, at a lower-to-upper change, and before
 * the last capital of a run that a lower-case letter follows ("SSNStartsWith": SSN Starts With). */
static size_t words_of(const char *p, size_t len, sluice_gql_str out[MAX_WORDS])
{
    size_t n = 0;
    size_t start = 0;
    for (size_t i = 0; i <= len && n < MAX_WORDS; i++) {
        bool edge = i == len || p[i] == '_';
        if (!edge && i > start) {
            unsigned char prev = (unsigned char)p[i - 1], c = (unsigned char)p[i];
            bool next_lower = i + 1 < len && islower((unsigned char)p[i + 1]);
            edge = (isupper(c) && (islower(prev) || (isupper(prev) && next_lower))) ||
                   (isdigit(c) != 0) != (isdigit(prev) != 0);
        }
        if (!edge)
            continue;
        if (i > start)
            out[n++] = (sluice_gql_str){ p + start, i - start };
        start = i < len && p[i] == '_' ? i + 1 : i;
    }
    return n;
}

static bool same_word(sluice_gql_str a, sluice_gql_str b)
{
    return a.len == b.len && strncasecmp(a.ptr, b.ptr, a.len) == 0;
}

typedef enum { NAMES_NONE, NAMES_IT, NAMES_PART } naming;

/* How a name refers to a blocked field: it is the field's name (case aside), the field's words
 * are some of its words, or neither. *field is the blocked entry's field part. Input types
 * are not output types, so the field part of every entry counts. */
static naming names_blocked(const judge *j, sluice_gql_str name, const char **field)
{
    sluice_gql_str nw[MAX_WORDS];
    size_t nn = words_of(name.ptr, name.len, nw);
    naming found = NAMES_NONE;
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; j->blocked[k] != NULL && i < j->blocked[k]->count; i++) {
            const char *item = j->blocked[k]->items[i];
            const char *dot = strrchr(item, '.');
            const char *f = dot != NULL ? dot + 1 : item;
            sluice_gql_str fs = { f, strlen(f) };
            if (same_word(fs, name)) {
                *field = f;
                return NAMES_IT;
            }
            sluice_gql_str fw[MAX_WORDS];
            size_t fn = words_of(f, fs.len, fw);
            for (size_t s = 0; fn > 0 && s + fn <= nn && found == NAMES_NONE; s++) {
                size_t m = 0;
                while (m < fn && same_word(fw[m], nw[s + m]))
                    m++;
                if (m == fn) {
                    found = NAMES_PART;
                    *field = f;
                }
            }
        }
    return found;
}

static bool is_list(const sluice_gql_type *t)
{
    if (t->kind == SLUICE_GQL_NON_NULL_TYPE)
        t = t->of;
    return t->kind == SLUICE_GQL_LIST_TYPE;
}

static void refuse(judge *j, uint32_t offset, const char *what, sluice_gql_str name, const char *f)
{
    sluice_gql_bad(j->v, offset, "graphql_blocked_predicate",
                   "a blocked field may only be looked up by equality (an argument named after "
                   "it, one value); remove the rest",
                   "%s '%.*s' uses the blocked field %s by more than equality (a prefix, "
                   "range, order or list of guesses gives away its value bit by bit)",
                   what, (int)name.len, name.ptr, f);
}

/* An argument or input field (in, of owner) receiving a value: named after a blocked field it
 * is an equality lookup when it takes one scalar, else refused. */
static void judge_name(judge *j,
                       const sluice_gql_schema_type *owner,
                       sluice_gql_str name,
                       const sluice_gql_schema_input *in,
                       uint32_t offset)
{
    const char *f = NULL;
    naming n = names_blocked(j, name, &f);
    if (n == NAMES_NONE)
        return;
    if (n == NAMES_PART || is_list(in->type) || !sluice_gql_leaf(in->named)) {
        refuse(j, offset,
               owner->kind == SLUICE_GQL_KIND_INPUT_OBJECT ? "the input field" : "the argument",
               name, f);
        return;
    }
    const char *used = sluice_arena_printf(j->v->arena, "%.*s.%.*s", (int)owner->name.len,
                                           owner->name.ptr, (int)name.len, name.ptr);
    if (used == NULL ||
        sluice_codefacts_list_add(j->v->f, &j->v->f->blocked_used, used) != SLUICE_OK)
        j->v->nomem = true;
    j->v->f->blocked_in_predicate = true;
}

static void judge_enum(judge *j, sluice_gql_str value, uint32_t offset)
{
    const char *f = NULL;
    if (names_blocked(j, value, &f) != NAMES_NONE)
        refuse(j, offset, "the enum value", value, f);
}

/* A variable's bound value (JSON, from the request's variables object) where t is expected. */
static void judge_json(judge *j, const json_t *jv, const sluice_gql_schema_type *t, uint32_t offset)
{
    if (jv == NULL || t == NULL || j->depth >= SLUICE_LIMIT_GRAPHQL_DEPTH)
        return;
    j->depth++;
    if (json_is_array(jv)) {
        size_t i;
        const json_t *item;
        json_array_foreach(jv, i, item) judge_json(j, item, t, offset);
    } else if (json_is_string(jv) && t->kind == SLUICE_GQL_KIND_ENUM) {
        const char *s = json_string_value(jv);
        judge_enum(j, (sluice_gql_str){ s, strlen(s) }, offset);
    } else if (json_is_object(jv) && t->kind == SLUICE_GQL_KIND_INPUT_OBJECT) {
        const char *key;
        const json_t *val;
        json_object_foreach((json_t *)jv, key, val)
        {
            sluice_gql_str name = { key, strlen(key) };
            const sluice_gql_schema_input *in = sluice_gql_input_field(t, name);
            if (in == NULL)
                continue;
            judge_name(j, t, name, in, offset);
            judge_json(j, val, in->named, offset);
        }
    }
    j->depth--;
}

/* A literal (or variable) where t is expected. */
static void judge_literal(judge *j, const sluice_gql_value *v, const sluice_gql_schema_type *t)
{
    if (v == NULL || t == NULL || j->depth >= SLUICE_LIMIT_GRAPHQL_DEPTH)
        return;
    j->depth++;
    if (v->kind == SLUICE_GQL_VARIABLE) {
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)v->text.len, v->text.ptr);
        const json_t *jv = json_is_object(j->vars) ? json_object_get(j->vars, name) : NULL;
        if (jv != NULL)
            judge_json(j, jv, t, v->offset);
        for (const sluice_gql_variable_definition *vd = j->op->variables; jv == NULL && vd != NULL;
             vd = vd->next)
            if (sluice_gql_same(vd->name, v->text))
                judge_literal(j, vd->default_value, t);
    } else if (v->kind == SLUICE_GQL_LIST) {
        for (const sluice_gql_value *it = v->items; it != NULL; it = it->next)
            judge_literal(j, it, t);
    } else if (v->kind == SLUICE_GQL_ENUM && t->kind == SLUICE_GQL_KIND_ENUM) {
        judge_enum(j, v->text, v->offset);
    } else if (v->kind == SLUICE_GQL_OBJECT && t->kind == SLUICE_GQL_KIND_INPUT_OBJECT) {
        for (const sluice_gql_object_field *of = v->fields; of != NULL; of = of->next) {
            const sluice_gql_schema_input *in = sluice_gql_input_field(t, of->name);
            if (in == NULL)
                continue;
            judge_name(j, t, of->name, in, of->offset);
            judge_literal(j, of->value, in->named);
        }
    }
    j->depth--;
}

void sluice_graphql_judge_argument(sluice_gql_vctx *v,
                                   const sluice_strlist *const blocked[2],
                                   const json_t *variables,
                                   const sluice_gql_definition *op,
                                   const sluice_gql_schema_type *owner,
                                   const sluice_gql_argument *a,
                                   const sluice_gql_schema_input *in)
{
    judge j = { v, blocked, variables, op, 0 };
    judge_name(&j, owner, a->name, in, a->offset);
    judge_literal(&j, a->value, in->named);
}
