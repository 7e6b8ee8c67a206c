/*
 * explain.c — the business-language explanation of a GraphQL operation: what it reads or
 * changes, with which arguments, and which fields come back at each level ("Reads customers
 * (orderBy: {createdAt: DESC}, limit: 3) with id, name, segment; for each, orders (...) with
 * id, total").
 *
 * Owns: the wording. Fragments are followed (to a bounded depth) so the text says what the
 * operation really returns; the text is capped at SLUICE_GRAPHQL_EXPLAIN_BYTES.
 * Does not own: the facts (operation.c).
 */
#include "core/buf.h"
#include "lang/graphql/front.h"

#include <string.h>

#define SLUICE_GRAPHQL_EXPLAIN_BYTES     2048u
#define SLUICE_GRAPHQL_EXPLAIN_FRAGMENTS 8u

typedef struct ex {
    sluice_buf b;
    const sluice_gql_document *doc;
    unsigned fragments; /* spreads being followed */
} ex;

static void value(ex *e, const sluice_gql_value *v)
{
    switch (v->kind) {
    case SLUICE_GQL_VARIABLE:
        sluice_buf_printf(&e->b, "$%.*s", (int)v->text.len, v->text.ptr);
        break;
    case SLUICE_GQL_STRING:
        sluice_buf_printf(&e->b, "\"%.*s\"", (int)v->text.len, v->text.ptr);
        break;
    case SLUICE_GQL_BOOLEAN:
        sluice_buf_puts(&e->b, v->boolean ? "true" : "false");
        break;
    case SLUICE_GQL_NULL:
        sluice_buf_puts(&e->b, "null");
        break;
    case SLUICE_GQL_LIST:
        sluice_buf_putc(&e->b, '[');
        for (const sluice_gql_value *i = v->items; i != NULL; i = i->next) {
            value(e, i);
            if (i->next != NULL)
                sluice_buf_puts(&e->b, ", ");
        }
        sluice_buf_putc(&e->b, ']');
        break;
    case SLUICE_GQL_OBJECT:
        sluice_buf_putc(&e->b, '{');
        for (const sluice_gql_object_field *f = v->fields; f != NULL; f = f->next) {
            sluice_buf_printf(&e->b, "%.*s: ", (int)f->name.len, f->name.ptr);
            value(e, f->value);
            if (f->next != NULL)
                sluice_buf_puts(&e->b, ", ");
        }
        sluice_buf_putc(&e->b, '}');
        break;
    default:
        sluice_buf_append(&e->b, v->text.ptr, v->text.len);
        break;
    }
}

static const sluice_gql_selection *fragment_body(const ex *e, sluice_gql_str name)
{
    for (const sluice_gql_definition *d = e->doc->definitions; d != NULL; d = d->next)
        if (d->kind == SLUICE_GQL_FRAGMENT_DEFINITION && d->name.len == name.len &&
            memcmp(d->name.ptr, name.ptr, name.len) == 0)
            return d->selections;
    return NULL;
}

/* The selections a fragment (spread or inline) adds at this level, NULL for a field or past
 * the fragment depth the text follows. */
static const sluice_gql_selection *inner_of(const ex *e, const sluice_gql_selection *s)
{
    if (e->fragments >= SLUICE_GRAPHQL_EXPLAIN_FRAGMENTS || s->kind == SLUICE_GQL_FIELD)
        return NULL;
    return s->kind == SLUICE_GQL_INLINE_FRAGMENT ? s->selections : fragment_body(e, s->name);
}

/* The leaf fields of one level (fragments followed), comma-separated. */
static void leaves(ex *e, const sluice_gql_selection *sel, bool *first)
{
    for (const sluice_gql_selection *s = sel; s != NULL; s = s->next) {
        const sluice_gql_selection *inner = inner_of(e, s);
        if (inner != NULL) {
            e->fragments++;
            leaves(e, inner, first);
            e->fragments--;
        }
        if (s->kind != SLUICE_GQL_FIELD || s->selections != NULL)
            continue;
        sluice_buf_printf(&e->b, "%s%.*s", *first ? "" : ", ", (int)s->name.len, s->name.ptr);
        *first = false;
    }
}

static void level(ex *e, const sluice_gql_selection *sel, const char *lead);

static void object_field(ex *e, const sluice_gql_selection *s, const char *lead)
{
    sluice_buf_printf(&e->b, "%s%.*s", lead, (int)s->name.len, s->name.ptr);
    if (s->arguments != NULL) {
        sluice_buf_puts(&e->b, " (");
        for (const sluice_gql_argument *a = s->arguments; a != NULL; a = a->next) {
            sluice_buf_printf(&e->b, "%.*s: ", (int)a->name.len, a->name.ptr);
            value(e, a->value);
            if (a->next != NULL)
                sluice_buf_puts(&e->b, ", ");
        }
        sluice_buf_putc(&e->b, ')');
    }
    bool first = true;
    size_t before = e->b.len;
    sluice_buf_puts(&e->b, " with ");
    leaves(e, s->selections, &first);
    if (first && e->b.data != NULL) { /* no leaves at this level */
        e->b.len = before;
        e->b.data[before] = '\0';
    }
    level(e, s->selections, "; for each, ");
}

/* The object fields of one level, each with its own leaves and children. */
static void level(ex *e, const sluice_gql_selection *sel, const char *lead)
{
    bool first = true;
    for (const sluice_gql_selection *s = sel; s != NULL; s = s->next) {
        const sluice_gql_selection *inner = inner_of(e, s);
        if (inner != NULL) {
            e->fragments++;
            level(e, inner, first ? lead : "; and ");
            e->fragments--;
        }
        if (s->kind != SLUICE_GQL_FIELD || s->selections == NULL)
            continue;
        object_field(e, s, first ? lead : "; and ");
        first = false;
    }
}

const char *sluice_graphql_explain(sluice_arena *arena, const sluice_codefacts *f)
{
    const sluice_graphql_facts *x = sluice_graphql_facts_of(f);
    if (x->operation == NULL)
        return sluice_arena_strdup(arena, sluice_codefacts_refused(f)
                                              ? "A GraphQL operation that was refused."
                                              : "A GraphQL operation.");
    ex e = { .doc = x->document };
    sluice_buf_init(&e.b, arena, SLUICE_GRAPHQL_EXPLAIN_BYTES);
    const char *verb = f->action == SLUICE_ACTION_DELETE  ? "Deletes through "
                       : f->action == SLUICE_ACTION_WRITE ? "Changes through "
                                                          : "Reads ";
    if (x->introspection)
        verb = "Reads the upstream schema (introspection) and ";
    bool first = true;
    sluice_buf_puts(&e.b, verb);
    size_t before = e.b.len;
    leaves(&e, x->operation->selections, &first);
    level(&e, x->operation->selections, first ? "" : "; and ");
    if (e.b.len == before)
        sluice_buf_puts(&e.b, "nothing");
    sluice_buf_putc(&e.b, '.');
    if (sluice_buf_status(&e.b) == SLUICE_E_LIMIT)
        return sluice_arena_printf(arena, "%.*s...", (int)(SLUICE_GRAPHQL_EXPLAIN_BYTES - 8),
                                   e.b.data);
    return sluice_buf_status(&e.b) == SLUICE_OK ? sluice_buf_cstr(&e.b) : NULL;
}
