/*
 * surface.c — config-declared prompts and resources (see surface.h).
 */
#include "surface/surface.h"

#include "core/buf.h"

#include <sodium.h>
#include <string.h>

char *sluice_surface_fill(sluice_arena *arena, const char *text, const json_t *arguments)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    const char *p = text;
    while (*p != '\0') {
        const char *open = strstr(p, "{{");
        const char *close = open != NULL ? strstr(open + 2, "}}") : NULL;
        if (open == NULL || close == NULL) {
            sluice_buf_puts(&b, p);
            break;
        }
        sluice_buf_append(&b, p, (size_t)(open - p));
        char *name = sluice_arena_strndup(arena, open + 2, (size_t)(close - open - 2));
        const json_t *value = name != NULL ? json_object_get(arguments, name) : NULL;
        if (json_is_string(value))
            sluice_buf_puts(&b, json_string_value(value));
        else
            sluice_buf_append(&b, open, (size_t)(close + 2 - open));
        p = close + 2;
    }
    return sluice_buf_status(&b) == SLUICE_OK ? (char *)sluice_buf_cstr(&b) : NULL;
}

static sluice_status get_prompt(sluice_mcp_call *call,
                                json_t *arguments,
                                json_t **out_result,
                                sluice_error *err,
                                void *userdata)
{
    const sluice_config_prompt *prompt = userdata;
    sluice_arena *arena = sluice_mcp_call_arena(call);
    for (size_t i = 0; i < prompt->arg_count; i++) {
        const sluice_config_prompt_arg *arg = &prompt->args[i];
        if (arg->required && !json_is_string(json_object_get(arguments, arg->name)))
            return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                    "prompt '%s' needs the argument '%s'", prompt->name, arg->name);
    }
    json_t *messages = json_array();
    for (size_t i = 0; i < prompt->message_count; i++) {
        char *text = sluice_surface_fill(arena, prompt->messages[i].text, arguments);
        if (text == NULL) {
            json_decref(messages);
            return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
        }
        json_array_append_new(messages,
                              json_pack("{s:s, s:{s:s, s:s}}", "role", prompt->messages[i].role,
                                        "content", "type", "text", "text", text));
    }
    *out_result =
        json_pack("{s:s, s:o}", "description",
                  prompt->description != NULL ? prompt->description : "", "messages", messages);
    return SLUICE_OK;
}

static json_t *prompt_arguments(const sluice_config_prompt *prompt)
{
    json_t *args = json_array();
    for (size_t i = 0; i < prompt->arg_count; i++) {
        json_t *a = json_pack("{s:s, s:b}", "name", prompt->args[i].name, "required",
                              prompt->args[i].required);
        if (prompt->args[i].description != NULL)
            json_object_set_new(a, "description", json_string(prompt->args[i].description));
        json_array_append_new(args, a);
    }
    return args;
}

/* base64 (RFC 4648, padded) for binary resources: the MCP "blob" field. */
static char *base64_encode(sluice_arena *arena, const unsigned char *data, size_t len)
{
    size_t out_len = sodium_base64_ENCODED_LEN(len, sodium_base64_VARIANT_ORIGINAL);
    char *out = sluice_arena_alloc(arena, out_len);
    if (out == NULL)
        return NULL;
    return sodium_bin2base64(out, out_len, data, len, sodium_base64_VARIANT_ORIGINAL);
}

static sluice_status read_resource(sluice_mcp_call *call,
                                   const char *uri,
                                   json_t **out_contents,
                                   sluice_error *err,
                                   void *userdata)
{
    const sluice_config_resource *res = userdata;
    sluice_arena *arena = sluice_mcp_call_arena(call);
    json_t *item = json_pack("{s:s, s:s}", "uri", uri, "mimeType",
                             res->mime_type != NULL ? res->mime_type : "text/plain");
    if (res->is_blob) {
        char *b64 = base64_encode(arena, (const unsigned char *)res->text, res->text_len);
        if (b64 == NULL) {
            json_decref(item);
            return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
        }
        json_object_set_new(item, "blob", json_string(b64));
    } else {
        json_object_set_new(item, "text", json_stringn(res->text, res->text_len));
    }
    *out_contents = json_pack("[o]", item);
    return SLUICE_OK;
}

sluice_status
sluice_surface_register(const sluice_config *config, sluice_mcp_server *server, sluice_error *err)
{
    for (size_t i = 0; i < config->prompt_count; i++) {
        const sluice_config_prompt *p = &config->prompts[i];
        sluice_mcp_prompt def = {
            .name = p->name,
            .title = p->title,
            .description = p->description,
            .arguments = prompt_arguments(p),
            .fn = get_prompt,
            .userdata = (void *)p,
        };
        sluice_status st = sluice_mcp_server_add_prompt(server, &def, err);
        if (st != SLUICE_OK)
            return st;
    }
    for (size_t i = 0; i < config->resource_count; i++) {
        const sluice_config_resource *r = &config->resources[i];
        sluice_mcp_resource def = {
            .uri = r->uri,
            .name = r->name,
            .title = r->title,
            .description = r->description,
            .mime_type = r->mime_type,
            .fn = read_resource,
            .userdata = (void *)r,
        };
        sluice_status st = sluice_mcp_server_add_resource(server, &def, err);
        if (st != SLUICE_OK)
            return st;
    }
    return SLUICE_OK;
}
