/*
 * graphql_print.c — batch printer for the differential test against graphql-js (a test
 * program, not shipped).
 *
 * Owns: reading JSON lines {"doc": "<GraphQL text>"} from a file (or stdin) and writing one
 * JSON line per document: {"ok": true, "printed": "<canonical form>", "hash": "<hex>"} or
 * {"ok": false, "status": "invalid"|"limit"|"nomem", "message": "...", "line": N,
 * "column": N}. One process serves a whole batch (tests/node/graphql_diff.mjs sends thousands).
 * Does not own: parsing or printing (src/lang/graphql/). Exit 2 on a malformed input line.
 */
#include "jsonl_docs.h"
#include "syntax/graphql/graphql.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *status_name(sluice_status st)
{
    return st == SLUICE_E_LIMIT ? "limit" : st == SLUICE_E_NOMEM ? "nomem" : "invalid";
}

/* A JSON string of s, or a marker when s is not UTF-8 (which would itself be a bug). */
static json_t *text_json(const char *s, size_t n)
{
    json_t *j = json_stringn(s, n);
    return j != NULL ? j : json_string("<not UTF-8>");
}

static json_t *run_one(const char *doc, size_t len)
{
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return json_pack("{s:b, s:s}", "ok", 0, "status", "nomem");
    sluice_error err;
    sluice_error_clear(&err);
    sluice_gql_document *tree;
    json_t *out;
    sluice_status st = sluice_graphql_parse(arena, doc, len, "<doc>", NULL, &tree, &err);
    size_t n;
    char *printed = st == SLUICE_OK ? sluice_graphql_print(arena, tree, &n) : NULL;
    char hex[65];
    if (st == SLUICE_OK && printed != NULL &&
        sluice_graphql_canonical_hash(arena, doc, len, NULL, hex, &err) == SLUICE_OK) {
        out = json_pack("{s:b, s:o, s:s}", "ok", 1, "printed", text_json(printed, n), "hash", hex);
    } else {
        if (st == SLUICE_OK)
            st = SLUICE_E_NOMEM;
        const char *msg = err.message != NULL ? err.message : "";
        out = json_pack("{s:b, s:s, s:o, s:I, s:I}", "ok", 0, "status", status_name(st), "message",
                        text_json(msg, strlen(msg)), "line", (json_int_t)err.line, "column",
                        (json_int_t)err.column);
    }
    sluice_arena_free(arena);
    return out;
}

static json_t *run_doc(const void *ctx, const char *doc, size_t len)
{
    (void)ctx;
    return run_one(doc, len);
}

int main(int argc, char **argv)
{
    FILE *in = argc > 1 ? fopen(argv[1], "rb") : stdin;
    if (in == NULL) {
        fprintf(stderr, "usage: %s [FILE.jsonl]\n", argv[0]);
        return 2;
    }
    int rc = sluice_jsonl_docs(in, argv[0], run_doc, NULL);
    if (in != stdin)
        fclose(in);
    return rc;
}
