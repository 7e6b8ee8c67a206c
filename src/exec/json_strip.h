/*
 * json_strip.h — removing blocked fields from an upstream answer before a plan sees it
 * (openapi_internal_blocked_fields): at any depth, whatever the key's case.
 *
 * Owns: the walk and the count of what it removed. Does not own: which fields (config) or the
 * plan's result guard (the output side).
 */
#ifndef SLUICE_EXEC_JSON_STRIP_H
#define SLUICE_EXEC_JSON_STRIP_H

#include "config/config.h"
#include "core/error.h"

#include <jansson.h>
#include <stddef.h>

/* Deletes, in place, every object member of v (at any depth) whose key equals one of fields
 * ignoring ASCII case, adding how many to *removed. SLUICE_E_LIMIT when v nests deeper than
 * SLUICE_LIMIT_JSON_WRITE_DEPTH (a field there could not be checked: refuse the value). */
sluice_status sluice_json_strip_fields(json_t *v, const sluice_strlist *fields, size_t *removed);

#endif
