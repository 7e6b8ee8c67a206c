/*
 * ast.h — the GraphQL document tree (October 2021 spec plus the current draft's descriptions on
 * executable definitions), allocated in one arena.
 *
 * Owns: the node shapes for executable documents and SDL. Lists are singly linked through
 * `next` in source order, so walkers need no counts. Names point into the source text (which
 * must outlive the tree); string values are decoded into the arena. Every node keeps the byte
 * offset of its first token so later layers (validation, schema) can report line and column
 * with sluice_graphql_locate, declared here with the offsets it reads (implemented by the
 * lexer, which counts lines the same way: lexer.c).
 * Does not own: parsing (parser.c), printing (printer.c), validation against a schema.
 */
#ifndef SLUICE_SYNTAX_GRAPHQL_AST_H
#define SLUICE_SYNTAX_GRAPHQL_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A span of text: a name in the source, or a decoded string in the arena (NUL-terminated). */
typedef struct sluice_gql_str {
    const char *ptr;
    size_t len;
} sluice_gql_str;

typedef enum sluice_gql_value_kind {
    SLUICE_GQL_VARIABLE, /* text = the name without '$' */
    SLUICE_GQL_INT,      /* text = the literal as written */
    SLUICE_GQL_FLOAT,    /* text = the literal as written */
    SLUICE_GQL_STRING,   /* text = the decoded value; block says it was """...""" */
    SLUICE_GQL_BOOLEAN,  /* boolean */
    SLUICE_GQL_NULL,
    SLUICE_GQL_ENUM,   /* text = the name */
    SLUICE_GQL_LIST,   /* items */
    SLUICE_GQL_OBJECT, /* fields */
} sluice_gql_value_kind;

typedef struct sluice_gql_value sluice_gql_value;
typedef struct sluice_gql_object_field sluice_gql_object_field;

struct sluice_gql_value {
    sluice_gql_value_kind kind;
    uint32_t offset;
    sluice_gql_str text;
    bool block;
    bool boolean;
    sluice_gql_value *items;         /* LIST */
    sluice_gql_object_field *fields; /* OBJECT */
    sluice_gql_value *next;          /* next list item */
};

/* An object field `name: value`, and (same shape) an argument. */
struct sluice_gql_object_field {
    uint32_t offset;
    sluice_gql_str name;
    sluice_gql_value *value;
    sluice_gql_object_field *next;
};
typedef sluice_gql_object_field sluice_gql_argument;

typedef struct sluice_gql_directive {
    uint32_t offset; /* the '@' */
    sluice_gql_str name;
    sluice_gql_argument *arguments;
    struct sluice_gql_directive *next;
} sluice_gql_directive;

typedef enum sluice_gql_type_kind {
    SLUICE_GQL_NAMED_TYPE,
    SLUICE_GQL_LIST_TYPE,
    SLUICE_GQL_NON_NULL_TYPE,
} sluice_gql_type_kind;

typedef struct sluice_gql_type {
    sluice_gql_type_kind kind;
    uint32_t offset;
    sluice_gql_str name;        /* NAMED_TYPE */
    struct sluice_gql_type *of; /* LIST_TYPE, NON_NULL_TYPE */
} sluice_gql_type;

/* A list of names: implemented interfaces, union members, directive locations. */
typedef struct sluice_gql_name_list {
    uint32_t offset;
    sluice_gql_str name;
    struct sluice_gql_name_list *next;
} sluice_gql_name_list;

typedef enum sluice_gql_selection_kind {
    SLUICE_GQL_FIELD,
    SLUICE_GQL_FRAGMENT_SPREAD,
    SLUICE_GQL_INLINE_FRAGMENT,
} sluice_gql_selection_kind;

typedef struct sluice_gql_selection {
    sluice_gql_selection_kind kind;
    uint32_t offset;
    sluice_gql_str alias;           /* FIELD; ptr NULL when none */
    sluice_gql_str name;            /* FIELD name, FRAGMENT_SPREAD fragment name */
    sluice_gql_str type_condition;  /* INLINE_FRAGMENT; ptr NULL when none */
    sluice_gql_argument *arguments; /* FIELD */
    sluice_gql_directive *directives;
    struct sluice_gql_selection *selections; /* FIELD (NULL = leaf), INLINE_FRAGMENT */
    struct sluice_gql_selection *next;
} sluice_gql_selection;

typedef struct sluice_gql_variable_definition {
    uint32_t offset;
    sluice_gql_value *description; /* draft: descriptions on variables; NULL when none */
    sluice_gql_str name;           /* without '$' */
    sluice_gql_type *type;
    sluice_gql_value *default_value;
    sluice_gql_directive *directives;
    struct sluice_gql_variable_definition *next;
} sluice_gql_variable_definition;

/* An argument definition or an input object field. */
typedef struct sluice_gql_input_value {
    uint32_t offset;
    sluice_gql_value *description;
    sluice_gql_str name;
    sluice_gql_type *type;
    sluice_gql_value *default_value;
    sluice_gql_directive *directives;
    struct sluice_gql_input_value *next;
} sluice_gql_input_value;

typedef struct sluice_gql_field_definition {
    uint32_t offset;
    sluice_gql_value *description;
    sluice_gql_str name;
    sluice_gql_input_value *arguments;
    sluice_gql_type *type;
    sluice_gql_directive *directives;
    struct sluice_gql_field_definition *next;
} sluice_gql_field_definition;

typedef struct sluice_gql_enum_value {
    uint32_t offset;
    sluice_gql_value *description;
    sluice_gql_str name;
    sluice_gql_directive *directives;
    struct sluice_gql_enum_value *next;
} sluice_gql_enum_value;

typedef enum sluice_gql_operation {
    SLUICE_GQL_QUERY,
    SLUICE_GQL_MUTATION,
    SLUICE_GQL_SUBSCRIPTION,
} sluice_gql_operation;

typedef struct sluice_gql_operation_type {
    uint32_t offset;
    sluice_gql_operation operation;
    sluice_gql_str type;
    struct sluice_gql_operation_type *next;
} sluice_gql_operation_type;

typedef enum sluice_gql_definition_kind {
    SLUICE_GQL_OPERATION_DEFINITION,
    SLUICE_GQL_FRAGMENT_DEFINITION,
    SLUICE_GQL_SCHEMA_DEFINITION,
    SLUICE_GQL_SCALAR_DEFINITION,
    SLUICE_GQL_OBJECT_DEFINITION,
    SLUICE_GQL_INTERFACE_DEFINITION,
    SLUICE_GQL_UNION_DEFINITION,
    SLUICE_GQL_ENUM_DEFINITION,
    SLUICE_GQL_INPUT_DEFINITION,
    SLUICE_GQL_DIRECTIVE_DEFINITION,
    SLUICE_GQL_SCHEMA_EXTENSION,
    SLUICE_GQL_SCALAR_EXTENSION,
    SLUICE_GQL_OBJECT_EXTENSION,
    SLUICE_GQL_INTERFACE_EXTENSION,
    SLUICE_GQL_UNION_EXTENSION,
    SLUICE_GQL_ENUM_EXTENSION,
    SLUICE_GQL_INPUT_EXTENSION,
} sluice_gql_definition_kind;

/* One top-level definition; which members are meaningful depends on kind (see each). */
typedef struct sluice_gql_definition {
    sluice_gql_definition_kind kind;
    uint32_t offset;
    sluice_gql_value *description;             /* definitions (not extensions); NULL = none */
    sluice_gql_operation operation;            /* OPERATION_DEFINITION */
    bool shorthand;                            /* OPERATION_DEFINITION written as `{ ... }` */
    sluice_gql_str name;                       /* ptr NULL for anonymous operations and schema */
    sluice_gql_variable_definition *variables; /* OPERATION_DEFINITION */
    sluice_gql_str type_condition;             /* FRAGMENT_DEFINITION */
    sluice_gql_directive *directives;
    sluice_gql_selection *selections;           /* OPERATION_, FRAGMENT_DEFINITION */
    sluice_gql_name_list *interfaces;           /* OBJECT_, INTERFACE_* */
    sluice_gql_field_definition *fields;        /* OBJECT_, INTERFACE_* */
    sluice_gql_input_value *input_fields;       /* INPUT_*; arguments of DIRECTIVE_DEFINITION */
    sluice_gql_name_list *members;              /* UNION_* types; DIRECTIVE_DEFINITION locations */
    sluice_gql_enum_value *values;              /* ENUM_* */
    sluice_gql_operation_type *operation_types; /* SCHEMA_* */
    bool repeatable;                            /* DIRECTIVE_DEFINITION */
    struct sluice_gql_definition *next;
} sluice_gql_definition;

typedef struct sluice_gql_document {
    const char *text; /* the source the names point into */
    size_t text_len;
    sluice_gql_definition *definitions;
    size_t token_count; /* significant tokens, as graphql-js's tokenCount */
    unsigned max_depth; /* deepest nesting reached (selection sets, list/object values, types) */
} sluice_gql_document;

/* The 1-based line and column (in Unicode characters) of byte offset in text, counting lines
 * as GraphQL does (\n, \r\n and a lone \r each end one). */
void sluice_graphql_locate(
    const char *text, size_t len, size_t offset, size_t *out_line, size_t *out_column);

#endif
