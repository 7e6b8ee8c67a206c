/*
 * toml_tree.c — the TOML value tree: table and array primitives and the public accessors.
 *
 * Owns: hashed key lookup (an open-addressing index built once a table has more than
 * TABLE_INDEX_FROM keys, so a hostile file with many keys stays linear), growth of tables and
 * arrays in the arena, sealing inline tables, and every read accessor declared in toml.h.
 * Does not own: parsing or the TOML rules (toml.c).
 */
#include "config/toml_tree.h"

#include "core/vec.h"

#include <string.h>

typedef sluice_toml_value value;
typedef sluice_toml_entry entry;

/* Tables index their keys once they hold more than this many. */
#define TABLE_INDEX_FROM 8u

/* FNV-1a: small, and good enough for config keys. */
static uint32_t hash_key(const char *key, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)key[i];
        h *= 16777619u;
    }
    return h;
}

static bool key_equals(const entry *e, const char *key, size_t len)
{
    return e->key_len == len && memcmp(e->key, key, len) == 0;
}

sluice_toml_entry *sluice_toml_tree_find(const sluice_toml_value *t, const char *key, size_t len)
{
    if (t->as.table.slots == NULL) {
        for (size_t i = 0; i < t->as.table.count; i++) {
            if (key_equals(&t->as.table.entries[i], key, len))
                return &t->as.table.entries[i];
        }
        return NULL;
    }
    size_t mask = t->as.table.slot_cap - 1;
    for (size_t s = hash_key(key, len) & mask;; s = (s + 1) & mask) {
        uint32_t slot = t->as.table.slots[s];
        if (slot == 0)
            return NULL;
        if (key_equals(&t->as.table.entries[slot - 1], key, len))
            return &t->as.table.entries[slot - 1];
    }
}

static void index_insert(value *t, size_t index)
{
    const entry *e = &t->as.table.entries[index];
    size_t mask = t->as.table.slot_cap - 1;
    size_t s = hash_key(e->key, e->key_len) & mask;
    while (t->as.table.slots[s] != 0)
        s = (s + 1) & mask;
    t->as.table.slots[s] = (uint32_t)(index + 1);
}

/* Keeps the index at most half full; rebuilt whole when it grows. */
static bool index_grow(sluice_arena *arena, sluice_toml_value *t)
{
    size_t count = t->as.table.count;
    if (count < TABLE_INDEX_FROM || (t->as.table.slots != NULL && count * 2 < t->as.table.slot_cap))
        return true;
    size_t cap = 32;
    while (cap < count * 4)
        cap *= 2;
    uint32_t *slots = sluice_arena_calloc(arena, cap, sizeof(*slots));
    if (slots == NULL)
        return false;
    t->as.table.slots = slots;
    t->as.table.slot_cap = cap;
    for (size_t i = 0; i < count; i++)
        index_insert(t, i);
    return true;
}

bool sluice_toml_tree_add(sluice_arena *arena,
                          sluice_toml_value *t,
                          const char *key,
                          size_t len,
                          size_t line,
                          size_t column,
                          sluice_toml_value *v)
{
    if (t->as.table.count >= UINT32_MAX) /* the index stores entry numbers in 32 bits */
        return false;
    entry *grown = sluice_vec_grow(arena, t->as.table.entries, t->as.table.count, &t->as.table.cap,
                                   sizeof(*grown), 4);
    if (grown == NULL)
        return false;
    t->as.table.entries = grown;
    entry *e = &t->as.table.entries[t->as.table.count++];
    e->key = key;
    e->key_len = len;
    e->value = v;
    e->line = line;
    e->column = column;
    if (t->as.table.slots != NULL && t->as.table.count * 2 < t->as.table.slot_cap) {
        index_insert(t, t->as.table.count - 1);
        return true;
    }
    return index_grow(arena, t);
}

bool sluice_toml_tree_push(sluice_arena *arena, sluice_toml_value *a, sluice_toml_value *item)
{
    sluice_toml_value **grown = sluice_vec_grow(arena, a->as.array.items, a->as.array.count,
                                                &a->as.array.cap, sizeof(*grown), 4);
    if (grown == NULL)
        return false;
    a->as.array.items = grown;
    a->as.array.items[a->as.array.count++] = item;
    return true;
}

/* An inline table is complete once closed, including tables its dotted keys created. */
void sluice_toml_tree_seal(sluice_toml_value *t)
{
    t->origin = TABLE_INLINE;
    for (size_t i = 0; i < t->as.table.count; i++) {
        sluice_toml_value *child = t->as.table.entries[i].value;
        if (child->type == SLUICE_TOML_TABLE && child->origin == TABLE_DOTTED)
            sluice_toml_tree_seal(child);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Accessors                                                                                   */

sluice_toml_type sluice_toml_type_of(const sluice_toml_value *v)
{
    return v->type;
}

const char *sluice_toml_type_name(sluice_toml_type type)
{
    static const char *const names[] = {
        [SLUICE_TOML_STRING] = "string",         [SLUICE_TOML_INTEGER] = "integer",
        [SLUICE_TOML_FLOAT] = "float",           [SLUICE_TOML_BOOL] = "boolean",
        [SLUICE_TOML_DATETIME] = "datetime",     [SLUICE_TOML_DATETIME_LOCAL] = "local datetime",
        [SLUICE_TOML_DATE_LOCAL] = "local date", [SLUICE_TOML_TIME_LOCAL] = "local time",
        [SLUICE_TOML_ARRAY] = "array",           [SLUICE_TOML_TABLE] = "table",
    };
    return (unsigned)type <= SLUICE_TOML_TABLE ? names[type] : "unknown";
}

size_t sluice_toml_line(const sluice_toml_value *v)
{
    return v->line;
}

size_t sluice_toml_column(const sluice_toml_value *v)
{
    return v->column;
}

size_t sluice_toml_table_count(const sluice_toml_value *t)
{
    return t->type == SLUICE_TOML_TABLE ? t->as.table.count : 0;
}

static const entry *entry_at(const sluice_toml_value *t, size_t index)
{
    if (t->type != SLUICE_TOML_TABLE || index >= t->as.table.count)
        return NULL;
    return &t->as.table.entries[index];
}

const char *sluice_toml_table_key(const sluice_toml_value *t, size_t index)
{
    const entry *e = entry_at(t, index);
    return e != NULL ? e->key : NULL;
}

size_t sluice_toml_table_key_length(const sluice_toml_value *t, size_t index)
{
    const entry *e = entry_at(t, index);
    return e != NULL ? e->key_len : 0;
}

const sluice_toml_value *sluice_toml_table_value(const sluice_toml_value *t, size_t index)
{
    const entry *e = entry_at(t, index);
    return e != NULL ? e->value : NULL;
}

void sluice_toml_table_key_position(const sluice_toml_value *t,
                                    size_t index,
                                    size_t *out_line,
                                    size_t *out_column)
{
    const entry *e = entry_at(t, index);
    *out_line = e != NULL ? e->line : 0;
    *out_column = e != NULL ? e->column : 0;
}

const sluice_toml_value *sluice_toml_table_get(const sluice_toml_value *t, const char *key)
{
    if (t->type != SLUICE_TOML_TABLE || key == NULL)
        return NULL;
    const entry *e = sluice_toml_tree_find(t, key, strlen(key));
    return e != NULL ? e->value : NULL;
}

size_t sluice_toml_array_count(const sluice_toml_value *a)
{
    return a->type == SLUICE_TOML_ARRAY ? a->as.array.count : 0;
}

const sluice_toml_value *sluice_toml_array_get(const sluice_toml_value *a, size_t index)
{
    if (a->type != SLUICE_TOML_ARRAY || index >= a->as.array.count)
        return NULL;
    return a->as.array.items[index];
}

const char *sluice_toml_string(const sluice_toml_value *v, size_t *out_len)
{
    bool ok = v->type == SLUICE_TOML_STRING;
    if (out_len != NULL)
        *out_len = ok ? v->as.str.len : 0;
    return ok ? v->as.str.text : "";
}

int64_t sluice_toml_integer(const sluice_toml_value *v)
{
    return v->type == SLUICE_TOML_INTEGER ? v->as.integer : 0;
}

double sluice_toml_float(const sluice_toml_value *v)
{
    return v->type == SLUICE_TOML_FLOAT ? v->as.real : 0.0;
}

bool sluice_toml_bool(const sluice_toml_value *v)
{
    return v->type == SLUICE_TOML_BOOL && v->as.boolean;
}

const char *sluice_toml_datetime_text(const sluice_toml_value *v)
{
    switch (v->type) {
    case SLUICE_TOML_DATETIME:
    case SLUICE_TOML_DATETIME_LOCAL:
    case SLUICE_TOML_DATE_LOCAL:
    case SLUICE_TOML_TIME_LOCAL:
        return v->as.str.text;
    default:
        return "";
    }
}
