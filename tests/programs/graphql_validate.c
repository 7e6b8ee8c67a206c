/*
 * graphql_validate.c — batch validator for the differential test of GraphQL validation against
 * graphql-js (a test program, not shipped).
 *
 * Owns: building the schema model of SCHEMA (an SDL file) once, then reading JSON lines
 * {"doc": "<GraphQL text>"} and writing one JSON line per document: {"parsed": bool,
 * "valid": bool, "rules": [...], "messages": [...]} — the spec rules only (validate.h's
 * sluice_graphql_validate), no limits or operation analysis, as graphql-js `validate` does.
 * Does not own: any rule. Exit 2 on a malformed input line or an unusable schema.
 * usage: graphql_validate SCHEMA.graphql [FILE.jsonl]
 */
#include "jsonl_docs.h"
#include "lang/graphql/validate.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *run_one(const sluice_gql_schema *schema, const char *doc, size_t len)
{
    sluice_arena *arena = sluice_arena_new();
    sluice_codefacts *f = arena != NULL ? sluice_codefacts_new(arena, "graphql") : NULL;
    if (f == NULL) {
        sluice_arena_free(arena);
        return json_pack("{s:b, s:b, s:s}", "parsed", 0, "valid", 0, "error", "nomem");
    }
    sluice_error err;
    sluice_error_clear(&err);
    sluice_gql_document *tree = NULL;
    json_t *out;
    if (sluice_graphql_parse(arena, doc, len, "<doc>", NULL, &tree, &err) != SLUICE_OK) {
        out = json_pack("{s:b, s:b}", "parsed", 0, "valid", 0);
    } else if (sluice_graphql_validate(arena, tree, schema, f) != SLUICE_OK) {
        out = json_pack("{s:b, s:b, s:s}", "parsed", 1, "valid", 0, "error", "nomem");
    } else {
        json_t *rules = json_array(), *messages = json_array();
        for (size_t i = 0; i < f->violation_count; i++) {
            json_array_append_new(rules, json_string(f->violations[i].rule));
            json_array_append_new(messages, json_string(f->violations[i].message));
        }
        out = json_pack("{s:b, s:b, s:o, s:o}", "parsed", 1, "valid", f->violation_count == 0,
                        "rules", rules, "messages", messages);
    }
    sluice_arena_free(arena);
    return out;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf != NULL) {
        buf[n] = '\0';
        *len = (size_t)n;
    }
    return buf;
}

static json_t *run_doc(const void *ctx, const char *doc, size_t len)
{
    return run_one(ctx, doc, len);
}

int main(int argc, char **argv)
{
    size_t sdl_len = 0;
    char *sdl = argc > 1 ? slurp(argv[1], &sdl_len) : NULL;
    FILE *in = argc > 2 ? fopen(argv[2], "rb") : stdin;
    sluice_arena *schema_arena = sluice_arena_new();
    sluice_gql_schema *schema = NULL;
    sluice_error err;
    sluice_error_clear(&err);
    if (sdl == NULL || in == NULL || schema_arena == NULL ||
        sluice_graphql_schema_build(schema_arena, sdl, sdl_len, argv[1], &schema, &err) !=
            SLUICE_OK) {
        fprintf(stderr, "usage: %s SCHEMA.graphql [FILE.jsonl] (%s)\n", argv[0],
                err.message != NULL ? err.message : "unreadable");
        return 2;
    }
    int rc = sluice_jsonl_docs(in, argv[0], run_doc, schema);
    free(sdl);
    sluice_arena_free(schema_arena);
    if (in != stdin)
        fclose(in);
    return rc;
}
