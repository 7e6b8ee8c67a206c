/*
 * openapi_spec.h — an OpenAPI 3.0 / 3.1 document read into the operations a plan may call.
 *
 * Owns: reading the spec (JSON, or YAML through libyaml), its local `$ref`s checked once and
 * left in place (readers follow them where they read them), the first server's URL, and each
 * operation: id, method, path template and its segments, parameters (path, query, header) with
 * their schemas, the JSON request body schema, and its action and idempotency after
 * [[code_mode.operations]] overrides (matched by id, else by path) and the spec's own
 * `x-sluice-category` extension. Also the normalized operations document the javascript front end
 * resolves call sites against, and the compact TypeScript-style declaration code-mode://schema
 * shows. Does not own: HTTP (openapi_http.c), matching a call to an operation (openapi_match.c).
 */
#ifndef SLUICE_EXEC_OPENAPI_SPEC_H
#define SLUICE_EXEC_OPENAPI_SPEC_H

#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"
#include "exec/schema.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* The unified action, numbered as facts' sluice_action (exec looks only down, so its own). */
typedef enum sluice_openapi_action {
    SLUICE_OPENAPI_READ = 0,
    SLUICE_OPENAPI_WRITE = 1,
    SLUICE_OPENAPI_DELETE = 2,
    SLUICE_OPENAPI_ADMIN = 3,
} sluice_openapi_action;

typedef enum sluice_openapi_in {
    SLUICE_OPENAPI_IN_PATH = 0,
    SLUICE_OPENAPI_IN_QUERY = 1,
    SLUICE_OPENAPI_IN_HEADER = 2,
} sluice_openapi_in;

typedef struct sluice_openapi_param {
    const char *name;
    sluice_openapi_in in;
    bool required;
    const json_t *schema; /* as written (may be a $ref into the spec's doc); NULL: any */
    bool multi_segment;   /* a path parameter whose value may hold '/' (x-multi-segment) */
} sluice_openapi_param;

typedef struct sluice_openapi_op {
    const char *id;     /* operationId, else "<method>_<path>" */
    const char *method; /* "GET", "POST", ... */
    const char *path;   /* the template: "/users/{id}" */
    uint64_t spanning;  /* bit i: template segment i may span segments (core/path_template.h) */
    sluice_openapi_action action;
    bool idempotent;
    const char *description;
    sluice_openapi_param *params;
    size_t param_count;
    const json_t *body_schema; /* application/json request body as written; NULL: none */
    bool body_required;
    const json_t *response_schema; /* the first 2xx application/json response; NULL: none */
} sluice_openapi_op;

typedef struct sluice_openapi_spec {
    json_t *doc; /* the whole document (released with the arena) */
    const char *title;
    const char *server_url; /* servers[0].url, or NULL */
    sluice_openapi_op *ops;
    size_t op_count;
} sluice_openapi_spec;

/* Reads the spec at path (JSON when it starts with '{', else YAML) with cm's operation
 * overrides. Everything in arena. SLUICE_E_IO (unreadable, larger than
 * SLUICE_LIMIT_OPENAPI_SPEC_BYTES), SLUICE_E_CONFIG (not OpenAPI 3.x, a $ref that does not
 * resolve or only chains to other refs, an [[code_mode.operations]] entry naming no operation, two
 * operations with one id; err names the place), SLUICE_E_NOMEM. */
sluice_status sluice_openapi_spec_load(sluice_arena *arena,
                                       const char *path,
                                       const sluice_config_code_mode *cm,
                                       sluice_openapi_spec *out,
                                       sluice_error *err);

/* As sluice_openapi_spec_load, from text already in memory (name is for messages). */
sluice_status sluice_openapi_spec_parse(sluice_arena *arena,
                                        const char *name,
                                        const char *text,
                                        size_t len,
                                        const sluice_config_code_mode *cm,
                                        sluice_openapi_spec *out,
                                        sluice_error *err);

/* The normalized operations document: {"operations":[{"id","method","path","action",
 * "idempotent", "query": [names] when it has query parameters, "spanning": the template segments
 * whose parameter may span segments (bits) when any}]} as compact JSON text (arena). NULL on
 * NOMEM. */
const char *sluice_openapi_spec_document(sluice_arena *arena, const sluice_openapi_spec *spec);

/* The compact TypeScript-style declaration of the operations whose action the config allows
 * and may_call (when not NULL) permits (arena); the others named as not callable; blocked
 * fields marked. NULL on NOMEM. */
const char *sluice_openapi_spec_declaration(sluice_arena *arena,
                                            const sluice_openapi_spec *spec,
                                            const sluice_config_code_mode *cm,
                                            sluice_schema_may_call may_call,
                                            void *may_ctx);

/* One sluice_schema entry per operation (schema "openapi"): its parameters as columns, notes
 * with "METHOD /path — summary", the action and the operation's declaration, for the search and
 * describe tools. Fills out's tables, notes and table_count (arena); SLUICE_E_NOMEM. */
struct sluice_schema;
sluice_status sluice_openapi_spec_entries(sluice_arena *arena,
                                          const sluice_openapi_spec *spec,
                                          const sluice_config_code_mode *cm,
                                          struct sluice_schema *out);

/* "read" | "write" | "delete" | "admin" */
const char *sluice_openapi_action_name(sluice_openapi_action a);

#endif
