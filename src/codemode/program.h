/*
 * program.h — saved programs (issue 24 item 4): the promotion record, its seal, the catalog of
 * what is promoted now, the typed parameters a saved program takes, and why one may no longer
 * run.
 *
 * An administrator promotes a validated program under a name: the record keeps the code, its
 * canonical hash, the action and risk it was judged at, its parameters (each typed and bounded)
 * and the basis it was judged on (the backend, that backend's schema version, the policy
 * version and the [code_mode] rules). Each record is one line of the program store
 * (state/program_store.h), sealed with HMAC-SHA256 under the token keyring's current key over a
 * domain tag, the store's prev link and the record's canonical JSON: a line edited, forged,
 * moved or signed by a key no longer in the ring fails to open, and the program it names is
 * disabled (fail closed), never run as written.
 * Owns: record <-> JSON, sealing and opening lines, the catalog (latest version per name),
 * parameters from a spec or from validated example variables, the input schema, and the
 * staleness check (what changed since promotion, and how to fix it).
 * Does not own: judging the program (the pipeline does, codemode.h), where lines live
 * (state/program_store.h), who may promote (the CLI and the console decide), audit records.
 */
#ifndef SLUICE_CODEMODE_PROGRAM_H
#define SLUICE_CODEMODE_PROGRAM_H

#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"
#include "state/program_store.h"
#include "token/secret.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* One typed parameter (a variable of the program). Every parameter is required. */
typedef struct sluice_program_param {
    const char *name; /* ^[A-Za-z_][A-Za-z0-9_]{0,63}$ */
    sluice_param_type type;
    const char *description;  /* may be NULL */
    int64_t minimum, maximum; /* integer / number: inclusive; always set (±2^53 by default) */
    int64_t max_length;       /* string: characters, 1 .. SLUICE_LIMIT_PROGRAM_STRING_CHARS_MAX */
} sluice_program_param;

/* What a program was judged on when it was promoted; all hex or names, never NULL in a record. */
typedef struct sluice_program_basis {
    const char *backend;        /* the database name ("default", a [[databases]] name) */
    const char *schema_version; /* that backend's catalog version hash */
    const char *policy_version; /* sluice_policy_version */
    const char *rules;          /* the [code_mode] rules fingerprint (hex) */
} sluice_program_basis;

typedef struct sluice_program {
    const char *name;
    int64_t version;
    bool demoted;
    const char *language;
    const char *code;
    const char *code_hash;
    const char *description; /* may be "" */
    sluice_program_param *params;
    size_t param_count;
    const char *action; /* read | write | delete | admin */
    const char *risk;   /* low | medium | high | critical */
    sluice_program_basis basis;
    const char *by;     /* who promoted (or demoted) it */
    int64_t at;         /* when, seconds since the epoch */
    const char *reason; /* a demotion's reason, "" otherwise */
    /* NULL when the record opened and the program is promoted; else why it cannot run (the
     * store's record does not verify, it was demoted, ...), written for the caller. */
    const char *disabled;
} sluice_program;

/* The latest version of every name in a store, in first-promotion order. */
typedef struct sluice_program_catalog {
    sluice_program *items;
    size_t count;
} sluice_program_catalog;

/* true when name is a valid saved-program (tool) name: ^[A-Za-z0-9_.-]{1,64}$. */
bool sluice_program_name_valid(const char *name);

/* true when name is taken by a tool the server registers itself (code mode's, query mode's,
 * a [[tools]] entry): a saved program may not shadow one (tag-builtin-tool-names). */
bool sluice_program_name_reserved(const sluice_config *config, const char *name);

/* The parameters of a program from spec, an object {name: {type, description?, minimum?,
 * maximum?, maxLength?}} (NULL: derived from example, the validated variables: a string becomes
 * a string of at most SLUICE_LIMIT_PROGRAM_STRING_CHARS characters, an integer an integer within
 * ±2^53, a real a number, a boolean a boolean). Every variable of example must be a parameter
 * and every parameter a variable, with a value of its type and within its bounds. SLUICE_E_INVALID
 * with the parameter named and how to fix it; SLUICE_E_LIMIT past SLUICE_LIMIT_PROGRAM_PARAMS. */
sluice_status sluice_program_params_from(sluice_arena *arena,
                                         const json_t *spec,
                                         const json_t *example,
                                         sluice_program_param **out,
                                         size_t *out_count,
                                         sluice_error *err);

/* The MCP inputSchema of p: {type: object, properties: {...}, required: [every parameter],
 * additionalProperties: false}, each property typed and bounded. New reference; NULL on NOMEM. */
json_t *sluice_program_input_schema(const sluice_program *p);

/* The least arguments p accepts (each string "", each number its minimum, each boolean false):
 * what a program is judged with when no call is at hand (is it offered to this caller in
 * tools/list?). The call itself is judged again with its own arguments. New reference; NULL on
 * NOMEM. */
json_t *sluice_program_sample_arguments(const sluice_program *p);

/* Checks call arguments against p's parameters (types, bounds, no others, none missing).
 * SLUICE_E_INVALID with the argument named (err in arena). */
sluice_status sluice_program_check_arguments(const sluice_program *p,
                                             const json_t *arguments,
                                             sluice_arena *arena,
                                             sluice_error *err);

/* The record of p (demoted, reason and disabled are written as demoted/reason). New reference;
 * NULL on NOMEM. */
json_t *sluice_program_to_json(const sluice_program *p);

/* Appends p (its version must be the name's next) to store, sealed with ring's current key.
 * The store's errors pass through (SLUICE_E_DENIED: the version moved meanwhile). */
sluice_status sluice_program_save(sluice_program_store *store,
                                  const sluice_secret_ring *ring,
                                  const sluice_program *p,
                                  sluice_arena *arena,
                                  sluice_error *err);

/* Reads store and opens every line with ring: the latest version of each name, with disabled
 * set for a record that does not verify or is demoted. A store that cannot be read or is
 * damaged is an error (SLUICE_E_IO, SLUICE_E_INVALID, ...): then no program may run. */
sluice_status sluice_program_catalog_load(sluice_program_store *store,
                                          const sluice_secret_ring *ring,
                                          sluice_arena *arena,
                                          sluice_program_catalog *out,
                                          sluice_error *err);

/* The entry named name, or NULL. */
const sluice_program *sluice_program_find(const sluice_program_catalog *catalog, const char *name);

/* NULL when live is what p was promoted on; else the message a caller gets: what changed since
 * version N was promoted and how to fix it (re-promote), in arena ("(out of memory)" when it
 * cannot be built: still non-NULL, so a failure never reads as "unchanged"). */
const char *sluice_program_stale(const sluice_program *p,
                                 const sluice_program_basis *live,
                                 sluice_arena *arena);

#endif
