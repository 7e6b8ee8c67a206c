/*
 * graphql_errors.c — the upstream's error messages filtered word by word (see graphql_errors.h).
 *
 * The words kept are the filter's (exec/upstream_text.c: why a list of known words and not a
 * search for values) and the schema's names, given here.
 */
#include "exec/graphql_errors.h"

#include "exec/upstream_text.h"

#include <string.h>

static bool same(sluice_gql_str a, const char *w, size_t len)
{
    return a.len == len && memcmp(a.ptr, w, len) == 0;
}

/* A type, field, argument or input field of the schema (case as written: GraphQL names are
 * case-sensitive). Enum values are not names here: they are what a field holds. */
static bool schema_name(const void *ctx, const char *w, size_t len)
{
    const sluice_gql_schema *s = ctx;
    if (s == NULL)
        return false;
    if (sluice_graphql_schema_type(s, w, len) != NULL)
        return true;
    for (size_t i = 0; i < s->type_count; i++) {
        const sluice_gql_schema_type *t = s->types[i];
        for (size_t f = 0; f < t->field_count; f++) {
            if (same(t->fields[f].name, w, len))
                return true;
            for (size_t a = 0; a < t->fields[f].arg_count; a++)
                if (same(t->fields[f].args[a].name, w, len))
                    return true;
        }
        for (size_t f = 0; f < t->input_field_count; f++)
            if (same(t->input_fields[f].name, w, len))
                return true;
    }
    return false;
}

const char *sluice_graphql_error_text(sluice_arena *arena,
                                      const json_t *errors,
                                      const sluice_gql_schema *schema,
                                      size_t max_bytes)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    size_t i;
    const json_t *e;
    json_array_foreach(errors, i, e)
    {
        if (b.len > max_bytes)
            break;
        const char *m = json_string_value(json_object_get(e, "message"));
        if (i > 0)
            sluice_buf_puts(&b, "; ");
        if (m != NULL)
            sluice_upstream_text_filter(&b, m, schema_name, schema, max_bytes);
        else
            sluice_buf_puts(&b, "(no message)"); /* ours: not filtered */
    }
    return sluice_upstream_text_cut(&b, max_bytes);
}
