/*
 * config.h — the typed configuration: every key sluice accepts, its type, range and default.
 *
 * Owns: reading a TOML file into sluice_config, validating every key (an unknown or misspelled
 * key, a wrong type or an out-of-range value is an error naming file, line, column and key, with
 * "did you mean" where one fits). A silently ignored typo is a security bug here.
 * Does not own: what the settings do; each module reads its own part.
 *
 * The whole config lives in one arena (sluice_config_free releases it) and is replaced whole on
 * reload, never patched. Strings are NUL-terminated; arrays come with a count.
 */
#ifndef SLUICE_CONFIG_CONFIG_H
#define SLUICE_CONFIG_CONFIG_H

#include "config/types.h"
#include "core/arena.h"
#include "core/buf.h"
#include "core/error.h"

#include <stdbool.h>
#include <stddef.h>

/* Loads and validates path. On failure returns SLUICE_E_CONFIG (or E_IO / E_NOMEM), err names
 * file, line, column, key and, where it fits, "did you mean 'x'?" in err->hint; error strings
 * live in err_arena. On success *out is a fresh config the caller frees. */
sluice_status sluice_config_load(const char *path,
                                 sluice_config **out,
                                 sluice_arena *err_arena,
                                 sluice_error *err);

/* Same, from text already in memory (tests, fuzzing); dir resolves relative paths. */
sluice_status sluice_config_load_text(const char *text,
                                      size_t len,
                                      const char *source,
                                      const char *dir,
                                      sluice_config **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err);

/* A config with every default and no file (used when a test builds one by hand). */
sluice_status sluice_config_defaults(sluice_config **out);

void sluice_config_free(sluice_config *config);

/* Calls fn once per key sluice recognises: table is its table's path ("code_mode",
 * "tools.parameters"; "" for the top-level tables themselves), built is false for keys refused
 * whatever their value (inline secrets). For docs checks and tooling. */
void sluice_config_each_key(void (*fn)(const char *table, const char *key, bool built, void *ctx),
                            void *ctx);

/* True when err refuses a secret written inline in the file: render it without the source text
 * (sluice_error_render(arena, err, NULL, 0)) so the secret is not echoed to terminals and logs. */
bool sluice_config_error_quotes_secret(const sluice_error *err);

/* true when saved programs are on: [code_mode] programs_file or [state] programs_postgres. */
bool sluice_config_programs_on(const sluice_config *config);

/* "low" | "medium" | "high" | "critical" */
const char *sluice_risk_name(sluice_risk risk);

/* One line per [code_mode] key of the config text that pmcp-code-mode 0.7 also reads, saying
 * whether it means the same here and how it differs (pmcp_keys.c), after a count line. Parse
 * errors and SLUICE_E_NOMEM are returned; out is then incomplete. */
sluice_status
sluice_config_pmcp_report(sluice_arena *arena, const char *text, size_t len, sluice_buf *out);

#endif
