/*
 * cedar.h — sluice's Cedar policy engine: parse a policy set once, answer many requests.
 *
 * Owns: the API the rest of sluice calls — policy-set parsing, entity and context loading from
 * Cedar's JSON formats, value construction (for building a request context in C), and
 * is_authorized with Cedar's semantics (default deny, forbid overrides permit, an erroring
 * policy is skipped and reported).
 * Does not own: where policies come from (config), how code facts become a context (code mode),
 * or rendering decisions for a particular surface (the CLI and the MCP layer do that).
 *
 * Memory: everything a parse returns lives in the arena passed to it; a decision lives in the
 * arena passed to sluice_cedar_is_authorized (use one small arena per decision and free it).
 * Parsed policy sets and entity stores are read-only after parsing and may be shared by threads.
 */
#ifndef SLUICE_POLICY_CEDAR_CEDAR_H
#define SLUICE_POLICY_CEDAR_CEDAR_H

#include "core/arena.h"
#include "core/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An entity reference `Ns::Type::"id"`: type is the full path ("Ns::Type"). */
typedef struct sluice_cedar_uid {
    const char *type;
    const char *id;
    uint32_t type_len;
    uint32_t id_len;
    uint64_t hash; /* of type and id; set by sluice_cedar_uid_make */
} sluice_cedar_uid;

typedef enum sluice_cedar_kind {
    SLUICE_CEDAR_BOOL,
    SLUICE_CEDAR_LONG,
    SLUICE_CEDAR_STRING,
    SLUICE_CEDAR_ENTITY,
    SLUICE_CEDAR_SET,
    SLUICE_CEDAR_RECORD,
    SLUICE_CEDAR_IPADDR,
    SLUICE_CEDAR_DECIMAL,  /* l = value * 10^4 */
    SLUICE_CEDAR_DATETIME, /* l = milliseconds since the Unix epoch */
    SLUICE_CEDAR_DURATION, /* l = milliseconds */
} sluice_cedar_kind;

typedef struct sluice_cedar_ip {
    uint8_t bytes[16]; /* IPv4 uses the first 4 */
    uint8_t prefix;
    bool v6;
} sluice_cedar_ip;

typedef struct sluice_cedar_field sluice_cedar_field;

/* A Cedar value. Small and copied by value; what it points to is immutable. */
typedef struct sluice_cedar_value {
    uint32_t kind; /* sluice_cedar_kind */
    uint32_t len;  /* bytes of a string, items of a set, fields of a record */
    union {
        bool b;
        int64_t l;
        const char *s;
        const sluice_cedar_uid *uid;
        const struct sluice_cedar_value *items;
        const sluice_cedar_field *fields; /* sorted by key (bytes), no duplicates */
        const sluice_cedar_ip *ip;
    } u;
} sluice_cedar_value;

struct sluice_cedar_field {
    const char *key;
    uint32_t key_len;
    sluice_cedar_value value;
};

typedef struct sluice_cedar_policyset sluice_cedar_policyset;
typedef struct sluice_cedar_policy sluice_cedar_policy;
typedef struct sluice_cedar_entities sluice_cedar_entities;

/* ---- policies ------------------------------------------------------------------------- */

/* Parses a whole policy file. Policies get the ids "policy0", "policy1", ... in order (as
 * cedar-wasm does for a policy string; @id stays an annotation). source names the text in
 * errors ("<source>:<line>:<col>: <what> near '<tok>'"). */
sluice_status sluice_cedar_policyset_parse(sluice_arena *arena,
                                           const char *text,
                                           size_t len,
                                           const char *source,
                                           sluice_cedar_policyset **out,
                                           sluice_error *err);

/* An empty set, for callers that add policies under their own ids. */
sluice_cedar_policyset *sluice_cedar_policyset_new(sluice_arena *arena);

/* Parses text holding exactly one policy and adds it under id (ids must be unique). */
sluice_status sluice_cedar_policyset_add(sluice_arena *arena,
                                         sluice_cedar_policyset *set,
                                         const char *id,
                                         const char *text,
                                         size_t len,
                                         const char *source,
                                         sluice_error *err);

size_t sluice_cedar_policyset_count(const sluice_cedar_policyset *set);
const sluice_cedar_policy *sluice_cedar_policyset_get(const sluice_cedar_policyset *set,
                                                      size_t index);

const char *sluice_cedar_policy_id(const sluice_cedar_policy *policy);
bool sluice_cedar_policy_is_forbid(const sluice_cedar_policy *policy);
/* The value of @name("value") (or "" for a bare @name), NULL when absent. */
const char *sluice_cedar_policy_annotation(const sluice_cedar_policy *policy, const char *name);
/* 1-based first and last line of the policy in its source text. */
size_t sluice_cedar_policy_first_line(const sluice_cedar_policy *policy);
size_t sluice_cedar_policy_last_line(const sluice_cedar_policy *policy);
/* The policy's own text (from its first annotation to its ';'). */
const char *sluice_cedar_policy_text(const sluice_cedar_policy *policy, size_t *len);

/* ---- values, entities, requests ------------------------------------------------------- */

/* Fills uid (copying nothing: type and id must outlive it) and computes its hash. */
void sluice_cedar_uid_make(
    sluice_cedar_uid *uid, const char *type, size_t type_len, const char *id, size_t id_len);

/* Parses `Ns::Type::"id"` (Cedar syntax, escapes allowed) into uid, allocated in arena. */
sluice_status sluice_cedar_uid_parse(
    sluice_arena *arena, const char *text, size_t len, sluice_cedar_uid *uid, sluice_error *err);

/* Value constructors. Strings are not copied. */
sluice_cedar_value sluice_cedar_value_bool(bool b);
sluice_cedar_value sluice_cedar_value_long(int64_t l);
sluice_cedar_value sluice_cedar_value_string(const char *s, size_t len);
sluice_cedar_value sluice_cedar_value_set(const sluice_cedar_value *items, size_t count);
/* Sorts fields in place; SLUICE_E_INVALID on a duplicate key. */
sluice_status
sluice_cedar_value_record(sluice_cedar_field *fields, size_t count, sluice_cedar_value *out);

/* Cedar's JSON value format (`__entity`, `__extn` escapes; objects are records). */
sluice_status sluice_cedar_value_parse_json(sluice_arena *arena,
                                            const char *text,
                                            size_t len,
                                            const char *source,
                                            sluice_cedar_value *out,
                                            sluice_error *err);

/* A request context: a JSON object (Cedar's context format); empty text means {}. */
sluice_status sluice_cedar_context_parse_json(sluice_arena *arena,
                                              const char *text,
                                              size_t len,
                                              const char *source,
                                              sluice_cedar_value *out,
                                              sluice_error *err);

/* Cedar's entities JSON: [{"uid":{type,id},"attrs":{..},"parents":[uid..],"tags":{..}}].
 * The transitive parent relation is computed once here. */
sluice_status sluice_cedar_entities_parse_json(sluice_arena *arena,
                                               const char *text,
                                               size_t len,
                                               const char *source,
                                               sluice_cedar_entities **out,
                                               sluice_error *err);

/* An empty store. */
sluice_cedar_entities *sluice_cedar_entities_empty(sluice_arena *arena);

typedef struct sluice_cedar_request {
    sluice_cedar_uid principal;
    sluice_cedar_uid action;
    sluice_cedar_uid resource;
    sluice_cedar_value context; /* a record; sluice_cedar_value_record(NULL, 0, &v) makes {} */
} sluice_cedar_request;

typedef struct sluice_cedar_policy_error {
    const sluice_cedar_policy *policy;
    const char *message;
} sluice_cedar_policy_error;

typedef struct sluice_cedar_decision {
    bool allow;
    /* Satisfied forbids when a forbid denied; else satisfied permits (empty on default deny). */
    const sluice_cedar_policy **determining;
    size_t determining_count;
    sluice_cedar_policy_error *errors; /* policies skipped because their evaluation failed */
    size_t error_count;
} sluice_cedar_decision;

/* Authorizes one request. Per-decision memory (values built while evaluating, the decision's
 * arrays) comes from arena. Fails only on SLUICE_E_NOMEM or a context that is not a record;
 * evaluation errors are reported per policy in the decision. */
sluice_status sluice_cedar_is_authorized(const sluice_cedar_policyset *set,
                                         const sluice_cedar_entities *entities,
                                         const sluice_cedar_request *request,
                                         sluice_arena *arena,
                                         sluice_cedar_decision *out,
                                         sluice_error *err);

#endif
