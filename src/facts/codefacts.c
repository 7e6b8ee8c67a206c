/*
 * codefacts.c — the CodeFacts record, its builders and its JSON renderings (see codefacts.h).
 *
 * Does not own: finding facts (front ends) or judging them (policy, risk).
 */
#include "facts/codefacts.h"

#include "core/json_splice.h"
#include "core/json_write.h"
#include "core/vec.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

sluice_codefacts *sluice_codefacts_new(sluice_arena *arena, const char *language)
{
    sluice_codefacts *facts = sluice_arena_calloc(arena, 1, sizeof(*facts));
    if (facts == NULL)
        return NULL;
    facts->arena = arena;
    facts->language = language;
    facts->action = SLUICE_ACTION_READ;
    facts->statement_kind = "";
    facts->canonical = "";
    facts->estimated_rows = -1;
    facts->estimated_cost = -1;
    return facts;
}

const char *sluice_action_name(sluice_action action)
{
    switch (action) {
    case SLUICE_ACTION_READ:
        return "Read";
    case SLUICE_ACTION_WRITE:
        return "Write";
    case SLUICE_ACTION_DELETE:
        return "Delete";
    case SLUICE_ACTION_ADMIN:
        return "Admin";
    }
    return "Admin";
}

bool sluice_codefacts_refused(const sluice_codefacts *facts)
{
    return facts == NULL || facts->violation_count > 0 || facts->incomplete ||
           sluice_arena_failed(facts->arena);
}

bool sluice_codefacts_list_has(const sluice_codefacts_list *list, const char *s)
{
    for (size_t i = 0; i < list->count; i++)
        if (strcmp(list->items[i], s) == 0)
            return true;
    return false;
}

/* Marks the record incomplete (refused) and reports the allocation failure. */
static sluice_status incomplete(sluice_codefacts *facts)
{
    facts->incomplete = true;
    return SLUICE_E_NOMEM;
}

sluice_status
sluice_codefacts_list_add(sluice_codefacts *facts, sluice_codefacts_list *list, const char *s)
{
    if (s == NULL || sluice_codefacts_list_has(list, s))
        return SLUICE_OK;
    size_t cap = list->cap;
    const char **items = sluice_vec_grow(facts->arena, (void *)list->items, list->count, &cap,
                                         sizeof(*list->items), 8);
    char *copy = sluice_arena_strdup(facts->arena, s);
    if (items == NULL || copy == NULL)
        return incomplete(facts);
    list->items = items;
    list->cap = cap;
    list->items[list->count++] = copy;
    return SLUICE_OK;
}

sluice_status sluice_codefacts_add_output(sluice_codefacts *facts,
                                          const char *name,
                                          const char *type,
                                          sluice_codefacts_output **out)
{
    size_t cap = facts->output_cap;
    sluice_codefacts_output *outs =
        sluice_vec_grow(facts->arena, facts->outputs, facts->output_count, &cap, sizeof(*outs), 8);
    char *n = sluice_arena_strdup(facts->arena, name != NULL ? name : "");
    char *t = sluice_arena_strdup(facts->arena, type != NULL ? type : "");
    if (outs == NULL || n == NULL || t == NULL)
        return incomplete(facts);
    facts->outputs = outs;
    facts->output_cap = cap;
    sluice_codefacts_output *o = &outs[facts->output_count++];
    memset(o, 0, sizeof(*o));
    o->name = n;
    o->type = t;
    if (out != NULL)
        *out = o;
    return SLUICE_OK;
}

sluice_status sluice_codefacts_violate(sluice_codefacts *facts,
                                       const char *rule,
                                       size_t line,
                                       size_t column,
                                       const char *suggestion,
                                       const char *fmt,
                                       ...)
{
    size_t cap = facts->violation_cap;
    sluice_codefacts_violation *vs = sluice_vec_grow(facts->arena, facts->violations,
                                                     facts->violation_count, &cap, sizeof(*vs), 8);
    va_list ap;
    va_start(ap, fmt);
    char *msg = sluice_arena_vprintf(facts->arena, fmt, ap);
    va_end(ap);
    char *rule_copy = sluice_arena_strdup(facts->arena, rule);
    char *sugg_copy = suggestion != NULL ? sluice_arena_strdup(facts->arena, suggestion) : NULL;
    if (vs == NULL || msg == NULL || rule_copy == NULL || (suggestion != NULL && !sugg_copy)) {
        /* Still refuse: a violation we could not describe must not vanish (and if it could
         * not even be stored, the incomplete flag refuses). */
        facts->incomplete = true;
        if (vs != NULL) {
            facts->violations = vs;
            facts->violation_cap = cap;
            vs[facts->violation_count++] = (sluice_codefacts_violation){
                "internal", "out of memory while describing a violation", NULL, 0, 0
            };
        }
        return SLUICE_E_NOMEM;
    }
    facts->violations = vs;
    facts->violation_cap = cap;
    vs[facts->violation_count++] =
        (sluice_codefacts_violation){ rule_copy, msg, sugg_copy, line, column };
    return SLUICE_OK;
}

sluice_status sluice_codefacts_warn(sluice_codefacts *facts, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = sluice_arena_vprintf(facts->arena, fmt, ap);
    va_end(ap);
    if (msg == NULL)
        return incomplete(facts);
    return sluice_codefacts_list_add(facts, &facts->warnings, msg);
}

/* --- JSON -------------------------------------------------------------------------------- */

json_t *sluice_codefacts_list_json(const sluice_codefacts_list *list)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < list->count; i++)
        if (json_array_append_new(a, sluice_json_string(list->items[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* Sets key to value (stolen); remembers a failure in *ok. Every key here is a literal, so the
 * setter that skips the key's UTF-8 check serves. */
static void put(json_t *obj, const char *key, json_t *value, bool *ok)
{
    if (value == NULL || json_object_set_new_nocheck(obj, key, value) != 0)
        *ok = false;
}

/* Adds s to the array unless present (the arrays here are small). */
static void add_unique(json_t *arr, const char *s, bool *ok)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v)
    {
        if (strcmp(json_string_value(v), s) == 0)
            return;
    }
    if (json_array_append_new(arr, sluice_json_string(s)) != 0)
        *ok = false;
}

static json_t *output_fields_json(const sluice_codefacts *facts, bool *ok)
{
    json_t *a = json_array();
    if (a == NULL) {
        *ok = false;
        return NULL;
    }
    for (size_t i = 0; i < facts->output_count; i++) {
        const sluice_codefacts_list *l = &facts->outputs[i].lineage;
        for (size_t j = 0; j < l->count; j++) {
            add_unique(a, l->items[j], ok);
            const char *dot = strrchr(l->items[j], '.');
            if (dot != NULL)
                add_unique(a, dot + 1, ok);
        }
    }
    return a;
}

static json_t *output_names_json(const sluice_codefacts *facts)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < facts->output_count; i++)
        if (json_array_append_new(a, sluice_json_string(facts->outputs[i].name)) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

json_t *sluice_codefacts_cedar_context(const sluice_codefacts *facts)
{
    json_t *script = json_object();
    json_t *ctx = json_object();
    bool ok = script != NULL && ctx != NULL;
    if (ok) {
        put(script, "language", sluice_json_string(facts->language), &ok);
        put(script, "statementType", sluice_json_string(facts->statement_kind), &ok);
        put(script, "action", sluice_json_string(sluice_action_name(facts->action)), &ok);
        put(script, "outputFields", output_fields_json(facts, &ok), &ok);
        put(script, "outputNames", output_names_json(facts), &ok);
        put(script, "calledOperations", sluice_codefacts_list_json(&facts->operations), &ok);
        put(script, "functions", sluice_codefacts_list_json(&facts->functions), &ok);
        put(script, "tables", sluice_codefacts_list_json(&facts->resources_read), &ok);
        put(script, "tablesWritten", sluice_codefacts_list_json(&facts->resources_written), &ok);
        put(script, "columns", sluice_codefacts_list_json(&facts->fields_read), &ok);
        put(script, "complexity", json_integer(facts->complexity), &ok);
        if (facts->estimated_rows >= 0)
            put(script, "estimatedRows", json_integer(facts->estimated_rows), &ok);
        /* Cedar has no decimals: the cost rounded up */
        if (facts->estimated_cost >= 0)
            put(script, "estimatedCost", json_integer((json_int_t)ceil(facts->estimated_cost)),
                &ok);
        if (ok && facts->ext_ops != NULL && facts->ext_ops->cedar_context != NULL)
            ok = facts->ext_ops->cedar_context(facts, script);
        put(ctx, "script", script, &ok);
        script = NULL;
    }
    if (!ok) {
        json_decref(script);
        json_decref(ctx);
        return NULL;
    }
    return ctx;
}

/* ---- the full record, as text ------------------------------------------------------------
 * Written straight from the facts (sluice_json_out), not built as a tree first: validate_code
 * answers with it on every call, and its outputs, lineage lists and names are most of the
 * answer. Members in the order the record has always had. */

void sluice_codefacts_list_write(sluice_json_out *out, const sluice_codefacts_list *list)
{
    sluice_json_out_open(out, '[');
    for (size_t i = 0; i < list->count; i++)
        sluice_json_out_string(out, list->items[i]);
    sluice_json_out_close(out, ']');
}

static void outputs_write(sluice_json_out *out, const sluice_codefacts *facts)
{
    sluice_json_out_open(out, '[');
    for (size_t i = 0; i < facts->output_count; i++) {
        const sluice_codefacts_output *o = &facts->outputs[i];
        sluice_json_out_open(out, '{');
        sluice_json_out_key(out, "name");
        sluice_json_out_string(out, o->name);
        sluice_json_out_key(out, "type");
        sluice_json_out_string(out, o->type);
        sluice_json_out_key(out, "lineage");
        sluice_codefacts_list_write(out, &o->lineage);
        sluice_json_out_close(out, '}');
    }
    sluice_json_out_close(out, ']');
}

static void violations_write(sluice_json_out *out, const sluice_codefacts *facts)
{
    sluice_json_out_open(out, '[');
    for (size_t i = 0; i < facts->violation_count; i++) {
        const sluice_codefacts_violation *v = &facts->violations[i];
        sluice_json_out_open(out, '{');
        sluice_json_out_key(out, "rule");
        sluice_json_out_string(out, v->rule);
        sluice_json_out_key(out, "message");
        sluice_json_out_string(out, v->message);
        sluice_json_out_key(out, "suggestion");
        if (v->suggestion != NULL)
            sluice_json_out_string(out, v->suggestion);
        else
            sluice_json_out_null(out);
        if (v->line > 0) {
            sluice_json_out_key(out, "location");
            sluice_json_out_open(out, '{');
            sluice_json_out_key(out, "line");
            sluice_json_out_integer(out, (json_int_t)v->line);
            sluice_json_out_key(out, "column");
            sluice_json_out_integer(out, (json_int_t)v->column);
            sluice_json_out_close(out, '}');
        }
        sluice_json_out_close(out, '}');
    }
    sluice_json_out_close(out, ']');
}

/* The estimate's members: null where the front end made none. */
static void estimate_write(sluice_json_out *out, const sluice_codefacts *facts)
{
    sluice_json_out_key(out, "estimatedRows");
    if (facts->estimated_rows >= 0)
        sluice_json_out_integer(out, facts->estimated_rows);
    else
        sluice_json_out_null(out);
    sluice_json_out_key(out, "estimatedCost");
    if (facts->estimated_cost >= 0)
        sluice_json_out_real(out, facts->estimated_cost);
    else
        sluice_json_out_null(out);
    sluice_json_out_key(out, "estimateEngine");
    if (facts->estimate_engine != NULL)
        sluice_json_out_string(out, facts->estimate_engine);
    else
        sluice_json_out_null(out);
}

sluice_status sluice_codefacts_write_json(const sluice_codefacts *facts, sluice_buf *buf)
{
    sluice_json_out out = { .buf = buf };
    sluice_json_out_open(&out, '{');
    sluice_json_out_key(&out, "language");
    sluice_json_out_string(&out, facts->language);
    sluice_json_out_key(&out, "action");
    sluice_json_out_string(&out, sluice_action_name(facts->action));
    sluice_json_out_key(&out, "statementType");
    sluice_json_out_string(&out, facts->statement_kind);
    sluice_json_out_key(&out, "codeHash");
    sluice_json_out_string(&out, facts->code_hash);
    sluice_json_out_key(&out, "tablesRead");
    sluice_codefacts_list_write(&out, &facts->resources_read);
    sluice_json_out_key(&out, "tablesWritten");
    sluice_codefacts_list_write(&out, &facts->resources_written);
    sluice_json_out_key(&out, "columnsRead");
    sluice_codefacts_list_write(&out, &facts->fields_read);
    sluice_json_out_key(&out, "outputs");
    outputs_write(&out, facts);
    sluice_json_out_key(&out, "functions");
    sluice_codefacts_list_write(&out, &facts->functions);
    sluice_json_out_key(&out, "calledOperations");
    sluice_codefacts_list_write(&out, &facts->operations);
    sluice_json_out_key(&out, "blockedFieldsUsedOnlyInternally");
    sluice_codefacts_list_write(&out, &facts->blocked_used);
    sluice_json_out_key(&out, "blockedFieldInPredicate");
    sluice_json_out_bool(&out, facts->blocked_in_predicate);
    estimate_write(&out, facts);
    sluice_json_out_key(&out, "complexity");
    sluice_json_out_integer(&out, facts->complexity);
    sluice_json_out_key(&out, "depth");
    sluice_json_out_integer(&out, (json_int_t)facts->depth);
    sluice_json_out_key(&out, "callCount");
    sluice_json_out_integer(&out, (json_int_t)facts->call_count);
    sluice_json_out_key(&out, "loopCount");
    sluice_json_out_integer(&out, (json_int_t)facts->loop_count);
    if (facts->ext_ops != NULL && facts->ext_ops->write_json != NULL)
        facts->ext_ops->write_json(facts, &out);
    sluice_json_out_key(&out, "violations");
    violations_write(&out, facts);
    sluice_json_out_key(&out, "warnings");
    sluice_codefacts_list_write(&out, &facts->warnings);
    sluice_json_out_close(&out, '}');
    return sluice_json_out_status(&out);
}

json_t *sluice_codefacts_json_splice(const sluice_codefacts *facts, sluice_arena *arena)
{
    sluice_buf buf;
    sluice_buf_init(&buf, arena, 0);
    /* room for most records (1-2 KB) at once, within what the arena serves from its current
     * block (2 KiB with the NUL): no grow copies, and the writer's one-copy path for a plain
     * string needs the room to be there */
    sluice_buf_reserve(&buf, 2048 - 1);
    return sluice_codefacts_write_json(facts, &buf) == SLUICE_OK
               ? sluice_json_splice_borrow(buf.data, buf.len)
               : NULL;
}

json_t *sluice_codefacts_to_json(const sluice_codefacts *facts)
{
    sluice_buf buf;
    sluice_buf_init(&buf, NULL, 0);
    json_t *tree = sluice_codefacts_write_json(facts, &buf) == SLUICE_OK
                       ? json_loadb(buf.data, buf.len, JSON_ALLOW_NUL, NULL)
                       : NULL;
    sluice_buf_dispose(&buf);
    return tree;
}
