/*
 * durable_burst.c — the writer and the checker of the group-commit crash test
 * (tests/durable/ctest_group_commit_crash.sh).
 *
 *   durable_burst write DIR THREADS ROUND   THREADS threads append audit records and consume
 *                                           token ids as fast as they can, forever; after both
 *                                           are acknowledged, a thread prints "ROUND N" to stdout
 *                                           (one write, so lines from threads never interleave).
 *                                           The test SIGKILLs it mid-burst.
 *   durable_burst check DIR ACKED           reopens the log (as a restarting server would) and
 *                                           the replay store, and checks every acknowledged
 *                                           record is in the log and every acknowledged token id
 *                                           is still refused as used. Exit 0 when so.
 * DIR holds audit.jsonl (+ .head) and tokens, the files a server keeps.
 */
#include "core/clock.h"
#include "core/hash.h"
#include "state/audit.h"
#include "state/replay.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPIRY_SECONDS 3600

static sluice_audit *audit_log;
static sluice_replay *replay;
static atomic_long next_n;
static long round_no;
static int64_t started;

static void token_id_of(long round, long n, uint8_t id[SLUICE_REPLAY_ID_BYTES])
{
    char seed[64];
    int len = snprintf(seed, sizeof seed, "%ld:%ld", round, n);
    uint8_t hash[SLUICE_HASH_BYTES];
    sluice_hash_sha256(seed, (size_t)len, hash);
    memcpy(id, hash, SLUICE_REPLAY_ID_BYTES);
}

static void *writer(void *arg)
{
    (void)arg;
    for (;;) {
        long n = atomic_fetch_add(&next_n, 1);
        json_t *event = json_pack("{s:s, s:I, s:I}", "event", "burst", "round",
                                  (json_int_t)round_no, "n", (json_int_t)n);
        sluice_status st = sluice_audit_append(audit_log, event, NULL, NULL);
        json_decref(event);
        uint8_t id[SLUICE_REPLAY_ID_BYTES];
        token_id_of(round_no, n, id);
        if (st == SLUICE_OK)
            st = sluice_replay_consume(replay, id, started + EXPIRY_SECONDS, started);
        if (st != SLUICE_OK) {
            fprintf(stderr, "durable_burst: record %ld failed: %s\n", n, sluice_status_name(st));
            exit(1);
        }
        char line[64];
        int len = snprintf(line, sizeof line, "%ld %ld\n", round_no, n);
        if (write(STDOUT_FILENO, line, (size_t)len) != len)
            exit(1);
    }
    return NULL;
}

static int open_stores(const char *dir)
{
    char path[4096];
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    snprintf(path, sizeof path, "%s/audit.jsonl", dir);
    sluice_status st = sluice_audit_open(path, &audit_log, arena, &err);
    if (st == SLUICE_OK) {
        snprintf(path, sizeof path, "%s/tokens", dir);
        st = sluice_replay_open(path, started, &replay, arena, &err);
    }
    if (st != SLUICE_OK)
        fprintf(stderr, "durable_burst: %s\n", err.message != NULL ? err.message : "open failed");
    sluice_arena_free(arena);
    return st == SLUICE_OK ? 0 : 1;
}

static int run_writers(const char *dir, int threads)
{
    if (open_stores(dir) != 0)
        return 1;
    pthread_t t[256];
    for (int i = 0; i < threads && i < 256; i++)
        if (pthread_create(&t[i], NULL, writer, NULL) != 0)
            return 1;
    pthread_join(t[0], NULL); /* never returns: the test kills us */
    return 1;
}

/* (round, n) of every burst record in the log, sorted. */
typedef struct id_set {
    uint64_t *items;
    size_t count, cap;
} id_set;

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t key_of(long round, long n)
{
    return (uint64_t)round << 40 | (uint64_t)n;
}

static int load_log(const char *dir, id_set *set)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/audit.jsonl", dir);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 1;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        json_t *rec = json_loads(line, 0, NULL);
        json_t *n = json_object_get(rec, "n");
        if (json_is_integer(n)) {
            if (set->count == set->cap) {
                set->cap = set->cap == 0 ? 4096 : set->cap * 2;
                set->items = realloc(set->items, set->cap * sizeof *set->items);
                if (set->items == NULL)
                    return 1;
            }
            set->items[set->count++] =
                key_of((long)json_integer_value(json_object_get(rec, "round")),
                       (long)json_integer_value(n));
        }
        json_decref(rec);
    }
    free(line);
    fclose(f);
    qsort(set->items, set->count, sizeof *set->items, compare_u64);
    return 0;
}

static int check(const char *dir, const char *acked_path)
{
    if (open_stores(dir) != 0) /* adopts records a crash left uncovered by the head */
        return 1;
    id_set set = { 0 };
    FILE *acked = fopen(acked_path, "r");
    if (acked == NULL || load_log(dir, &set) != 0)
        return 1;
    long round, n, checked = 0, missing = 0, replayed = 0;
    while (fscanf(acked, "%ld %ld", &round, &n) == 2) {
        uint64_t key = key_of(round, n);
        if (bsearch(&key, set.items, set.count, sizeof key, compare_u64) == NULL) {
            fprintf(stderr, "acknowledged record %ld:%ld is missing from the log\n", round, n);
            missing++;
        }
        uint8_t id[SLUICE_REPLAY_ID_BYTES];
        token_id_of(round, n, id);
        if (sluice_replay_consume(replay, id, started + EXPIRY_SECONDS, started) !=
            SLUICE_E_DENIED) {
            fprintf(stderr, "acknowledged token %ld:%ld was forgotten by the replay store\n", round,
                    n);
            replayed++;
        }
        checked++;
    }
    fclose(acked);
    printf("acknowledged %ld, burst records in the log %zu (chain %llu), missing %ld, "
           "forgotten tokens %ld\n",
           checked, set.count, (unsigned long long)sluice_audit_count(audit_log), missing,
           replayed);
    free(set.items);
    sluice_audit_close(audit_log);
    sluice_replay_close(replay);
    return checked > 0 && missing == 0 && replayed == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    started = sluice_clock_now_s(NULL);
    if (argc == 5 && strcmp(argv[1], "write") == 0) {
        round_no = strtol(argv[4], NULL, 10);
        return run_writers(argv[2], (int)strtol(argv[3], NULL, 10));
    }
    if (argc == 4 && strcmp(argv[1], "check") == 0)
        return check(argv[2], argv[3]);
    fprintf(stderr, "usage: durable_burst write DIR THREADS ROUND | check DIR ACKED\n");
    return 2;
}
