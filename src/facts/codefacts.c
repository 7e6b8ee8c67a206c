/*
 * codefacts.c — the CodeFacts record, its builders and its JSON renderings (see codefacts.h).
 *
 * Does not own: finding facts (front ends) or judging them (policy, risk).
 */
#include "facts/codefacts.h"

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

/* The objects below are set member by member: json_pack parses its format on every call. */
static json_t *outputs_json(const sluice_codefacts *facts)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < facts->output_count; i++) {
        const sluice_codefacts_output *o = &facts->outputs[i];
        json_t *obj = json_object();
        bool ok = obj != NULL;
        put(obj, "name", sluice_json_string(o->name), &ok);
        put(obj, "type", sluice_json_string(o->type), &ok);
        put(obj, "lineage", sluice_codefacts_list_json(&o->lineage), &ok);
        if (!ok || json_array_append_new(a, obj) != 0) {
            if (!ok)
                json_decref(obj);
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static json_t *violations_json(const sluice_codefacts *facts)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < facts->violation_count; i++) {
        const sluice_codefacts_violation *v = &facts->violations[i];
        json_t *obj = json_object();
        bool ok = obj != NULL;
        put(obj, "rule", sluice_json_string(v->rule), &ok);
        put(obj, "message", sluice_json_string(v->message), &ok);
        put(obj, "suggestion",
            v->suggestion != NULL ? sluice_json_string(v->suggestion) : json_null(), &ok);
        if (v->line > 0) {
            json_t *loc = json_object();
            bool loc_ok = loc != NULL;
            put(loc, "line", json_integer((json_int_t)v->line), &loc_ok);
            put(loc, "column", json_integer((json_int_t)v->column), &loc_ok);
            if (!loc_ok)
                json_decref(loc);
            put(obj, "location", loc_ok ? loc : NULL, &ok);
        }
        if (!ok || json_array_append_new(a, obj) != 0) {
            if (!ok)
                json_decref(obj);
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

json_t *sluice_codefacts_to_json(const sluice_codefacts *facts)
{
    json_t *o = json_object();
    bool ok = o != NULL;
    if (!ok)
        return NULL;
    put(o, "language", sluice_json_string(facts->language), &ok);
    /* the action's label and the hex code hash are sluice's own ASCII: no UTF-8 check */
    put(o, "action", json_string_nocheck(sluice_action_name(facts->action)), &ok);
    put(o, "statementType", sluice_json_string(facts->statement_kind), &ok);
    put(o, "codeHash", json_string_nocheck(facts->code_hash), &ok);
    put(o, "tablesRead", sluice_codefacts_list_json(&facts->resources_read), &ok);
    put(o, "tablesWritten", sluice_codefacts_list_json(&facts->resources_written), &ok);
    put(o, "columnsRead", sluice_codefacts_list_json(&facts->fields_read), &ok);
    put(o, "outputs", outputs_json(facts), &ok);
    put(o, "functions", sluice_codefacts_list_json(&facts->functions), &ok);
    put(o, "calledOperations", sluice_codefacts_list_json(&facts->operations), &ok);
    put(o, "blockedFieldsUsedOnlyInternally", sluice_codefacts_list_json(&facts->blocked_used),
        &ok);
    put(o, "blockedFieldInPredicate", json_boolean(facts->blocked_in_predicate), &ok);
    put(o, "estimatedRows",
        facts->estimated_rows >= 0 ? json_integer(facts->estimated_rows) : json_null(), &ok);
    put(o, "estimatedCost",
        facts->estimated_cost >= 0 ? json_real(facts->estimated_cost) : json_null(), &ok);
    put(o, "estimateEngine",
        facts->estimate_engine != NULL ? sluice_json_string(facts->estimate_engine) : json_null(),
        &ok);
    put(o, "complexity", json_integer(facts->complexity), &ok);
    put(o, "depth", json_integer((json_int_t)facts->depth), &ok);
    put(o, "callCount", json_integer((json_int_t)facts->call_count), &ok);
    put(o, "loopCount", json_integer((json_int_t)facts->loop_count), &ok);
    if (ok && facts->ext_ops != NULL && facts->ext_ops->to_json != NULL)
        ok = facts->ext_ops->to_json(facts, o);
    put(o, "violations", violations_json(facts), &ok);
    put(o, "warnings", sluice_codefacts_list_json(&facts->warnings), &ok);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}
