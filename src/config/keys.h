/*
 * keys.h — declarative key tables and the generic decoder that applies them (config-internal).
 *
 * Owns: the shape of a key row (name, type, field, range, default, built or not) and of a
 * section (its rows, aliases, computed defaults, cross-check), the loader state, the error
 * helpers every config check uses, and the decoder: type and range checks, "did you mean",
 * refusal of inline secrets, defaults. Does not own: the tables themselves
 * (config.c) nor the checks of particular keys (checks.c).
 */
#ifndef SLUICE_CONFIG_KEYS_H
#define SLUICE_CONFIG_KEYS_H

#include "config/toml.h"
#include "config/types.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Offset of a row whose value is checked but stored nowhere. */
#define SLUICE_KEY_NO_FIELD SIZE_MAX

typedef enum sluice_key_kind {
    SLUICE_KEY_BOOL,
    SLUICE_KEY_INT,     /* int64_t, [min, max] when min < max */
    SLUICE_KEY_SIZE,    /* size_t, [min, max] */
    SLUICE_KEY_STRING,  /* const char *, at least min bytes */
    SLUICE_KEY_PATH,    /* const char *, resolved against the config file's directory */
    SLUICE_KEY_ENUM,    /* an enum (int-sized), index into choices */
    SLUICE_KEY_CHOICE,  /* const char *, one of choices (the static string is stored) */
    SLUICE_KEY_STRLIST, /* sluice_strlist of non-empty strings */
    SLUICE_KEY_RISKS,   /* bool[4] indexed by sluice_risk, from an array of risk names */
    SLUICE_KEY_SECTION, /* a table decoded with sub into the struct at offset */
    SLUICE_KEY_TABLES,  /* an array of tables decoded with sub into an array (offset, count_offset)
                         */
    SLUICE_KEY_ACTIONS, /* a table of name = "read"|"write"|"delete"|"admin" */
    SLUICE_KEY_NAMES,   /* a table of name = string (sluice_config_strmap), min bytes each */
} sluice_key_kind;

typedef enum sluice_key_status {
    SLUICE_KEY_BUILT,
    SLUICE_KEY_INLINE_SECRET, /* refused whatever its value: secrets never live in the file */
} sluice_key_status;

typedef struct sluice_keys_loader sluice_keys_loader;
typedef struct sluice_section_spec sluice_section_spec;

/* Extra validation of a well-typed value; obj is the section's struct it is stored in. */
typedef sluice_status (*sluice_key_check_fn)(sluice_keys_loader *ld,
                                             const sluice_toml_value *v,
                                             const char *key,
                                             void *obj);

typedef struct sluice_key_spec {
    const char *name;
    sluice_key_kind kind;
    size_t
        offset; /* into the section's struct; SLUICE_KEY_NO_FIELD (scalar keys): stored nowhere */
    size_t count_offset;        /* SLUICE_KEY_TABLES: where the element count goes */
    int64_t min, max;           /* INT / SIZE range; STRING minimum length */
    int64_t def;                /* default of BOOL / INT / SIZE / ENUM */
    const char *def_str;        /* default of STRING / CHOICE */
    const char *const *choices; /* ENUM / CHOICE, NULL-terminated */
    const sluice_section_spec *sub;
    sluice_key_check_fn check;
    sluice_key_status status;
    const char *why; /* INLINE_SECRET: what to use instead */
    bool required;
} sluice_key_spec;

/* A name people bring from elsewhere (pmcp-code-mode's README, its toolkit) and ours for it. */
typedef struct sluice_key_alias {
    const char *from;
    const char *to;
} sluice_key_alias;

struct sluice_section_spec {
    const char *path; /* "code_mode", "tools.parameters"; NULL for the top level */
    bool array;       /* shown as [[path]] rather than [path] */
    size_t size;      /* sizeof one element, for arrays of tables */
    const sluice_key_spec *keys;
    size_t key_count;
    const sluice_key_alias *aliases; /* NULL-terminated, or NULL */
    /* Defaults that are not constants (environment, other allocations). */
    sluice_status (*init)(sluice_keys_loader *ld, void *obj);
    /* Cross-checks once every key of the table is in; obj is never NULL here. */
    sluice_status (*finish)(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj);
};

struct sluice_keys_loader {
    sluice_config *cfg;
    sluice_arena *arena; /* cfg->arena: everything the config keeps */
    sluice_arena *err_arena;
    sluice_error *err;  /* may be NULL: the caller wants no details */
    const char *source; /* file name for messages */
    const char *dir;    /* NULL: relative paths stay relative */
};

/* "low", "medium", "high", "critical" (indexed by sluice_risk), NULL-terminated. */
extern const char *const sluice_keys_risk_names[];
/* "read", "write", "delete", "admin", NULL-terminated. */
extern const char *const sluice_keys_action_names[];

/* Error helpers. Each returns the status it set (SLUICE_E_CONFIG, or SLUICE_E_NOMEM when even the
 * message cannot be allocated); strings go to ld->err_arena. */
sluice_status sluice_keys_nomem(sluice_keys_loader *ld);
sluice_status sluice_keys_fail_at(
    sluice_keys_loader *ld, size_t line, size_t column, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* At the position of value v. */
sluice_status sluice_keys_fail_value(sluice_keys_loader *ld,
                                     const sluice_toml_value *v,
                                     const char *key,
                                     const char *fmt,
                                     ...) __attribute__((format(printf, 4, 5)));
/* Adds a hint to the error just set. */
void sluice_keys_hint(sluice_keys_loader *ld, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* User text quoted back in a message: bounded, control bytes shown as '?'. */
const char *sluice_keys_show(sluice_keys_loader *ld, const char *s);
/* Position of key's value in table, or of the table itself when the key is absent. */
void sluice_keys_value_pos(const sluice_toml_value *table,
                           const char *key,
                           size_t *line,
                           size_t *col);

/* Writes every row's constant default into obj, recursing into sections, then spec->init. */
sluice_status
sluice_keys_apply_defaults(sluice_keys_loader *ld, const sluice_section_spec *spec, void *obj);

/* Decodes table against spec into obj, keys in file order so the first
 * error reported is the first in the file, then required keys, then spec->finish. */
sluice_status sluice_keys_decode(sluice_keys_loader *ld,
                                 const sluice_section_spec *spec,
                                 const sluice_toml_value *table,
                                 void *obj);

#endif
