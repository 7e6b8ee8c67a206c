/*
 * json_schema.h — the subset of JSON Schema (2020-12) that tool inputs need, failing closed.
 *
 * Owns: checking a schema at registration (every keyword is either one we enforce or a pure
 * annotation; anything else — pattern, if/then/else, remote $ref, an unknown dialect — is refused
 * so that a constraint the author wrote is never silently skipped), and validating an instance
 * against a checked schema with an error that names the JSON path ("arguments.code: expected
 * string, got number").
 * Enforced: type (string or array; integer = number with no fraction), properties, required,
 * additionalProperties (bool or schema), enum, const, items, minLength/maxLength (code points),
 * minimum/maximum, exclusiveMinimum/exclusiveMaximum, multipleOf, minItems/maxItems, uniqueItems,
 * minProperties/maxProperties, local $ref ("#", "#/$defs/x", any local JSON pointer), anyOf,
 * oneOf, allOf, not, and boolean schemas. Annotations: title, description, default, examples,
 * $schema, $id, $comment, format, readOnly, writeOnly, deprecated, contentMediaType,
 * contentEncoding, and $defs/definitions (containers, checked themselves).
 * Does not own: where schemas come from (mcp/server.c for our tools, exec/mcp_client.c for a
 * downstream server's) or what a failure means (a tool result, a refused plan call).
 * In core because both the MCP server and the plan's MCP client (exec/) validate with it.
 */
#ifndef SLUICE_CORE_JSON_SCHEMA_H
#define SLUICE_CORE_JSON_SCHEMA_H

#include "core/arena.h"
#include "core/error.h"

#include <jansson.h>

/* Checks that schema uses only supported keywords with well-formed values, that every $ref is
 * local and resolves, and that $schema (when present) names a dialect we handle. where names the
 * schema in messages ("inputSchema"). SLUICE_E_INVALID or SLUICE_E_UNSUPPORTED with err->key the
 * path inside the schema; messages in arena. */
sluice_status sluice_json_schema_check(const json_t *schema,
                                       const char *where,
                                       sluice_arena *arena,
                                       sluice_error *err);

/* Validates instance against a schema that passed sluice_json_schema_check. root names the
 * instance in paths ("arguments"). On the first violation returns SLUICE_E_INVALID, err->message
 * "<path>: <what>" and err->key the path, allocated in arena. */
sluice_status sluice_json_schema_validate(const json_t *schema,
                                          const json_t *instance,
                                          const char *root,
                                          sluice_arena *arena,
                                          sluice_error *err);

/* The JSON type of value as JSON Schema names it: "object", "array", "string", "number",
 * "boolean", "null" (integers are "number"). */
const char *sluice_json_type_name(const json_t *value);

#endif
