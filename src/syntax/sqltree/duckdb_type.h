/*
 * duckdb_type.h — DuckDB's type ids as one table: each id's SQL name, its kind, and whether a
 * result value of it can be read. The one place that knows the type ids; the SQL front end
 * (lang/sql: what JSON a parameter accepts), the DuckDB executor (exec/duckdb_values.c: type
 * names, readable results), the demo database's SQLite copy and the file importer map a kind,
 * not a list of ids.
 *
 * Owns: the id -> (name, kind, flags) table. Does not own: reading values (exec/duckdb_values.c),
 * nested types' children (callers walk them with DuckDB's logical-type API).
 */
#ifndef SLUICE_SYNTAX_SQLTREE_DUCKDB_TYPE_H
#define SLUICE_SYNTAX_SQLTREE_DUCKDB_TYPE_H

#include <duckdb.h>
#include <stdbool.h>

typedef enum sluice_duck_kind {
    SLUICE_DUCK_OTHER = 0, /* INVALID, ANY, literals, BIGNUM, GEOMETRY, VARIANT, unknown ids */
    SLUICE_DUCK_BOOLEAN,
    SLUICE_DUCK_INTEGER, /* TINYINT .. UHUGEINT, signed and unsigned */
    SLUICE_DUCK_FLOAT,   /* FLOAT, DOUBLE */
    SLUICE_DUCK_DECIMAL, /* DECIMAL(w,s): width and scale from the logical type */
    SLUICE_DUCK_DATE,
    SLUICE_DUCK_TIME,      /* TIME, TIME_NS, TIME WITH TIME ZONE */
    SLUICE_DUCK_TIMESTAMP, /* TIMESTAMP (and _S, _MS, _NS), TIMESTAMP WITH TIME ZONE */
    SLUICE_DUCK_INTERVAL,
    SLUICE_DUCK_STRING, /* VARCHAR, UUID, BLOB, BIT, ENUM: read as text */
    SLUICE_DUCK_NESTED, /* LIST, ARRAY, MAP, STRUCT, UNION */
    SLUICE_DUCK_NULL,   /* the type of a bare NULL */
} sluice_duck_kind;

#define SLUICE_DUCK_INT32    0x01u /* an integer kind whose every value fits int32_t */
#define SLUICE_DUCK_INT64    0x02u /* an integer kind whose every value fits int64_t */
#define SLUICE_DUCK_TZ       0x04u /* WITH TIME ZONE */
#define SLUICE_DUCK_PLAIN_TS 0x08u /* a TIMESTAMP without time zone, at any precision */
#define SLUICE_DUCK_READABLE 0x10u /* a scalar whose result values exec/duckdb_values.c reads */

typedef struct sluice_duck_type_info {
    const char *name; /* the SQL name ("TIMESTAMP WITH TIME ZONE"); NULL for an unknown id */
    sluice_duck_kind kind;
    unsigned flags; /* SLUICE_DUCK_* bits above */
} sluice_duck_type_info;

/* The row for id; an id this table does not know gives { NULL, SLUICE_DUCK_OTHER, 0 }. */
sluice_duck_type_info sluice_duck_type(duckdb_type id);

#endif
