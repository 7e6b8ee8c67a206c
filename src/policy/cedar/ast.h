/*
 * ast.h — the parsed form of Cedar policies, entity stores and the internal helpers that the
 * engine's files share.
 *
 * Owns: expression nodes (each with its byte span), policy scopes and conditions, the policy
 * set, the entity store layout, and the declarations of value/extension helpers.
 * Does not own: the public API (cedar.h) — nothing outside src/policy/cedar includes this.
 */
#ifndef SLUICE_POLICY_CEDAR_AST_H
#define SLUICE_POLICY_CEDAR_AST_H

#include "core/buf.h"
#include "policy/cedar/cedar.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum cedar_expr_kind {
    EX_LIT, /* lit */
    EX_VAR, /* op = cedar_var */
    EX_NOT, /* a */
    EX_NEG, /* a */
    EX_AND, /* a && b */
    EX_OR,  /* a || b */
    EX_IF,  /* if a then b else c */
    EX_EQ,
    EX_NE,
    EX_LT,
    EX_LE,
    EX_GT,
    EX_GE,
    EX_ADD,
    EX_SUB,
    EX_MUL,
    EX_IN,     /* a in b */
    EX_HAS,    /* a has name */
    EX_LIKE,   /* a like pat */
    EX_IS,     /* a is name */
    EX_ATTR,   /* a.name, a["name"] */
    EX_SET,    /* [args] */
    EX_RECORD, /* {keys: args}, keys sorted */
    EX_CALL,   /* op(args): extension constructor */
    EX_METHOD, /* a.op(args) */
} cedar_expr_kind;

typedef enum cedar_var { VAR_PRINCIPAL, VAR_ACTION, VAR_RESOURCE, VAR_CONTEXT } cedar_var;

/* Extension constructors and methods, with their arity in parser.c's table. */
typedef enum cedar_fn {
    FN_IP,
    FN_DECIMAL,
    FN_DATETIME,
    FN_DURATION,
    FN_CONTAINS,
    FN_CONTAINS_ALL,
    FN_CONTAINS_ANY,
    FN_IS_EMPTY,
    FN_GET_TAG,
    FN_HAS_TAG,
    FN_IS_IPV4,
    FN_IS_IPV6,
    FN_IS_LOOPBACK,
    FN_IS_MULTICAST,
    FN_IS_IN_RANGE,
    FN_LESS_THAN,
    FN_LESS_THAN_OR_EQUAL,
    FN_GREATER_THAN,
    FN_GREATER_THAN_OR_EQUAL,
    FN_OFFSET,
    FN_DURATION_SINCE,
    FN_TO_DATE,
    FN_TO_TIME,
    FN_TO_MILLISECONDS,
    FN_TO_SECONDS,
    FN_TO_MINUTES,
    FN_TO_HOURS,
    FN_TO_DAYS,
} cedar_fn;

typedef struct cedar_expr cedar_expr;
struct cedar_expr {
    uint8_t kind;   /* cedar_expr_kind */
    uint8_t op;     /* cedar_var or cedar_fn */
    uint16_t depth; /* height of this subtree (bounded so evaluation cannot overflow the stack) */
    uint32_t off;   /* span in the source text */
    uint32_t len;
    uint32_t nargs;
    cedar_expr *a, *b, *c;
    cedar_expr **args;
    const char *name; /* attribute, `has` key, `is` type (decoded) */
    uint32_t name_len;
    const sluice_cedar_field *keys; /* EX_RECORD: sorted keys (values unused) */
    const uint8_t *pat;             /* EX_LIKE: decoded pattern bytes */
    const uint8_t *star;            /* EX_LIKE: star[i] = 1 where pat[i] is the wildcard */
    uint32_t pat_len;
    sluice_cedar_value lit;
};

typedef enum cedar_scope_kind {
    SCOPE_ANY,
    SCOPE_EQ,      /* == uid */
    SCOPE_IN,      /* in uid */
    SCOPE_IS,      /* is type */
    SCOPE_IS_IN,   /* is type in uid */
    SCOPE_IN_LIST, /* action in [uids] */
} cedar_scope_kind;

typedef struct cedar_scope {
    uint8_t kind;
    const char *type; /* SCOPE_IS, SCOPE_IS_IN */
    uint32_t type_len;
    uint32_t count; /* uids */
    sluice_cedar_uid *uids;
} cedar_scope;

typedef struct cedar_cond {
    bool unless;
    const cedar_expr *expr;
} cedar_cond;

typedef struct cedar_annotation {
    const char *name;
    const char *value;
} cedar_annotation;

struct sluice_cedar_policy {
    const char *id;
    bool forbid;
    cedar_scope principal, action, resource;
    cedar_cond *conds;
    uint32_t nconds;
    cedar_annotation *annotations;
    uint32_t nannotations;
    const char *text; /* the policy's own text */
    size_t text_len;
    size_t first_line, last_line;
};

struct sluice_cedar_policyset {
    sluice_cedar_policy **items;
    size_t count, cap;
};

/* ---- entity store (entities.c) -------------------------------------------------------- */

typedef struct cedar_entity {
    sluice_cedar_uid uid;
    sluice_cedar_value attrs; /* record */
    sluice_cedar_value tags;  /* record */
    sluice_cedar_uid *parents;
    uint32_t nparents;
    uint32_t nancestors;
    const sluice_cedar_uid **ancestors; /* transitive closure of parents */
} cedar_entity;

struct sluice_cedar_entities {
    cedar_entity *items;
    size_t count;
    uint32_t *slots; /* open addressing: index + 1, 0 = empty */
    size_t mask;
};

const cedar_entity *sluice_cedar_entities_find(const sluice_cedar_entities *entities,
                                               const sluice_cedar_uid *uid);
/* a in b: equal, or b is an ancestor of a. */
bool sluice_cedar_entities_in(const sluice_cedar_entities *entities,
                              const sluice_cedar_uid *a,
                              const sluice_cedar_uid *b);

/* ---- values (value.c) ----------------------------------------------------------------- */

bool sluice_cedar_uid_eq(const sluice_cedar_uid *a, const sluice_cedar_uid *b);
bool sluice_cedar_value_equal(const sluice_cedar_value *a, const sluice_cedar_value *b);
/* The field's value, NULL when the record has no such key. */
const sluice_cedar_value *
sluice_cedar_record_get(const sluice_cedar_value *record, const char *key, size_t key_len);
int sluice_cedar_key_cmp(const char *a, size_t alen, const char *b, size_t blen);
const char *sluice_cedar_kind_name(uint32_t kind);
/* Writes v in Cedar syntax (for messages and the CLI). */
void sluice_cedar_value_print(sluice_buf *buf, const sluice_cedar_value *v);
void sluice_cedar_uid_print(sluice_buf *buf, const sluice_cedar_uid *uid);

/* ---- extension types (ipaddr.c, decimal.c, datetime.c) -------------------------------- */

/* Each parser returns NULL on success, else a message (static text) saying what is wrong. */
const char *sluice_cedar_ip_parse(const char *s, size_t len, sluice_cedar_ip *out);
bool sluice_cedar_ip_equal(const sluice_cedar_ip *a, const sluice_cedar_ip *b);
bool sluice_cedar_ip_is_loopback(const sluice_cedar_ip *ip);
bool sluice_cedar_ip_is_multicast(const sluice_cedar_ip *ip);
bool sluice_cedar_ip_in_range(const sluice_cedar_ip *ip, const sluice_cedar_ip *range);
void sluice_cedar_ip_print(sluice_buf *buf, const sluice_cedar_ip *ip);

const char *sluice_cedar_decimal_parse(const char *s, size_t len, int64_t *out);
void sluice_cedar_decimal_print(sluice_buf *buf, int64_t d);

const char *sluice_cedar_datetime_parse(const char *s, size_t len, int64_t *out);
const char *sluice_cedar_duration_parse(const char *s, size_t len, int64_t *out);
/* datetime("YYYY-MM-DDThh:mm:ss.SSSZ"), or an offset from the epoch outside years 0-9999. */
void sluice_cedar_datetime_print(sluice_buf *buf, int64_t ms);
/* toDate / toTime; false on overflow. */
bool sluice_cedar_datetime_to_date(int64_t ms, int64_t *out);
int64_t sluice_cedar_datetime_to_time(int64_t ms);

/* ---- evaluation (eval.c) -------------------------------------------------------------- */

typedef struct cedar_eval {
    const sluice_cedar_entities *entities;
    const sluice_cedar_request *request;
    sluice_arena *arena;
    sluice_cedar_value vars[4]; /* principal, action, resource, context */
    const char *error;          /* set when an evaluation fails */
} cedar_eval;

/* Evaluates e; false with ev->error set on an evaluation error (or out of memory). */
bool sluice_cedar_eval(cedar_eval *ev, const cedar_expr *e, sluice_cedar_value *out);

/* Does the policy's scope match the request (never errors). */
bool sluice_cedar_scope_matches(const cedar_eval *ev, const sluice_cedar_policy *p);

#endif
