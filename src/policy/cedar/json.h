/*
 * json.h — reading Cedar's JSON formats (values, entity uids) from jansson trees.
 *
 * Owns: the conversion context shared by json.c (values, contexts) and entities.c.
 * Does not own: the entity store layout (ast.h).
 */
#ifndef SLUICE_POLICY_CEDAR_JSON_H
#define SLUICE_POLICY_CEDAR_JSON_H

#include "policy/cedar/ast.h"

#include <jansson.h>

typedef struct cedar_json {
    sluice_arena *arena;
    const char *source; /* names the input in errors */
    sluice_error *err;
} cedar_json;

/* Parses JSON text; syntax errors carry line and column. The caller owns *out. */
sluice_status sluice_cedar_json_load(cedar_json *c, const char *text, size_t len, json_t **out);

/* Converts one JSON value; path ("attrs.x[2]") names it in errors. Strings are copied. */
sluice_status sluice_cedar_json_value(
    cedar_json *c, const json_t *j, const char *path, unsigned depth, sluice_cedar_value *out);

/* An entity uid: {"type", "id"} or {"__entity": {"type", "id"}}. */
sluice_status
sluice_cedar_json_uid(cedar_json *c, const json_t *j, const char *path, sluice_cedar_uid *out);

/* Cedar's entities JSON (an array of {uid, attrs, parents, tags}) into a store. */
sluice_status
sluice_cedar_entities_from_json(cedar_json *c, const json_t *root, sluice_cedar_entities **out);

/* A context: a JSON object. */
sluice_status
sluice_cedar_context_from_json(cedar_json *c, const json_t *j, sluice_cedar_value *out);

#endif
