/*
 * cedar_bench.c — decisions per second of the Cedar engine (bench/cedar/run.sh drives it).
 *
 * usage: cedar_bench POLICIES ENTITIES REQUESTS.jsonl [SECONDS]
 * Parses the policies and entities once, the requests once, then decides the requests round
 * robin for about SECONDS (default 2), one fresh arena per decision (the intended use), and
 * prints {"decisions": N, "seconds": S, "per_second": R, "allows": A, "allows_per_round": K}.
 */
#include "core/buf.h"
#include "policy/cedar/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *slurp(sluice_arena *arena, const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        exit(2);
    }
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        sluice_buf_append(&b, chunk, n);
    fclose(f);
    *len = b.len;
    return b.data;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const sluice_error *err)
{
    fprintf(stderr, "cedar_bench: %s\n", err->message);
    exit(2);
}

/* One request per line: {"principal": uid, "action": uid, "resource": uid, "context": {..}}. */
static size_t
load_requests(sluice_arena *arena, const char *path, sluice_cedar_request *reqs, size_t cap)
{
    size_t len, n = 0;
    char *text = slurp(arena, path, &len);
    sluice_error err;
    cedar_json c = { arena, path, &err };
    char *save = text;
    while (n < cap && save != NULL && *save != '\0') {
        char *end = strchr(save, '\n');
        size_t l = end != NULL ? (size_t)(end - save) : strlen(save);
        json_t *j;
        if (l > 0) {
            if (sluice_cedar_json_load(&c, save, l, &j) != SLUICE_OK)
                die(&err);
            sluice_cedar_request *r = &reqs[n++];
            if (sluice_cedar_json_uid(&c, json_object_get(j, "principal"), "principal",
                                      &r->principal) != SLUICE_OK ||
                sluice_cedar_json_uid(&c, json_object_get(j, "action"), "action", &r->action) !=
                    SLUICE_OK ||
                sluice_cedar_json_uid(&c, json_object_get(j, "resource"), "resource",
                                      &r->resource) != SLUICE_OK ||
                sluice_cedar_context_from_json(&c, json_object_get(j, "context"), &r->context) !=
                    SLUICE_OK)
                die(&err);
            json_decref(j);
        }
        save = end != NULL ? end + 1 : NULL;
    }
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: cedar_bench POLICIES ENTITIES REQUESTS.jsonl [SECONDS]\n");
        return 2;
    }
    double seconds = argc > 4 ? strtod(argv[4], NULL) : 2.0;
    sluice_arena *arena = sluice_arena_new();
    sluice_error err;
    size_t plen, elen;
    char *ptext = slurp(arena, argv[1], &plen), *etext = slurp(arena, argv[2], &elen);
    sluice_cedar_policyset *set;
    sluice_cedar_entities *ents;
    if (sluice_cedar_policyset_parse(arena, ptext, plen, argv[1], &set, &err) != SLUICE_OK ||
        sluice_cedar_entities_parse_json(arena, etext, elen, argv[2], &ents, &err) != SLUICE_OK)
        die(&err);
    sluice_cedar_request reqs[256];
    size_t nreq = load_requests(arena, argv[3], reqs, 256);
    if (nreq == 0) {
        fprintf(stderr, "cedar_bench: no requests\n");
        return 2;
    }
    size_t allows_per_round = 0;
    unsigned long long decisions = 0, allows = 0;
    double start = now(), elapsed = 0;
    while (elapsed < seconds) {
        for (int batch = 0; batch < 1000; batch++) {
            for (size_t i = 0; i < nreq; i++) {
                sluice_arena *scratch = sluice_arena_new();
                sluice_cedar_decision d;
                if (scratch == NULL ||
                    sluice_cedar_is_authorized(set, ents, &reqs[i], scratch, &d, &err) != SLUICE_OK)
                    die(&err);
                allows += d.allow;
                if (decisions < nreq)
                    allows_per_round += d.allow;
                decisions++;
                sluice_arena_free(scratch);
            }
        }
        elapsed = now() - start;
    }
    printf("{\"decisions\": %llu, \"seconds\": %.3f, \"per_second\": %.0f, \"allows\": %llu, "
           "\"allows_per_round\": %zu}\n",
           decisions, elapsed, (double)decisions / elapsed, allows, allows_per_round);
    sluice_arena_free(arena);
    return 0;
}
