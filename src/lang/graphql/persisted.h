/*
 * persisted.h — the persisted-operation allowlist of graphql_persisted_only (persisted.c).
 */
#ifndef SLUICE_LANG_GRAPHQL_PERSISTED_H
#define SLUICE_LANG_GRAPHQL_PERSISTED_H

#include "core/error.h"

#include <stdbool.h>

/* Whether the canonical hash (hex) is that of an operation in the manifest at manifest_path
 * (loaded once). *why is set (static text) when the manifest is unusable: then nothing is
 * found. */
sluice_status sluice_graphql_persisted(const char *manifest_path,
                                       const char *hash,
                                       bool *found,
                                       const char **why);

#endif
