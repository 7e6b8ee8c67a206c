/*
 * jsonl_docs.h — the input loop the GraphQL batch programs share (graphql_print,
 * graphql_validate): JSON lines {"doc": "<text>"} in, one compact JSON line out per document.
 */
#ifndef SLUICE_TESTS_JSONL_DOCS_H
#define SLUICE_TESTS_JSONL_DOCS_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

/* Calls run(ctx, doc, len) for each line of in and prints what it returns (a new reference).
 * 0, or 2 on a malformed line (named on stderr with prog). */
static inline int sluice_jsonl_docs(FILE *in,
                                    const char *prog,
                                    json_t *(*run)(const void *ctx, const char *doc, size_t len),
                                    const void *ctx)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    int rc = 0;
    while ((got = getline(&line, &cap, in)) > 0) {
        json_error_t jerr;
        json_t *item = json_loadb(line, (size_t)got, JSON_ALLOW_NUL, &jerr);
        json_t *doc = item != NULL ? json_object_get(item, "doc") : NULL;
        if (!json_is_string(doc)) {
            fprintf(stderr, "%s: bad input line: %s\n", prog, jerr.text);
            json_decref(item);
            rc = 2;
            break;
        }
        json_t *result = run(ctx, json_string_value(doc), json_string_length(doc));
        char *text = json_dumps(result, JSON_COMPACT);
        if (text != NULL)
            puts(text);
        free(text);
        json_decref(result);
        json_decref(item);
    }
    free(line);
    return rc;
}

#endif
