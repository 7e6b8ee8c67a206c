/*
 * toml.h — a TOML 1.0 parser of our own (no C TOML library is packaged for Debian).
 *
 * Owns: turning bytes into a tree of values allocated in the caller's arena, with the line and
 * column of every key and value, and errors that name place and cause
 * ("<source>:3:14: duplicate key 'port' (first defined at line 2)"). Reading the tree is
 * toml_value.h's (included here, so callers include this header only).
 * Does not own: what the keys mean; config.c gives them types and validates them.
 *
 * Conformance: the toml-test 1.0.0 corpus (valid + invalid) and a differential test against
 * npm smol-toml (tests/unit/test_toml.c, tests/diff/).
 */
#ifndef SLUICE_CONFIG_TOML_H
#define SLUICE_CONFIG_TOML_H

#include "config/toml_value.h"
#include "core/arena.h"
#include "core/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parses len bytes of src (need not be NUL-terminated; must be UTF-8). source names the input in
 * errors. On success *out_root is the root table, owned by arena. On failure returns
 * SLUICE_E_INVALID (or SLUICE_E_LIMIT / SLUICE_E_NOMEM), *out_root is untouched, and err carries
 * source, line, column and a message saying what was expected. */
sluice_status sluice_toml_parse(sluice_arena *arena,
                                const char *src,
                                size_t len,
                                const char *source,
                                sluice_toml_value **out_root,
                                sluice_error *err);

#endif
