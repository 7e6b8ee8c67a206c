/*
 * fuzz_graphql.c — libFuzzer target for the GraphQL parser and printer (src/lang/graphql/).
 *
 * The whole input is one document, parsed with the operation limits (and, when the first byte
 * is odd, with small limits so the token and nesting ceilings are reached often). Every input
 * must be accepted or refused with an error that has a line and a column; nothing may crash,
 * leak or read out of bounds. An accepted document must print, its printed form must parse
 * again and print to the same text (the canonical form is a fixed point, so the code hash of
 * a canonical document is the hash of itself), and the canonical hash must be deterministic.
 * The same input is also built as a schema: refused with a place, or a model whose every field
 * and argument type resolved.
 * One exception, graphql-js's own: a type definition without a body followed by a shorthand
 * query (`enum E` then `{ a }`) prints as "enum E\n\n{...}", which reads back as the enum's
 * values. The form stays one-to-one (the differential test matches graphql-js there); it is
 * only not a fixed point, and executable documents (all the code hash ever sees once
 * validation refuses type definitions in operations) never meet it.
 */
#include "syntax/graphql/graphql.h"
#include "syntax/graphql/schema.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_fixed_point(sluice_arena *arena, const char *printed, size_t n)
{
    sluice_graphql_limits sdl = sluice_graphql_sdl_limits(); /* printing may add indentation */
    sluice_gql_document *again;
    sluice_error err;
    sluice_error_clear(&err);
    sluice_status st = sluice_graphql_parse(arena, printed, n, "printed", &sdl, &again, &err);
    if (st == SLUICE_E_NOMEM)
        return;
    if (st != SLUICE_OK)
        __builtin_trap(); /* the printer wrote something the parser refuses */
    size_t n2;
    char *twice = sluice_graphql_print(arena, again, &n2);
    if (twice != NULL && (n2 != n || memcmp(twice, printed, n) != 0))
        __builtin_trap(); /* printing is not idempotent */
}

/* The graphql-js exception above: a body-less type definition before a shorthand query. */
static bool reads_back_differently(const sluice_gql_document *doc)
{
    for (const sluice_gql_definition *d = doc->definitions; d != NULL; d = d->next) {
        const sluice_gql_definition *e = d->next;
        if (d->kind > SLUICE_GQL_FRAGMENT_DEFINITION && e != NULL &&
            e->kind == SLUICE_GQL_OPERATION_DEFINITION && e->operation == SLUICE_GQL_QUERY &&
            e->name.ptr == NULL && e->variables == NULL && e->directives == NULL &&
            e->description == NULL)
            return true; /* printed as `{ ... }` whichever way it was written */
    }
    return false;
}

/* A built schema resolves every type it mentions; a refusal says where. */
static void check_schema(sluice_arena *arena, const char *text, size_t size)
{
    sluice_gql_schema *s;
    sluice_error err;
    sluice_error_clear(&err);
    sluice_status st = sluice_graphql_schema_build(arena, text, size, "fuzz", &s, &err);
    if (st == SLUICE_E_INVALID && (err.message == NULL || err.line == 0))
        __builtin_trap();
    if (st != SLUICE_OK)
        return;
    if (s->query == NULL)
        __builtin_trap();
    for (size_t i = 0; i < s->type_count; i++) {
        const sluice_gql_schema_type *t = s->types[i];
        if (sluice_graphql_schema_type(s, t->name.ptr, t->name.len) != t)
            __builtin_trap();
        for (size_t f = 0; f < t->field_count; f++) {
            if (t->fields[f].named == NULL)
                __builtin_trap();
            for (size_t a = 0; a < t->fields[f].arg_count; a++) {
                if (t->fields[f].args[a].named == NULL)
                    __builtin_trap();
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return 0;
    const char *text = (const char *)data;
    sluice_graphql_limits small = { 4096, 200, 8 };
    const sluice_graphql_limits *limits = size > 0 && (data[0] & 1) ? &small : NULL;
    sluice_gql_document *doc;
    sluice_error err;
    sluice_error_clear(&err);
    sluice_status st = sluice_graphql_parse(arena, text, size, "fuzz", limits, &doc, &err);
    if (st != SLUICE_OK) {
        if (st != SLUICE_E_NOMEM && (err.message == NULL || err.line == 0 || err.column == 0))
            __builtin_trap(); /* every refusal says what and where */
    } else {
        size_t n;
        char *printed = sluice_graphql_print(arena, doc, &n);
        if (printed != NULL && !reads_back_differently(doc))
            check_fixed_point(arena, printed, n);
        check_schema(arena, text, size);
        char h1[65], h2[65];
        if (sluice_graphql_canonical_hash(arena, text, size, limits, h1, NULL) == SLUICE_OK &&
            sluice_graphql_canonical_hash(arena, text, size, limits, h2, NULL) == SLUICE_OK &&
            memcmp(h1, h2, sizeof(h1)) != 0)
            __builtin_trap();
    }
    sluice_arena_free(arena);
    return 0;
}
