/*
 * openapi_decl.c — the two renderings of an OpenAPI spec (see openapi_spec.h): the normalized
 * operations document the javascript front end resolves call sites against, and the compact
 * TypeScript-style declaration code-mode://schema shows models (what Cloudflare's and pctx's
 * code modes show), never the raw spec.
 *
 * Owns: both texts. Does not own: reading the spec (openapi_spec.c).
 */
#include "core/buf.h"
#include "core/path_template.h"
#include "exec/openapi_internal.h"
#include "exec/openapi_spec.h"
#include "exec/schema.h"
#include "facts/class_policy.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One operation of the document: what the front end resolves a call site with and checks a
 * literal query against. */
static json_t *doc_op(const sluice_openapi_op *op)
{
    json_t *o =
        json_pack("{s:s, s:s, s:s, s:s, s:b}", "id", op->id, "method", op->method, "path", op->path,
                  "action", sluice_openapi_action_name(op->action), "idempotent", op->idempotent);
    json_t *query = json_array();
    bool ok = o != NULL && query != NULL;
    for (size_t k = 0; ok && k < op->param_count; k++)
        if (op->params[k].in == SLUICE_OPENAPI_IN_QUERY)
            ok = json_array_append_new(query, json_string(op->params[k].name)) == 0;
    if (ok && json_array_size(query) > 0)
        ok = json_object_set(o, "query", query) == 0;
    if (ok && op->spanning != 0)
        ok = json_object_set_new(o, "spanning", json_integer((json_int_t)op->spanning)) == 0;
    json_decref(query);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

const char *sluice_openapi_spec_document(sluice_arena *arena, const sluice_openapi_spec *spec)
{
    json_t *ops = json_array();
    for (size_t i = 0; ops != NULL && i < spec->op_count; i++)
        if (json_array_append_new(ops, doc_op(&spec->ops[i])) != 0) {
            json_decref(ops);
            ops = NULL;
        }
    json_t *doc = ops != NULL ? json_pack("{s:o}", "operations", ops) : NULL;
    char *text = doc != NULL ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    const char *r = text != NULL ? sluice_arena_strdup(arena, text) : NULL;
    free(text);
    return r;
}

/* What a rendering reads beside the schema: the document its $refs point into, the blocked
 * lists, and the named types it printed (the declaration defines them after the operations). */
typedef struct ts_ctx {
    sluice_buf *b;
    const json_t *doc;
    const sluice_config_code_mode *cm;
    json_t *named_set;   /* {name: true}; NULL when not kept */
    json_t *named_order; /* the same names in the order first printed */
} ts_ctx;

static void ts_type(ts_ctx *c, const json_t *s, int depth);

static void ts_name(ts_ctx *c, const char *name)
{
    sluice_buf_puts(c->b, name);
    if (c->named_set != NULL && json_object_get(c->named_set, name) == NULL &&
        (json_object_set_new(c->named_set, name, json_true()) != 0 ||
         json_array_append_new(c->named_order, json_string(name)) != 0))
        c->b->status = SLUICE_E_NOMEM; /* a type left undefined would be a wrong declaration */
}

/* oneOf / anyOf / allOf as a union or intersection; false when s has none. */
static bool ts_combination(ts_ctx *c, const json_t *s, int depth)
{
    static const char *const kinds[][2] = { { "oneOf", " | " },
                                            { "anyOf", " | " },
                                            { "allOf", " & " } };
    for (size_t k = 0; k < 3; k++) {
        const json_t *list = json_object_get(s, kinds[k][0]);
        size_t n = json_array_size(list);
        if (n == 0)
            continue;
        if (n > 1)
            sluice_buf_putc(c->b, '(');
        for (size_t i = 0; i < n; i++) {
            if (i > 0)
                sluice_buf_puts(c->b, kinds[k][1]);
            ts_type(c, json_array_get(list, i), depth + 1);
        }
        if (n > 1)
            sluice_buf_putc(c->b, ')');
        return true;
    }
    return false;
}

static void ts_object(ts_ctx *c, const json_t *s, int depth)
{
    const json_t *props = json_object_get(s, "properties");
    const json_t *req = json_object_get(s, "required");
    if (!json_is_object(props) || json_object_size(props) == 0) {
        sluice_buf_puts(c->b, "object");
        return;
    }
    const sluice_config_code_mode *cm = c->cm;
    sluice_buf_puts(c->b, "{ ");
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)props, k, v)
    {
        if (sluice_strlist_contains_folded(cm != NULL ? &cm->openapi_internal_blocked_fields : NULL,
                                           k))
            continue;
        bool required = false;
        for (size_t i = 0; i < json_array_size(req); i++)
            required |= json_is_string(json_array_get(req, i)) &&
                        strcmp(json_string_value(json_array_get(req, i)), k) == 0;
        sluice_buf_printf(c->b, "%s%s: ", k, required ? "" : "?");
        ts_type(c, v, depth + 1);
        if (sluice_strlist_contains_folded(cm != NULL ? &cm->openapi_output_blocked_fields : NULL,
                                           k) ||
            sluice_strlist_contains_folded(cm != NULL ? &cm->blocked_fields : NULL, k))
            sluice_buf_puts(c->b, " /* blocked: never in a result */");
        sluice_buf_puts(c->b, "; ");
    }
    sluice_buf_putc(c->b, '}');
}

/* One JSON-schema type name as TypeScript's. */
static void ts_scalar(ts_ctx *c, const char *type, const json_t *s, int depth)
{
    if (strcmp(type, "integer") == 0 || strcmp(type, "number") == 0) {
        sluice_buf_puts(c->b, "number");
    } else if (strcmp(type, "string") == 0 || strcmp(type, "boolean") == 0 ||
               strcmp(type, "null") == 0) {
        sluice_buf_puts(c->b, type);
    } else if (strcmp(type, "array") == 0) {
        const json_t *items = json_object_get(s, "items");
        const json_t *shown =
            sluice_openapi_ref_name(items) != NULL ? items : sluice_openapi_deref(c->doc, items);
        bool simple = !json_is_object(json_object_get(shown, "properties")) &&
                      json_object_get(shown, "oneOf") == NULL &&
                      json_object_get(shown, "anyOf") == NULL &&
                      json_object_get(shown, "allOf") == NULL;
        if (!simple)
            sluice_buf_putc(c->b, '(');
        ts_type(c, items, depth + 1);
        sluice_buf_puts(c->b, simple ? "[]" : ")[]");
    } else if (strcmp(type, "object") == 0) {
        ts_object(c, s, depth);
    } else {
        sluice_buf_puts(c->b, "unknown");
    }
}

/* A JSON schema as a TypeScript type. A $ref to a component schema below the top is its name
 * (the declaration defines it once; describe shows it): a recursive type ends there, and an
 * operation's answer stays small whatever the API's size. Inline schemas go three levels deep;
 * internal blocked fields are left out (responses never carry them), output-blocked ones
 * marked. */
static void ts_type(ts_ctx *c, const json_t *s, int depth)
{
    const char *name = depth > 0 ? sluice_openapi_ref_name(s) : NULL;
    if (name != NULL) {
        ts_name(c, name);
        return;
    }
    s = sluice_openapi_deref(c->doc, s);
    const json_t *en = json_object_get(s, "enum");
    if (json_is_array(en) && json_array_size(en) > 0 && json_array_size(en) <= 8) {
        for (size_t i = 0; i < json_array_size(en); i++) {
            char *t = json_dumps(json_array_get(en, i), JSON_ENCODE_ANY | JSON_COMPACT);
            sluice_buf_printf(c->b, "%s%s", i > 0 ? " | " : "", t != NULL ? t : "unknown");
            free(t);
        }
        return;
    }
    if (depth > 3) {
        sluice_buf_puts(c->b, "unknown");
        return;
    }
    if (ts_combination(c, s, depth))
        return;
    const json_t *type = json_object_get(s, "type");
    if (type == NULL && json_is_object(json_object_get(s, "properties")))
        ts_scalar(c, "object", s, depth);
    else if (json_is_string(type))
        ts_scalar(c, json_string_value(type), s, depth);
    else if (json_array_size(type) > 0) /* 3.1: ["string", "null"] */
        for (size_t i = 0; i < json_array_size(type); i++) {
            if (i > 0)
                sluice_buf_puts(c->b, " | ");
            const char *t = json_string_value(json_array_get(type, i));
            ts_scalar(c, t != NULL ? t : "", s, depth);
        }
    else
        sluice_buf_puts(c->b, "unknown");
    if (json_is_true(json_object_get(s, "nullable")))
        sluice_buf_puts(c->b, " | null");
}

/* "type Name = ...;" for the component schema name, with its description. */
static void ts_define(ts_ctx *c, const char *name)
{
    const json_t *s =
        json_object_get(json_object_get(json_object_get(c->doc, "components"), "schemas"), name);
    const char *about =
        json_string_value(json_object_get(sluice_openapi_deref(c->doc, s), "description"));
    if (about == NULL)
        about = json_string_value(json_object_get(sluice_openapi_deref(c->doc, s), "title"));
    if (about != NULL)
        sluice_buf_printf(c->b, "/** %.*s */\n", (int)strcspn(about, "\n"), about);
    sluice_buf_printf(c->b, "type %s = ", name);
    ts_type(c, s, 0);
    sluice_buf_puts(c->b, ";\n");
}

_Static_assert((int)SLUICE_OPENAPI_ADMIN == (int)SLUICE_ACTION_ADMIN &&
                   (int)SLUICE_OPENAPI_DELETE == (int)SLUICE_ACTION_DELETE &&
                   (int)SLUICE_OPENAPI_WRITE == (int)SLUICE_ACTION_WRITE,
               "an operation's action is passed to the class policy as a sluice_action");

/* Who the declaration is for: the rules (a route's or the server's) and, when set, the
 * caller's policy asked about each operation. */
typedef struct audience {
    const sluice_config_code_mode *cm;
    sluice_schema_may_call may_call;
    void *may_ctx;
} audience;

/* The class policy's verdict on the operation's own template (facts/class_policy.h), then the
 * caller's policy's. */
static bool allowed(sluice_arena *arena, const sluice_openapi_op *op, const audience *who)
{
    sluice_class_call v = {
        .method = op->method, .path = op->path, .op_id = op->id, .action = (sluice_action)op->action
    };
    sluice_class_refusal r;
    /* in SDK mode only the listed operations can be called at all */
    if (who->cm != NULL && who->cm->sdk_operations.count > 0 &&
        !sluice_strlist_contains(&who->cm->sdk_operations, op->id))
        return false;
    return sluice_class_policy_allows(arena, who->cm, &v, &r) &&
           (who->may_call == NULL || who->may_call(who->may_ctx, op->id, (int)op->action));
}

/* `/users/${id: string}` for the template /users/{id} */
static void ts_path(sluice_buf *b, const sluice_openapi_op *op)
{
    bool templ = strchr(op->path, '{') != NULL;
    sluice_buf_putc(b, templ ? '`' : '"');
    for (const char *p = op->path; *p != '\0'; p++) {
        if (*p != '{') {
            sluice_buf_putc(b, *p);
            continue;
        }
        const char *end = strchr(p, '}');
        if (end == NULL)
            break;
        sluice_buf_printf(b, "${%.*s}", (int)(end - p - 1), p + 1);
        p = end;
    }
    sluice_buf_putc(b, templ ? '`' : '"');
}

/* pmcp's SDK form: `api.getUser({ id: string; fields?: string; body: {...} })`: the path and
 * query parameters by name, the request body as `body` (sdk_operations). */
static void put_sdk_args(ts_ctx *c, const sluice_openapi_op *op)
{
    sluice_buf *b = c->b;
    bool body = sluice_openapi_method_sends_body(op->method);
    sluice_buf_printf(b, "api.%s({ ", op->id);
    /* the template's parameters, declared or not: the call fills each */
    for (const char *p = strchr(op->path, '{'); p != NULL; p = strchr(p + 1, '{')) {
        size_t n = strcspn(p + 1, "}");
        const sluice_openapi_param *decl = NULL;
        for (size_t k = 0; k < op->param_count && decl == NULL; k++)
            if (op->params[k].in == SLUICE_OPENAPI_IN_PATH && strlen(op->params[k].name) == n &&
                strncmp(op->params[k].name, p + 1, n) == 0)
                decl = &op->params[k];
        sluice_buf_printf(b, "%.*s: ", (int)n, p + 1);
        if (decl != NULL)
            ts_type(c, decl->schema, 1);
        else
            sluice_buf_puts(b, "string");
        sluice_buf_puts(b, "; ");
    }
    for (size_t k = 0; !body && k < op->param_count; k++)
        if (op->params[k].in == SLUICE_OPENAPI_IN_QUERY) {
            sluice_buf_printf(b, "%s%s: ", op->params[k].name, op->params[k].required ? "" : "?");
            ts_type(c, op->params[k].schema, 1);
            sluice_buf_puts(b, "; ");
        }
    if (body && op->body_schema != NULL) {
        sluice_buf_printf(b, "body%s: ", op->body_required ? "" : "?");
        ts_type(c, op->body_schema, 1);
        sluice_buf_puts(b, "; ");
    }
    sluice_buf_puts(b, "})");
}

/* One operation: its summary, id and action, and `api.<method>(path, body | query):
 * Promise<response>;` (in SDK mode `api.<id>(args): Promise<response>;`). */
static void put_op(ts_ctx *c, const sluice_openapi_op *op)
{
    sluice_buf *b = c->b;
    if (op->description != NULL)
        sluice_buf_printf(b, "/** %s */\n", op->description);
    sluice_buf_printf(b, "// %s (%s%s)\n", op->id, sluice_openapi_action_name(op->action),
                      op->idempotent || op->action == SLUICE_OPENAPI_READ ? ""
                                                                          : ", not idempotent");
    if (c->cm != NULL && c->cm->sdk_operations.count > 0) {
        put_sdk_args(c, op);
        sluice_buf_puts(b, ": Promise<");
        if (op->response_schema != NULL)
            ts_type(c, op->response_schema, 0);
        else
            sluice_buf_puts(b, "unknown");
        sluice_buf_puts(b, ">;\n");
        return;
    }
    char lower[8] = { 0 };
    for (size_t k = 0; op->method[k] != '\0' && k + 1 < sizeof lower; k++)
        lower[k] = (char)(op->method[k] - 'A' + 'a');
    sluice_buf_printf(b, "api.%s(", lower);
    ts_path(b, op);
    bool query = false;
    for (size_t k = 0; k < op->param_count; k++)
        query |= op->params[k].in == SLUICE_OPENAPI_IN_QUERY;
    if (op->body_schema != NULL) {
        sluice_buf_puts(b, ", body: ");
        ts_type(c, op->body_schema, 0);
    } else if (query) {
        sluice_buf_puts(b, ", query: { ");
        for (size_t k = 0; k < op->param_count; k++)
            if (op->params[k].in == SLUICE_OPENAPI_IN_QUERY) {
                sluice_buf_printf(b, "%s%s: ", op->params[k].name,
                                  op->params[k].required ? "" : "?");
                ts_type(c, op->params[k].schema, 1);
                sluice_buf_puts(b, "; ");
            }
        sluice_buf_putc(b, '}');
    }
    sluice_buf_puts(b, "): Promise<");
    if (op->response_schema != NULL)
        ts_type(c, op->response_schema, 0);
    else
        sluice_buf_puts(b, "unknown");
    sluice_buf_puts(b, ">;\n");
}

const char *sluice_openapi_spec_declaration(sluice_arena *arena,
                                            const sluice_openapi_spec *spec,
                                            const sluice_config_code_mode *cm,
                                            sluice_schema_may_call may_call,
                                            void *may_ctx)
{
    const audience who = { cm, may_call, may_ctx };
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    ts_ctx c = {
        .b = &b, .doc = spec->doc, .cm = cm, .named_set = json_object(), .named_order = json_array()
    };
    if (c.named_set == NULL || c.named_order == NULL)
        b.status = SLUICE_E_NOMEM;
    if (cm != NULL && cm->sdk_operations.count > 0)
        sluice_buf_printf(&b,
                          "// %s: api.<operationId>(args) returns a Promise; args holds the path "
                          "and query\n// parameters by name and the request body as `body`. "
                          "The operations below are all that is reachable.\n",
                          spec->title != NULL ? spec->title : "API");
    else
        sluice_buf_printf(
            &b,
            "// %s: api.<method>(path, body?) returns a Promise; the paths below, ${...}\n"
            "// filling a {parameter}, are all that is reachable.\n",
            spec->title != NULL ? spec->title : "API");
    size_t refused = 0;
    for (size_t i = 0; i < spec->op_count; i++) {
        const sluice_openapi_op *op = &spec->ops[i];
        if (!allowed(arena, op, &who)) {
            refused++;
            continue;
        }
        sluice_buf_puts(&b, "\n");
        put_op(&c, op);
    }
    /* the named types those operations use, and the ones those use, each once */
    for (size_t i = 0; i < json_array_size(c.named_order); i++) {
        sluice_buf_puts(&b, i == 0 ? "\n// Types\n" : "");
        ts_define(&c, json_string_value(json_array_get(c.named_order, i)));
    }
    json_decref(c.named_set);
    json_decref(c.named_order);
    if (refused > 0) {
        sluice_buf_printf(&b, "\n// Not callable under this server's settings (%zu):", refused);
        for (size_t i = 0, n = 0; i < spec->op_count; i++)
            if (!allowed(arena, &spec->ops[i], &who))
                sluice_buf_printf(&b, "%s %s (%s)", n++ > 0 ? "," : "", spec->ops[i].id,
                                  sluice_openapi_action_name(spec->ops[i].action));
        sluice_buf_putc(&b, '\n');
    }
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
}

/* "string (path)" for a parameter column. */
static const char *param_type(sluice_arena *arena,
                              const json_t *doc,
                              const sluice_openapi_param *p,
                              const sluice_config_code_mode *cm)
{
    static const char *const where[] = { "path", "query", "header" };
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    ts_ctx c = { .b = &b, .doc = doc, .cm = cm };
    ts_type(&c, p->schema, 1);
    sluice_buf_printf(&b, " (%s%s%s)", where[p->in], p->required ? ", required" : "",
                      p->multi_segment ? ", may span segments: a/b" : "");
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
}

static sluice_status op_entry(sluice_arena *arena,
                              const sluice_openapi_spec *spec,
                              const sluice_openapi_op *op,
                              const sluice_config_code_mode *cm,
                              sluice_schema_table *t,
                              sluice_schema_table_notes *n)
{
    t->schema = "openapi";
    t->name = op->id;
    t->approx_rows = -1;
    t->columns = sluice_arena_calloc(arena, op->param_count + 1, sizeof *t->columns);
    if (t->columns == NULL)
        return SLUICE_E_NOMEM;
    for (size_t k = 0; k < op->param_count; k++) {
        t->columns[k].name = op->params[k].name;
        t->columns[k].type = param_type(arena, spec->doc, &op->params[k], cm);
        if (t->columns[k].type == NULL)
            return SLUICE_E_NOMEM;
    }
    t->column_count = op->param_count;
    n->comment = sluice_arena_printf(arena, "%s %s%s%s", op->method, op->path,
                                     op->description != NULL ? " — " : "",
                                     op->description != NULL ? op->description : "");
    n->action = sluice_openapi_action_name(op->action);
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    ts_ctx c = { .b = &b, .doc = spec->doc, .cm = cm };
    put_op(&c, op);
    n->declaration = sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
    return n->comment != NULL && n->declaration != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
}

/* A component schema as a describable type: its name, its description for search, and its
 * declaration one level deep (the types it uses by name). */
static sluice_status type_entry(sluice_arena *arena,
                                const sluice_openapi_spec *spec,
                                const char *name,
                                const sluice_config_code_mode *cm,
                                sluice_schema_table *t,
                                sluice_schema_table_notes *n)
{
    t->schema = "openapi";
    t->name = name;
    t->is_view = true;
    t->approx_rows = -1;
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    ts_ctx c = { .b = &b, .doc = spec->doc, .cm = cm };
    ts_define(&c, name);
    n->declaration = sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
    const json_t *s = sluice_openapi_deref(
        spec->doc, json_object_get(
                       json_object_get(json_object_get(spec->doc, "components"), "schemas"), name));
    n->comment = json_string_value(json_object_get(s, "description"));
    return n->declaration != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
}

sluice_status sluice_openapi_spec_entries(sluice_arena *arena,
                                          const sluice_openapi_spec *spec,
                                          const sluice_config_code_mode *cm,
                                          sluice_schema *out)
{
    const json_t *types = json_object_get(json_object_get(spec->doc, "components"), "schemas");
    size_t cap = spec->op_count + json_object_size(types) + 1;
    out->tables = sluice_arena_calloc(arena, cap, sizeof *out->tables);
    out->notes = sluice_arena_calloc(arena, cap, sizeof *out->notes);
    if (out->tables == NULL || out->notes == NULL)
        return SLUICE_E_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < spec->op_count; i++, k++)
        if (op_entry(arena, spec, &spec->ops[i], cm, &out->tables[k], &out->notes[k]) != SLUICE_OK)
            return SLUICE_E_NOMEM;
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)types, name, v)
    {
        if (type_entry(arena, spec, name, cm, &out->tables[k], &out->notes[k]) != SLUICE_OK)
            return SLUICE_E_NOMEM;
        k++;
    }
    out->table_count = k;
    return SLUICE_OK;
}
