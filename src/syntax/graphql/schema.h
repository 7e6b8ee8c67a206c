/*
 * schema.h — a GraphQL schema model built from SDL: the types, fields, arguments and directives
 * an operation is validated against.
 *
 * Owns: building the model from an SDL document (definitions merged with their extensions, the
 * built-in scalars and directives and the introspection types added), the checks that make it
 * usable (every referenced type exists and has the right kind, no name defined twice, root types
 * are object types, objects provide their interfaces' fields), and lookups by name. Does not own:
 * parsing (parser.c), operation validation and limits (a later layer), loading the schema by
 * introspection (the upstream executor turns the introspection JSON into SDL).
 */
#ifndef SLUICE_SYNTAX_GRAPHQL_SCHEMA_H
#define SLUICE_SYNTAX_GRAPHQL_SCHEMA_H

#include "syntax/graphql/graphql.h"

typedef enum sluice_gql_named_kind {
    SLUICE_GQL_KIND_SCALAR,
    SLUICE_GQL_KIND_OBJECT,
    SLUICE_GQL_KIND_INTERFACE,
    SLUICE_GQL_KIND_UNION,
    SLUICE_GQL_KIND_ENUM,
    SLUICE_GQL_KIND_INPUT_OBJECT,
} sluice_gql_named_kind;

typedef struct sluice_gql_schema_type sluice_gql_schema_type;

/* An argument or an input object field. */
typedef struct sluice_gql_schema_input {
    sluice_gql_str name;
    const sluice_gql_type *type;           /* as written, with its list and non-null wrappers */
    const sluice_gql_schema_type *named;   /* the named type inside the wrappers */
    const sluice_gql_value *default_value; /* NULL when none */
} sluice_gql_schema_input;

typedef struct sluice_gql_schema_field {
    sluice_gql_str name;
    const sluice_gql_type *type;
    const sluice_gql_schema_type *named;
    const sluice_gql_schema_input *args;
    size_t arg_count;
    const sluice_gql_field_definition *definition;
} sluice_gql_schema_field;

struct sluice_gql_schema_type {
    sluice_gql_named_kind kind;
    sluice_gql_str name;
    bool builtin;    /* Int, Float, String, Boolean, ID, and the introspection types (__Type ...) */
    uint32_t offset; /* where the SDL defines it */
    sluice_gql_schema_field *fields; /* OBJECT, INTERFACE */
    size_t field_count;
    sluice_gql_schema_input *input_fields; /* INPUT_OBJECT */
    size_t input_field_count;
    const sluice_gql_schema_type **interfaces; /* OBJECT, INTERFACE: implemented ones */
    size_t interface_count;
    const sluice_gql_schema_type **members; /* UNION */
    size_t member_count;
    sluice_gql_str *values; /* ENUM */
    size_t value_count;
};

typedef struct sluice_gql_schema_directive {
    sluice_gql_str name;
    const sluice_gql_schema_input *args;
    size_t arg_count;
    const sluice_gql_name_list *locations;
    bool repeatable;
    bool builtin; /* @include, @skip, @deprecated, @specifiedBy, @oneOf unless redefined */
} sluice_gql_schema_directive;

typedef struct sluice_gql_schema {
    const sluice_gql_document *document; /* the user's SDL */
    sluice_gql_schema_type **types;      /* sorted by name, built-ins included */
    size_t type_count;
    sluice_gql_schema_directive *directives;
    size_t directive_count;
    const sluice_gql_schema_type *query; /* never NULL in a built schema */
    const sluice_gql_schema_type *mutation;
    const sluice_gql_schema_type *subscription;
    /* The fields no type declares (graphql-js's meta field definitions): __schema: __Schema! and
     * __type(name: String!): __Type on the query root, __typename: String! on every composite
     * type. Never NULL in a built schema. */
    const sluice_gql_schema_field *meta_schema, *meta_type, *meta_typename;
} sluice_gql_schema;

/* Builds the schema of sdl[0..len) (which must outlive it) into *out. SLUICE_E_INVALID with err
 * at the offending definition (line, column, what is wrong, how to fix it) for a syntax error
 * or a schema that cannot be used; SLUICE_E_LIMIT past sluice_graphql_sdl_limits();
 * SLUICE_E_NOMEM. *out is set only on SLUICE_OK. */
sluice_status sluice_graphql_schema_build(sluice_arena *arena,
                                          const char *sdl,
                                          size_t len,
                                          const char *source,
                                          sluice_gql_schema **out,
                                          sluice_error *err);

/* The named type, or NULL. */
const sluice_gql_schema_type *
sluice_graphql_schema_type(const sluice_gql_schema *schema, const char *name, size_t len);

/* The field of an object or interface type, or NULL (also for other kinds). */
const sluice_gql_schema_field *
sluice_graphql_schema_field(const sluice_gql_schema_type *type, const char *name, size_t len);

/* The directive, or NULL. */
const sluice_gql_schema_directive *
sluice_graphql_schema_directive(const sluice_gql_schema *schema, const char *name, size_t len);

/* Whether object may appear where abstract is expected: the same type, an implementation of
 * the interface, or a member of the union. */
bool sluice_graphql_schema_possible(const sluice_gql_schema_type *abstract,
                                    const sluice_gql_schema_type *object);

#endif
