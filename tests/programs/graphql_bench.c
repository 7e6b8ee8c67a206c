/*
 * graphql_bench.c — validations per second of one GraphQL operation through the GraphQL front
 * end (parse, canonical form and hash, the spec's rules, the operation analysis with limits
 * and facts), against a schema built once (a test program for bench/graphql, not shipped).
 *
 * usage: graphql_bench SCHEMA.graphql OPERATION.graphql SECONDS
 * Prints {"per_second": N, "iterations": N, "valid": bool} on stdout.
 */
#include "lang/graphql/front.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = f != NULL ? calloc(1, 1 << 20) : NULL;
    *len = buf != NULL ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    if (f != NULL)
        fclose(f);
    return buf;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s SCHEMA.graphql OPERATION.graphql SECONDS\n", argv[0]);
        return 2;
    }
    size_t sdl_len = 0, op_len = 0;
    char *sdl = slurp(argv[1], &sdl_len);
    char *op = slurp(argv[2], &op_len);
    double seconds = atof(argv[3]);
    if (sdl == NULL || op == NULL || seconds <= 0)
        return 2;
    sluice_schema backend = { .document = sdl, .document_len = sdl_len };
    sluice_frontend_context ctx = { .schema = &backend };
    const sluice_frontend *fe = sluice_graphql_frontend();
    long iterations = 0;
    bool valid = true;
    double start = now(), end = start;
    while (end - start < seconds) {
        for (int i = 0; i < 256; i++) {
            sluice_arena *arena = sluice_arena_new();
            sluice_codefacts *f = NULL;
            sluice_error err;
            if (arena == NULL || fe->analyze(arena, op, op_len, NULL, &ctx, &f, &err) != SLUICE_OK)
                return 1;
            valid = valid && !sluice_codefacts_refused(f);
            sluice_arena_free(arena);
            iterations++;
        }
        end = now();
    }
    printf("{\"per_second\": %.0f, \"iterations\": %ld, \"valid\": %s}\n",
           (double)iterations / (end - start), iterations, valid ? "true" : "false");
    free(sdl);
    free(op);
    return 0;
}
