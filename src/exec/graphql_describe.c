/*
 * graphql_describe.c — the upstream GraphQL schema as sluice_schema tables for code-mode://schema:
 * one "table" per object or interface type, one "column" per field with its type and arguments
 * ("[Order!]! (orderBy: OrderOrder, limit: Int)"), blocked fields marked [join/filter only]
 * (for GraphQL: usable in a filter, never selected), and the input types and enums the
 * arguments need as their own entries (is_view marks them: not queryable themselves).
 *
 * Owns: that mapping (graphql_shape.h).
 * Does not own: building the model (model_cache.c), rendering (codemode/guide.c).
 */
#include "core/buf.h"
#include "exec/graphql_shape.h"
#include "syntax/graphql/types.h"

#include <string.h>

static bool listed(const sluice_gql_schema_type *t)
{
    return !t->builtin && (sluice_gql_composite(t) || t->kind == SLUICE_GQL_KIND_INPUT_OBJECT ||
                           t->kind == SLUICE_GQL_KIND_ENUM);
}

/* "Type (a: T, b, c: U)": neighbouring arguments of one type share it, as in Go or a TypeScript
 * reader's eye ("after, before: String, first, last: Int" for a connection's paging: a field
 * list of a large schema repeats that quartet on every connection). */
static const char *field_type(sluice_arena *arena, const sluice_gql_schema_field *fd)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    sluice_buf_puts(&b, sluice_gql_type_text(arena, fd->type));
    for (size_t i = 0; i < fd->arg_count; i++) {
        const char *type = sluice_gql_type_text(arena, fd->args[i].type);
        const char *next =
            i + 1 < fd->arg_count ? sluice_gql_type_text(arena, fd->args[i + 1].type) : NULL;
        if (type == NULL)
            return NULL;
        bool shared = next != NULL && strcmp(type, next) == 0;
        sluice_buf_printf(&b, "%s%.*s", i == 0 ? " (" : ", ", (int)fd->args[i].name.len,
                          fd->args[i].name.ptr);
        if (!shared)
            sluice_buf_printf(&b, ": %s", type);
    }
    if (fd->arg_count > 0)
        sluice_buf_putc(&b, ')');
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
}

static bool fill_columns(sluice_arena *arena,
                         const sluice_gql_schema *schema,
                         const sluice_gql_schema_type *t,
                         const sluice_strlist *const blocked[2],
                         sluice_schema_table *tab)
{
    size_t n = t->field_count + t->input_field_count + t->value_count;
    tab->columns = sluice_arena_calloc(arena, n + 1, sizeof *tab->columns);
    if (tab->columns == NULL)
        return false;
    for (size_t i = 0; i < t->field_count; i++) {
        const sluice_gql_schema_field *fd = &t->fields[i];
        sluice_schema_column *c = &tab->columns[tab->column_count++];
        c->name = sluice_arena_strndup(arena, fd->name.ptr, fd->name.len);
        c->type = field_type(arena, fd);
        c->nullable = fd->type->kind != SLUICE_GQL_NON_NULL_TYPE;
        /* marked as validation judges it: through the interfaces t implements too */
        c->blocked = sluice_gql_blocked_on(blocked, schema, t, fd->name);
        if (c->name == NULL || c->type == NULL)
            return false;
    }
    for (size_t i = 0; i < t->input_field_count; i++) {
        sluice_schema_column *c = &tab->columns[tab->column_count++];
        c->name =
            sluice_arena_strndup(arena, t->input_fields[i].name.ptr, t->input_fields[i].name.len);
        c->type = sluice_gql_type_text(arena, t->input_fields[i].type);
        if (c->name == NULL)
            return false;
    }
    for (size_t i = 0; i < t->value_count; i++) {
        sluice_schema_column *c = &tab->columns[tab->column_count++];
        c->name = sluice_arena_strndup(arena, t->values[i].ptr, t->values[i].len);
        c->type = "enum value";
        if (c->name == NULL)
            return false;
    }
    return true;
}

sluice_status sluice_graphql_describe(sluice_arena *arena,
                                      const char *sdl,
                                      size_t len,
                                      const sluice_strlist *const blocked[2],
                                      sluice_schema *out,
                                      sluice_error *err)
{
    /* Built into arena, not the process-wide cache: the model lives and dies with this schema
     * (a catalog snapshot replaced on SIGHUP), and rides along in out->document_model. */
    sluice_gql_schema *s = NULL;
    sluice_status st = sluice_graphql_schema_build(arena, sdl, len, "upstream schema", &s, err);
    if (st != SLUICE_OK)
        return st;
    out->document_model = s;
    out->tables = sluice_arena_calloc(arena, s->type_count + 1, sizeof *out->tables);
    if (out->tables == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    out->table_count = 0;
    for (size_t i = 0; i < s->type_count; i++) {
        const sluice_gql_schema_type *t = s->types[i];
        if (!listed(t))
            continue;
        sluice_schema_table *tab = &out->tables[out->table_count++];
        tab->schema = "graphql";
        tab->name = sluice_arena_strndup(arena, t->name.ptr, t->name.len);
        tab->is_view = !sluice_gql_composite(t);
        tab->approx_rows = -1;
        if (tab->name == NULL || !fill_columns(arena, s, t, blocked, tab))
            return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    }
    return SLUICE_OK;
}
