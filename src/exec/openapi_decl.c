/*
 * openapi_decl.c — the two renderings of an OpenAPI spec (see openapi_spec.h): the normalized
 * operations document the javascript front end resolves call sites against, and the compact
 * TypeScript-style declaration code-mode://schema shows models (what Cloudflare's and pctx's
 * code modes show), never the raw spec.
 *
 * Owns: both texts. Does not own: reading the spec (openapi_spec.c).
 */
#include "core/buf.h"
#include "exec/openapi_class.h"
#include "exec/openapi_spec.h"
#include "exec/schema.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *sluice_openapi_spec_document(sluice_arena *arena, const sluice_openapi_spec *spec)
{
    json_t *ops = json_array();
    for (size_t i = 0; ops != NULL && i < spec->op_count; i++) {
        const sluice_openapi_op *op = &spec->ops[i];
        if (json_array_append_new(ops, json_pack("{s:s, s:s, s:s, s:s, s:b}", "id", op->id,
                                                 "method", op->method, "path", op->path, "action",
                                                 sluice_openapi_action_name(op->action),
                                                 "idempotent", op->idempotent)) != 0) {
            json_decref(ops);
            ops = NULL;
        }
    }
    json_t *doc = ops != NULL ? json_pack("{s:o}", "operations", ops) : NULL;
    char *text = doc != NULL ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    const char *r = text != NULL ? sluice_arena_strdup(arena, text) : NULL;
    free(text);
    return r;
}

/* A JSON schema as a TypeScript type, three levels deep; internal blocked fields left out
 * (responses never carry them), output-blocked ones marked. */
static void ts_type(sluice_buf *b, const json_t *s, const sluice_config_code_mode *cm, int depth)
{
    const char *type = json_string_value(json_object_get(s, "type"));
    const json_t *en = json_object_get(s, "enum");
    if (json_is_array(en) && json_array_size(en) > 0 && json_array_size(en) <= 8) {
        for (size_t i = 0; i < json_array_size(en); i++) {
            char *t = json_dumps(json_array_get(en, i), JSON_ENCODE_ANY | JSON_COMPACT);
            sluice_buf_printf(b, "%s%s", i > 0 ? " | " : "", t != NULL ? t : "unknown");
            free(t);
        }
        return;
    }
    if (type == NULL && json_is_object(json_object_get(s, "properties")))
        type = "object";
    if (type == NULL || depth > 3) {
        sluice_buf_puts(b, "unknown");
        return;
    }
    if (strcmp(type, "integer") == 0 || strcmp(type, "number") == 0) {
        sluice_buf_puts(b, "number");
    } else if (strcmp(type, "string") == 0 || strcmp(type, "boolean") == 0) {
        sluice_buf_puts(b, type);
    } else if (strcmp(type, "array") == 0) {
        const json_t *items = json_object_get(s, "items");
        bool simple = !json_is_object(json_object_get(items, "properties"));
        if (!simple)
            sluice_buf_putc(b, '(');
        ts_type(b, items, cm, depth + 1);
        sluice_buf_puts(b, simple ? "[]" : ")[]");
    } else if (strcmp(type, "object") == 0) {
        const json_t *props = json_object_get(s, "properties");
        const json_t *req = json_object_get(s, "required");
        if (!json_is_object(props) || json_object_size(props) == 0) {
            sluice_buf_puts(b, "object");
            return;
        }
        sluice_buf_puts(b, "{ ");
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)props, k, v)
        {
            if (sluice_strlist_contains_folded(
                    cm != NULL ? &cm->openapi_internal_blocked_fields : NULL, k))
                continue;
            bool required = false;
            for (size_t i = 0; i < json_array_size(req); i++)
                required |= json_is_string(json_array_get(req, i)) &&
                            strcmp(json_string_value(json_array_get(req, i)), k) == 0;
            sluice_buf_printf(b, "%s%s: ", k, required ? "" : "?");
            ts_type(b, v, cm, depth + 1);
            if (sluice_strlist_contains_folded(
                    cm != NULL ? &cm->openapi_output_blocked_fields : NULL, k) ||
                sluice_strlist_contains_folded(cm != NULL ? &cm->blocked_fields : NULL, k))
                sluice_buf_puts(b, " /* blocked: never in a result */");
            sluice_buf_puts(b, "; ");
        }
        sluice_buf_putc(b, '}');
    } else {
        sluice_buf_puts(b, "unknown");
    }
}

/* The class policy's verdict on the operation's own template (exec/openapi_class.h). */
static bool allowed(sluice_arena *arena, const sluice_openapi_op *op, const sluice_config_code_mode *cm)
{
    sluice_openapi_call_view v = {
        .method = op->method, .path = op->path, .op_id = op->id, .action = op->action
    };
    sluice_openapi_refusal r;
    return sluice_openapi_class_allows(arena, cm, &v, &r);
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

/* One operation: its summary, id and action, and `api.<method>(path, body | query):
 * Promise<response>;`. */
static void put_op(sluice_buf *b, const sluice_openapi_op *op, const sluice_config_code_mode *cm)
{
    if (op->description != NULL)
        sluice_buf_printf(b, "/** %s */\n", op->description);
    sluice_buf_printf(b, "// %s (%s%s)\n", op->id, sluice_openapi_action_name(op->action),
                      op->idempotent || op->action == SLUICE_OPENAPI_READ ? ""
                                                                          : ", not idempotent");
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
        ts_type(b, op->body_schema, cm, 0);
    } else if (query) {
        sluice_buf_puts(b, ", query: { ");
        for (size_t k = 0; k < op->param_count; k++)
            if (op->params[k].in == SLUICE_OPENAPI_IN_QUERY) {
                sluice_buf_printf(b, "%s%s: ", op->params[k].name,
                                  op->params[k].required ? "" : "?");
                ts_type(b, op->params[k].schema, cm, 1);
                sluice_buf_puts(b, "; ");
            }
        sluice_buf_putc(b, '}');
    }
    sluice_buf_puts(b, "): Promise<");
    if (op->response_schema != NULL)
        ts_type(b, op->response_schema, cm, 0);
    else
        sluice_buf_puts(b, "unknown");
    sluice_buf_puts(b, ">;\n");
}

const char *sluice_openapi_spec_declaration(sluice_arena *arena,
                                            const sluice_openapi_spec *spec,
                                            const sluice_config_code_mode *cm)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    sluice_buf_printf(
        &b,
        "// %s: the operations a plan may call. Write JavaScript; every call is\n"
        "// api.<method>(path, body?) and returns a Promise. Paths are the templates\n"
        "// below with ${...} filling a {parameter}; nothing else is reachable.\n",
        spec->title != NULL ? spec->title : "API");
    size_t refused = 0;
    for (size_t i = 0; i < spec->op_count; i++) {
        const sluice_openapi_op *op = &spec->ops[i];
        if (!allowed(arena, op, cm)) {
            refused++;
            continue;
        }
        sluice_buf_puts(&b, "\n");
        put_op(&b, op, cm);
    }
    if (refused > 0) {
        sluice_buf_printf(&b, "\n// Not callable under this server's settings (%zu):", refused);
        for (size_t i = 0, n = 0; i < spec->op_count; i++)
            if (!allowed(arena, &spec->ops[i], cm))
                sluice_buf_printf(&b, "%s %s (%s)", n++ > 0 ? "," : "", spec->ops[i].id,
                                  sluice_openapi_action_name(spec->ops[i].action));
        sluice_buf_putc(&b, '\n');
    }
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
}

/* "string (path)" for a parameter column. */
static const char *
param_type(sluice_arena *arena, const sluice_openapi_param *p, const sluice_config_code_mode *cm)
{
    static const char *const where[] = { "path", "query", "header" };
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    ts_type(&b, p->schema, cm, 1);
    sluice_buf_printf(&b, " (%s%s)", where[p->in], p->required ? ", required" : "");
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
}

sluice_status sluice_openapi_spec_entries(sluice_arena *arena,
                                          const sluice_openapi_spec *spec,
                                          const sluice_config_code_mode *cm,
                                          sluice_schema *out)
{
    out->tables = sluice_arena_calloc(arena, spec->op_count + 1, sizeof *out->tables);
    out->notes = sluice_arena_calloc(arena, spec->op_count + 1, sizeof *out->notes);
    if (out->tables == NULL || out->notes == NULL)
        return SLUICE_E_NOMEM;
    for (size_t i = 0; i < spec->op_count; i++) {
        const sluice_openapi_op *op = &spec->ops[i];
        sluice_schema_table *t = &out->tables[i];
        sluice_schema_table_notes *n = &out->notes[i];
        t->schema = "openapi";
        t->name = op->id;
        t->approx_rows = -1;
        t->columns = sluice_arena_calloc(arena, op->param_count + 1, sizeof *t->columns);
        if (t->columns == NULL)
            return SLUICE_E_NOMEM;
        for (size_t k = 0; k < op->param_count; k++) {
            t->columns[k].name = op->params[k].name;
            t->columns[k].type = param_type(arena, &op->params[k], cm);
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
        put_op(&b, op, cm);
        n->declaration = sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
        if (n->comment == NULL || n->declaration == NULL)
            return SLUICE_E_NOMEM;
    }
    out->table_count = spec->op_count;
    return SLUICE_OK;
}
