/*
 * toml_tree.h — the TOML value tree, shared by the parser (toml.c) and the tree code (toml_tree.c).
 *
 * Owns: the layout of sluice_toml_value, how each table or array came to be (its origin, which
 * the redefinition rules in toml.c read), and the table/array primitives: hashed key lookup,
 * append, sealing an inline table. Internal to src/config; callers use toml.h.
 * Does not own: any TOML rule or error message (toml.c).
 */
#ifndef SLUICE_CONFIG_TOML_TREE_H
#define SLUICE_CONFIG_TOML_TREE_H

#include "config/toml_value.h"
#include "core/arena.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum sluice_toml_origin {
    ORIGIN_NONE,     /* scalars */
    TABLE_IMPLICIT,  /* created as a parent in a [a.b.c] header; [a.b] may still define it */
    TABLE_HEADER,    /* defined by its own [header] (or the root) */
    TABLE_DOTTED,    /* created by a dotted key "a.b = 1"; only dotted keys may extend it */
    TABLE_INLINE,    /* { ... } once closed: complete, nothing may extend it */
    ARRAY_STATIC,    /* [ ... ] literal: complete */
    ARRAY_OF_TABLES, /* made by [[header]]: each [[header]] appends a table */
} sluice_toml_origin;

typedef struct sluice_toml_entry {
    const char *key;
    size_t key_len;
    size_t line, column;
    sluice_toml_value *value;
} sluice_toml_entry;

struct sluice_toml_value {
    sluice_toml_type type;
    sluice_toml_origin origin;
    size_t depth; /* 0 for the root; checked against SLUICE_LIMIT_NESTING_DEPTH */
    size_t line, column;
    union {
        struct {
            const char *text; /* strings and the four date-time kinds; NUL-terminated */
            size_t len;
        } str;
        int64_t integer;
        double real;
        bool boolean;
        struct {
            sluice_toml_entry *entries;
            size_t count, cap;
            uint32_t *slots; /* open-addressing index (entry index + 1), once count > 8 */
            size_t slot_cap;
        } table;
        struct {
            sluice_toml_value **items;
            size_t count, cap;
        } array;
    } as;
};

/* The entry for key (len bytes, may hold NUL) in table t, or NULL. O(1) once t is large. */
sluice_toml_entry *sluice_toml_tree_find(const sluice_toml_value *t, const char *key, size_t len);

/* Appends key -> v to table t, recording where the key is. The caller has checked the key is
 * new. key must outlive the tree (arena memory). false when memory runs out. */
bool sluice_toml_tree_add(sluice_arena *arena,
                          sluice_toml_value *t,
                          const char *key,
                          size_t len,
                          size_t line,
                          size_t column,
                          sluice_toml_value *v);

/* Appends item to array a. false when memory runs out. */
bool sluice_toml_tree_push(sluice_arena *arena, sluice_toml_value *a, sluice_toml_value *item);

/* Marks a just-closed inline table, and the tables its dotted keys created, as complete. */
void sluice_toml_tree_seal(sluice_toml_value *t);

#endif
