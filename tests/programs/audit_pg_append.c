/*
 * audit_pg_append.c — appends audit records to the PostgreSQL sink from several sink handles
 * (replicas) and threads at once, for tests/pg/ctest_audit_pg.sh.
 *
 *   audit_pg_append CONNINFO HANDLES THREADS RECORDS
 *
 * Each of HANDLES sinks is shared by THREADS threads, each appending RECORDS events
 * {"event":"test","handle":h,"thread":t,"n":i}. Prints the number of acknowledged appends; exit 0
 * when every append was acknowledged, 1 (first error on stderr) otherwise, 2 on usage.
 */
#include "state/audit_pg.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct worker {
    sluice_audit *sink;
    int handle, thread;
    long records;
} worker;

static atomic_long acknowledged;
static atomic_int failed;

static void *run(void *arg)
{
    worker *w = arg;
    sluice_arena *arena = sluice_arena_new();
    for (long i = 0; i < w->records && arena != NULL; i++) {
        json_t *e = json_pack("{s:s, s:i, s:i, s:I}", "event", "test", "handle", w->handle,
                              "thread", w->thread, "n", (json_int_t)i);
        sluice_error err = { 0 };
        if (e != NULL && sluice_audit_append(w->sink, e, arena, &err) == SLUICE_OK) {
            atomic_fetch_add(&acknowledged, 1);
        } else if (atomic_fetch_add(&failed, 1) == 0) {
            fprintf(stderr, "audit_pg_append: %s\n", err.message != NULL ? err.message : "?");
        }
        json_decref(e);
    }
    sluice_arena_free(arena);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 5)
        return 2;
    int handles = (int)strtol(argv[2], NULL, 10), threads = (int)strtol(argv[3], NULL, 10);
    long records = strtol(argv[4], NULL, 10);
    if (handles < 1 || handles > 8 || threads < 1 || threads > 16)
        return 2;
    sluice_audit *sinks[8] = { 0 };
    worker workers[8 * 16];
    pthread_t th[8 * 16];
    sluice_arena *arena = sluice_arena_new();
    sluice_audit_pg_options o = { .conninfo = argv[1] };
    for (int h = 0; h < handles; h++) {
        sluice_error err = { 0 };
        if (sluice_audit_open_pg(&o, &sinks[h], arena, &err) != SLUICE_OK) {
            fprintf(stderr, "audit_pg_append: %s\n", err.message);
            return 1;
        }
    }
    for (int h = 0; h < handles; h++)
        for (int t = 0; t < threads; t++) {
            worker *w = &workers[h * threads + t];
            *w = (worker){ sinks[h], h, t, records };
            pthread_create(&th[h * threads + t], NULL, run, w);
        }
    for (int i = 0; i < handles * threads; i++)
        pthread_join(th[i], NULL);
    for (int h = 0; h < handles; h++)
        sluice_audit_close(sinks[h]);
    sluice_arena_free(arena);
    printf("%ld\n", atomic_load(&acknowledged));
    return atomic_load(&failed) == 0 ? 0 : 1;
}
