/*
 * cedar_eval.c — batch evaluator for the differential test against cedar-wasm.
 *
 * Reads JSON lines {"policies": "<text>" | {"id": "<text>", ...}, "entities": [...],
 * "principal": {type, id}, "action": ..., "resource": ..., "context": {...}} from a file (or
 * stdin) and prints one line per case: {"decision": "allow"|"deny", "reasons": [ids],
 * "errors": [ids]} with ids sorted, or {"failure": "<message>"} when the policies, entities or
 * request do not parse. One process for the whole batch: the generator sends thousands of cases.
 */
#include "core/buf.h"
#include "policy/cedar/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void print_ids(sluice_buf *out, const char **ids, size_t n)
{
    qsort(ids, n, sizeof(*ids), cmp_str);
    sluice_buf_putc(out, '[');
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            sluice_buf_putc(out, ',');
        sluice_buf_json_string(out, ids[i], strlen(ids[i]));
    }
    sluice_buf_putc(out, ']');
}

static sluice_status
load_policies(sluice_arena *arena, const json_t *p, sluice_cedar_policyset **set, sluice_error *err)
{
    if (json_is_string(p))
        return sluice_cedar_policyset_parse(arena, json_string_value(p), json_string_length(p),
                                            "<policies>", set, err);
    *set = sluice_cedar_policyset_new(arena);
    if (*set == NULL || !json_is_object(p))
        return sluice_error_set(err, arena, SLUICE_E_INVALID, "policies: string or object");
    const char *id;
    json_t *text;
    json_object_foreach((json_t *)p, id, text)
    {
        sluice_status st = sluice_cedar_policyset_add(arena, *set, id, json_string_value(text),
                                                      json_string_length(text), id, err);
        if (st != SLUICE_OK)
            return st;
    }
    return SLUICE_OK;
}

static sluice_status
run_case(sluice_arena *arena, const json_t *c, sluice_buf *out, sluice_error *err)
{
    cedar_json cj = { arena, "<case>", err };
    sluice_cedar_policyset *set;
    sluice_cedar_entities *ents;
    sluice_cedar_request req;
    sluice_status st = load_policies(arena, json_object_get(c, "policies"), &set, err);
    if (st == SLUICE_OK)
        st = sluice_cedar_entities_from_json(&cj, json_object_get(c, "entities"), &ents);
    if (st == SLUICE_OK)
        st = sluice_cedar_json_uid(&cj, json_object_get(c, "principal"), "principal",
                                   &req.principal);
    if (st == SLUICE_OK)
        st = sluice_cedar_json_uid(&cj, json_object_get(c, "action"), "action", &req.action);
    if (st == SLUICE_OK)
        st = sluice_cedar_json_uid(&cj, json_object_get(c, "resource"), "resource", &req.resource);
    if (st == SLUICE_OK)
        st = sluice_cedar_context_from_json(&cj, json_object_get(c, "context"), &req.context);
    sluice_cedar_decision d;
    if (st == SLUICE_OK)
        st = sluice_cedar_is_authorized(set, ents, &req, arena, &d, err);
    if (st != SLUICE_OK)
        return st;
    const char **ids =
        sluice_arena_calloc(arena, d.determining_count + d.error_count + 1, sizeof(*ids));
    if (ids == NULL)
        return SLUICE_E_NOMEM;
    sluice_buf_printf(out, "{\"decision\":\"%s\",\"reasons\":", d.allow ? "allow" : "deny");
    for (size_t i = 0; i < d.determining_count; i++)
        ids[i] = sluice_cedar_policy_id(d.determining[i]);
    print_ids(out, ids, d.determining_count);
    sluice_buf_puts(out, ",\"errors\":");
    for (size_t i = 0; i < d.error_count; i++)
        ids[i] = sluice_cedar_policy_id(d.errors[i].policy);
    print_ids(out, ids, d.error_count);
    sluice_buf_puts(out, "}");
    return SLUICE_OK;
}

int main(int argc, char **argv)
{
    FILE *in = argc > 1 ? fopen(argv[1], "r") : stdin;
    if (in == NULL) {
        perror(argv[1]);
        return 2;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, in)) > 0) {
        sluice_arena *arena = sluice_arena_new();
        json_error_t jerr;
        json_t *c = json_loadb(line, (size_t)n, 0, &jerr);
        sluice_buf out;
        sluice_buf_init(&out, arena, 0);
        sluice_error err;
        sluice_error_clear(&err);
        if (c == NULL) {
            sluice_buf_puts(&out, "{\"failure\":\"bad case line\"}");
        } else if (run_case(arena, c, &out, &err) != SLUICE_OK) {
            out.len = 0;
            sluice_buf_puts(&out, "{\"failure\":");
            const char *msg = err.message != NULL ? err.message : "failure";
            sluice_buf_json_string(&out, msg, strlen(msg));
            sluice_buf_puts(&out, "}");
        }
        puts(sluice_buf_cstr(&out));
        json_decref(c);
        sluice_arena_free(arena);
    }
    free(line);
    if (in != stdin)
        fclose(in);
    return 0;
}
