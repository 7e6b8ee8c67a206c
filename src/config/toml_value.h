/*
 * toml_value.h — reading a parsed TOML tree: value types, positions, tables in insertion order,
 * arrays, scalars.
 *
 * Owns: the read interface of the tree (toml_tree.c implements it over the layout in
 * toml_tree.h). Below the parser (toml.h includes it, toml.c builds the tree), so the tree
 * needs nothing of the parser.
 */
#ifndef SLUICE_CONFIG_TOML_VALUE_H
#define SLUICE_CONFIG_TOML_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum sluice_toml_type {
    SLUICE_TOML_STRING,
    SLUICE_TOML_INTEGER,
    SLUICE_TOML_FLOAT,
    SLUICE_TOML_BOOL,
    SLUICE_TOML_DATETIME,       /* offset date-time: 1979-05-27T07:32:00Z */
    SLUICE_TOML_DATETIME_LOCAL, /* 1979-05-27T07:32:00 */
    SLUICE_TOML_DATE_LOCAL,     /* 1979-05-27 */
    SLUICE_TOML_TIME_LOCAL,     /* 07:32:00 */
    SLUICE_TOML_ARRAY,
    SLUICE_TOML_TABLE,
} sluice_toml_type;

typedef struct sluice_toml_value sluice_toml_value;

sluice_toml_type sluice_toml_type_of(const sluice_toml_value *value);

/* "string", "integer", "float", "boolean", "datetime", "local datetime", "local date",
 * "local time", "array", "table" — for error messages. */
const char *sluice_toml_type_name(sluice_toml_type type);

/* 1-based position where the value starts in the source. Tables: the last key of their header
 * ("b" in [a.b]) or the key that created them (dotted keys, implicit parents); each [[a.b]]
 * element and its array: the '[['; the root: 1:1. */
size_t sluice_toml_line(const sluice_toml_value *value);
size_t sluice_toml_column(const sluice_toml_value *value);

/* Tables keep keys in insertion order. */
size_t sluice_toml_table_count(const sluice_toml_value *table);
const char *sluice_toml_table_key(const sluice_toml_value *table, size_t index);
/* Byte length of that key: quoted keys may hold "\u0000", which ends the C string early. */
size_t sluice_toml_table_key_length(const sluice_toml_value *table, size_t index);
const sluice_toml_value *sluice_toml_table_value(const sluice_toml_value *table, size_t index);
/* Position of the key itself (where a typo is). */
void sluice_toml_table_key_position(const sluice_toml_value *table,
                                    size_t index,
                                    size_t *out_line,
                                    size_t *out_column);
/* NULL when absent. */
const sluice_toml_value *sluice_toml_table_get(const sluice_toml_value *table, const char *key);

size_t sluice_toml_array_count(const sluice_toml_value *array);
const sluice_toml_value *sluice_toml_array_get(const sluice_toml_value *array, size_t index);

/* Scalars. Calling an accessor on the wrong type returns 0 / "" / false. */
const char *sluice_toml_string(const sluice_toml_value *value, size_t *out_len);
int64_t sluice_toml_integer(const sluice_toml_value *value);
double sluice_toml_float(const sluice_toml_value *value);
bool sluice_toml_bool(const sluice_toml_value *value);
/* The four date/time kinds as normalised RFC 3339 text (as toml-test expects). */
const char *sluice_toml_datetime_text(const sluice_toml_value *value);

#endif
