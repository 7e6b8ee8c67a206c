/*
 * frontend.c — the "javascript" front end's vtable (see js.h): parse, canonical hash, analyze
 * into CodeFacts, explain, risk, and the facts extension's renderings.
 *
 * Owns: the canonical form (tokens joined by one space; strings and templates by their cooked
 * value, numbers by their value: whitespace, comments and quote style do not change the hash,
 * literals and order do) and the translation of parse failures into violations.
 * Does not own: the walk (analyze.c) or the grammar (syntax/js/parse.c).
 */
#include "core/buf.h"
#include "core/hash.h"
#include "core/limits.h"
#include "lang/js/js.h"
#include "lang/js/ops.h"
#include "syntax/js/parse.h"

#include <stdio.h>
#include <string.h>

void sluice_js_analyze_program(sluice_codefacts *f,
                               sluice_js_facts *x,
                               const sluice_js_program *prog,
                               const sluice_config_code_mode *cfg,
                               const sluice_js_ops *ops,
                               const json_t *mcp_catalog);

static bool js_cedar_context(const sluice_codefacts *facts, json_t *script)
{
    const sluice_js_facts *x = facts->ext;
    return json_object_set_new(script, "totalApiCalls",
                               json_integer((json_int_t)facts->call_count)) == 0 &&
           json_object_set_new(script, "callBound", json_integer((json_int_t)x->call_bound)) == 0 &&
           json_object_set_new(script, "hasWrites", json_boolean(x->write_calls > 0)) == 0 &&
           json_object_set_new(script, "hasDeletes", json_boolean(x->delete_calls > 0)) == 0 &&
           json_object_set_new(script, "hasUnboundedLoop", json_boolean(x->has_unbounded_loop)) ==
               0;
}

static void js_write_json(const sluice_codefacts *facts, sluice_json_out *out)
{
    const sluice_js_facts *x = facts->ext;
    sluice_json_out_key(out, "call_bound");
    sluice_json_out_integer(out, (json_int_t)x->call_bound);
    sluice_json_out_key(out, "call_bound_from");
    sluice_json_out_string(out, x->bound_why);
    sluice_json_out_key(out, "retries_write");
    sluice_json_out_bool(out, x->retries_write);
    if (x->blocked_read != NULL) {
        sluice_json_out_key(out, "blocked_read");
        sluice_json_out_string(out, x->blocked_read);
    }
}

static const sluice_codefacts_ext_ops js_ext_ops = {
    .cedar_context = js_cedar_context,
    .write_json = js_write_json,
};

static void put_str(sluice_buf *b, const sluice_js_str *s, char tag)
{
    sluice_buf_putc(b, tag);
    sluice_buf_putc(b, '"');
    for (size_t i = 0; i < s->len; i++) {
        uint16_t c = s->u[i];
        if (c == '"' || c == '\\' || c < 0x20 || c > 0x7E)
            sluice_buf_printf(b, "\\u%04x", c);
        else
            sluice_buf_putc(b, (char)c);
    }
    sluice_buf_putc(b, '"');
}

/* The canonical text of a token stream. NULL on NOMEM. */
static const char *canonical(sluice_arena *arena, const sluice_js_tokens *t)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    for (size_t i = 0; i + 1 < t->count; i++) {
        const sluice_js_tok *k = &t->toks[i];
        if (i > 0)
            sluice_buf_putc(&b, ' ');
        switch (k->kind) {
        case SLUICE_JS_T_NUMBER:
            sluice_buf_printf(&b, "%.17g", k->num);
            break;
        case SLUICE_JS_T_STRING:
            put_str(&b, k->str, 's');
            break;
        case SLUICE_JS_T_TEMPLATE:
            put_str(&b, k->str, (k->flags & SLUICE_JS_TPL_HEAD) ? '`' : '}');
            if (k->flags & SLUICE_JS_TPL_TAIL)
                sluice_buf_putc(&b, '`');
            break;
        default:
            sluice_buf_append(&b, k->text, k->len);
            break;
        }
    }
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
}

static void hash_hex(const char *text, char out[65])
{
    uint8_t h[SLUICE_HASH_BYTES];
    sluice_hash_sha256(text, strlen(text), h);
    sluice_hash_hex(h, sizeof h, out);
}

static sluice_status js_analyze(sluice_arena *arena,
                                const char *code,
                                size_t code_len,
                                const char *variables_json,
                                const sluice_frontend_context *ctx,
                                sluice_codefacts **out,
                                sluice_error *err)
{
    (void)variables_json;
    sluice_codefacts *f = sluice_codefacts_new(arena, "javascript");
    sluice_js_facts *x = f != NULL ? sluice_arena_calloc(arena, 1, sizeof *x) : NULL;
    if (x == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory analyzing the plan");
    x->call_bound = -1;
    x->bound_why = "";
    f->ext = x;
    f->ext_ops = &js_ext_ops;
    f->statement_kind = "PLAN";
    f->estimated_rows = -1;
    sluice_error perr = { 0 };
    sluice_js_program prog;
    sluice_status st = sluice_js_parse(arena, code, code_len, &prog, &perr);
    if (st == SLUICE_E_NOMEM)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory parsing the plan");
    if (st != SLUICE_OK) {
        sluice_codefacts_violate(f, perr.key != NULL ? perr.key : "syntax_error", perr.line,
                                 perr.column, perr.hint, "%s",
                                 perr.message != NULL ? perr.message : "syntax error");
        f->statement_kind = "";
        *out = f;
        return SLUICE_OK;
    }
    const char *canon = canonical(arena, &prog.tokens);
    if (canon == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory hashing the plan");
    f->canonical = canon;
    hash_hex(canon, f->code_hash);
    sluice_js_ops ops;
    const sluice_js_ops *known = NULL;
    if (ctx != NULL && ctx->engine == SLUICE_ENGINE_OPENAPI && ctx->schema != NULL &&
        ctx->schema->document != NULL) {
        st = sluice_js_ops_read(arena, ctx->schema->document, ctx->schema->document_len, &ops);
        if (st == SLUICE_E_NOMEM)
            return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory analyzing the plan");
        if (st != SLUICE_OK) /* fail closed: no call can be resolved */
            ops.count = 0;
        known = &ops;
    }
    /* the downstream MCP servers' tools, as the backend that runs plans lists them */
    const char *mcp_text = ctx != NULL && ctx->schema != NULL ? ctx->schema->mcp_tools : NULL;
    json_t *mcp = mcp_text != NULL ? json_loads(mcp_text, 0, NULL) : NULL;
    if (mcp_text != NULL && mcp == NULL)
        f->incomplete = true; /* a catalog we cannot read resolves nothing: fail closed */
    sluice_js_analyze_program(f, x, &prog, ctx != NULL ? ctx->code_mode : NULL, known, mcp);
    json_decref(mcp);
    f->complexity = (int64_t)(prog.node_count / 10 + f->call_count * 5 + f->loop_count * 10);
    if (sluice_arena_failed(arena))
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory analyzing the plan");
    *out = f;
    return SLUICE_OK;
}

static sluice_status js_hash(sluice_arena *arena,
                             const char *code,
                             size_t code_len,
                             const sluice_frontend_context *ctx,
                             char out_hex[65],
                             sluice_error *err)
{
    (void)ctx;
    sluice_js_program prog;
    sluice_status st = sluice_js_parse(arena, code, code_len, &prog, err);
    if (st != SLUICE_OK)
        return st;
    const char *canon = canonical(arena, &prog.tokens);
    if (canon == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory hashing the plan");
    hash_hex(canon, out_hex);
    return SLUICE_OK;
}

static const char *js_explain(sluice_arena *arena, const sluice_codefacts *f)
{
    const sluice_js_facts *x = f->ext_ops == &js_ext_ops ? f->ext : NULL;
    sluice_buf b;
    sluice_buf_init(&b, arena, 16384);
    if (x == NULL || f->call_count == 0) {
        sluice_buf_puts(&b, "This plan makes no upstream calls.");
    } else {
        sluice_buf_printf(&b, "This plan %s the API: ",
                          x->write_calls + x->delete_calls > 0 ? "changes data through"
                                                               : "only reads from");
        for (size_t i = 0; i < f->operations.count; i++)
            sluice_buf_printf(&b, "%s%s", i > 0 ? ", " : "", f->operations.items[i]);
        if (x->call_bound >= 0)
            sluice_buf_printf(&b, ". At most %lld calls (%s).", (long long)x->call_bound,
                              x->bound_why);
        else
            sluice_buf_puts(&b, ". The number of calls is bounded at run time by max_api_calls.");
    }
    if (f->loop_count > 0)
        sluice_buf_printf(&b, " Contains %zu loop(s).", f->loop_count);
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
}

static sluice_risk js_risk(const sluice_codefacts *f, const char **reason)
{
    const sluice_js_facts *x = f->ext_ops == &js_ext_ops ? f->ext : NULL;
    if (x != NULL && x->retries_write) {
        *reason = "a write inside a catch block may be repeated";
        return SLUICE_RISK_HIGH;
    }
    if (x != NULL && x->blocked_read != NULL) {
        *reason = x->blocked_read; /* it may match records by a blocked field */
        return SLUICE_RISK_HIGH;
    }
    if (x != NULL && (x->call_bound < 0 || x->call_bound > SLUICE_LIMIT_JS_LOW_RISK_CALLS)) {
        *reason = "many or unbounded upstream calls";
        return SLUICE_RISK_MEDIUM;
    }
    *reason = "bounded read-only calls";
    return SLUICE_RISK_LOW;
}

static const sluice_frontend js_frontend = {
    .language = "javascript",
    .analyze = js_analyze,
    .canonical_hash = js_hash,
    .explain = js_explain,
    .risk = js_risk,
};

const sluice_frontend *sluice_js_frontend(void)
{
    return &js_frontend;
}
