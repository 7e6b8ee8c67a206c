/*
 * mcp_source.c — a kind = "mcp" source: one read tool of a downstream MCP server, started from
 * the source's `command` over stdio, called once per request set with the parameters as its
 * arguments; its structuredContent (or the JSON text of its first text block) holds the rows at
 * response.path: initialize, notifications/initialized, tools/call, nothing else.
 *
 * Owns: the exchange's bounds (timeout_seconds for the whole of it, max_load_bytes, cancellation)
 * and reading the rows out of the result.
 * Does not own: the stdio transport, ids and handshake (exec/mcp_stdio.c, shared with the plan
 * client), the rows' mapping (http_source.c's sluice_qm_deliver), which arguments (fanout.c).
 * Declared in querymode/mcp_source.h.
 */
#include "querymode/mcp_source.h"

#include "core/clock.h"
#include "exec/mcp_stdio.h"

#include <errno.h>
#include <string.h>

static sluice_status fail(const sluice_config_source *src,
                          sluice_status st,
                          const char *what,
                          sluice_arena *arena,
                          sluice_error *err)
{
    static const char *const why[] = { [SLUICE_E_TIMEOUT] = "timed out (timeout_seconds)",
                                       [SLUICE_E_LIMIT] = "sent more than max_load_bytes",
                                       [SLUICE_E_IO] = "exited or could not be started" };
    if (st == SLUICE_E_CANCELLED)
        return sluice_error_set(err, arena, st, "the load was cancelled");
    if (st == SLUICE_E_NOMEM)
        return st;
    const char *reason =
        (size_t)st < sizeof(why) / sizeof(why[0]) && why[st] != NULL ? why[st] : "failed";
    return sluice_error_set(err, arena, st == SLUICE_E_LIMIT ? SLUICE_E_LIMIT : SLUICE_E_IO,
                            "source '%s': the MCP server %s during %s", src->name, reason, what);
}

static json_t *arguments(const sluice_qm_fetch *f)
{
    json_t *a = json_object();
    for (size_t i = 0; a != NULL && i < f->param_count; i++)
        json_object_set_new(a, f->params[i].name, json_string(f->params[i].value));
    return a;
}

/* The rows of a tools/call result: structuredContent, else the first text block as JSON. */
static sluice_status rows_of(const sluice_config_source *src,
                             const json_t *res,
                             json_t **doc,
                             sluice_arena *arena,
                             sluice_error *err)
{
    const json_t *r = json_object_get(res, "result");
    if (r == NULL || json_is_true(json_object_get(r, "isError"))) {
        const char *msg =
            json_string_value(json_object_get(json_object_get(res, "error"), "message"));
        const json_t *c0 = json_array_get(json_object_get(r, "content"), 0);
        return sluice_error_set(err, arena, SLUICE_E_IO, "source '%s': tool '%s' failed: %.200s",
                                src->name, src->tool,
                                msg != NULL ? msg
                                : json_string_value(json_object_get(c0, "text")) != NULL
                                    ? json_string_value(json_object_get(c0, "text"))
                                    : "no message");
    }
    const json_t *sc = json_object_get(r, "structuredContent");
    if (sc != NULL) {
        *doc = json_incref((json_t *)sc);
        return SLUICE_OK;
    }
    const char *text = json_string_value(
        json_object_get(json_array_get(json_object_get(r, "content"), 0), "text"));
    json_error_t je;
    *doc = text != NULL ? json_loads(text, 0, &je) : NULL;
    if (*doc == NULL)
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "source '%s': tool '%s' returned neither structuredContent nor "
                                "JSON text",
                                src->name, src->tool);
    return SLUICE_OK;
}

sluice_status sluice_qm_mcp_fetch(sluice_qm_fetch *f, sluice_arena *arena, sluice_error *err)
{
    const sluice_config_source *src = f->source;
    sluice_mcp_bounds b = { .deadline_ms =
                                sluice_clock_monotonic_ms(NULL) + src->timeout_seconds * 1000,
                            .budget = f->max_bytes - f->bytes,
                            .cancelled = f->cancelled };
    size_t budget0 = b.budget;
    sluice_mcp_stdio c;
    if (sluice_mcp_stdio_start(&c, src->command.items, src->command.count) != SLUICE_OK)
        return sluice_error_set(err, arena, SLUICE_E_IO,
                                "source '%s': cannot start the MCP server %s: %s", src->name,
                                src->command.items[0], strerror(errno));
    const char *refused = NULL;
    sluice_status st = sluice_mcp_stdio_handshake(&c, "sluice-query-mode", &b, arena, &refused);
    if (st != SLUICE_OK) {
        sluice_mcp_stdio_stop(&c);
        return fail(src, st, "initialize", arena, err);
    }
    json_t *res = NULL;
    st = sluice_mcp_stdio_request(
        &c, "tools/call", json_pack("{s:s, s:o}", "name", src->tool, "arguments", arguments(f)), &b,
        arena, &res);
    sluice_mcp_stdio_stop(&c);
    f->bytes += budget0 - b.budget;
    f->pages++;
    if (st != SLUICE_OK)
        return fail(src, st, "tools/call", arena, err);
    json_t *doc = NULL;
    st = rows_of(src, res, &doc, arena, err);
    json_decref(res);
    const json_t *items = st == SLUICE_OK ? sluice_qm_json_path(doc, src->response.path) : NULL;
    if (st == SLUICE_OK && !json_is_array(items))
        st = sluice_error_set(err, arena, SLUICE_E_INVALID,
                              "source '%s': tool '%s' result has no rows array at "
                              "response.path '%s'",
                              src->name, src->tool, src->response.path);
    if (st == SLUICE_OK)
        st = sluice_qm_deliver(f, items, arena, err);
    if (st == SLUICE_E_LIMIT) {
        f->truncated = true;
        f->truncated_by = "max_load_rows";
        st = SLUICE_OK;
    }
    json_decref(doc);
    if (f->on_page != NULL)
        f->on_page(f->ctx, f->pages, f->rows);
    return st;
}
