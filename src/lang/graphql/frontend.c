/*
 * frontend.c — the GraphQL front end (lang/frontend.h): one operation → CodeFacts, its
 * canonical hash, a business-language explanation and its risk.
 *
 * Owns: the order of the analysis (character and token limits, parse, canonical form, the
 * spec's rules, the operation's own analysis), the GraphQL CodeFacts extension and its Cedar
 * keys (operationName, operationType, depth, accessedFields, rootFields, aliasCount, cost,
 * introspection), and registering the response shaper with the GraphQL executor.
 * The schema comes from the backend (sluice_schema.document, the upstream SDL); a backend
 * without one refuses every operation (rule graphql_schema).
 * Does not own: the rules themselves (validate.c, operation.c), execution.
 */
#include "exec/executor.h"
#include "lang/graphql/front.h"
#include "lang/graphql/persisted.h"
#include "lang/graphql/validate.h"
#include "syntax/graphql/graphql.h"
#include "syntax/graphql/model_cache.h"

#include <string.h>

static void decref(void *p)
{
    json_decref(p);
}

static bool put(json_t *obj, const char *key, json_t *value)
{
    return value != NULL && json_object_set_new(obj, key, value) == 0;
}

static const sluice_graphql_facts *ext_of(const sluice_codefacts *f);

static bool gql_cedar_context(const sluice_codefacts *f, json_t *script)
{
    const sluice_graphql_facts *x = ext_of(f);
    return put(script, "operationName", json_string(x->operation_name)) &&
           put(script, "operationType", json_string(x->operation_type)) &&
           put(script, "depth", json_integer((json_int_t)f->depth)) &&
           put(script, "accessedFields", sluice_codefacts_list_json(&f->fields_read)) &&
           put(script, "rootFields", sluice_codefacts_list_json(&f->operations)) &&
           put(script, "aliasCount", json_integer((json_int_t)x->alias_count)) &&
           put(script, "cost", json_integer((json_int_t)x->cost)) &&
           put(script, "introspection", json_boolean(x->introspection));
}

/* The context's members, then the record's own. The context's "depth" is the neutral record's
 * depth, which the record has already written in its place. */
static void gql_write_json(const sluice_codefacts *f, sluice_json_out *out)
{
    const sluice_graphql_facts *x = ext_of(f);
    sluice_json_out_key(out, "operationName");
    sluice_json_out_string(out, x->operation_name);
    sluice_json_out_key(out, "operationType");
    sluice_json_out_string(out, x->operation_type);
    sluice_json_out_key(out, "accessedFields");
    sluice_codefacts_list_write(out, &f->fields_read);
    sluice_json_out_key(out, "rootFields");
    sluice_codefacts_list_write(out, &f->operations);
    sluice_json_out_key(out, "aliasCount");
    sluice_json_out_integer(out, (json_int_t)x->alias_count);
    sluice_json_out_key(out, "cost");
    sluice_json_out_integer(out, (json_int_t)x->cost);
    sluice_json_out_key(out, "introspection");
    sluice_json_out_bool(out, x->introspection);
    sluice_json_out_key(out, "rootFieldCount");
    sluice_json_out_integer(out, (json_int_t)x->root_field_count);
    sluice_json_out_key(out, "directiveCount");
    sluice_json_out_integer(out, (json_int_t)x->directive_count);
    sluice_json_out_key(out, "tokenCount");
    sluice_json_out_integer(out, (json_int_t)x->token_count);
}

static const sluice_codefacts_ext_ops gql_ext_ops = {
    .cedar_context = gql_cedar_context,
    .write_json = gql_write_json,
};

static const sluice_graphql_facts *ext_of(const sluice_codefacts *f)
{
    static const sluice_graphql_facts none = { .operation_name = "", .operation_type = "" };
    return f != NULL && f->ext_ops == &gql_ext_ops && f->ext != NULL ? f->ext : &none;
}

/* Characters (code points) of code, as graphql-armor's characterLimit counts them. */
static size_t chars_of(const char *code, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)code[i] & 0xC0) != 0x80;
    return n;
}

static sluice_status violate_err(sluice_codefacts *f, const char *rule, const sluice_error *e)
{
    return sluice_codefacts_violate(f, rule, e->line, e->column, e->hint, "%s",
                                    e->message != NULL ? e->message : "invalid GraphQL");
}

/* The upstream schema model, from the context's schema or the executor's. */
static sluice_status model_of(sluice_arena *arena,
                              const sluice_frontend_context *ctx,
                              const sluice_gql_schema **out,
                              sluice_error *err)
{
    sluice_schema fetched;
    const sluice_schema *s = ctx != NULL ? ctx->schema : NULL;
    if (s == NULL && ctx != NULL && ctx->executor != NULL) {
        sluice_status st = sluice_executor_schema(ctx->executor, arena, &fetched, err);
        if (st != SLUICE_OK)
            return st;
        s = &fetched;
    }
    if (s == NULL || s->document == NULL)
        return SLUICE_E_NOT_FOUND;
    if (s->document_model != NULL) { /* built by our describer with this schema */
        *out = s->document_model;
        return SLUICE_OK;
    }
    return sluice_graphql_model(arena, s->document, s->document_len, out, err);
}

static sluice_graphql_limits parse_limits(const sluice_graphql_rules *r)
{
    return (sluice_graphql_limits){ .max_tokens = (size_t)r->max_tokens };
}

/* Parse, canonical form and hash; false when refused (a violation was added). */
static bool parse_into(sluice_arena *arena,
                       const char *code,
                       size_t len,
                       const sluice_graphql_rules *r,
                       sluice_codefacts *f,
                       sluice_gql_document **doc)
{
    size_t chars = chars_of(code, len);
    if (r->max_chars > 0 && (int64_t)chars > r->max_chars) {
        sluice_codefacts_violate(f, "graphql_max_chars", 1, 1, "send a shorter operation",
                                 "graphql_max_chars is %lld; the operation has %zu characters",
                                 (long long)r->max_chars, chars);
        return false;
    }
    sluice_error e = { 0 };
    sluice_graphql_limits lim = parse_limits(r);
    sluice_status st = sluice_graphql_parse(arena, code, len, "operation", &lim, doc, &e);
    if (st == SLUICE_E_LIMIT) {
        bool tokens = e.message != NULL && strstr(e.message, "tokens") != NULL;
        if (tokens)
            sluice_codefacts_violate(f, "graphql_max_tokens", e.line, e.column,
                                     "send a smaller operation",
                                     "graphql_max_tokens is %lld; the operation has more tokens "
                                     "(passed at line %zu, column %zu)",
                                     (long long)r->max_tokens, e.line, e.column);
        else
            violate_err(f, "graphql_limits", &e);
        return false;
    }
    if (st != SLUICE_OK) {
        if (st == SLUICE_E_NOMEM)
            f->incomplete = true;
        else
            violate_err(f, "syntax_error", &e);
        return false;
    }
    size_t clen = 0;
    char *canon = sluice_graphql_print(arena, *doc, &clen);
    if (canon == NULL) {
        f->incomplete = true;
        return false;
    }
    f->canonical = canon;
    sluice_status hs = sluice_graphql_canonical_hash(arena, code, len, &lim, f->code_hash, &e);
    if (hs != SLUICE_OK)
        f->incomplete = true;
    return hs == SLUICE_OK;
}

/* graphql_persisted_only: the operation's canonical hash must be in the manifest. */
static void persisted_check(const sluice_config_code_mode *cm, sluice_codefacts *f)
{
    bool found = false;
    const char *why = NULL;
    sluice_graphql_persisted(cm->graphql_persisted_manifest, f->code_hash, &found, &why);
    if (why != NULL)
        sluice_codefacts_violate(f, "graphql_persisted_only", 0, 0,
                                 "fix graphql_persisted_manifest", "the manifest %s %s",
                                 cm->graphql_persisted_manifest, why);
    else if (!found)
        sluice_codefacts_violate(f, "graphql_persisted_only", 1, 1,
                                 "run one of the persisted operations (whitespace, commas and "
                                 "comments may differ)",
                                 "only persisted operations may run; %s is not in the manifest",
                                 f->code_hash);
}

static sluice_status gql_analyze(sluice_arena *arena,
                                 const char *code,
                                 size_t code_len,
                                 const char *variables_json,
                                 const sluice_frontend_context *ctx,
                                 sluice_codefacts **out,
                                 sluice_error *err)
{
    sluice_codefacts *f = sluice_codefacts_new(arena, "graphql");
    sluice_graphql_facts *x = sluice_arena_calloc(arena, 1, sizeof *x);
    if (f == NULL || x == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    x->operation_name = "";
    x->operation_type = "";
    f->statement_kind = "";
    f->ext = x;
    f->ext_ops = &gql_ext_ops;
    *out = f;
    sluice_graphql_rules r = sluice_graphql_rules_of(ctx != NULL ? ctx->code_mode : NULL);
    json_t *vars = NULL;
    if (variables_json != NULL) {
        vars = json_loads(variables_json, 0, NULL);
        /* a cleanup that cannot be registered runs at once: vars is gone, fail closed */
        if (vars != NULL && sluice_arena_cleanup_add(arena, decref, vars) != SLUICE_OK)
            return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    }
    sluice_gql_document *doc = NULL;
    if (!parse_into(arena, code, code_len, &r, f, &doc))
        return f->incomplete || sluice_arena_failed(arena)
                   ? sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory")
                   : SLUICE_OK;
    if (ctx != NULL && ctx->code_mode != NULL && ctx->code_mode->graphql_persisted_only)
        persisted_check(ctx->code_mode, f);
    const sluice_gql_schema *schema = NULL;
    sluice_error se = { 0 };
    sluice_status st = model_of(arena, ctx, &schema, &se);
    if (st == SLUICE_E_NOMEM)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    if (st != SLUICE_OK) {
        sluice_codefacts_violate(
            f, "graphql_schema", 0, 0, "run GraphQL on a [database] with engine = \"graphql\"",
            "this backend has no usable GraphQL schema%s%s", se.message != NULL ? ": " : "",
            se.message != NULL ? se.message : "");
        return SLUICE_OK;
    }
    if (sluice_graphql_validate(arena, doc, schema, f) != SLUICE_OK ||
        sluice_graphql_analyze_operation(arena, doc, schema, &r, vars,
                                         sluice_graphql_operation_name(vars), f, x) != SLUICE_OK ||
        sluice_arena_failed(arena))
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    return SLUICE_OK;
}

static sluice_status gql_hash(sluice_arena *arena,
                              const char *code,
                              size_t code_len,
                              const sluice_frontend_context *ctx,
                              char out_hex[65],
                              sluice_error *err)
{
    sluice_graphql_rules r = sluice_graphql_rules_of(ctx != NULL ? ctx->code_mode : NULL);
    sluice_graphql_limits lim = parse_limits(&r);
    return sluice_graphql_canonical_hash(arena, code, code_len, &lim, out_hex, err);
}

static sluice_risk gql_risk(const sluice_codefacts *f, const char **reason)
{
    const sluice_graphql_facts *x = ext_of(f);
    if (f->blocked_in_predicate) {
        *reason = "filters on a blocked field (each such query can confirm a guess)";
        return SLUICE_RISK_HIGH;
    }
    if (x->introspection) {
        *reason = "reads the upstream schema by introspection";
        return SLUICE_RISK_MEDIUM;
    }
    if (x->cost > 1000 || x->root_field_count > 5 || f->depth > 6) {
        *reason = "a broad or costly read (many root fields, deep nesting or large lists)";
        return SLUICE_RISK_MEDIUM;
    }
    *reason = f->action == SLUICE_ACTION_READ ? "a bounded read" : "a change";
    return f->action == SLUICE_ACTION_READ ? SLUICE_RISK_LOW : SLUICE_RISK_MEDIUM;
}

static const sluice_frontend gql_frontend = {
    .language = "graphql",
    .analyze = gql_analyze,
    .canonical_hash = gql_hash,
    .explain = sluice_graphql_explain,
    .risk = gql_risk,
    .guide = sluice_graphql_guide,
};

const sluice_frontend *sluice_graphql_frontend(void)
{
    return &gql_frontend;
}

const sluice_graphql_facts *sluice_graphql_facts_of(const sluice_codefacts *f)
{
    return ext_of(f);
}
