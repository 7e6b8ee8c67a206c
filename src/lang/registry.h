/*
 * registry.h — the language registry: which front ends exist, found by their `language` name.
 *
 * Owns: the built-in front ends (sql, javascript) and the ones registered at start-up (a plugin, a
 * test's toy language), and the lookup validate_code and execute_code dispatch through. Does not
 * own: which languages a server is configured for ([code_mode] languages, the pipeline checks
 * that), or any front end's behaviour.
 *
 * Threads: register before serving; lookups may then run on any thread (a mutex guards both).
 */
#ifndef SLUICE_LANG_REGISTRY_H
#define SLUICE_LANG_REGISTRY_H

#include "core/error.h"
#include "lang/frontend.h"

#include <stddef.h>

/* Room for this many front ends, built-in ones included. */
#define SLUICE_LANG_MAX_FRONTENDS 16u

/* Adds fe (which must outlive every use; its language name must be set). SLUICE_E_INVALID when
 * a front end of that language is registered already, SLUICE_E_LIMIT past
 * SLUICE_LANG_MAX_FRONTENDS. */
sluice_status sluice_lang_register(const sluice_frontend *fe);

/* The front end for language (exact, case-sensitive), or NULL when none is registered. */
const sluice_frontend *sluice_lang_find(const char *language);

/* The registered front ends, in registration order (built-ins first): index < count. */
size_t sluice_lang_count(void);
const sluice_frontend *sluice_lang_at(size_t index);

#endif
